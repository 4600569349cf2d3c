"""Tournament configuration: read a YAML file and/or command-line arguments, validate, resolve.

A YAML config (``configs/tournament/paston.yaml``)::

    game: paston                 # paston | tri_palki (tri-palki also accepted)
    agents: [heuristic, random, random]   # agent specs; or {name: ..., spec: ...} mappings
    deals: 300                   # or rounds: (Tri Palki) | games: (Paston game mode) | matches:
    seed: 2024                   # the tournament seed (default 0)
    workers: 2                   # worker processes (default: all cores); results do not depend on it
    out: results/tournament/paston   # output folder (default results/<game>)
    db: results/tournament/paston/tournament.sqlite   # default <out>/tournament.sqlite
    num_players: 4               # Tri Palki only (default: the number of agents)

Relative paths are relative to the current directory. Command-line arguments override the file.
Every problem raises :class:`ConfigError` with a one-line message.
"""

from __future__ import annotations

import difflib
import math
import os
from dataclasses import dataclass, field
from itertools import combinations, permutations
from pathlib import Path
from typing import Any

from folkcards.envs.registry import GAMES, GameSpec, game_spec

from folkcards.errors import ConfigError, load_yaml


def _plural(word: str) -> str:
    return word + ("es" if word.endswith(("ch", "sh", "s", "x")) else "s")


# count key -> whether it counts multi-hand episodes: "deals" and "games" always, plus the
# plural of every registered game's units ("rounds", "matches" …)
COUNT_KEYS = {
    "deals": False,
    "games": True,
    **{_plural(mode.unit): mode.multi for spec in GAMES.values() for mode in spec.modes},
}
KEYS = (
    "game",
    "agents",
    *COUNT_KEYS,
    "seed",
    "workers",
    "out",
    "db",
    "num_players",
    "seating",
    "open_hand",
)
SEATINGS = ("auto", "permutations", "rotations", "mirrored")  # the ``seating`` key's values
SEATING_RULES = {
    "permutations": "all permutations",
    "rotations": "cyclic rotations",
    "mirrored": "cyclic rotations in both directions",
}
MAX_PERMUTED_SEATS = 4  # up to this many seats every seat assignment is played; beyond, rotations
MAX_UNITS = 50_000_000
FORMAT_VERSION = 1


def same_agent(a: str, b: str, game: str) -> bool:
    """Whether two specs name the same agent of ``game`` (``ppo`` and ``ppo:paston`` do: a
    spec's argument naming its own game is the packaged model)."""
    return a.removesuffix(f":{game}") == b.removesuffix(f":{game}")


@dataclass(frozen=True)
class Entrant:
    name: str
    spec: str


