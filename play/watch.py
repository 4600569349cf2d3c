"""Watching a game as a spectator: every hand, the prikup and the discards shown face up.

:func:`watch_agents` lets agents play (through the one episode loop); :func:`watch_record`
plays back ``env.unwrapped.record()`` (a file, or a unit stored by a tournament) through the
same loop with agents that repeat the recorded actions. Each action is one line; :class:`Pacer`
waits for Enter between them, or sleeps ``delay`` seconds.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence
from functools import partial
from typing import Any

from folkcards.agents import make_agent
from folkcards.agents.episode import Decision, play_episode
from folkcards.agents.table_sizes import check_table
from folkcards.envs.cards import PASTON_CARDS, TRI_PALKI_CARDS, mask_to_cards
from folkcards.envs.paston import rules as paston
from folkcards.envs.registry import GameSpec, game_spec
from folkcards.envs.tri_palki import rules as tri_palki
from folkcards.envs.tri_palki.kernels import swapped_cards

from .base import Announced, InputFn, WriteFn, normalize, plural, signed
from .explain import paston_explanations, tri_palki_explanations


class StopWatching(Exception):
    """The viewer typed quit, or a record ran out of actions."""


class Pacer:
    """Between actions: wait for Enter (``delay=None``), or sleep ``delay`` seconds."""

    def __init__(self, delay: float | None, input_fn: InputFn, write: WriteFn):
        self.delay, self.input_fn, self.write = delay, input_fn, write

    def pause(self) -> None:
        if self.delay is not None:
            if self.delay > 0:
                time.sleep(self.delay)
            return
        try:
            key = normalize(self.input_fn("[Enter] next · c: to the end · q: quit "))
        except EOFError:
            key = "c"  # no more input: play the rest without waiting
        if key in ("q", "quit", "exit"):
            raise StopWatching("you stopped watching")
        if key in ("c", "continue"):
            self.delay = 0.0


class Spectator:
    """Narrates one env for a spectator; subclasses know their game."""

    record_key = ""

    def __init__(
        self,
        env: Any,
        labels: dict[str, str],
        write: WriteFn,
        pacer: Pacer,
        episode_number: int | None = None,
    ):
        self.env, self.raw = env, env.unwrapped
        self.labels, self.write, self.pacer = labels, write, pacer
        # an episode of one deal or round: its number is the episode's (None: count inside)
        self.episode_number = episode_number
        self.opened = 0  # deals / rounds whose opening was shown
        self.finished = 0  # deals / rounds whose result was shown
        self.before: dict[str, Any] = {}

    def episodes(self) -> list[dict[str, Any]]:
        return self.raw.record()[self.record_key]

    def before_action(self, agent: str) -> None:
        """Called just before ``agent``'s action is applied: open a new deal/round if any."""
        records = self.episodes()
        while self.opened < len(records):
            self.opened += 1
            for line in self.opening(records[self.opened - 1]):
                self.write(line)
        self.before = self.snapshot(agent)

    def after_action(self, decision: Decision) -> None:
        for line in self.describe(decision.agent, decision.action):
            self.write(line)
        records = self.episodes()
        for record in records[self.finished :]:
            if record.get("result"):
                self.finished += 1
                for line in self.result_lines(record["result"]):
                    self.write(line)
        self.pacer.pause()

    def opening(self, record: dict[str, Any]) -> list[str]:
        raise NotImplementedError

    def snapshot(self, agent: str) -> dict[str, Any]:
        raise NotImplementedError

    def describe(self, agent: str, action: int) -> list[str]:
        raise NotImplementedError

    def result_lines(self, result: dict[str, dict[str, Any]]) -> list[str]:
        raise NotImplementedError


