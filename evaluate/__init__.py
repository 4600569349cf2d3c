"""folkcards.evaluate: fair tournaments between agents, and a person at the table.

- :mod:`.tournament` — duplicate-play tournaments (``folkcards tournament``): units, seeds,
  parallel workers, resuming, :func:`~.tournament.run` and :func:`~.tournament.verify_records`.
- :mod:`.config` — the YAML / command-line configuration and its validation.
- :mod:`.storage` — the SQLite database (one committed row per finished episode, with its record).
- :mod:`.stats` — t intervals paired by deal, head to head, Wilson intervals.
- :mod:`.report`, :mod:`.plot` — terminal tables, CSV / JSON export, the PNG plot.
- :mod:`.games` — how one episode of each game is played and scored.
- :mod:`.play` — terminal play for a person (``folkcards play``).

Submodules are imported on use, so ``import folkcards.evaluate`` stays light.
"""
