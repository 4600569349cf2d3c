"""The held-out deal sets of the gauntlet (package data; see folkcards.evaluate.storage.deal_sets)."""