class PastonSpectator(Spectator):
    record_key = "deals"

    def cards(self, names: Sequence[str]) -> str:
        """Card names as symbols, a wider gap between suits."""
        ids = [PASTON_CARDS.card_id(c) for c in names]
        suits = [[c for c in ids if PASTON_CARDS.suit(c) == suit] for suit in range(4)]
        return "   ".join(" ".join(PASTON_CARDS.symbol(c) for c in s) for s in suits if s) or "—"

    def opening(self, record: dict[str, Any]) -> list[str]:
        names = self.env.possible_agents
        lines = [
            f"--- deal {self.episode_number or self.opened}: dealer {names[record['dealer']]}, "
            f"first bidder {names[record['first_bidder']]}"
        ]
        for name, hand in zip(names, record["hands"], strict=True):
            lines.append(f"  {self.labels[name]}: {self.cards(hand)}")
        lines.append(f"  prikup (face down): {self.cards(record['prikup'])}")
        return lines

    def snapshot(self, agent: str) -> dict[str, Any]:
        deal = self.raw.state_deal()
        return {"phase": paston.PHASE_NAMES[deal.phase], "trick": list(deal.trick),
                "tricks": list(deal.tricks), "deal": deal}  # fmt: skip

    def describe(self, agent: str, action: int) -> list[str]:
        who, before = self.labels[agent], self.before
        phase, deal = before["phase"], self.raw.state_deal()
        names = self.env.possible_agents
        card = PASTON_CARDS.symbol(action) if action < paston.NUM_CARDS else ""
        if phase == "play":
            lines = [f"  {who} plays {card}"]
            if deal is before["deal"] and sum(deal.tricks) > sum(before["tricks"]):
                winner = next(s for s in range(3) if deal.tricks[s] > before["tricks"][s])
                shown = ", ".join(
                    f"{names[s]} {PASTON_CARDS.symbol(c)}"
                    for s, c in [*before["trick"], (names.index(agent), action)]
                )
                lines.append(
                    f"  trick: {shown} → {names[winner]} ({plural(deal.tricks[winner], 'trick')})"
                )
            return lines
        if phase == "discard":
            return [f"  {who} discards {card} (face down)"]
        text = self.raw.action_to_string(action)
        lines = [f"  {who}: {text}"]
        if action == paston.SURRENDER:
            lines = [f"  {who} surrenders"]
        elif paston.CONTRACT_BASE <= action < paston.SURRENDER:
            level = action - paston.CONTRACT_BASE
            trump = "spades" if level == paston.BEST_SPADES else paston.LEVEL_NAMES[level]
            lines.append(f"  trumps: {trump}, factor {paston.LEVEL_FACTOR[level]}")
        if phase == "auction" and deal is before["deal"] and deal.declarer >= 0:
            lines.append(self._declared(deal))
        return lines

    def _declared(self, deal: Any) -> str:
        names = self.env.possible_agents
        declarer = names[deal.declarer]
        prikup = " ".join(PASTON_CARDS.symbol(c) for c in mask_to_cards(deal.prikup))
        if deal.all_pass:
            jack = paston.JACK_OF_SPADES in mask_to_cards(deal.hands[deal.declarer] & ~deal.prikup)
            card = "J♠" if jack else "7♠ (the J♠ is in the prikup)"
            why = f"all three passed: {declarer} holds the {card}, so must declare"
        else:
            why = f"{declarer} wins the auction at {paston.LEVEL_NAMES[deal.high_bid]}"
        return f"  {why}; takes the prikup {prikup}"

    def result_lines(self, result: dict[str, dict[str, Any]]) -> list[str]:
        first = next(iter(result.values()))
        head = {
            "played": f"{first['contract']} played".replace("_", " "),
            "auto_win": "both opponents passed: the declarer wins without play",
            "surrender": "the declarer surrendered",
            "redeal": "all passed with J♠ and 7♠ in the prikup: the same dealer deals again",
        }.get(first["outcome"], first["outcome"])
        lines = [f"Deal over: {head}"]
        lines += ["  " + line for line in paston_explanations(result, self.labels.__getitem__)]
        lines.append(
            "Scores: " + ", ".join(f"{n} {signed(r['deal_score'])}" for n, r in result.items())
        )
        if "totals" in first:
            names = self.env.possible_agents
            lines.append(
                "Totals: "
                + ", ".join(f"{n} {t}" for n, t in zip(names, first["totals"], strict=True))
            )
            infos: dict[str, Any] = next(iter(self.raw.infos.values()), {})
            winners = infos.get("winners")  # only in the env's infos, not in the record
            if winners:
                lines.append(f"Game over: {' and '.join(winners)} won")
        return lines


