"""The one description of each game: everything else in the package asks this registry.

A :class:`GameSpec` names a game's env module, registry id, action count, player range,
episode modes with their units and metrics, observation decoder and default heuristic, and
every per-game piece the rest of the package uses as a ``"module:attr"`` hook (the record's
text form, the terminal and spectator views, the web view, the tournament scorer and
statistics, the batched engine and heuristic, the search agent, feature sets …; see
:data:`PIECES`). Generic code asks :meth:`GameSpec.piece` for them and never tests a game's
name; a variant made with ``dataclasses.replace`` inherits every piece it does not override.
Adding a third game means one new folder under ``envs/`` (rules, observation, env and a
``<name>_v0`` module, as ``docs/tutorials/add_a_game.md`` describes) and one entry in :data:`GAMES`.

>>> from folkcards.envs.registry import game_spec
>>> spec = game_spec("tri-palki")
>>> spec.name, spec.num_actions, spec.check_players(5)
('tri_palki', 13, 5)
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any

from .paston.rules import NUM_ACTIONS as PASTON_NUM_ACTIONS
from .tri_palki.rules import MAX_PLAYERS as TRI_PALKI_MAX_PLAYERS
from .tri_palki.rules import MIN_PLAYERS as TRI_PALKI_MIN_PLAYERS
from .tri_palki.rules import NUM_ACTIONS as TRI_PALKI_NUM_ACTIONS


@dataclass(frozen=True)
class EpisodeMode:
    """One value of a game's ``episode`` option and how a tournament scores it."""

    name: str  # the env's ``episode=`` value
    unit: str  # what one tournament unit is called ("deal", "game", "round", "match")
    metric: str  # what a seat's score means, for reports
    multi: bool  # several deals / rounds in one episode (game, match)


# Every per-game piece a GameSpec can name: field -> (what it is, for messages; required).
# A required piece must be set for every game (tests/test_every_game.py checks it); an optional
# one left as None means the game does not support that command, which then says so in one line.
PIECES: dict[str, tuple[str, bool]] = {
    "heuristic": ("default heuristic agent", True),
    "text_format": ("text record form", True),
    "terminal_view": ("terminal view (folkcards play)", True),
    "spectator": ("spectator view (folkcards watch)", True),
    "web_view": ("web table view", True),
    "tournament_scorer": ("tournament scorer", True),
    "statistics": ("behaviour statistics", True),
    "score_sheet": ("score sheet", False),
    "batched_engine": ("batched engine", False),
    "batched_heuristic": ("batched heuristic", False),
    "search_agent": ("search agent (pimc)", False),
    "expert_agent": ("expert agent (the strongest player)", False),
    "montecarlo_agent": ("one-ply Monte Carlo baseline (montecarlo)", False),
    "iterated_agent": ("iterated search agent (iterated)", False),
    "deal_options": ("reset options of a record's deal (the gauntlet's deal sets)", False),
    "observation_size": ("observation size by table size", False),
    "size_adapter": ("table size adapter for trained models", False),
    "open_hand_analysis": ("open-hand analysis of a record's play", False),
    "open_hand_solver": ("open-hand solver of the card play", False),
    "endgame_search": ("endgame search of the distilled player", False),
    "learned_calls": ("learned calls of the distilled player", False),
    "unsure_search": ("search where the distilled player's network is unsure", False),
    "explicit_chance": ("explicit chance events of a deal (OpenSpiel binding)", False),
    "belief": ("belief sampler (hidden cards consistent with a seat's view)", False),
    "expert_iteration": ("expert-iteration loop (folkcards iterate)", False),
}


