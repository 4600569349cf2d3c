"""The generated documentation pages: the agents' page and the gauntlet's leaderboard.

- :mod:`.agents` — ``docs/agents.md``: every shipped agent of every game, side by side.
- :mod:`.leaderboard` — every stored gauntlet row as a page.
"""