class TriPalkiSpectator(Spectator):
    record_key = "rounds"

    @staticmethod
    def cards(cards: Sequence[int]) -> str:
        return " ".join(TRI_PALKI_CARDS.symbol(c) for c in cards) or "—"

    def hand(self, rnd: Any, seat: int) -> str:
        cards = rnd.hand_cards(seat)
        kind = tri_palki.hand_kind(cards)
        extra = "" if kind == "normal" else f", {kind.replace('_', ' ')}"
        return f"{self.cards(cards)} ({tri_palki.hand_value(cards)}{extra})"

    def opening(self, record: dict[str, Any]) -> list[str]:
        rnd = self.raw.state_round()
        names = self.env.possible_agents
        lines = [
            f"--- round {self.episode_number or record['round'] + 1}: dealer {record['dealer']}, "
            f"reserve {rnd.reserve_count} cards"
        ]
        for seat, name in enumerate(names):
            if rnd.alive[seat]:
                lines.append(f"  {self.labels[name]}: {self.hand(rnd, seat)}")
        for washed in rnd.washes:
            lines.append(f"  washed at the deal: {self.cards(mask_to_cards(washed))}")
        lines.append(f"  centre: {self.cards(mask_to_cards(rnd.centre))}")
        return lines

    def snapshot(self, agent: str) -> dict[str, Any]:
        rnd = self.raw.state_round()
        seat = self.env.possible_agents.index(agent)
        return {"round": rnd, "hand": rnd.hand_cards(seat), "centre": mask_to_cards(rnd.centre),
                "washes": len(rnd.washes)}  # fmt: skip

    def describe(self, agent: str, action: int) -> list[str]:
        who, before = self.labels[agent], self.before
        rnd = self.raw.state_round()
        seat = self.env.possible_agents.index(agent)
        if action == tri_palki.PASS:
            return [f"  {who} passes"]
        if action == tri_palki.ANNOUNCE:
            return [f"  {who} announces the last round!"]
        if action == tri_palki.NO_ANNOUNCE:
            return [f"  {who} holds 31 and does not announce"]
        if action == tri_palki.SWAP_ALL:
            what = f"swaps all: gives {self.cards(before['hand'])}, takes {self.cards(before['centre'])}"
        else:
            give, take = swapped_cards(before["hand"], before["centre"], action)
            what = f"gives {self.cards([give])}, takes {self.cards([take])}"
        if rnd is not before["round"]:  # the round ended and the next one began
            return [f"  {who} {what}"]
        lines = [f"  {who} {what} → {self.hand(rnd, seat)}"]
        for washed in rnd.washes[before["washes"] :]:
            lines.append(f"  wash! {self.cards(mask_to_cards(washed))} leave the game")
        lines.append(f"  centre: {self.cards(mask_to_cards(rnd.centre))}")
        return lines

    def result_lines(self, result: dict[str, dict[str, Any]]) -> list[str]:
        first = next(iter(result.values()))
        lines = [f"Round over: {first['outcome'].replace('_', ' ')}"]
        lines += ["  " + line for line in tri_palki_explanations(result, self.labels.__getitem__)]
        lines.append(
            "Sticks: "
            + ", ".join(
                f"{n} {'out' if r['eliminated'] else r['sticks']}" for n, r in result.items()
            )
        )
        if first.get("winner"):
            lines.append(f"Match over: {first['winner']} wins")
        return lines


class _Recorded:
    """Plays back the recorded actions, in the recorded order, whoever's turn it is."""

    def __init__(self, actions: Sequence[Sequence[Any]]):
        self.actions = deque((str(agent), int(action)) for agent, action in actions)
        self.agent = ""

    def seat(self, name: str) -> _Recorded:
        view = _Recorded([])
        view.actions, view.agent = self.actions, name
        return view

    def act(self, observation: dict[str, Any]) -> int:
        if not self.actions:
            raise StopWatching("the record ends here")
        agent, action = self.actions.popleft()
        if agent != self.agent:
            raise ValueError(f"the record does not replay: {agent} acts where {self.agent} must")
        return action


