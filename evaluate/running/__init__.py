"""Playing a tournament: seeds and units, where they are played, the run, the replay check.

- :mod:`.units` — seeds and unit keys, playing one unit (typed :class:`~.units.PlayedUnit`).
- :mod:`.workers`, :mod:`.processes`, :mod:`.ray_backend` — where units are played: here,
  worker processes, Ray.
- :mod:`.runner` — :func:`~.runner.run`: play the missing units, store them, compute the results.
- :mod:`.verify` — replay a stored tournament and compare (``--verify``).
- :mod:`.method` — the fairness note of the report; :mod:`.progress` — progress bars and logs.
"""
