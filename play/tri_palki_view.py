"""Tri Palki from one seat's point of view: what the person sees, how a typed move is read.

Everything shown is built from the seat's own observation (``decode``), never from the env's
full state. The rules summaries point to ``docs/rules/tri_palki.md`` for the whole game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from folkcards.envs.cards import TRI_PALKI_CARDS
from folkcards.envs.tri_palki import rules
from folkcards.envs.tri_palki.kernels import swapped_cards
from folkcards.envs.tri_palki.observation import decode

from .base import MoveError, SeatView, normalize, plural
from .tri_palki_explain import tri_palki_explanations

RULES_PAGE = "docs/rules/tri_palki.md"

PHASE_RULES = {
    "action": (
        "Your turn (§7). Pass, swap one of your cards for one centre card, or swap all three "
        "(never two). A hand is worth the best points total of one suit: A 11; K, Q, J, 10 10 "
        "each; 9, 8, 7, 6 their pips; 31 is the best.\n"
        "Washes (§6): a centre of three cards of one suit is washed out of the game and replaced "
        "from the reserve; whoever caused it acts again. A wash with fewer than 3 reserve cards "
        "left ends the round.\n"
        "The round ends after as many passes in a row as there are players, or when everybody "
        "has had a final turn after an announcement (§7, §8).\n"
        "Sticks (§9): the lowest normal hand takes a stick; if anyone holds three aces, every "
        "normal hand takes one. Safe hands (three sixes, or 6-7-8 of a suit) and three aces "
        "never do. A fourth stick puts you out; the last player left wins."
    ),
    "announce": (
        "Announcing (§7). You hold a normal 31 at the end of your turn. 'announce': every other "
        "player takes one final turn, then the hands are shown and the sticks given. "
        "'no announce': play goes on (this is not a pass and does not count as one)."
    ),
}

ANNOUNCE_WORDS = {"announce", "a", "yes", "y", "announce last round"}
DECLINE_WORDS = {
    "no announce", "no", "n", "decline", "do not announce", "don't announce", "not announce",
}  # fmt: skip


class TriPalkiTable(SeatView):
    """Tri Palki from one seat's point of view."""

    default_mode = "match"
    phase_rules = PHASE_RULES
    rules_page = RULES_PAGE

    def __init__(self, env: Any, seat: int, labels: list[str]):
        super().__init__(env, seat, labels, TRI_PALKI_CARDS, rules)

    def cards_text(self, cards: Sequence[int]) -> str:
        return " ".join(self.sym(c) for c in cards) or "—"

    def view(self) -> Any:
        return decode(self.env.observe(self.me)["observation"], self.n)

    def rel_who(self, rel: int) -> str:
        return self.who(self.abs_seat(rel))

    def _sticks(self, count: int) -> str:
        return "out" if count >= rules.ELIMINATED_STICKS else ("|" * count or "-")

    # showing ------------------------------------------------------------------------------------
    def show(self, obs: dict[str, np.ndarray]) -> str:
        v = decode(obs["observation"], self.n)
        rnd = len(self.raw.record()["rounds"]) if self.raw.episode == "match" else None
        where = f" · round {rnd}" if rnd else ""
        lines = [
            f"── Tri Palki{where} · dealer {self.rel_who(v.dealer)} · "
            f"reserve {v.reserve_count} cards",
            "Sticks: "
            + ", ".join(f"{self.rel_who(r)} {self._sticks(v.sticks[r])}" for r in range(self.n)),
            f"Centre: {self.cards_text(v.centre)}",
        ]
        if v.washed:
            lines.append(f"Washed: {self.cards_text(v.washed)}")
        lines += self._public_lines(v)
        kind = {"safe": " — safe hand", "three_aces": " — three aces"}.get(v.hand_kind or "", "")
        lines.append(f"Your hand: {self.cards_text(v.hand)}  (worth {v.hand_value}{kind})")
        if v.phase == "announce":
            lines.append("You hold 31: announce the last round? Your moves: announce, no announce")
        else:
            example = (
                f"swap {self.cards.name(v.hand[0])} {self.cards.name(v.centre[0])}"
                if v.hand and v.centre
                else "swap 10H QS"
            )
            lines.append(
                f"Your moves: pass, swap <your card> <centre card> (e.g. {example}), swap all"
            )
        return "\n".join(lines)

    def _public_lines(self, v: Any) -> list[str]:
        lines = []
        known = [
            f"{self.rel_who(r)} holds {self.cards_text(v.known[r])}"
            for r in range(1, self.n)
            if v.known[r] and not v.eliminated[r]
        ]
        if known:
            lines.append("Known from swaps: " + "; ".join(known))
        if v.announced and v.announcer is not None:
            lines.append(
                f"{self.rel_who(v.announcer)} announced the last round: this is a final turn"
            )
        elif v.passes:
            end = " — one more pass ends the round" if v.pass_ends_round else ""
            lines.append(f"Consecutive passes: {v.passes} of {v.survivors}{end}")
        return lines

    def help_lines(self, obs: dict[str, np.ndarray]) -> list[str]:
        v = decode(obs["observation"], self.n)
        if v.phase == "announce":
            return ["Now: 'announce' (everybody else gets one final turn) or 'no announce'"]
        return [
            "Now: 'pass', 'swap <your card> <centre card>' (e.g. swap 10H QS: your 10H goes to the "
            "centre, QS comes to you), or 'swap all' (your three cards for the three centre cards)",
            "Legal now: " + ", ".join(self.legal_names(obs)),
        ]

    def decode(self, obs: dict[str, np.ndarray]) -> Any:
        return decode(obs["observation"], self.n)

    def rules_here(self, v: Any) -> list[str]:
        if v.phase != "action":
            return []
        return [
            f"Here: {v.survivors} players in the round; your hand is worth {v.hand_value}; "
            f"the reserve holds {plural(v.reserve_count, 'card')}."
        ]

    # reading a move -----------------------------------------------------------------------------
    def parse(self, text: str, obs: dict[str, np.ndarray]) -> int:
        v = decode(obs["observation"], self.n)
        key = normalize(text).replace("↔", " ").replace(" for ", " ").replace(" with ", " ")
        words = key.split()
        if v.phase == "announce":
            if key in ANNOUNCE_WORDS:
                return rules.ANNOUNCE
            if key in DECLINE_WORDS:
                return rules.NO_ANNOUNCE
            raise MoveError(
                "you hold 31: type 'announce' to announce the last round, or 'no announce'"
            )
        if key in ("pass", "p"):
            return rules.PASS
        if key in ("swap all", "all", "swap 3", "swapall"):
            return rules.SWAP_ALL
        if key in ("announce", "no announce", "a"):
            raise MoveError("you can announce only at the end of your turn holding a normal 31")
        if words and words[0] in ("swap", "s", "take", "give"):
            return self._parse_swap(words[1:], v, obs["action_mask"])
        raise MoveError(f"unknown move {text.strip()!r}; type 'help' for your moves")

    def _parse_swap(self, words: list[str], v: Any, mask: np.ndarray) -> int:
        if len(words) != 2:
            raise MoveError(
                "a swap names two cards: your card, then a centre card (e.g. swap 10H QS)"
            )
        ids = []
        for word in words:
            try:
                ids.append(self.cards.card_id(word))
            except ValueError:
                raise MoveError(
                    f"{word!r} is not a card: use a rank 6-10, J, Q, K, A and a suit S, C, D, H "
                    "(e.g. 10H)"
                ) from None
        give, take = ids
        if give in v.centre and take in v.hand:  # either order is fine: the cards are unique
            give, take = take, give
        if give not in v.hand:
            raise MoveError(
                f"you do not hold {self.cards.name(give)}; your hand: {self.cards_text(v.hand)}"
            )
        if take not in v.centre:
            raise MoveError(
                f"{self.cards.name(take)} is not in the centre; centre: {self.cards_text(v.centre)}"
            )
        action = rules.SWAP_BASE + 3 * sorted(v.hand).index(give) + sorted(v.centre).index(take)
        if not mask[action]:
            raise MoveError("that swap is not legal now")
        return action

    # narrating ----------------------------------------------------------------------------------
    def before_step(self, seat: int) -> dict[str, Any]:
        # the acting seat's hand: after a "swap all" its three cards are public (face up)
        return {"view": self.view(), "hand": self.raw.state_round().hand_cards(seat)}

    def describe(self, seat: int, action: int, before: dict[str, Any]) -> str | None:
        who = self.who(seat)
        mine = seat == self.seat
        if action == rules.NO_ANNOUNCE:
            return f"{who}: no announcement" if mine else None  # never shown to the others
        if action == rules.ANNOUNCE:
            return f"{who} {'announce' if mine else 'announces'} the last round!"
        if action == rules.PASS:
            return f"{who} {'pass' if mine else 'passes'}"
        give_verb, take_verb = ("give", "take") if mine else ("gives", "takes")
        if action == rules.SWAP_ALL:
            given = self.cards_text(sorted(before["hand"]))
            return (
                f"{who} {'swap' if mine else 'swaps'} all three cards: "
                f"{give_verb} {given}, {take_verb} {self.cards_text(before['view'].centre)}"
            )
        # a single swap (public): the cards it exchanged, from the hand and centre before the step
        give, take = swapped_cards(before["hand"], before["view"].centre, action)
        return f"{who} {give_verb} {self.sym(give)}, {take_verb} {self.sym(take)}"

    def events(self, before: dict[str, Any], seat: int, action: int) -> list[str]:
        results = self.new_results()
        if results:
            return results
        out = []
        v0, v1 = before["view"], self.view()
        washed = [c for c in v1.washed if c not in v0.washed]
        if washed:
            out.append(
                f"  wash! {self.cards_text(washed)} leave the game; "
                f"new centre {self.cards_text(v1.centre)}"
            )
            if v1.to_act is not None and self.abs_seat(v1.to_act) == seat:
                out.append(f"  {self.who(seat)} {'act' if seat == self.seat else 'acts'} again")
        return out

    def start(self) -> list[str]:
        self.results_seen = 0
        v = self.view()
        word = "match" if self.raw.episode == "match" else "round"
        return [f"New {word}; dealer {self.rel_who(v.dealer)}"]

    def summary(self, result: dict[str, dict[str, Any]]) -> list[str]:
        names = self.env.possible_agents
        first = next(iter(result.values()))
        outcome = {
            "announced": "after the announcement",
            "all_passed": "everybody passed",
            "reserve_empty": "the reserve ran out",
            "truncated": "the turn limit was reached, no sticks given",
            "turn_limit": "the turn limit was reached, the hands scored as they stand",
        }.get(first["outcome"], first["outcome"])
        lines = [f"Round over: {outcome}. Hands:"]
        for seat, name in enumerate(names):
            if name not in result:
                continue
            r = result[name]
            kind = {"safe": " safe", "three_aces": " three aces"}.get(r["hand_kind"], "")
            hand = " ".join(self.sym(self.cards.card_id(c)) for c in r.get("hand", []))
            got = (
                " — stick: ELIMINATED"
                if r["eliminated"]
                else " — gets a stick"
                if r["stick"]
                else ""
            )
            lines.append(
                f"  {self.who(seat)}: {hand} ({r['hand_value']}{kind}){got}; "
                f"sticks {self._sticks(r['sticks'])}"
            )
        lines.append("Why:")
        lines += ["  " + line for line in tri_palki_explanations(result, self.label)]
        if first.get("winner"):
            winner = first["winner"]
            verb = "win" if winner == self.me else "wins"
            lines.append(f"Match over: {self.label(winner)} {verb}!")
        elif first.get("next_dealer") and self.raw.episode == "match":
            lines.append(f"Next dealer: {self.label(first['next_dealer'])}")
        return lines

    def finish(self) -> list[str]:
        out = self.new_results()
        raw = self.raw
        if raw.episode == "match" and raw.winner is None and any(raw.truncations.values()):
            out.append("Match stopped: the turn limit was reached.")
        return out
