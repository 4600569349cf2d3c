"""What a report records as fixing each agent's behaviour (``evaluate/storage/versions.py``)."""

from __future__ import annotations

import hashlib

import pytest
from folkcards.agents.paston_expert import default_evaluator_path, open_hand_evaluator_path
from folkcards.agents.policy_files import MODELS_DIR
from folkcards.evaluate.storage.versions import agent_version

pytest.importorskip("torch")


def _digest(path) -> str:
    return f"{path.name} sha256 {hashlib.sha256(path.read_bytes()).hexdigest()[:12]}"


@pytest.mark.parametrize(
    ("spec", "path"),
    [
        ("ppo:paston", MODELS_DIR / "paston_ppo.zip"),
        ("rllib:paston", MODELS_DIR / "paston_rllib.pt"),
        ("expert", default_evaluator_path()),  # its weights change its bidding
        ("expert:model=open_hand", open_hand_evaluator_path()),
    ],
)
def test_agents_with_weights_are_recorded_by_the_digest_of_their_files(spec, path):
    assert agent_version(spec, "paston", "9.9") == _digest(path)


def test_rule_and_search_agents_are_the_package_version_and_missing_files_are_said():
    assert agent_version("heuristic", "paston", "9.9") == "built in, folkcards 9.9"
    assert agent_version("pimc", "tri_palki", "9.9") == "built in, folkcards 9.9"
    missing = agent_version("ppo:/no/such/model.zip", "paston", "9.9")
    assert missing == "/no/such/model.zip (not found when this report was written)"
