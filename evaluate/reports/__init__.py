"""What a tournament shows: terminal tables and files, ``report.md``, the control variates.

- :mod:`.export` — rich tables in the terminal, ``results.json``, the CSVs and the plots.
- :mod:`.document` — ``report.md`` per tournament and ``folkcards report --db FILE``.
- :mod:`.variance` — fewer deals for the same answer: cross-fitted control variates.
"""
