"""The Tri Palki AEC environment: a thin translation of :mod:`.rules` to PettingZoo.

The module docstring of ``folkcards.envs.tri_palki_v0`` is the environment's documentation page.
"""

from __future__ import annotations

import copy
import re
import warnings
from typing import Any

import numpy as np

from .._aec import (
    CardGameAECEnv,
    bits_to_mask,
    choice_option,
    is_int,
    positive_int_option,
    seat_option,
)
from ..cards import SUIT_SYMBOLS, TRI_PALKI_CARDS, mask_to_cards
from . import observation as obs_mod
from .rules import (
    ACTION_BITS,
    ANNOUNCE,
    ANNOUNCE_BITS,
    ANNOUNCE_DECISION,
    ELIMINATED_STICKS,
    KIND_NAMES,
    MAX_PLAYERS,
    MAX_STICKS,
    MIN_PLAYERS,
    NO_ANNOUNCE,
    NUM_ACTIONS,
    NUM_CARDS,
    OVER,
    PASS,
    PHASE_NAMES,
    SWAP_ALL,
    SWAP_BASE,
    TRIPLES,
    TriPalkiMatch,
    TriPalkiRound,
    parse_deck,
)
from .vocabulary import ACTION_NAMES

_FIXED_ACTIONS = {
    "pass": PASS,
    "swap all": SWAP_ALL,
    "announce": ANNOUNCE,
    "no announce": NO_ANNOUNCE,
    "do not announce": NO_ANNOUNCE,
    "don't announce": NO_ANNOUNCE,
}
_GENERIC_SWAP = re.compile(r"^swap (?:hand card )?h?(\d)(?: for centre card | c)(\d)$")

# The action mask of each legal set the rules give (``TriPalkiRound.legal_bits``), built once.
_MASKS = {bits: bits_to_mask(bits, NUM_ACTIONS) for bits in (0, ACTION_BITS, ANNOUNCE_BITS)}


