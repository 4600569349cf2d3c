"""folkcards.evaluate: fair tournaments between agents, their statistics, reports and plots.

- :mod:`.tournament` — duplicate-play tournaments (``folkcards tournament``): units, seeds,
  parallel workers, resuming, :func:`~.tournament.run` and :func:`~.tournament.verify_records`.
- :mod:`.config` — the YAML / command-line configuration (``ConfigError`` and ``load_yaml`` come
  from :mod:`folkcards.errors`, shared with training).
- :mod:`.storage` — the SQLite database (one committed row per finished episode, with its record).
- :mod:`.stats` — THE confidence intervals: t intervals paired by deal, head to head, Wilson,
  the bootstrap over deals.
- :mod:`.behaviour` — how each agent plays, counted from the stored records (replayed through
  the rules): Paston bidding, contracts, whists; Tri Palki swaps, announcements, washes, places;
  seat effects by position relative to the dealer.
- :mod:`.report`, :mod:`.plot` — terminal tables, CSV / JSON export; THE plotting style.
- :mod:`.document` — ``report.md`` per tournament and ``folkcards report --db FILE``.
- :mod:`.games` — how a finished episode of each game is scored per seat.

Submodules are imported on use, so ``import folkcards.evaluate`` stays light.
"""