# The layer (top-level subpackage) each hook of a GameSpec must point into: a hook is an import
# written as a string, which the import contracts of pyproject.toml cannot see, so
# tests/test_registry_layers.py checks every game's hooks against this table.
HOOK_LAYERS: dict[str, str] = {
    "module": "envs",
    "heuristic": "agents",
    "observation_offsets": "envs",
    "text_format": "envs",
    "score_sheet": "envs",
    "terminal_view": "play",
    "spectator": "play",
    "web_view": "web",
    "tournament_scorer": "evaluate",
    "statistics": "evaluate",
    "batched_engine": "envs",
    "batched_heuristic": "agents",
    "search_agent": "agents",
    "expert_agent": "agents",
    "open_hand_analysis": "evaluate",
    "open_hand_solver": "search",
    "observation_size": "envs",
    "size_adapter": "agents",
    "feature_sets": "agents",
    "endgame_search": "agents",
    "learned_calls": "agents",
    "unsure_search": "agents",
    "explicit_chance": "envs",
    "montecarlo_agent": "agents",
    "iterated_agent": "agents",
    "deal_options": "evaluate",
    "belief": "search",
    "expert_iteration": "train",
}


class UnsupportedError(ValueError):
    """A game does not have the piece a command needs (one line: "x has no batched engine")."""


def resolve(hook: str) -> Any:
    """The object a ``"module:attr"`` hook names (``ValueError`` if it does not exist)."""
    module_name, _, attr = hook.partition(":")
    try:
        return getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"hook {hook!r} does not resolve: {exc}") from None