def _watch(
    spec: GameSpec,
    env: Any,
    agents: dict[str, Any],
    labels: dict[str, str],
    seeds: Sequence[tuple[int | None, dict[str, Any] | None]],
    write: WriteFn,
    pacer: Pacer,
) -> int:
    """Play ``env`` once per seed with ``agents`` and narrate; returns the exit code."""
    spectator_class: type[Spectator] = spec.piece("spectator")
    totals = dict.fromkeys(env.possible_agents, 0.0)
    unit = env.unwrapped.episode
    try:
        for number, (seed, options) in enumerate(seeds):
            write(f"=== {unit} {number + 1} (seed {seed}) ===")
            single = not spec.mode(env.unwrapped.episode).multi
            spectator = spectator_class(env, labels, write, pacer, number + 1 if single else None)
            shown = {
                name: Announced(agent, partial(spectator.before_action, name))
                for name, agent in agents.items()
            }
            run = play_episode(env, shown, seed, options, on_action=spectator.after_action)
            for name in totals:
                totals[name] += run.returns.get(name, 0.0)
            write("")
    except StopWatching as stop:
        write(f"Stopped: {stop}.")
        return 0
    if len(seeds) > 1:
        summed = ", ".join(f"{n} {signed(round(t))}" for n, t in totals.items())
        write(f"totals: {summed}" + ("" if spec.higher_is_better else " (−1 a stick)"))
    return 0


def watch_agents(
    game: str,
    specs: Sequence[str],
    num_players: int | None = None,
    mode: str | None = None,
    seed: int = 0,
    episodes: int = 1,
    write: WriteFn = print,
    pacer: Pacer | None = None,
) -> int:
    """Agents given by spec strings play ``episodes`` episodes from ``seed``; all cards shown."""
    spec = game_spec(game)
    if episodes < 1:
        raise ValueError(f"--episodes must be at least 1, got {episodes}")
    specs = list(specs)
    n = spec.table_size(num_players, len(specs))
    if len(specs) == 1:
        specs = specs * n
    if len(specs) != n:
        example = " ".join([*specs, *[specs[-1]] * (n - len(specs))][:n])
        raise ValueError(
            f"{spec.name} with {n} players needs {n} agent specs (one per seat, as in a "
            f"tournament, or one for every seat), got {len(specs)}: e.g. --agents {example}"
        )
    check_table(specs, spec.name, n)  # refuse a table an agent cannot play before it starts
    env = spec.raw_env(n, episode=mode or spec.modes[0].name)
    names = env.possible_agents
    agents = {
        name: make_agent(s, spec.name, name, seed * 100 + i)
        for i, (name, s) in enumerate(zip(names, specs, strict=True))
    }
    labels = {name: f"{name} ({s})" for name, s in zip(names, specs, strict=True)}
    seeds = [(seed + k, None) for k in range(episodes)]
    return _watch(spec, env, agents, labels, seeds, write, pacer or Pacer(0.0, input, write))


def watch_record(
    record: dict[str, Any],
    seat_names: Sequence[str] | None = None,
    write: WriteFn = print,
    pacer: Pacer | None = None,
) -> int:
    """Play back ``record`` (from ``env.unwrapped.record()``); all cards shown."""
    if not isinstance(record, dict) or "actions" not in record or "game" not in record:
        raise ValueError("not a folkcards record: expected the JSON of env.unwrapped.record()")
    spec = game_spec(record["game"])
    env = spec.env_module().raw_env(**record.get("env_kwargs", {}))
    names = env.possible_agents
    tape = _Recorded(record["actions"])
    agents: dict[str, Any] = {name: tape.seat(name) for name in names}
    labels = {
        name: f"{name} ({seat_names[i]})" if seat_names else name for i, name in enumerate(names)
    }
    seeds = [(record.get("seed"), record.get("options") or None)]
    return _watch(spec, env, agents, labels, seeds, write, pacer or Pacer(0.0, input, write))
