"""Tri Palki for a spectator (the registry's ``spectator`` piece): every hand face up with its
value, each swap with the cards given and taken, the washes, and each round's sticks explained."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from folkcards.envs.cards import TRI_PALKI_CARDS, mask_to_cards
from folkcards.envs.tri_palki import rules as tri_palki
from folkcards.envs.tri_palki.kernels import swapped_cards

from .tri_palki_explain import tri_palki_explanations
from .watch import Spectator


class TriPalkiSpectator(Spectator):
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


__all__ = ["TriPalkiSpectator"]