@dataclass(frozen=True)
class GameSpec:
    """Everything the package needs to know about one game, written once."""

    name: str  # canonical name, also the agents' ``game`` argument
    title: str  # for people
    aliases: tuple[str, ...]
    module: str  # the public, versioned env module
    env_id: str  # PettingZoo registry id
    num_actions: int
    min_players: int
    max_players: int
    default_players: int
    modes: tuple[EpisodeMode, ...]
    higher_is_better: bool  # of the per-seat score
    heuristic: str  # "module:Class" of the default rule-based agent
    round_word: str = field(default="deal")  # "deal" or "round": what one hand of play is called
    # "module:function" giving the start index of each named observation piece for n players
    observation_offsets: str | None = None
    # the observation piece that only counts turns (a clock, not part of the position), if any
    turn_counter: str | None = None
    # a variant's base game: same actions, observation layout and masks, so the base game's
    # agents, feature sets and trained models can act in it (None for a game of its own)
    base_game: str | None = None
    # --- the per-game pieces, each a "module:attr" hook (see PIECES); None: not supported ---
    text_format: str | None = None  # envs: a text_format.TextFormat (units key, line writer)
    score_sheet: str | None = None  # envs: record, players -> the paper score sheet
    terminal_view: str | None = None  # play: the SeatView class of `folkcards play`
    spectator: str | None = None  # play: the Spectator class of `folkcards watch`
    web_view: str | None = None  # web: a views.WebLayout
    tournament_scorer: str | None = None  # evaluate: (mode, seats, record, infos) -> results
    statistics: str | None = None  # evaluate: a statistics.behaviour.GameStatistics
    batched_engine: str | None = None  # envs: (num_envs, **env_kwargs) -> batched engine
    batched_heuristic: str | None = None  # agents: (num_players) -> batched heuristic
    search_agent: str | None = None  # agents: the `pimc` factory (game, seat, seed, arg)
    expert_agent: str | None = None  # agents: the `expert` factory (game, seat, seed, arg)
    montecarlo_agent: str | None = None  # agents: the `montecarlo` factory (same arguments)
    iterated_agent: str | None = None  # agents: the `iterated` factory (same arguments)
    # train: `folkcards iterate` from a config file,
    # (path, run_dir, generations, log, show_progress) -> (generations gated, generations, run dir)
    expert_iteration: str | None = None
    deal_options: str | None = None  # evaluate: (record) -> reset options of its first deal
    # evaluate: (record) -> per deal, each card's and the contract's open-hand loss
    open_hand_analysis: str | None = None
    # search: the open-hand solver class of the card play (the bidding variant scores its deals
    # with it instead of playing them)
    open_hand_solver: str | None = None
    observation_size: str | None = None  # envs: num_players -> observation length
    size_adapter: str | None = None  # agents: a trained model's table-size adapter
    feature_sets: tuple[str, ...] = ()  # agents: "module:attr" of each FeatureSet it offers
    # agents: (game, seat, seed, cards, samples) -> the search that finishes the distilled
    # player's deals (``act(observation) -> action or None``; None: the network decides)
    endgame_search: str | None = None
    # agents: (game, seat, seed) -> the learned model that makes the distilled player's calls
    # (bids, contract, ...; same protocol as endgame_search; None: the network makes them)
    learned_calls: str | None = None
    # agents: (game, seat, seed, threshold) -> the search that takes the distilled player's
    # decisions where its network's first choice has probability under ``threshold``
    # (``takes(observation, probabilities)``, ``observe(observation, action)`` for the
    # decisions it does not take, ``act(observation) -> action``, ``reset()``, ``reseed(seed)``)
    unsure_search: str | None = None
    # envs: (env, dealer) -> the chance events of one deal or round, each with its probability,
    # for the single-deal episode (``outcomes()``, ``apply(outcome)``, ``ready(env, action)``,
    # ``reset(env)``; folkcards.openspiel makes the game an OpenSpiel game from it)
    explicit_chance: str | None = None
    # search: a belief.BeliefSampler (public_context(env, seat), sample_worlds(obs, n, rng, ...))
    belief: str | None = None
    # the agent specs this game offers, each playable as written (tests/test_every_game.py
    # plays every one); other kinds are refused for this game in one line
    agents: tuple[str, ...] = ("random", "heuristic")
    # the agent a person meets by default at the web table, one of ``agents``: the strongest
    # player that answers at once
    table_opponent: str = "heuristic"

    @property
    def fixed_players(self) -> bool:
        return self.min_players == self.max_players

    @property
    def table_sizes(self) -> tuple[int, ...]:
        """Every table size this game is played at."""
        return tuple(range(self.min_players, self.max_players + 1))

    @property
    def mode_names(self) -> tuple[str, ...]:
        return tuple(mode.name for mode in self.modes)

    def mode(self, name: str) -> EpisodeMode:
        """The episode mode called ``name``; ``ValueError`` naming the game's modes otherwise."""
        for mode in self.modes:
            if mode.name == name:
                return mode
        raise ValueError(
            f"{self.name} has episode modes {', '.join(self.mode_names)}, not {name!r}"
        )

    def check_players(self, num_players: Any) -> int:
        """``num_players`` as an int if this game can be played by that many; else ``ValueError``."""
        if (
            isinstance(num_players, bool)
            or not isinstance(num_players, int)
            or not self.min_players <= num_players <= self.max_players
        ):
            if self.fixed_players:
                raise ValueError(
                    f"{self.name} is played by exactly {self.min_players} players, "
                    f"got {num_players!r}"
                )
            raise ValueError(
                f"{self.name} is played by {self.min_players} to {self.max_players} players, "
                f"got {num_players!r}"
            )
        return int(num_players)

    def piece(self, name: str) -> Any:
        """The object of the piece ``name`` (a field of :data:`PIECES`); ``UnsupportedError``
        ("paston_bidding has no batched engine") if this game has none."""
        what = PIECES[name][0]
        hook = getattr(self, name)
        if hook is None:
            raise UnsupportedError(f"{self.name} has no {what}")
        return resolve(hook)

    def check_pieces(self) -> None:
        """``ValueError`` naming every required piece this game lacks and every hook that does
        not resolve (what a new registry entry must still provide)."""
        problems = []
        for name, (what, required) in PIECES.items():
            hook = getattr(self, name)
            if hook is None:
                if required:
                    problems.append(f"no {what} ({name})")
                continue
            try:
                resolve(hook)
            except ValueError as exc:
                problems.append(f"{what} ({name}): {exc}")
        for hook in self.feature_sets:
            try:
                resolve(hook)
            except ValueError as exc:
                problems.append(f"feature set: {exc}")
        if self.table_opponent not in self.agents:
            problems.append(f"table_opponent {self.table_opponent!r} is not one of its agents")
        if problems:
            raise ValueError(f"game {self.name!r} is incomplete: " + "; ".join(problems))

    def has(self, name: str) -> bool:
        """Whether this game has the piece ``name``."""
        return getattr(self, name) is not None

    @property
    def family(self) -> str:
        """The game whose agents, models and feature sets act here: the base game, or itself."""
        return self.base_game or self.name

    def table_size(self, num_players: int | None = None, seats_named: int = 0) -> int:
        """The table size of a command: ``num_players`` if given (checked); else, for a game
        with a choice of size, one per named agent when more than one is named; else the
        default. ``ValueError`` (one line) for a size this game is not played at."""
        if num_players is not None:
            return self.check_players(num_players)
        if not self.fixed_players and seats_named > 1:
            return self.check_players(seats_named)
        return self.default_players

    def turn_counter_index(self, num_players: int) -> int | None:
        """Index of the observation's turn counter for ``num_players``; ``None`` if it has none."""
        if self.observation_offsets is None or self.turn_counter is None:
            return None
        module, _, function = self.observation_offsets.partition(":")
        offsets = getattr(importlib.import_module(module), function)(num_players)
        return int(offsets[self.turn_counter])

    def env_module(self) -> ModuleType:
        """The public env module (``folkcards.envs.paston_v0`` …)."""
        return importlib.import_module(self.module)

    def env_kwargs(self, num_players: int | None = None, **kwargs: Any) -> dict[str, Any]:
        """Keyword arguments for ``raw_env``: ``num_players`` only for games whose env takes it
        (a variant may fix the size of a game whose env takes any)."""
        if not self.fixed_players or self._env_takes_players():
            kwargs["num_players"] = self.check_players(
                self.default_players if num_players is None else num_players
            )
        elif num_players is not None:
            self.check_players(num_players)
        return kwargs

    def _env_takes_players(self) -> bool:
        return "num_players" in inspect.signature(self.env_module().raw_env).parameters

    def raw_env(self, num_players: int | None = None, **kwargs: Any) -> Any:
        """A new ``raw_env`` of this game."""
        return self.env_module().raw_env(**self.env_kwargs(num_players, **kwargs))

    def decode(self, vector: Any, num_players: int | None = None) -> Any:
        """The named pieces of an observation vector (the env module's ``decode``)."""
        module = self.env_module()
        if self.fixed_players:
            return module.decode(vector)
        return module.decode(vector, num_players)

    def replay(self, record: dict[str, Any]) -> Any:
        """Rebuild an env from one of its records (the env module's ``replay``)."""
        return self.env_module().replay(record)

    def record_units(self, record: dict[str, Any]) -> list[dict[str, Any]]:
        """The deals or rounds of one of this game's records, in order (the record key its
        text format names; ``[]`` before the first is dealt)."""
        return list(record.get(self.piece("text_format").units_key) or [])


