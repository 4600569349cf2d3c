"""Terminal play for a person, and watching agents or stored games (``folkcards play``,
``folkcards watch``, ``folkcards demo``).

- :mod:`~folkcards.play.session`: :class:`~folkcards.play.session.Session`, a person against
  agents; the person is an agent whose ``act`` asks them, and the one episode loop
  (:func:`folkcards.agents.episode.advance`) plays the table.
- :mod:`~folkcards.play.paston_view`, :mod:`~folkcards.play.tri_palki_view`: each game from one
  seat (what the seat may know, typed moves, ``rules`` summaries of the phase).
- :mod:`~folkcards.play.paston_explain`, :mod:`~folkcards.play.tri_palki_explain`: the line
  under each deal or round that explains its score.
- :mod:`~folkcards.play.watch`: a spectator's narration with every card face up, of agents
  playing now or of a record (a file, or a unit stored by a tournament); each game's narration
  is :mod:`~folkcards.play.paston_spectator`, :mod:`~folkcards.play.tri_palki_spectator`.
- :mod:`~folkcards.play.cli`: the three subcommands' arguments.
"""
