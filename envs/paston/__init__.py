"""Paston: the rules engine (:mod:`.rules`), observation encoding (:mod:`.observation`) and AEC env (:mod:`.env`)."""
