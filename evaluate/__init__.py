"""folkcards.evaluate: fair tournaments between agents, their statistics, reports and plots.

From the bottom up (each part imports only those above it in this list; no import cycle,
``scripts/lint_imports.py``):

- :mod:`.config` — the tournament's YAML / command-line configuration (``ConfigError`` and
  ``load_yaml`` come from :mod:`folkcards.errors`, shared with training); :mod:`.arguments` —
  one-line command-line errors; :mod:`.formatting` — how numbers are written; :mod:`.plot` —
  THE plotting style; :mod:`.scoring` — how a finished episode is scored per seat.
- :mod:`.storage` — what a tournament keeps: the SQLite database, agent versions, the shipped
  deal sets of the gauntlet.
- :mod:`.statistics` — THE confidence intervals (:mod:`.statistics.intervals`) and the registered
  statistics, each one piece (compute, method note, CSV columns, plot, terminal table, report
  section): scores with ratings, head to head, behaviour, seat effects, open-hand accuracy,
  decision times; a game's own counters are its registry pieces (``paston_behaviour`` …).
- :mod:`.running` — seeds and units, where they are played (here, worker processes, Ray),
  :func:`~.running.runner.run`, replaying a stored tournament (``--verify``), progress.
- :mod:`.reports` — terminal tables and files, ``report.md`` (``folkcards report``), control
  variates.
- :mod:`.tournament` — the ``folkcards tournament`` command.
- :mod:`.benchmarks` — the gauntlet and the bidding benchmarks, each with its command.
- :mod:`.pages` — the generated agents' page and leaderboard.

Submodules are imported on use, so ``import folkcards.evaluate`` stays light.
"""