PASTON = GameSpec(
    name="paston",
    title="Paston",
    aliases=("paston",),
    module="folkcards.envs.paston_v0",
    env_id="folkcards/paston-v0",
    num_actions=PASTON_NUM_ACTIONS,
    min_players=3,
    max_players=3,
    default_players=3,
    modes=(
        EpisodeMode("deal", "deal", "table score per deal", multi=False),
        EpisodeMode("game", "game", "table score per deal", multi=True),
    ),
    higher_is_better=True,
    heuristic="folkcards.agents.paston_heuristic:PastonHeuristicAgent",
    round_word="deal",
    text_format="folkcards.envs.paston.notation:PASTON_TEXT",
    score_sheet="folkcards.envs.paston.notation:paston_score_sheet",
    terminal_view="folkcards.play.paston_view:PastonTable",
    spectator="folkcards.play.paston_spectator:PastonSpectator",
    web_view="folkcards.web.paston_web_view:PASTON_VIEW",
    tournament_scorer="folkcards.evaluate.scoring:score_paston",
    statistics="folkcards.evaluate.statistics.paston_behaviour:PASTON_STATISTICS",
    batched_engine="folkcards.envs.paston_v0:vector_env",
    batched_heuristic="folkcards.agents.paston_heuristic_batched:BatchedPastonHeuristic",
    search_agent="folkcards.agents.pimc:make_pimc_agent",
    expert_agent="folkcards.agents.paston_expert:make_expert_agent",
    expert_iteration="folkcards.train.paston_iterate:iterate_from_config",
    montecarlo_agent="folkcards.agents.paston_montecarlo:make_paston_montecarlo",
    deal_options="folkcards.evaluate.storage.deal_sets:paston_deal",
    open_hand_analysis="folkcards.evaluate.statistics.paston_open_hand_analysis:analyse_record",
    open_hand_solver="folkcards.search.paston_solver:PastonSolver",
    feature_sets=("folkcards.agents.paston_features:PASTON_CARDS",),
    endgame_search="folkcards.agents.pimc:PastonEndgameSearch",
    learned_calls="folkcards.agents.paston_expert:PastonLearnedCalls",
    belief="folkcards.search.paston_belief:SAMPLER",
    explicit_chance="folkcards.envs.paston.chance:PastonChance",
    agents=(
        "random",
        "heuristic",
        "pimc",
        "expert",
        "ppo",
        "rllib:paston",
        "distilled",
    ),
    table_opponent="distilled",
)

