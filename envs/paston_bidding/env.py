"""The Paston bidding AEC environment: ``paston_v0`` up to the defence, then the solver scores.

The module docstring of ``folkcards.envs.paston_bidding_v0`` is the environment's documentation
page; :mod:`.solved_scores` credits the tricks.
"""

from __future__ import annotations

from typing import Any

from ..paston.env import raw_env as paston_raw_env
from ..paston.rules import NUM_SEATS, OVER, PLAY, PastonDeal
from .solved_scores import OpenHandResult, Solve, first_lead_result, new_solver, table_scores


class raw_env(paston_raw_env):  # noqa: N801 - PettingZoo's naming convention
    """Paston without the card play; see ``folkcards.envs.paston_bidding_v0``."""

    metadata = {**paston_raw_env.metadata, "name": "paston_bidding_v0"}
    game_name = "paston_bidding"

    def __init__(
        self,
        episode: str = "deal",
        reward_scale: float = 1.0,
        reward: str = "score",
        max_deals: int = 1000,
        render_mode: str | None = None,
    ):
        super().__init__(
            episode=episode,
            shaping=False,
            reward_scale=reward_scale,
            reward=reward,
            max_deals=max_deals,
            render_mode=render_mode,
        )
        del self._env_kwargs["shaping"]  # no play, so nothing to shape
        self._solve: Solve | None = None  # built at the first settled deal
        self._result: OpenHandResult | None = None

    def _start_deal(self, dealer: int, first_deal: bool, given: Any) -> None:
        self._result = None
        super()._start_deal(dealer, first_deal, given)

    def _apply(self, seat: int, action: int) -> None:
        deal = self._deal
        deal.apply(action)
        agent = self.possible_agents[seat]
        self._actions.append((agent, action))
        self._deal_records[-1]["actions"].append([agent, action])
        if deal.phase == PLAY:  # the defence is decided and someone said whist
            self._settle(deal)
        if deal.phase == OVER:
            self._finish_deal(deal)
        else:
            self.agent_selection = self.possible_agents[deal.to_act]

    def _settle(self, deal: PastonDeal) -> None:
        """Score the deal from the open-hand result instead of playing the ten tricks."""
        if self._solve is None:
            self._solve = new_solver()
        defenders = [seat for seat in deal.active if seat != deal.declarer]
        result = first_lead_result(deal.hands, deal.trump, deal.declarer, defenders, self._solve)
        self._result = result
        deal.tricks = list(result.tricks)
        deal.scores = table_scores(result.tricks, deal.level, deal.declarer, defenders)
        deal.outcome = "played"
        deal.phase = OVER
        deal.to_act = -1

    def _deal_infos(self, deal: PastonDeal) -> list[dict[str, Any]]:
        infos = super()._deal_infos(deal)
        result = self._result
        for seat in range(NUM_SEATS):
            infos[seat]["guaranteed"] = result.guaranteed[seat] if result else None
            infos[seat]["contested"] = result.contested if result else None
        return infos

    def open_hand_result(self) -> OpenHandResult | None:
        """How the current deal's tricks were credited; ``None`` before (or without) a solve."""
        return self._result

    def _render_text(self) -> str:
        text = super()._render_text()
        result = self._result
        if result is None:
            return text
        names = self.possible_agents
        guarantees = ", ".join(
            f"{names[s]} {g}" for s, g in enumerate(result.guaranteed) if g is not None
        )
        return (
            f"{text}\nopen-hand result (no tricks played): declarer {result.declarer_tricks}; "
            f"guarantees {guarantees}; contested {result.contested}"
        )


replay = raw_env.replay

__all__ = ["raw_env", "replay"]
