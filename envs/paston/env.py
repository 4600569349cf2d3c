"""The Paston AEC environment: a thin translation of :mod:`.rules` to PettingZoo.

The module docstring of ``folkcards.envs.paston_v0`` is the environment's documentation page.
"""

from __future__ import annotations

import copy
import warnings
from typing import Any

import numpy as np
from gymnasium import spaces

from .._aec import (
    CardGameAECEnv,
    bits_to_mask,
    choice_option,
    flag_option,
    positive_int_option,
    seat_option,
)
from ..cards import PASTON_CARDS, SUIT_SYMBOLS, mask_to_cards
from . import observation as obs_mod
from .game import WIN_TOTAL, PastonGame
from .rules import (
    BEST_SPADES,
    BID_BASE,
    CONTRACT_BASE,
    LEVEL_FACTOR,
    LEVEL_NAMES,
    NUM_ACTIONS,
    NUM_SEATS,
    OVER,
    PASS,
    PHASE_NAMES,
    PLAY,
    SURRENDER,
    WHIST,
    PastonDeal,
    left_of,
    parse_deal,
    random_deal,
    redeal_reason,
    spade_designee,
)
from .variant import PASTON, PastonVariant
from .vocabulary import ACTION_NAMES

SHAPING_POINTS_PER_TRICK = 2.0
_ATOMIC = frozenset((str, int, float, bool, type(None)))  # copies of an env share these

_ACTION_IDS = {name.lower(): i for i, name in enumerate(ACTION_NAMES)}
_ACTION_IDS.update(
    {name.replace("best spades", "best_spades"): i for name, i in list(_ACTION_IDS.items())}
)


