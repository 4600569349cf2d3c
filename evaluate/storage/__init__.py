"""What a tournament keeps: the SQLite database, the agents' versions, the shipped deal sets.

- :mod:`.database` — one committed row per finished episode, with its record (``Store``).
- :mod:`.versions` — what fixes an agent's behaviour, recorded with every run.
- :mod:`.deal_sets` — the held-out deal sets of the gauntlet (package data in ``gauntlet_data``).
"""
