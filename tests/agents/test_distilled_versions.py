"""Earlier distilled players kept with the package (``distilled:version=V``,
docs/guide/distilled.md): the spec plays the network that version shipped, with the search
budget that network was cloned from, in the single and the batched form; a version the game
does not have is refused in one line."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import numpy as np
import pytest
from folkcards.agents import make_agent
from folkcards.agents.batched_agents import make_batched_agent
from folkcards.agents.policy_files import distilled_model_path, distilled_versions, network_file
from folkcards.agents.tri_palki_search import EXPERT_PARAMS_0_4
from folkcards.envs.registry import GAMES

from .tri_palki_styles import play_rounds

DOCS = Path(__file__).resolve().parents[2] / "docs"
MADE_WITH_0_6 = DOCS / "tournaments" / "tri_palki_distilled_unsure_4p" / "report.md"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_tri_palki_keeps_the_0_6_player_and_every_kept_version_has_its_file():
    assert "0.6" in distilled_versions("tri_palki")
    for game in GAMES:
        for version in distilled_versions(game):
            assert distilled_model_path(game, version).is_file()


def test_version_0_6_plays_the_network_the_stored_0_6_results_were_made_with():
    """The stored 0.6-era tournament names the network file its ``distilled`` played by hash."""
    row = re.search(r"\| distilled \| `distilled(?::version=0\.6)?` \| (\S+) sha256 (\w+) \|",
                    MADE_WITH_0_6.read_text())  # fmt: skip
    assert row is not None
    kept = distilled_model_path("tri_palki", "0.6")
    assert _sha(kept).startswith(row.group(2))
    assert _sha(kept) != _sha(distilled_model_path("tri_palki"))  # the current network is another
    assert network_file("distilled:unsure=0.9,version=0.6", "tri_palki") == kept


def test_version_0_7_and_the_current_network_are_the_ones_their_stored_results_were_made_with():
    """The 0.7.0 player's tournament names its ``distilled`` network by hash; the tournament that
    made the current network ``distilled`` names both, the earlier one as version 0.7."""
    made_with_0_7 = (DOCS / "tournaments" / "tri_palki_distilled_0_7_4p" / "report.md").read_text()
    made_current = (DOCS / "tournaments" / "tri_palki_distilled_net_4p" / "report.md").read_text()
    old = re.search(r"\| distilled \| `distilled` \| \S+ sha256 (\w+) \|", made_with_0_7)
    kept = re.search(r"\| distilled:version=0\.7 \| `distilled:version=0\.7` \| \S+ sha256 (\w+) \|",
                     made_current)  # fmt: skip
    current = re.search(r"\| distilled \| `distilled` \| \S+ sha256 (\w+) \|", made_current)
    assert old is not None and kept is not None and current is not None
    assert old.group(1) == kept.group(1)
    assert _sha(distilled_model_path("tri_palki", "0.7")).startswith(old.group(1))
    assert _sha(distilled_model_path("tri_palki")).startswith(current.group(1))
    assert "0.7" in distilled_versions("tri_palki")


def test_each_version_searches_with_the_budget_its_network_was_cloned_from():
    old = make_agent("distilled:version=0.6", "tri_palki", seed=1)
    assert old.path == distilled_model_path("tri_palki", "0.6")
    assert old.unsure.search.params == EXPERT_PARAMS_0_4
    current = make_agent("distilled", "tri_palki", seed=1)
    assert current.unsure.search.params == make_agent("expert", "tri_palki").params
    assert make_agent("distilled:version=0.7", "tri_palki", seed=1).unsure.search.params == (
        current.unsure.search.params
    )


@pytest.mark.parametrize(
    ("game", "spec", "message"),
    [
        ("tri_palki", "distilled:version=0.5", "no earlier distilled player '0.5'"),
        ("tri_palki", "distilled:version=", "no earlier distilled player ''"),
        ("paston", "distilled:version=0.6", "versions kept: none"),
    ],
)
def test_a_version_the_game_does_not_have_is_refused_in_one_line(game, spec, message):
    for make in (make_agent, make_batched_agent):
        with pytest.raises(ValueError, match=re.escape(message)) as caught:
            make(spec, game)
        assert "\n" not in str(caught.value)


def test_the_batched_form_of_a_version_plays_its_network():
    """Rows where the network is sure: the batched 0.6 player's choices are the 0.6 network's,
    and differ from the current network's on some rows."""
    batched = make_batched_agent("distilled:version=0.6,unsure=0", "tri_palki", num_players=4)
    single = make_agent("distilled:version=0.6,unsure=0", "tri_palki")
    current = make_agent("distilled:unsure=0", "tri_palki")
    env_rows, masks, differs = [], [], 0
    opponents = [make_agent("random", "tri_palki", f"player_{i}", 8 + i) for i in range(1, 4)]
    for _, obs, _, _ in play_rounds("random", opponents, range(12), 8, max_turns=200):
        if obs["action_mask"].sum() > 1:
            env_rows.append(np.asarray(obs["observation"], np.float32))
            masks.append(np.asarray(obs["action_mask"], bool))
            differs += single.act(obs) != current.act(obs)
    actions = batched.act(np.stack(env_rows), np.stack(masks))
    expected = [
        single.act({"observation": r, "action_mask": m})
        for r, m in zip(env_rows, masks, strict=True)
    ]
    assert list(actions) == expected
    assert differs > 0