class raw_env(CardGameAECEnv):  # noqa: N801 - PettingZoo's naming convention
    """Paston for three players; see ``folkcards.envs.paston_v0`` for the full documentation."""

    metadata = {**CardGameAECEnv.metadata, "name": "paston_v0"}
    game_name = "paston"
    num_actions = NUM_ACTIONS
    variant: PastonVariant = PASTON  # the deck, deal, ladder and trick needs it plays

    def __init__(
        self,
        episode: str = "deal",
        shaping: bool = False,
        reward_scale: float = 1.0,
        reward: str = "score",
        max_deals: int = 1000,
        render_mode: str | None = None,
    ):
        super().__init__()
        choice_option("episode", episode, ("deal", "game"))
        choice_option("reward", reward, ("score", "win"))
        flag_option("shaping", shaping)
        if (
            isinstance(reward_scale, bool)
            or not isinstance(reward_scale, (int, float, np.number))
            or not np.isfinite(reward_scale)
            or reward_scale <= 0
        ):
            raise ValueError(f"reward_scale must be a positive finite number, got {reward_scale!r}")
        positive_int_option("max_deals", max_deals)
        if reward == "win" and episode != "game":
            raise ValueError("reward='win' needs episode='game' (a single deal has no winner)")
        self.episode = episode
        self.shaping = bool(shaping)
        self.reward_scale = float(reward_scale)
        self.reward_mode = reward
        self.max_deals = int(max_deals)
        self.render_mode = self._check_render_mode(render_mode)
        self._env_kwargs = {
            "episode": episode,
            "shaping": self.shaping,
            "reward_scale": self.reward_scale,
            "reward": reward,
            "max_deals": self.max_deals,
        }
        self._setup_agents_and_spaces(NUM_SEATS, obs_mod.OBSERVATION_SIZE)
        low, high = obs_mod.observation_bounds()
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self._rng = np.random.default_rng()

    # spaces, the empty mask and the reset's options are never changed: copies of an env share
    # them; the bookkeeping dicts and lists hold immutable values or are replaced, never changed
    _SHARED_ON_COPY = frozenset(
        (
            "observation_spaces",
            "action_spaces",
            "_no_actions",
            "possible_agents",
            "agent_seat",
            "_options",
            "_env_kwargs",
        )
    )
    _SHALLOW_ON_COPY = frozenset(
        (
            "rewards",
            "_cumulative_rewards",
            "terminations",
            "truncations",
            "agents",
            "_actions",
            "_potential",
        )
    )

    def __deepcopy__(self, memo: dict[int, Any]) -> raw_env:
        """An independent copy, made faster than ``copy.deepcopy``'s generic walk (OpenSpiel
        clones a state, and with it the env, at every node of a game tree)."""
        cls = type(self)
        new = cls.__new__(cls)
        memo[id(self)] = new
        state = new.__dict__
        for name, value in self.__dict__.items():
            if name in self._SHARED_ON_COPY or type(value) in _ATOMIC:
                state[name] = value
            elif name in self._SHALLOW_ON_COPY or name == "_deal":
                state[name] = value.copy()
            elif name == "infos":
                state[name] = {agent: dict(info) for agent, info in value.items()}
            elif name == "_deal_records":  # a record's actions grow; its other values do not
                state[name] = [{**record, "actions": list(record["actions"])} for record in value]
            elif name == "_rng":
                rng = np.random.Generator(type(value.bit_generator)(0))
                rng.bit_generator.state = value.bit_generator.state
                state[name] = rng
            else:
                state[name] = copy.deepcopy(value, memo)
        return new

    # --- reset -------------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        game = self.episode == "game"
        plan = self._parse_options(options or {}, game)  # raises before anything changes
        self._begin_episode(seed, options)
        self._game = PastonGame(plan["totals"]) if game else None
        self._totals = self._game.totals if self._game else None  # the same list, for observe()
        self._potential = [0.0, 0.0, 0.0]
        self._deal_records: list[dict[str, Any]] = []

        dealer = plan["dealer"] if plan["dealer"] is not None else int(self._rng.integers(3))
        first_deal = game and plan["first_deal"]
        self._start_deal(dealer, first_deal, plan["deal"])
        self._has_reset = True

    def _parse_options(self, options: dict[str, Any], game: bool) -> dict[str, Any]:
        if not isinstance(options, dict):
            raise ValueError(f"options must be a dict, got {options!r}")
        allowed = {"dealer", "deal"} | ({"totals", "first_deal"} if game else set())
        unknown = set(options) - allowed
        if unknown:  # PettingZoo's api_test passes arbitrary options: warn, don't fail
            extra = " ('totals' and 'first_deal' need episode='game')" if not game else ""
            warnings.warn(
                f"ignoring unknown reset options {sorted(unknown)}; known: {sorted(allowed)}{extra}",
                stacklevel=3,
            )
        plan: dict[str, Any] = {
            "dealer": None,
            "deal": None,
            "totals": [0, 0, 0],
            "first_deal": True,
        }
        if options.get("dealer") is not None:
            plan["dealer"] = seat_option(options["dealer"], NUM_SEATS)
        if "first_deal" in options:
            if not isinstance(options["first_deal"], (bool, np.bool_)):
                raise ValueError(
                    f"option 'first_deal' must be True or False, got {options['first_deal']!r}"
                )
            plan["first_deal"] = bool(options["first_deal"])
        if "totals" in options:
            totals = options["totals"]
            if (
                not isinstance(totals, (list, tuple))
                or len(totals) != 3
                or any(isinstance(t, bool) or not isinstance(t, (int, np.integer)) for t in totals)
            ):
                raise ValueError(f"option 'totals' must be 3 integers, got {totals!r}")
            if any(t >= WIN_TOTAL for t in totals):
                raise ValueError(
                    f"option 'totals' must be below {WIN_TOTAL} (the game would be over), got {list(totals)}"
                )
            plan["totals"] = [int(t) for t in totals]
        if options.get("deal") is not None:
            hands, prikup = parse_deal(options["deal"], self.variant)
            reason = redeal_reason(hands, game and plan["first_deal"], self.variant)
            if reason:
                raise ValueError(f"deal would be dealt again at once: {reason}")
            plan["deal"] = (hands, prikup)
        return plan

    def _start_deal(
        self, dealer: int, first_deal: bool, given: tuple[list[int], int] | None
    ) -> None:
        variant = self.variant
        hands, prikup = (
            given if given is not None else random_deal(self._rng, dealer, first_deal, variant)
        )
        first_bidder = spade_designee(hands, variant) if first_deal else left_of(dealer)
        self._deal = PastonDeal(hands, prikup, dealer, first_bidder, variant)
        self._first_deal = first_deal
        self._potential = [0.0, 0.0, 0.0]
        self._deal_records.append(
            {
                "dealer": dealer,
                "first_bidder": first_bidder,
                "first_deal": first_deal,
                "hands": [[PASTON_CARDS.name(c) for c in mask_to_cards(h)] for h in hands],
                "prikup": [PASTON_CARDS.name(c) for c in mask_to_cards(prikup)],
                "actions": [],
                "result": None,
            }
        )
        self.agent_selection = self.possible_agents[first_bidder]

    # --- step ----------------------------------------------------------------------------------

    def _is_legal(self, seat: int, action: int) -> bool:
        return seat == self._deal.to_act and bool(self._deal.legal_bits() >> action & 1)

    def _legal_mask(self, seat: int) -> np.ndarray:
        if seat != self._deal.to_act:
            return self._no_actions.copy()
        return bits_to_mask(self._deal.legal_bits(), NUM_ACTIONS)

    def _apply(self, seat: int, action: int) -> None:
        deal = self._deal
        tricks_before = deal.trick_count
        deal.apply(action)
        self._actions.append((self.possible_agents[seat], action))
        self._deal_records[-1]["actions"].append([self.possible_agents[seat], action])
        if self.shaping and (deal.trick_count != tricks_before or deal.phase == OVER):
            self._shape(deal)
        if deal.phase == OVER:
            self._finish_deal(deal)
        else:
            self.agent_selection = self.possible_agents[deal.to_act]

    def _shape(self, deal: PastonDeal) -> None:
        """Potential-based shaping: Φ = 2·f·(tricks − need·tricks_played/tricks) during play, 0 after."""
        new = [0.0, 0.0, 0.0]
        if deal.phase == PLAY:
            factor = LEVEL_FACTOR[deal.level]
            played = deal.trick_count
            for seat in deal.active:
                new[seat] = (
                    SHAPING_POINTS_PER_TRICK
                    * factor
                    * (
                        deal.tricks[seat]
                        - deal.need(seat) * played / float(self.variant.num_tricks)
                    )
                )
        for seat in range(NUM_SEATS):
            self.rewards[self.possible_agents[seat]] += (
                new[seat] - self._potential[seat]
            ) * self.reward_scale
        self._potential = new

    def _deal_infos(self, deal: PastonDeal) -> list[dict[str, Any]]:
        return [
            {
                "deal_score": deal.scores[seat],
                "tricks": deal.tricks[seat],
                "role": deal.role(seat),
                "contract": None
                if deal.outcome in ("surrender", "redeal")
                else deal.contract_name(),
                "bid": deal.bid_name(),
                "outcome": deal.outcome,
                "dealer": self.possible_agents[deal.dealer],
                "declarer": self.possible_agents[deal.declarer] if deal.declarer >= 0 else None,
            }
            for seat in range(NUM_SEATS)
        ]

    def _finish_deal(self, deal: PastonDeal) -> None:
        agents = self.possible_agents
        infos = self._deal_infos(deal)
        self.agent_selection = agents[deal.history[-1][0]]
        if self.episode == "deal" or deal.outcome == "redeal":
            self._deal_records[-1]["result"] = {agents[s]: dict(infos[s]) for s in range(NUM_SEATS)}
        if self.episode == "deal":
            for seat in range(NUM_SEATS):
                self.rewards[agents[seat]] += deal.scores[seat] * self.reward_scale
                self.infos[agents[seat]] = infos[seat]
            self.terminations = dict.fromkeys(agents, True)
            return
        game = self._game
        assert game is not None
        totals = game.totals
        if deal.outcome != "redeal":
            changes = game.add_deal(deal.scores)
            for seat in range(NUM_SEATS):
                if self.reward_mode == "score":
                    self.rewards[agents[seat]] += changes[seat] * self.reward_scale
        for seat in range(NUM_SEATS):  # a redeal shows the unchanged totals
            infos[seat]["total"] = totals[seat]
            infos[seat]["totals"] = list(totals)
            self.infos[agents[seat]] = infos[seat]
        if deal.outcome == "redeal":
            self._start_deal(*game.next_deal(deal, self._first_deal), None)
            return
        self._deal_records[-1]["result"] = {agents[s]: dict(infos[s]) for s in range(NUM_SEATS)}
        winners = [agents[s] for s in game.winners]
        if winners:
            for seat in range(NUM_SEATS):
                self.infos[agents[seat]]["winners"] = winners
                if self.reward_mode == "win":
                    self.rewards[agents[seat]] += 1.0 if agents[seat] in winners else -1.0
            self.terminations = dict.fromkeys(agents, True)
            return
        if game.deals_completed >= self.max_deals:
            self.truncations = dict.fromkeys(agents, True)
            return
        self._start_deal(*game.next_deal(deal, self._first_deal), None)

    # --- observations --------------------------------------------------------------------------

    def _observation(self, seat: int) -> np.ndarray:
        return obs_mod.encode(self._deal, seat, self._totals)

    def state_deal(self) -> PastonDeal:
        """The full engine state of the current deal (for tests and debugging, never for agents)."""
        return self._deal

    @property
    def totals(self) -> list[int] | None:
        """Game totals (game mode), else ``None``."""
        return list(self._totals) if self._totals is not None else None

    # --- names, records, rendering --------------------------------------------------------------

    def action_to_string(self, action: int) -> str:
        """``"AS"``, ``"10H"``, ``"pass"``, ``"bid clubs"``, ``"contract hearts"``, ``"surrender"``, ``"whist"``."""
        if isinstance(action, bool) or not 0 <= int(action) < NUM_ACTIONS:
            raise ValueError(f"action {action!r} is not a Paston action id (0..{NUM_ACTIONS - 1})")
        return ACTION_NAMES[int(action)]

    def string_to_action(self, text: str) -> int:
        """The action id for a name given by :meth:`action_to_string` (case-insensitive; suit symbols too)."""
        if not isinstance(text, str):
            raise ValueError(f"expected an action name, got {text!r}")
        key = " ".join(text.strip().lower().split())
        if key in _ACTION_IDS:
            return _ACTION_IDS[key]
        try:
            return PASTON_CARDS.card_id(key)
        except ValueError:
            pass
        raise ValueError(
            f"unknown Paston action {text!r}: use a card like 'AS' or '10H', 'pass', 'bid spades', "
            "'contract hearts', 'surrender' or 'whist'"
        )

    def _record_body(self) -> dict[str, Any]:
        return {"deals": copy.deepcopy(self._deal_records), "totals": self.totals}

    def _render_text(self) -> str:
        deal = self._deal
        names = self.possible_agents
        lines = []
        head = f"Paston — {PHASE_NAMES[deal.phase]}; dealer {names[deal.dealer]}"
        if self._totals is not None:
            head += "; totals " + ", ".join(f"{names[s]} {self._totals[s]}" for s in range(3))
        lines.append(head)
        if deal.high_bid >= 0:
            lines.append(f"highest bid: {LEVEL_NAMES[deal.high_bid]} by {names[deal.high_bidder]}")
        elif deal.all_pass:
            lines.append("all passed")
        if deal.declarer >= 0:
            contract = deal.contract_name() or (
                "surrendered" if deal.surrendered else "not named yet"
            )
            lines.append(f"declarer: {names[deal.declarer]}, contract: {contract}")
        for seat in range(NUM_SEATS):
            hand = " ".join(PASTON_CARDS.symbol(c) for c in mask_to_cards(deal.hands[seat]))
            marks = []
            if deal.defence[seat] == 1:
                marks.append("whist")
            elif deal.defence[seat] == 0:
                marks.append("pass")
            if deal.phase >= PLAY or deal.outcome == "played":
                marks.append(f"tricks {deal.tricks[seat]}")
            turn = " ← to act" if seat == deal.to_act else ""
            lines.append(f"  {names[seat]}: {hand}  {' '.join(marks)}{turn}")
        if deal.trick:
            lines.append(
                "trick: " + "  ".join(f"{names[s]} {PASTON_CARDS.symbol(c)}" for s, c in deal.trick)
            )
        if deal.phase == OVER:
            lines.append(
                f"outcome: {deal.outcome}; scores "
                + ", ".join(f"{names[s]} {deal.scores[s]:+d}" for s in range(3))
            )
        return "\n".join(lines)


replay = raw_env.replay


__all__ = [
    "raw_env",
    "replay",
    "ACTION_NAMES",
    "BID_BASE",
    "CONTRACT_BASE",
    "PASS",
    "SURRENDER",
    "WHIST",
    "BEST_SPADES",
    "SUIT_SYMBOLS",
]