GAMES: dict[str, GameSpec] = {
    "paston": PASTON,
    "tri_palki": GameSpec(
        name="tri_palki",
        title="Tri Palki",
        aliases=("tri_palki", "tri-palki", "tripalki", "tri palki"),
        module="folkcards.envs.tri_palki_v0",
        env_id="folkcards/tri_palki-v0",
        num_actions=TRI_PALKI_NUM_ACTIONS,
        min_players=TRI_PALKI_MIN_PLAYERS,
        max_players=TRI_PALKI_MAX_PLAYERS,
        default_players=4,
        modes=(
            EpisodeMode("round", "round", "sticks per round", multi=False),
            EpisodeMode("match", "match", "sticks per round", multi=True),
        ),
        higher_is_better=False,
        heuristic="folkcards.agents.tri_palki_heuristic:TriPalkiHeuristicAgent",
        round_word="round",
        observation_offsets="folkcards.envs.tri_palki.observation:observation_offsets",
        turn_counter="turns",
        text_format="folkcards.envs.tri_palki.notation:TRI_PALKI_TEXT",
        terminal_view="folkcards.play.tri_palki_view:TriPalkiTable",
        spectator="folkcards.play.tri_palki_spectator:TriPalkiSpectator",
        web_view="folkcards.web.tri_palki_web_view:TRI_PALKI_VIEW",
        tournament_scorer="folkcards.evaluate.scoring:score_tri_palki",
        statistics="folkcards.evaluate.statistics.tri_palki_behaviour:TRI_PALKI_STATISTICS",
        batched_engine="folkcards.envs.tri_palki_v0:vector_env",
        batched_heuristic="folkcards.agents.tri_palki_heuristic_batched:BatchedTriPalkiHeuristic",
        search_agent="folkcards.agents.tri_palki_search:make_tri_palki_search_agent",
        expert_agent="folkcards.agents.tri_palki_net_search:make_tri_palki_expert_agent",
        montecarlo_agent="folkcards.agents.tri_palki_montecarlo:make_tri_palki_montecarlo",
        iterated_agent="folkcards.agents.tri_palki_net_search:make_net_search_agent",
        expert_iteration="folkcards.train.tri_palki_iterate.cli:iterate_from_config",
        deal_options="folkcards.evaluate.storage.deal_sets:tri_palki_deal",
        observation_size="folkcards.envs.tri_palki.observation:observation_size",
        size_adapter="folkcards.agents.size_adapter:SIZE_ADAPTER",
        feature_sets=("folkcards.agents.features:TRI_PALKI_ACTIONS",),
        unsure_search="folkcards.agents.tri_palki_unsure_search:TriPalkiUnsureSearch",
        belief="folkcards.search.tri_palki_belief:SAMPLER",
        explicit_chance="folkcards.envs.tri_palki.chance:TriPalkiChance",
        agents=("random", "heuristic", "pimc", "expert", "ppo", "distilled"),
        table_opponent="distilled",
    ),
    # A research variant: Paston's decisions before the play, the tricks from the open-hand
    # solver (folkcards.envs.paston_bidding_v0). Its records, views, scoring, statistics,
    # pimc and batched heuristic are Paston's (same actions, observations and deal records);
    # its batched engine draws deals from an open-hand table and scores them by lookup.
    "paston_bidding": replace(
        PASTON,
        name="paston_bidding",
        title="Paston bidding (tricks from the open-hand solver)",
        aliases=("paston_bidding", "paston-bidding", "paston bidding"),
        module="folkcards.envs.paston_bidding_v0",
        env_id="folkcards/paston-bidding-v0",
        heuristic="folkcards.agents.paston_bidding_heuristic:PastonBiddingHeuristicAgent",
        base_game="paston",
        batched_engine="folkcards.envs.paston_bidding_v0:vector_env",
        open_hand_analysis=None,  # no card is played: the solver scores the tricks
        montecarlo_agent=None,  # its rollouts would play cards the variant never plays
        endgame_search=None,
        expert_iteration=None,  # the loop plays whole deals
        # ppo plays the committed bidder trained on open-hand tables (paston_bidding_ppo.zip);
        # ppo:paston and rllib:paston play Paston's committed models (the same observations)
        agents=("random", "heuristic", "pimc", "expert", "ppo", "rllib:paston", "distilled"),
    ),
}