@dataclass
class TournamentConfig:
    """A validated tournament. ``identity()`` is what must match to resume a stored tournament."""

    game: str
    mode: str  # paston: deal | game; tri_palki: round | match
    count: int  # deals, rounds, games or matches
    seed: int
    agents: list[Entrant]
    num_players: int
    workers: int = field(default_factory=lambda: default_workers())
    out: Path = Path("results")
    db: Path | None = None
    seating: str = "auto"  # auto: permutations up to MAX_PERMUTED_SEATS seats, else rotations
    # a run option like workers (not part of identity()): analyse the play open-handed as the
    # units are played; off, `folkcards report --db` computes it later from the records
    open_hand: bool = True
    # deal ``d`` is deal ``d`` of this shipped deal set (:mod:`.storage.deal_sets`, e.g. "gauntlet-v1")
    # instead of the one its seed deals; None: dealt from the seed
    deal_set: str | None = None

    @property
    def db_path(self) -> Path:
        return self.db if self.db is not None else self.out / "tournament.sqlite"

    @property
    def seats(self) -> int:
        return self.num_players

    @property
    def seating_rule(self) -> str:
        if self.seating != "auto":
            return SEATING_RULES[self.seating]
        return default_seating_rule(self.seats)

    def lineups(self) -> list[tuple[int, ...]]:
        """Every combination of ``seats`` entrants (indexes into ``agents``), in order."""
        return list(combinations(range(len(self.agents)), self.seats))

    def seatings(self) -> list[tuple[int, ...]]:
        """Seat assignments of a line-up: ``seating[seat]`` is a position in the line-up.

        All permutations for up to 4 seats; for more seats, or with ``seating="rotations"``, the
        cyclic rotations (every entrant sits in every seat once per deal, their clockwise order
        fixed, so each entrant always acts right after the same one); with
        ``seating="mirrored"`` those rotations and the rotations of the reversed order (every
        entrant in every seat twice, acting after each of its two neighbours equally often: two
        entrants compared are not favoured by who acts before them).
        """
        n = self.seats
        if self.seating_rule == SEATING_RULES["permutations"]:
            return list(permutations(range(n)))
        rotations = [tuple((seat + shift) % n for seat in range(n)) for shift in range(n)]
        if self.seating_rule != SEATING_RULES["mirrored"]:
            return rotations
        mirrored = [tuple((shift - seat) % n for seat in range(n)) for shift in range(n)]
        return list(dict.fromkeys(rotations + mirrored))  # two seats: the same two seatings

    @property
    def units_per_deal(self) -> int:
        return len(self.lineups()) * len(self.seatings())

    @property
    def total_units(self) -> int:
        return self.count * self.units_per_deal

    @property
    def unit_name(self) -> str:
        """``deal``, ``game``, ``round`` or ``match``: what one seed fixes."""
        return self.mode

    @property
    def unit_plural(self) -> str:
        return plural(self.unit_name)

    def identity(self) -> dict[str, Any]:
        """The resolved config stored with the tournament (outputs and workers excluded)."""
        return {
            "format": FORMAT_VERSION,
            "game": self.game,
            "env": game_spec(self.game).module.rpartition(".")[2],  # paston_v0, tri_palki_v0
            "mode": self.mode,
            "count": self.count,
            "seed": self.seed,
            "num_players": self.num_players,
            "agents": [{"name": e.name, "spec": e.spec} for e in self.agents],
            "seating": self.seating_rule,
            **({"deal_set": self.deal_set} if self.deal_set is not None else {}),
        }


def default_seating_rule(seats: int) -> str:
    """The seating rule of ``seating: auto``: every permutation up to MAX_PERMUTED_SEATS seats,
    the cyclic rotations beyond."""
    return SEATING_RULES["permutations" if seats <= MAX_PERMUTED_SEATS else "rotations"]


def plural(word: str, count: int = 2) -> str:
    """``deal`` → ``deals``, ``match`` → ``matches``; the word itself when ``count`` is 1."""
    return word if count == 1 else _plural(word)


def counted(count: int, word: str) -> str:
    """``1 agent``, ``3 agents``."""
    return f"{count} {plural(word, count)}"


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def _int(value: Any, key: str, minimum: int, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer() and math.isfinite(value):
            value = int(value)
        elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value.strip())
        else:
            raise ConfigError(f"{key!r} must be an integer, got {value!r}")
    if value < minimum:
        raise ConfigError(f"{key!r} must be at least {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ConfigError(f"{key!r} must be at most {maximum}, got {value}")
    return value


def _path(value: Any, key: str) -> Path:
    if not isinstance(value, (str, os.PathLike)) or not str(value).strip():
        raise ConfigError(f"{key!r} must be a path, got {value!r}")
    return Path(value)


def _entrants(value: Any, game: str, where: str) -> list[Entrant]:
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, (list, tuple)) or not value:
        raise ConfigError(f"'agents' must be a non-empty list of agent specs{where}, got {value!r}")
    raw: list[tuple[str | None, str]] = []
    for item in value:
        if isinstance(item, str) and item.strip():
            raw.append((None, item.strip()))
        elif isinstance(item, dict):
            unknown = set(item) - {"name", "spec"}
            if unknown or "spec" not in item:
                raise ConfigError(
                    f"an agent entry must be a spec string or {{name: ..., spec: ...}}, got {item!r}"
                )
            spec, name = item["spec"], item.get("name")
            if not isinstance(spec, str) or not spec.strip():
                raise ConfigError(f"agent spec must be a non-empty string, got {spec!r}")
            if name is not None and (not isinstance(name, str) or not name.strip()):
                raise ConfigError(f"agent name must be a non-empty string, got {name!r}")
            raw.append((name.strip() if name else None, spec.strip()))
        else:
            raise ConfigError(
                f"an agent entry must be a spec string like 'heuristic', got {item!r}"
            )
    _check_specs([spec for _, spec in raw], game)
    # Duplicate specs are distinct entrants: random, random#2, random#3 ...
    names: list[str] = []
    counts: dict[str, int] = {}
    for name, spec in raw:
        if name is None:
            counts[spec] = counts.get(spec, 0) + 1
            name = spec if counts[spec] == 1 else f"{spec}#{counts[spec]}"
        if name in names:
            raise ConfigError(f"two agents are named {name!r}; give distinct names")
        names.append(name)
    return [Entrant(n, spec) for n, (_, spec) in zip(names, raw, strict=True)]