class raw_env(CardGameAECEnv):  # noqa: N801 - PettingZoo's naming convention
    """Tri Palki for 2 to 11 players; see ``folkcards.envs.tri_palki_v0`` for the documentation."""

    metadata = {**CardGameAECEnv.metadata, "name": "tri_palki_v0"}
    game_name = "tri_palki"
    num_actions = NUM_ACTIONS

    def __init__(
        self,
        num_players: int = 4,
        episode: str = "round",
        reward: str = "sticks",
        max_turns: int = 1000,
        render_mode: str | None = None,
    ):
        super().__init__()
        if not is_int(num_players) or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
            raise ValueError(
                f"num_players must be an integer from {MIN_PLAYERS} to {MAX_PLAYERS} "
                f"(3 cards each plus 3 in the centre from 36), got {num_players!r}"
            )
        choice_option("episode", episode, ("round", "match"))
        choice_option("reward", reward, ("sticks", "win"))
        if reward == "win" and episode != "match":
            raise ValueError("reward='win' needs episode='match' (a single round has no winner)")
        positive_int_option("max_turns", max_turns)
        self.num_players = int(num_players)
        self.episode = episode
        self.reward_mode = reward
        self.max_turns = int(max_turns)
        self.render_mode = self._check_render_mode(render_mode)
        self._env_kwargs = {
            "num_players": self.num_players,
            "episode": episode,
            "reward": reward,
            "max_turns": self.max_turns,
        }
        self._setup_agents_and_spaces(self.num_players, obs_mod.observation_size(self.num_players))
        self._rng = np.random.default_rng()
        self._round: TriPalkiRound  # set by reset()
        self._match = TriPalkiMatch([0] * self.num_players)
        self.next_dealer: str | None = None

    # --- reset -------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a round (or a match). Options: ``dealer``, ``deck``, ``sticks`` (see the docs).

        Every option is checked before anything changes: a bad one raises ``ValueError`` and
        leaves the environment as it was.
        """
        plan = self._parse_options(options)
        self._begin_episode(seed, options)
        n = self.num_players
        self._match = TriPalkiMatch(plan["sticks"])
        self._round_records: list[dict[str, Any]] = []
        self.next_dealer = None
        self.winner: str | None = None

        dealer = plan["dealer"] if plan["dealer"] is not None else int(self._rng.integers(n))
        self._has_reset = True
        self._start_round(dealer, plan["deck"])
        # A deal may end before anyone acts: its rewards are readable through last() at once.
        self._accumulate_rewards()
        if any(self.terminations.values()):
            self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _parse_options(self, options: Any) -> dict[str, Any]:
        n = self.num_players
        plan: dict[str, Any] = {"dealer": None, "deck": None, "sticks": [0] * n}
        if options is None:
            return plan
        if not isinstance(options, dict):
            raise ValueError(f"options must be a dict, got {options!r}")
        unknown = set(options) - {"dealer", "deck", "sticks"}
        if unknown:
            # PettingZoo's api_test passes an arbitrary option: warn, as a typo should be seen.
            warnings.warn(
                f"Tri Palki ignores unknown reset options {sorted(map(str, unknown))}; "
                "it knows 'dealer', 'deck' and 'sticks'",
                stacklevel=3,
            )
        if options.get("dealer") is not None:
            plan["dealer"] = seat_option(options["dealer"], self.num_players)
        if options.get("deck") is not None:
            plan["deck"] = parse_deck(options["deck"])
        if options.get("sticks") is not None:
            sticks = options["sticks"]
            if (
                isinstance(sticks, (str, bytes, dict))
                or not hasattr(sticks, "__len__")
                or len(sticks) != n
            ):
                raise ValueError(
                    f"option 'sticks' must be a list of {n} integers (one per player), got {sticks!r}"
                )
            for seat, value in enumerate(sticks):
                if not is_int(value) or not 0 <= value <= MAX_STICKS:
                    raise ValueError(
                        f"option 'sticks': player_{seat} has {value!r}; sticks are integers "
                        f"from 0 to {MAX_STICKS} (a fourth stick eliminates)"
                    )
            plan["sticks"] = [int(value) for value in sticks]
        return plan

    def _start_round(self, dealer: int, deck: list[int] | None) -> None:
        """Deal rounds until one needs a decision (match mode) or the episode ends."""
        while True:
            if deck is None:
                deck = self._shuffled_deck()
            rnd = self._match.deal(deck, dealer)
            self._round = rnd
            self._round_records.append(
                {
                    "round": len(self._round_records),
                    "dealer": self.possible_agents[dealer],
                    "deck": [TRI_PALKI_CARDS.name(c) for c in deck],
                    "sticks": list(self._match.sticks),
                    "actions": [],
                    "result": None,
                }
            )
            if rnd.phase != OVER:
                self.agent_selection = self.possible_agents[rnd.to_act]
                return
            # A deal whose one-suit centre cannot be replaced ends before anyone acts.
            self.agent_selection = self.possible_agents[dealer]
            if not self._finish_round(rnd):
                return
            dealer = self._match.next_dealer
            deck = None

    def _shuffled_deck(self) -> list[int]:
        """A new deck in deal order from the env's generator."""
        return [int(c) for c in self._rng.permutation(NUM_CARDS)]

    # --- step ----------------------------------------------------------------------------------

    def _is_legal(self, seat: int, action: int) -> bool:
        rnd = self._round
        return seat == rnd.to_act and bool(rnd.legal_bits() >> action & 1)

    def _legal_mask(self, seat: int) -> np.ndarray:
        rnd = self._round
        if seat != rnd.to_act:
            return self._no_actions.copy()
        return _MASKS[rnd.legal_bits()].copy()

    def _apply(self, seat: int, action: int) -> None:
        rnd = self._round
        rnd.apply(action)
        agent = self.possible_agents[seat]
        self._actions.append((agent, action))
        self._round_records[-1]["actions"].append([agent, action])
        if rnd.phase == OVER:
            if self._finish_round(rnd):
                self._start_round(self._match.next_dealer, None)
            if self.episode == "match":
                self._deads_step_first()  # eliminated players leave before the next round
        elif rnd.turns >= self.max_turns:
            self._truncate(rnd)
        else:
            self.agent_selection = self.possible_agents[rnd.to_act]

    def _round_infos(
        self,
        rnd: TriPalkiRound,
        outcome: str,
        stick: list[bool],
        sticks: list[int],
        eliminated: list[bool],
    ) -> dict[int, dict[str, Any]]:
        infos = {}
        names = self.possible_agents
        for seat in range(self.num_players):
            if not rnd.alive[seat]:
                continue
            hand = rnd.hands[seat]
            triple = TRIPLES[hand]
            infos[seat] = {
                "hand_value": triple.value,
                "hand_kind": KIND_NAMES[triple.kind],
                "stick": stick[seat],
                "sticks": sticks[seat],
                "eliminated": eliminated[seat],
                "outcome": outcome,
                "hand": [TRI_PALKI_CARDS.name(c) for c in triple.cards],
                "dealer": names[rnd.dealer],
                "round": len(self._round_records) - 1,
                "turns": rnd.turns,
                "announcer": names[rnd.announcer] if rnd.announcer >= 0 else None,
            }
        return infos

    def _finish_round(self, rnd: TriPalkiRound) -> bool:
        """Score a finished round; ``True`` if the match goes on with another round."""
        names = self.possible_agents
        result = self._match.settle(rnd)
        self.next_dealer = names[result.next_dealer]
        infos = self._round_infos(
            rnd, rnd.outcome or "", result.stick, result.sticks, result.eliminated
        )
        survivors = self._match.survivors
        match = self.episode == "match"
        match_over = match and len(survivors) == 1
        if match_over:
            self.winner = names[survivors[0]]
        for seat, info in infos.items():
            info["next_dealer"] = self.next_dealer
            if match:
                info["sticks_all"] = list(result.sticks)
                if match_over:
                    info["winner"] = self.winner
            agent = names[seat]
            self.infos[agent] = info
            if self.reward_mode == "sticks":
                if result.stick[seat]:
                    self.rewards[agent] -= 1.0
            elif result.eliminated[seat]:
                self.rewards[agent] -= 1.0
            elif match_over:
                self.rewards[agent] += 1.0
        self._round_records[-1]["result"] = {names[s]: dict(info) for s, info in infos.items()}
        if not match or match_over:
            for agent in self.agents:
                self.terminations[agent] = True
            return False
        for seat in range(self.num_players):
            if result.eliminated[seat]:
                self.terminations[names[seat]] = True
        return True

    def _truncate(self, rnd: TriPalkiRound) -> None:
        """``max_turns`` reached: the episode is truncated for everyone, no sticks given."""
        names = self.possible_agents
        no = [False] * self.num_players
        infos = self._round_infos(rnd, "truncated", no, self._match.sticks, no)
        for seat, info in infos.items():
            self.infos[names[seat]] = info
        self._round_records[-1]["result"] = {names[s]: dict(info) for s, info in infos.items()}
        for agent in self.agents:
            self.truncations[agent] = True

    # --- observations and state ----------------------------------------------------------------

    def _observation(self, seat: int) -> np.ndarray:
        return obs_mod.encode(self._round, seat, self._match.sticks, self.max_turns)

    def state_round(self) -> TriPalkiRound:
        """The full engine state of the current round (for tests and debugging, never for agents)."""
        return self._round

    @property
    def sticks(self) -> dict[str, int]:
        """Sticks per agent (4 = eliminated), after the last finished round."""
        return dict(zip(self.possible_agents, self._match.sticks, strict=True))

    @property
    def survivors(self) -> list[str]:
        """Agents not eliminated from the match."""
        return [
            a
            for a, s in zip(self.possible_agents, self._match.sticks, strict=True)
            if s < ELIMINATED_STICKS
        ]

    # --- names, records, rendering --------------------------------------------------------------

    def _acting_cards(self) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
        rnd = self._round
        if rnd is None or rnd.phase == OVER or rnd.to_act < 0:
            return None
        return TRIPLES[rnd.hands[rnd.to_act]].cards, TRIPLES[rnd.centre].cards

    def action_to_string(self, action: int) -> str:
        """``"pass"``, ``"swap 10H QS"`` (give 10H, take QS — for the acting player's current
        hand and centre), ``"swap all"``, ``"announce"``, ``"no announce"``."""
        if not is_int(action) or not 0 <= int(action) < NUM_ACTIONS:
            raise ValueError(
                f"action {action!r} is not a Tri Palki action id (0..{NUM_ACTIONS - 1})"
            )
        action = int(action)
        if SWAP_BASE <= action < SWAP_ALL:
            cards = self._acting_cards()
            h, c = divmod(action - SWAP_BASE, 3)
            if cards is None:
                return f"swap h{h + 1} c{c + 1}"
            hand, centre = cards
            return f"swap {TRI_PALKI_CARDS.name(hand[h])} {TRI_PALKI_CARDS.name(centre[c])}"
        return ACTION_NAMES[action]

    def string_to_action(self, text: str) -> int:
        """The action id for a name from :meth:`action_to_string` (case-insensitive; suit symbols
        too). ``"swap 10H QS"`` is resolved against the acting player's current hand and centre."""
        if not isinstance(text, str):
            raise ValueError(f"expected an action name, got {text!r}")
        key = " ".join(text.strip().lower().split())
        if key in _FIXED_ACTIONS:
            return _FIXED_ACTIONS[key]
        generic = _GENERIC_SWAP.match(key)
        if generic:
            h, c = int(generic.group(1)), int(generic.group(2))
            if 1 <= h <= 3 and 1 <= c <= 3:
                return SWAP_BASE + 3 * (h - 1) + (c - 1)
            raise ValueError(f"{text!r}: hand and centre positions run from 1 to 3")
        words = key.split()
        if len(words) == 3 and words[0] == "swap":
            give = TRI_PALKI_CARDS.card_id(words[1])
            take = TRI_PALKI_CARDS.card_id(words[2])
            cards = self._acting_cards()
            if cards is None:
                raise ValueError(f"{text!r}: nobody is to act, so no swap can be resolved")
            hand, centre = cards
            who = self.possible_agents[self._round.to_act]
            if give not in hand:
                raise ValueError(f"{text!r}: {TRI_PALKI_CARDS.name(give)} is not in {who}'s hand")
            if take not in centre:
                raise ValueError(f"{text!r}: {TRI_PALKI_CARDS.name(take)} is not in the centre")
            return SWAP_BASE + 3 * hand.index(give) + centre.index(take)
        raise ValueError(
            f"unknown Tri Palki action {text!r}: use 'pass', 'swap 10H QS' (give 10H, take QS), "
            "'swap all', 'announce' or 'no announce'"
        )

    def _record_body(self) -> dict[str, Any]:
        return {
            "rounds": copy.deepcopy(self._round_records),
            "sticks": list(self._match.sticks),
            "next_dealer": self.next_dealer,
            "winner": self.winner,
        }

    def _render_text(self) -> str:
        rnd = self._round
        names = self.possible_agents
        sym = TRI_PALKI_CARDS.symbol

        def cards(mask: int) -> str:
            return " ".join(sym(c) for c in mask_to_cards(mask)) or "-"

        lines = [
            f"Tri Palki — round {len(self._round_records)}, {PHASE_NAMES[rnd.phase]}; "
            f"dealer {names[rnd.dealer]}; reserve {rnd.reserve_count}; turn {rnd.turns + 1}"
        ]
        lines.append(f"centre: {cards(rnd.centre)}")
        if rnd.washed:
            lines.append(f"washed: {cards(rnd.washed)}")
        if rnd.announcer >= 0:
            pending = ", ".join(names[s] for s in rnd.final_pending()) or "none"
            lines.append(f"announced by {names[rnd.announcer]}; final turns to come: {pending}")
        elif rnd.passes:
            lines.append(f"consecutive passes: {rnd.passes} of {rnd.survivors}")
        for seat in range(self.num_players):
            sticks = self._match.sticks[seat]
            if not rnd.alive[seat]:
                lines.append(f"  {names[seat]}: eliminated")
                continue
            triple = TRIPLES[rnd.hands[seat]]
            kind = "" if triple.kind == 0 else f" {KIND_NAMES[triple.kind]}"
            mark = "out" if sticks >= ELIMINATED_STICKS else ("|" * sticks or "-")
            known = f"  known: {cards(rnd.known[seat])}" if rnd.known[seat] else ""
            turn = ""
            if seat == rnd.to_act:
                turn = " ← to act" + (" (announce?)" if rnd.phase == ANNOUNCE_DECISION else "")
            lines.append(
                f"  {names[seat]}: {cards(rnd.hands[seat])}  ({triple.value}{kind})  "
                f"sticks {mark}{known}{turn}"
            )
        if rnd.phase == OVER:
            lines.append(f"outcome: {rnd.outcome}; next dealer {self.next_dealer}")
        elif any(self.truncations.values()):
            lines.append("truncated: max_turns reached")
        return "\n".join(lines)


replay = raw_env.replay


__all__ = [
    "raw_env",
    "replay",
    "ACTION_NAMES",
    "ACTION_BITS",
    "ANNOUNCE_BITS",
    "SUIT_SYMBOLS",
]
