"""Paston from one seat's point of view: what the person sees, how a typed move is read.

Everything shown is built from the seat's own observation (``decode``), never from the env's
full state. The rules summaries point to ``docs/rules/paston.md`` for the whole game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from folkcards.envs.cards import PASTON_CARDS
from folkcards.envs.paston import rules
from folkcards.envs.paston.observation import decode

from .base import MoveError, SeatView, normalize, plural
from .paston_explain import paston_explanations

RULES_PAGE = "docs/rules/paston.md"

# Names a person may type for a step of the ladder: English, traditional, a suit symbol.
LEVEL_WORDS = {
    "spades": 0, "paston": 0, "♠": 0,
    "clubs": 1, "glitch": 1, "♣": 1,
    "diamonds": 2, "dineri": 2, "♦": 2,
    "hearts": 3, "gupa": 3, "♥": 3,
    "best spades": 4, "best": 4, "paston grkha": 4, "grkha": 4,
}  # fmt: skip

PHASE_RULES = {
    "auction": (
        "The auction (§3). The ladder, with each step's factor: spades ×1, clubs ×2, diamonds ×3, "
        "hearts ×4, best spades ×4. The first bid is spades; every later bid is exactly the next "
        "step ('bid' makes it), no jumps. A pass puts you out of this auction. Best spades ends "
        "it at once; otherwise it ends when two have passed and the third holds the highest bid.\n"
        "All three pass: the holder of the J♠ must declare (the 7♠ holder if the J♠ is in the "
        "prikup; if both are there, the same dealer deals again).\n"
        "The declarer takes the two prikup cards, discards two, names trumps and needs 6 of the "
        "10 tricks: +10 × factor if made, −10 × factor if not."
    ),
    "discard": (
        "Prikup and discards (§4). The declarer has taken the two prikup cards (nobody else sees "
        "them) and now puts two cards face down, one at a time: any two, the prikup cards too. "
        "Then the declarer names the contract or surrenders."
    ),
    "contract": (
        "The contract (§4). Name the trump suit: the suit you won the auction with or a higher "
        "step, but not best spades (after best spades: best spades only; after an all-pass: any "
        "of spades, clubs, diamonds, hearts). You need 6 of the 10 tricks: +10 × factor if made, "
        "−10 × factor if not (best spades: +10 if made, −40 if not).\n"
        "Or surrender: the deal ends at once, −10 for you and +2 for each opponent, no factor."
    ),
    "defence": (
        "Whist or pass (§5). The declarer's left answers first, then the right. Both pass: the "
        "declarer wins without play (+10 × factor) and you score 0. Both whist: each defender "
        "needs 2 tricks (0 tricks −10, 1 −9, 2 0, each trick above 2 +10), × factor. One whist "
        "alone: the sole defender needs 4 (−10, −9, −8, −7, 0, then +10 a trick above 4), × "
        "factor; the passer sits out and scores 0."
    ),
    "play": (
        "Playing the tricks (§6). Follow suit if you can; if you cannot, play a trump if you "
        "have one; otherwise any card. You never have to beat the cards played. The highest "
        "trump wins the trick, else the highest card of the suit led; the winner leads next. "
        "The declarer needs 6 tricks, each of two defenders 2, a sole defender 4."
    ),
}

HINTS = {
    "auction": "pass, or bid the next step of the ladder ('bid' alone does it)",
    "discard": "discard a card by name, e.g. 7C (twice)",
    "contract": "name a contract ('contract hearts' or just 'hearts') or 'surrender'",
    "defence": "'whist' to defend, or 'pass'",
    "play": "play a card by name, e.g. AS, 10H or A♠ (follow suit, else trump)",
}


def level_name(level: int) -> str:
    return rules.LEVEL_NAMES[level].replace("_", " ")


class PastonTable(SeatView):
    """Paston from one seat's point of view: what to show, how to read a typed move."""

    default_mode = "deal"
    phase_rules = PHASE_RULES
    rules_page = RULES_PAGE

    def __init__(self, env: Any, seat: int, labels: list[str]):
        super().__init__(env, seat, labels, PASTON_CARDS, rules)
        self.session_totals = [0, 0, 0]

    def hand_text(self, cards: Sequence[int]) -> str:
        groups = []
        for suit in range(4):
            in_suit = [c for c in cards if self.cards.suit(c) == suit]
            if in_suit:
                groups.append(" ".join(self.sym(c) for c in in_suit))
        return "   ".join(groups) if groups else "(none)"

    def view(self) -> Any:
        return decode(self.env.observe(self.me)["observation"])

    def rel_who(self, rel: int) -> str:
        return self.who(self.abs_seat(rel))

    # showing ------------------------------------------------------------------------------------
    def show(self, obs: dict[str, np.ndarray]) -> str:
        v = decode(obs["observation"])
        lines = [f"── Paston · {v.phase} · dealer {self.rel_who(v.dealer)}"]
        if self.raw.totals is not None:
            lines.append(self._totals_line())
        lines += self._auction_lines(v) + self._contract_lines(v) + self._play_lines(v)
        if v.prikup:
            lines.append("Prikup (you took it): " + " ".join(self.sym(c) for c in v.prikup))
        if v.discards:
            lines.append("Your discards: " + " ".join(self.sym(c) for c in v.discards))
        lines.append(f"Your hand: {self.hand_text(v.hand)}")
        lines.append("Your moves: " + ", ".join(self.legal_names(obs)))
        return "\n".join(lines)

    def _totals_line(self) -> str:
        totals = self.raw.totals
        return "Totals: " + ", ".join(f"{self.who(s)} {totals[s]}" for s in range(3))

    def _auction_lines(self, v: Any) -> list[str]:
        auction = []
        for rel in range(3):
            said = " ".join(level_name(b) for b in v.bids[rel])
            if v.auction_passed[rel]:
                said = (said + ", then pass") if said else "pass"
            auction.append(f"{self.rel_who(rel)} {said or '—'}")
        lines = ["Auction: " + "; ".join(auction)]
        if v.high_bid is not None:
            lines.append(f"Highest bid: {level_name(v.high_bid)} by {self.rel_who(v.high_bidder)}")
        if v.all_pass:
            lines.append("All passed: the J♠ (or 7♠) holder declares")
        return lines

    def _contract_lines(self, v: Any) -> list[str]:
        if v.declarer is None:
            return []
        if v.surrendered:
            contract = "surrendered"
        elif v.contract is not None:
            contract = level_name(v.contract)
        else:
            contract = "not named yet"
        lines = [f"Declarer: {self.rel_who(v.declarer)}; contract: {contract}"]
        defence = []
        for rel in range(3):
            if v.whist[rel]:
                defence.append(f"{self.rel_who(rel)} whist")
            elif v.defence_pass[rel]:
                defence.append(f"{self.rel_who(rel)} pass")
        if defence:
            lines.append("Defence: " + ", ".join(defence))
        return lines

    def _play_lines(self, v: Any) -> list[str]:
        lines = []
        if v.phase in ("play", "over") or any(v.tricks):
            lines.append(
                "Tricks: " + ", ".join(f"{self.rel_who(r)} {v.tricks[r]}" for r in range(3))
            )
            played = [
                f"{self.rel_who(r)}: {' '.join(self.sym(c) for c in v.played[r])}"
                for r in range(3)
                if v.played[r]
            ]
            if played:
                lines.append("Played: " + "; ".join(played))
        if v.trick:
            lines.append(
                "Trick: " + "  ".join(f"{self.rel_who(r)} {self.sym(c)}" for r, c in v.trick)
            )
        return lines

    def help_lines(self, obs: dict[str, np.ndarray]) -> list[str]:
        v = decode(obs["observation"])
        return [f"Now: {HINTS.get(v.phase, '')}", "Legal now: " + ", ".join(self.legal_names(obs))]

    def decode(self, obs: dict[str, np.ndarray]) -> Any:
        return decode(obs["observation"])

    def rules_here(self, v: Any) -> list[str]:
        if v.phase != "play" or v.contract is None or v.declarer is None:
            return []
        declarer = v.declarer == 0
        need = 6 if declarer else (2 if v.num_active == 3 else 4)
        role = "the declarer" if declarer else "a defender"
        return [
            f"Here: {level_name(v.contract)} (factor {rules.LEVEL_FACTOR[v.contract]}); you are "
            f"{role} and need {plural(need, 'trick')}; you have {v.tricks[0]}."
        ]

    # reading a move -----------------------------------------------------------------------------
    def parse(self, text: str, obs: dict[str, np.ndarray]) -> int:
        legal = {
            self.raw.action_to_string(int(a)).lower(): int(a)
            for a in np.flatnonzero(obs["action_mask"])
        }
        key = normalize(text)
        if key in legal:
            return legal[key]
        shortcuts = {"p": "pass", "w": "whist", "whists": "whist"}
        if shortcuts.get(key) in legal:
            return legal[shortcuts[key]]
        phase = decode(obs["observation"]).phase
        if phase != "contract" and (key in ("contract", "c") or key.startswith("contract ")):
            raise MoveError(f"you cannot name a contract now ({phase})")
        level = self._typed_level(key)
        if key in ("bid", "b", "contract", "c") or level is not None:
            return self._parse_level(level, phase, legal)
        try:
            action = self.raw.string_to_action(text)
        except ValueError:
            raise MoveError(f"unknown move {text.strip()!r}; type 'help' for your moves") from None
        if action in legal.values():
            return action
        raise MoveError(self._why_illegal(action, obs))

    @staticmethod
    def _typed_level(key: str) -> int | None:
        """The ladder step named by ``hearts``, ``bid hearts``, ``contract gupa`` …, or None."""
        for prefix in ("bid ", "contract "):
            if key.startswith(prefix):
                key = key[len(prefix) :]
        return LEVEL_WORDS.get(key)

    def _parse_level(self, level: int | None, phase: str, legal: dict[str, int]) -> int:
        """A bid or a contract typed by its level (or ``bid`` / ``contract`` alone)."""
        if phase == "auction":
            bid = next(a for a in legal.values() if a != rules.PASS)
            if level is None or rules.BID_BASE + level == bid:
                return bid
            raise MoveError(
                f"{level_name(level)} is not the next step of the ladder: you can "
                f"{self.raw.action_to_string(bid)} or pass"
            )
        if phase == "contract":
            contracts = [a for a in legal.values() if rules.CONTRACT_BASE <= a < rules.SURRENDER]
            names = ", ".join(self.raw.action_to_string(a) for a in contracts)
            if level is not None and rules.CONTRACT_BASE + level in contracts:
                return rules.CONTRACT_BASE + level
            if level is None and len(contracts) == 1:
                return contracts[0]
            if level is None:
                raise MoveError(f"which contract? {names}, or surrender")
            raise MoveError(
                f"you cannot name {level_name(level)}: {self._contract_reason()}. "
                f"Name one of {names}, or surrender"
            )
        names = ", ".join(self.raw.action_to_string(a) for a in legal.values())
        raise MoveError(f"you cannot bid now ({phase}). Your moves: {names}")

    def _contract_reason(self) -> str:
        v = self.view()
        if v.high_bid is None:
            return "after an all-pass the contract is spades, clubs, diamonds or hearts"
        if v.high_bid == rules.BEST_SPADES:
            return "you bid best spades, so best spades it is"
        return (
            f"the auction was won at {level_name(v.high_bid)}, so the contract is that suit or a "
            "higher one (not best spades)"
        )

    def _why_illegal(self, action: int, obs: dict[str, np.ndarray]) -> str:
        v = decode(obs["observation"])
        name = self.raw.action_to_string(action)
        legal = ", ".join(self.legal_names(obs))
        if action < rules.NUM_CARDS:
            if action not in v.hand:
                return f"you do not hold {name}. Your moves: {legal}"
            if v.phase == "play":
                return (
                    f"{name} is not allowed: follow suit if you can, else play a trump. "
                    f"Your moves: {legal}"
                )
            return f"you cannot play a card now ({v.phase}). Your moves: {legal}"
        return f"{name!r} is not legal now ({v.phase}). Your moves: {legal}"

    # narrating ----------------------------------------------------------------------------------
    def before_step(self, seat: int) -> dict[str, Any]:
        view = self.view()
        return {"view": view, "phase": view.phase}

    def describe(self, seat: int, action: int, before: dict[str, Any]) -> str:
        who = self.who(seat)
        if action < rules.NUM_CARDS:
            if before["phase"] == "discard":
                if seat == self.seat:
                    return f"{who} discard {self.sym(action)}"
                return f"{who} discards a card (face down)"
            return f"{who} {'play' if seat == self.seat else 'plays'} {self.sym(action)}"
        return f"{who}: {self.raw.action_to_string(action).replace('_', ' ')}"

    def events(self, before: dict[str, Any], seat: int, action: int) -> list[str]:
        out = []
        v0, v1 = before["view"], self.view()
        if before["phase"] == "auction" and v1.phase == "discard" and v1.declarer is not None:
            out.append(self._auction_won(v0, v1))
        # a trick is won by a card played (a variant that credits the tricks without play,
        # paston_bidding, ends the deal at the defence: its result says the tricks)
        if before["phase"] == "play" and sum(v1.tricks) > sum(v0.tricks):
            winner = next(r for r in range(3) if v1.tricks[r] > v0.tricks[r])
            cards = [*v0.trick, ((seat - self.seat) % 3, action)]
            shown = "  ".join(f"{self.rel_who(r)} {self.sym(c)}" for r, c in cards)
            won = plural(v1.tricks[winner], "trick")
            out.append(f"  trick: {shown} → {self.rel_who(winner)} ({won})")
        out.extend(self.new_results())
        return out

    def _auction_won(self, v0: Any, v1: Any) -> str:
        """Who declares, said when the auction ends; after an all-pass, why them."""
        mine = self.abs_seat(v1.declarer) == self.seat
        name = self.rel_who(v1.declarer)
        if not v1.all_pass:
            if mine:
                return "you win the auction and take the prikup"
            return f"{name} wins the auction and takes the prikup"
        if mine:
            card = "J♠" if rules.JACK_OF_SPADES in v0.hand else "7♠ and the J♠ is in the prikup"
            return (
                f"all three passed: you hold the {card}, so you must declare; you take the prikup"
            )
        if rules.SEVEN_OF_SPADES in v0.hand:
            why = "they hold the J♠"
        else:
            why = "they hold the J♠, or the 7♠ with the J♠ in the prikup"
        return f"all three passed: {name} must declare ({why}) and takes the prikup"

    def start(self) -> list[str]:
        self.results_seen = 0
        v = self.view()
        return [
            f"New deal; dealer {self.rel_who(v.dealer)}, first bidder {self.rel_who(v.first_bidder)}"
        ]

    def summary(self, result: dict[str, dict[str, Any]]) -> list[str]:
        names = self.env.possible_agents
        first = result[names[0]]
        outcome = first["outcome"]
        if outcome == "redeal":
            return ["All passed with J♠ and 7♠ in the prikup: the same dealer deals again."]
        contract = (first.get("contract") or first.get("bid") or "-").replace("_", " ")
        head = {
            "played": f"Deal over: {contract} played",
            "auto_win": f"Deal over: {contract} — both opponents passed, the declarer wins",
            "surrender": "Deal over: the declarer surrendered",
        }.get(outcome, f"Deal over: {outcome}")
        lines = [head]
        lines += ["  " + line for line in paston_explanations(result, self.label)]
        for seat, name in enumerate(names):
            self.session_totals[seat] += result[name]["deal_score"]
        if self.raw.totals is not None:
            lines.append(self._totals_line())
        else:
            lines.append(
                "Session: "
                + ", ".join(f"{self.who(s)} {self.session_totals[s]:+d}" for s in range(3))
            )
        return lines

    def finish(self) -> list[str]:
        out = self.new_results()
        infos = self.raw.infos
        winners = infos.get(self.me, {}).get("winners") if self.raw.episode == "game" else None
        if winners:
            names = ", ".join(self.label(w) for w in winners)
            verb = "win" if len(winners) > 1 or self.me in winners else "wins"
            out.append(f"Game over: {names} {verb}!")
        elif self.raw.episode == "game" and any(self.raw.truncations.values()):
            out.append("Game stopped: the deal limit was reached.")
        return out