def _check_table_size(specs: list[str], game: str, num_players: int) -> None:
    """Refuse, before anything is played, an agent that cannot sit at this table size."""
    from folkcards.agents.table_sizes import check_table

    try:
        check_table(specs, game, num_players)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _is_external(spec: str) -> bool:
    """Whether ``spec`` names an agent outside the registered kinds (module:Class, a file, a
    plug-in); a failure to load it is a config problem, reported by the caller's make_agent."""
    from folkcards.agents.plugins import external_factory

    try:
        return external_factory(spec) is not None
    except ValueError:
        return True


def _check_specs(specs: list[str], game: str) -> None:
    from folkcards.agents import agent_kinds, make_agent

    for spec in dict.fromkeys(specs):
        kind = spec.partition(":")[0]
        kinds = agent_kinds()
        if kind not in kinds and not _is_external(spec):
            close = difflib.get_close_matches(kind, kinds, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"unknown agent {spec!r}{hint}; known kinds: {', '.join(kinds)}")
        try:
            make_agent(spec, game, "player_0", 0)
        except Exception as exc:  # noqa: BLE001 - any failure to build is a config problem
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise ConfigError(f"agent {spec!r} cannot play {game}: {message}") from None


def _game(data: dict[str, Any], where: str) -> GameSpec:
    names = " or ".join(GAMES)
    if data.get("game") is None:
        example = " or ".join(f"'game: {name}'" for name in GAMES)
        raise ConfigError(f"no game given{where}: set {example} (or --game)")
    if not isinstance(data["game"], str):
        raise ConfigError(f"'game' must be {names}, got {data['game']!r}")
    try:
        return game_spec(data["game"])
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _mode_and_count(data: dict[str, Any], spec: GameSpec, where: str) -> tuple[str, int]:
    counts = {k: data[k] for k in COUNT_KEYS if data.get(k) is not None}
    single, multi = (next(m for m in spec.modes if m.multi == flag) for flag in (False, True))
    if not counts:
        raise ConfigError(
            f"give the number of {plural(single.unit)} (or {plural(multi.unit)}){where}"
        )
    if len(counts) > 1:
        raise ConfigError(f"give only one of {', '.join(sorted(counts))}{where}")
    key, raw_count = next(iter(counts.items()))
    mode = multi if COUNT_KEYS[key] else single
    return mode.name, _int(raw_count, key, 1, 10_000_000)


def _num_players(data: dict[str, Any], spec: GameSpec, agents: list[Entrant]) -> int:
    given = data.get("num_players")
    if spec.fixed_players:
        if given is not None and given != spec.min_players:
            variable = ", ".join(g.name for g in GAMES.values() if not g.fixed_players)
            raise ConfigError(
                f"'num_players' is for {variable}; {spec.name} is always played by "
                f"{spec.min_players}"
            )
        num_players = spec.min_players
    elif given is None:
        num_players = len(agents)
        if not spec.min_players <= num_players <= spec.max_players:
            raise ConfigError(
                f"{counted(len(agents), 'agent')} given: set num_players "
                f"({spec.min_players} to {spec.max_players}) for {spec.name}"
            )
    else:
        num_players = _int(given, "num_players", spec.min_players, spec.max_players)
    if len(agents) < num_players:
        example = ", ".join([agents[0].spec] + ["random"] * (num_players - 1))
        are = "is" if len(agents) == 1 else "are"
        raise ConfigError(
            f"{spec.name} seats {num_players} players but only {counted(len(agents), 'agent')} "
            f"{are} given: list at least one per seat (repeat a spec to field it twice, "
            f"e.g. agents: [{example}])"
        )
    return num_players


def check_folder(folder: Path, what: str) -> None:
    """``ConfigError`` when ``folder``, or a folder above it, is an existing file."""
    for path in (folder, *folder.parents):
        if path.exists():
            if not path.is_dir():
                raise ConfigError(f"{what}: {str(path)!r} is a file, not a folder")
            return


