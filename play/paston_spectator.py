"""Paston for a spectator (the registry's ``spectator`` piece): every hand and the prikup face
up at the deal, each call and card as it is made, every trick's winner and each deal's score
explained."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from folkcards.envs.cards import PASTON_CARDS, mask_to_cards
from folkcards.envs.paston import rules as paston

from .base import plural, signed
from .paston_explain import paston_explanations
from .watch import Spectator


class PastonSpectator(Spectator):
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


__all__ = ["PastonSpectator"]