# Tri Palki with two players and ten cards, small enough for exact computation
# (folkcards.envs.tri_palki_tiny_v0): Tri Palki's actions, observation, records and views; no
# batched engine, and only the agents that make no assumption about the deck.
GAMES["tri_palki_tiny"] = replace(
    GAMES["tri_palki"],
    name="tri_palki_tiny",
    title="Tri Palki tiny (2 players, 10 cards)",
    aliases=("tri_palki_tiny", "tri-palki-tiny"),
    module="folkcards.envs.tri_palki_tiny_v0",
    env_id="folkcards/tri_palki_tiny-v0",
    min_players=2,
    max_players=2,
    default_players=2,
    base_game="tri_palki",
    batched_engine=None,
    batched_heuristic=None,
    # pimc and montecarlo value every world of the ten-card deck (the belief piece lists
    # them), not a sample
    search_agent="folkcards.agents.tri_palki_search:make_tri_palki_tiny_search_agent",
    expert_agent=None,
    unsure_search=None,
    montecarlo_agent="folkcards.agents.tri_palki_montecarlo:make_tri_palki_tiny_montecarlo",
    iterated_agent=None,
    expert_iteration=None,
    belief="folkcards.search.tri_palki_belief:TINY_SAMPLER",  # every world of the ten cards
    deal_options=None,  # its ten-card deals are not the full game's held-out deal sets
    explicit_chance="folkcards.envs.tri_palki.chance:TriPalkiTinyChance",
    agents=("random", "heuristic", "pimc"),  # montecarlo plays it too, as a baseline
    table_opponent="heuristic",
)