def with_run_options(
    config: TournamentConfig, workers: Any = None, out: Any = None
) -> TournamentConfig:
    """``config`` (a stored one) with the worker count (default: all cores) and output folder
    given, checked as ``resolve`` checks them."""
    config.workers = default_workers() if workers is None else _int(workers, "workers", 1, 1024)
    if out is not None:
        config.out = _path(out, "out")
    check_folder(config.out, f"out {str(config.out)!r}")
    return config


def resolve(data: dict[str, Any], source: str = "") -> TournamentConfig:
    """Validate a mapping of config keys (YAML and command-line merged) into a config."""
    where = f" in {source}" if source else ""
    unknown = [k for k in data if k not in KEYS]
    if unknown:
        key = unknown[0]
        close = difflib.get_close_matches(str(key), KEYS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"unknown key {key!r}{where}{hint}; allowed keys: {', '.join(KEYS)}")
    spec = _game(data, where)
    mode, count = _mode_and_count(data, spec, where)
    seed = _int(data["seed"] if data.get("seed") is not None else 0, "seed", 0, 2**63 - 1)
    workers = (
        default_workers()
        if data.get("workers") is None
        else _int(data["workers"], "workers", 1, 1024)
    )
    if data.get("agents") is None:
        raise ConfigError(f"no agents given{where}: e.g. agents: [heuristic, random, random]")
    agents = _entrants(data["agents"], spec.name, where)
    num_players = _num_players(data, spec, agents)
    _check_table_size([e.spec for e in agents], spec.name, num_players)

    out = _path(data["out"], "out") if data.get("out") is not None else Path("results") / spec.name
    db = _path(data["db"], "db") if data.get("db") is not None else None
    seating = data.get("seating") or "auto"
    if seating not in SEATINGS:
        raise ConfigError(f"'seating' must be one of {', '.join(SEATINGS)}, got {seating!r}")
    open_hand = data.get("open_hand", True)
    if not isinstance(open_hand, bool):
        raise ConfigError(f"'open_hand' must be true or false, got {open_hand!r}")
    config = TournamentConfig(
        spec.name, mode, count, seed, agents, num_players, workers, out, db, seating, open_hand
    )
    check_folder(config.out, f"out {str(config.out)!r}")
    check_folder(config.db_path.parent, f"db {str(config.db_path)!r}")
    if config.total_units > MAX_UNITS:
        raise ConfigError(
            f"that is {config.total_units} episodes ({count} x {config.units_per_deal} seatings); "
            f"at most {MAX_UNITS}: use fewer deals or agents"
        )
    return config


def from_identity(identity: dict[str, Any], db: Path) -> TournamentConfig:
    """The config of a stored tournament (its ``config_json``), with ``db`` as its database."""
    try:
        config = TournamentConfig(
            game=identity["game"],
            mode=identity["mode"],
            count=int(identity["count"]),
            seed=int(identity["seed"]),
            agents=[Entrant(a["name"], a["spec"]) for a in identity["agents"]],
            num_players=int(identity["num_players"]),
            workers=1,
            out=db.parent,
            db=db,
            seating=_stored_seating(identity),
            deal_set=identity.get("deal_set"),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{db}: the stored tournament config is malformed ({exc})") from None
    if config.identity() != identity:
        raise ConfigError(
            f"{db}: the stored tournament config is not one this version writes "
            f"(format {identity.get('format')!r}, this version {FORMAT_VERSION})"
        )
    return config


def _stored_seating(identity: dict[str, Any]) -> str:
    """The ``seating`` value that writes the stored seating rule ("auto" where it is the default
    for the table size, so that databases written before the key existed still match)."""
    rule = str(identity.get("seating", ""))
    if rule == default_seating_rule(int(identity.get("num_players", 0))):
        return "auto"
    return {v: k for k, v in SEATING_RULES.items()}.get(rule, "auto")


def load_config(
    path: str | os.PathLike[str] | None, overrides: dict[str, Any] | None = None
) -> TournamentConfig:
    """Read ``path`` (if any), apply non-None ``overrides`` (command-line values), validate."""
    data: dict[str, Any] = load_yaml(path) if path else {}
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    if any(k in COUNT_KEYS for k in overrides):
        for k in COUNT_KEYS:
            data.pop(k, None)
    data.update(overrides)
    return resolve(data, str(path) if path else "")
