"""The Tri Palki ``distilled`` player's search where its network is unsure (the registry's
``unsure_search`` piece): the ``expert``'s compiled search with its budget, told of the
network's decisions and catching up with the round only when it next searches."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..envs.tri_palki import observation as obs_mod
from .tri_palki_net_search import EXPERT_NET, TriPalkiExpertAgent
from .tri_palki_search import EXPERT_PARAMS, EXPERT_PARAMS_0_4, TriPalkiSearchParams

__all__ = ["UNSURE_BUDGETS", "TriPalkiUnsureSearch"]

# the search budget of each distilled player: its network was cloned from the expert with it
UNSURE_BUDGETS: dict[str | None, TriPalkiSearchParams] = {
    None: EXPERT_PARAMS,  # distilled since 0.7.0
    "0.7": EXPERT_PARAMS,  # distilled:version=0.7, the network of 0.7.0 to 0.15.0
    "0.6": EXPERT_PARAMS_0_4,  # distilled:version=0.6, the player of 0.4.0 to 0.6.0
}


class TriPalkiUnsureSearch:
    """The Tri Palki ``distilled`` player's search where its network is unsure (the registry's
    ``unsure_search`` piece): a decision whose network probability of its first choice is
    under ``threshold`` (0.99 by default) is taken by the ``expert``'s search instead, with the
    budget of the expert its network was cloned from (:data:`UNSURE_BUDGETS`: the expert's
    :data:`EXPERT_PARAMS`, as for ``version="0.7"``; ``version="0.6"``, the earlier player's,
    :data:`EXPERT_PARAMS_0_4`; or ``params``): the compiled search of ``expert`` without a
    network, which decides as the Python search with that budget. ``with_net``: at 3 players
    the search with the loop's network for its own seat (:data:`EXPERT_NET`, 0.14.0's
    ``expert`` there; ``distilled:unsure_net=1``; measured behind the search without a network,
    docs/iterate.md).

    The search's inference reads the round so far, so the player tells it every decision the
    network took (:meth:`observe`); those are worked into the search's reconstruction of the
    other players' decisions only when it next searches (most decisions are the network's
    alone and then cost nothing more than the network), with at most ``reconstruct_budget``
    candidate moves for that catching up (past it the search forgets the round before the
    latest decision, as the expert does when its own budget binds), so a decision's work stays
    bounded whatever the others do: ``self.work`` holds it. A batched caller starts each row
    afresh (:meth:`reseed`); the search then sees the row's observation alone, as
    ``expert:infer=1`` from a round's first decision would. At most ``max_searches`` (6)
    decisions of a round are searched, the rest are the network's: in the rare round where
    the players swap the same cards back and forth until ``max_turns`` (hundreds of decisions,
    nearly all unsure), the search would otherwise take them all. Deterministic given its
    seed."""

    default_threshold = 0.99
    default_max_searches = 6

    def __init__(
        self,
        game: str = "tri_palki",
        seat: str = "player_0",
        seed: int | None = None,
        threshold: float | None = None,
        params: TriPalkiSearchParams | None = None,
        max_searches: int | None = None,
        version: str | None = None,
        with_net: bool = False,
    ):
        if version not in UNSURE_BUDGETS:
            raise ValueError(f"the unsure search has no budget for distilled version {version!r}")
        self.threshold = self.default_threshold if threshold is None else float(threshold)
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"unsure threshold must be in [0, 1], got {self.threshold}")
        self.max_searches = self.default_max_searches if max_searches is None else int(max_searches)
        if self.max_searches < 0:
            raise ValueError(f"max_searches must be at least 0, got {self.max_searches}")
        # the compiled search: the Python search's decisions with its budget, in less time
        budget = params or UNSURE_BUDGETS[version]
        nets = {3: EXPERT_NET} if with_net else {}
        self.search = TriPalkiExpertAgent(game, seat, seed, budget, nets=nets)
        self._pending: list[tuple[np.ndarray, int]] = []
        self.work: dict[str, int] = {}
        self.cut = False  # the last catch-up ran out of budget and forgot part of the round
        self._round: tuple[Any, ...] | None = None  # the round of the searches counted
        self._searched = 0

    def takes(self, observation: dict[str, np.ndarray], probabilities: np.ndarray) -> bool:
        """Whether the search takes this decision, on which the network put ``probabilities``
        (one per action): a choice, a first choice under the threshold, and fewer than
        ``max_searches`` searches so far this round."""
        legal = np.asarray(observation["action_mask"]).astype(bool)
        if legal.sum() < 2 or float(np.max(probabilities[legal])) >= self.threshold:
            return False
        view = obs_mod.decode(np.asarray(observation["observation"]))
        this_round = (view.dealer, tuple(view.sticks))  # both change from one round to the next
        if this_round != self._round:
            self._round, self._searched = this_round, 0
        return self._searched < self.max_searches

    def observe(self, observation: dict[str, np.ndarray], action: int) -> None:
        """Note a decision the network took in this seat (worked in at the next search)."""
        self._pending.append((np.array(observation["observation"], copy=True), int(action)))

    def reset(self) -> None:
        """Forget the round (a new episode)."""
        self.search.reset()
        self._pending.clear()
        self._round, self._searched = None, 0

    def reseed(self, seed: int) -> None:
        """Start afresh (nothing of the round noted), drawing worlds from ``seed``."""
        self.search.reseed(seed)
        self.reset()

    def act(self, observation: dict[str, np.ndarray]) -> int:
        """The expert search's action at this decision, after catching up with the round."""
        caught_up = self._catch_up()
        self._searched += 1
        action = self.search.act(observation)
        self.work = {
            key: value + (caught_up if key == "reconstruction" else 0)
            for key, value in self.search.work.items()
        }
        return action

    def _catch_up(self) -> int:
        """Work the network's decisions since the last search into the search's reconstruction
        of the round; the candidate moves tried (about ``reconstruct_budget`` at most)."""
        search = self.search
        search.work = {"reconstruction": 0, "likelihood": 0, "rollout": 0}
        budget = search.params.reconstruct_budget
        self.cut = False
        for vector, action in self._pending:
            view = obs_mod.decode(vector)
            if search.work["reconstruction"] < budget:
                search._remember(view)
            else:  # the budget is spent: forget the round before this decision
                search._histories = [()]
                self.cut = True
            search._trail = (view, action)
        self._pending.clear()
        return search.work["reconstruction"]