# Paston with seven cards and two tricks, small enough for exact computation
# (folkcards.envs.paston_tiny_v0): Paston's actions, observation, records and views; its own
# belief sampler (every deal of the seven cards), and Paston's open-hand solver and pimc,
# which read the variant's sizes; the batched engine and the trained players are full-size only.
GAMES["paston_tiny"] = replace(
    PASTON,
    name="paston_tiny",
    title="Paston tiny (7 cards, 2 tricks)",
    aliases=("paston_tiny", "paston-tiny"),
    module="folkcards.envs.paston_tiny_v0",
    env_id="folkcards/paston_tiny-v0",
    base_game="paston",
    batched_engine=None,
    batched_heuristic=None,
    expert_agent=None,
    expert_iteration=None,
    montecarlo_agent=None,
    deal_options=None,  # its seven-card deals are not the full game's held-out deal sets
    open_hand_analysis=None,
    endgame_search=None,
    learned_calls=None,
    belief="folkcards.search.paston_tiny_belief:TINY_SAMPLER",
    explicit_chance="folkcards.envs.paston.chance:PastonTinyChance",
    agents=("random", "heuristic", "pimc"),
    table_opponent="heuristic",
)

GAME_NAMES: tuple[str, ...] = tuple(GAMES)

_ALIASES = {alias: spec.name for spec in GAMES.values() for alias in (spec.name, *spec.aliases)}


def canonical_game(name: Any) -> str:
    """``"tri-palki"`` → ``"tri_palki"``; ``ValueError`` naming the games for an unknown one."""
    key = str(name).strip().lower()
    if key not in _ALIASES:
        raise ValueError(f"unknown game {name!r}; choose from {', '.join(GAME_NAMES)}")
    return _ALIASES[key]


def game_spec(name: Any) -> GameSpec:
    """The :class:`GameSpec` of a game given by its name or an alias."""
    return GAMES[canonical_game(name)]


def register_game(spec: GameSpec) -> GameSpec:
    """Add a game, or a variant made with ``dataclasses.replace`` of an entry, to the registry.

    Every command then plays it by name (tournaments, play, watch, records, the web table), and
    PettingZoo's ``make`` knows its ``env_id``. ``ValueError`` (one line) if its name or an
    alias is taken, or if a required piece is missing or a hook does not resolve
    (:meth:`GameSpec.check_pieces`); nothing is registered then. Worker processes (tournaments
    with ``--workers`` above 1) start afresh and import the caller's script again: register the
    game at the script's top level (outside its ``__main__`` guard), so they register it too.
    """
    global GAME_NAMES, GAMES_HELP
    if not isinstance(spec, GameSpec):
        raise ValueError(f"register_game takes a GameSpec, got {type(spec).__name__}")
    taken = [name for name in (spec.name, *spec.aliases) if name in _ALIASES]
    if taken:
        raise ValueError(f"game name or alias {taken[0]!r} is registered already")
    spec.check_pieces()
    GAMES[spec.name] = spec
    _ALIASES.update({alias: spec.name for alias in (spec.name, *spec.aliases)})
    GAME_NAMES = tuple(GAMES)
    GAMES_HELP = _games_help()
    from pettingzoo.env_registry.registration import aec_registry, register

    if spec.env_id not in aec_registry:
        register("aec", spec.env_id, entry_point=f"{spec.module}:env")
    return spec


def _games_help() -> str:
    return f"{', '.join(GAME_NAMES[:-1])} or {GAME_NAMES[-1]} (aliases such as tri-palki accepted)"


DEFAULT_GAME: str = GAME_NAMES[0]  # the game a command plays when none is named
# how every command's help names the games
GAMES_HELP: str = _games_help()


__all__ = [
    "register_game",
    "DEFAULT_GAME",
    "GAMES",
    "GAMES_HELP",
    "GAME_NAMES",
    "HOOK_LAYERS",
    "PIECES",
    "EpisodeMode",
    "GameSpec",
    "UnsupportedError",
    "canonical_game",
    "game_spec",
    "resolve",
]
