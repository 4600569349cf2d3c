"""folkcards.evaluate: fair tournaments between agents, their statistics, reports and plots.

One job per module, from the bottom up (no import cycle; ``docs/extending.md``):

- :mod:`.config` — the YAML / command-line configuration (``ConfigError`` and ``load_yaml`` come
  from :mod:`folkcards.errors`, shared with training).
- :mod:`.games` — how a finished episode of each game is scored per seat.
- :mod:`.units` — seeds and unit keys, playing one unit (typed :class:`~.units.PlayedUnit`).
- :mod:`.workers`, :mod:`.ray_backend` — where units are played: here, worker processes, Ray.
- :mod:`.storage` — the SQLite database (one committed row per finished episode, with its record).
- :mod:`.stats` — THE confidence intervals: t intervals paired by deal, head to head, Wilson,
  the bootstrap over deals.
- :mod:`.behaviour` — how each agent plays, counted from the stored records (replayed through
  the rules), and seat effects by position relative to the dealer.
- :mod:`.statistics` — the registered statistics, each one piece (compute, method note, CSV
  columns, plot, terminal table, report section): scores with ratings, head to head,
  behaviour, seat effects, decision times.
- :mod:`.runner` — :func:`~.runner.run`: play the missing units, store them, compute the results.
- :mod:`.verify` — replay a stored tournament and compare (``--verify``).
- :mod:`.method`, :mod:`.versions`, :mod:`.formatting` — the fairness note, agent versions, how
  numbers are written.
- :mod:`.report`, :mod:`.plot` — terminal tables, CSV / JSON export; THE plotting style.
- :mod:`.document` — ``report.md`` per tournament and ``folkcards report --db FILE``.
- :mod:`.tournament` — the ``folkcards tournament`` command (re-exports the public names above).

Submodules are imported on use, so ``import folkcards.evaluate`` stays light.
"""
