"""docs/architecture.md and its picture agree with the import contract and the registry."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from folkcards.envs.registry import HOOK_LAYERS

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"
sys.path.insert(0, str(ROOT / "scripts"))

import architecture_diagram  # noqa: E402


def _block(name: str) -> str:
    match = re.search(
        rf"<!--{name}-->\n(.*?)<!--/{name}-->", PAGE.read_text(encoding="utf-8"), re.S
    )
    assert match, f"docs/architecture.md has no {name} block"
    return match.group(1)


def test_the_page_lists_the_contract_layers_in_order() -> None:
    listed = re.findall(r"^\d+\. `(.*)`$", _block("layers"), re.M)
    assert listed == architecture_diagram.contract_layers()


def test_the_page_lists_every_piece_in_its_layer() -> None:
    rows = re.findall(r"^\| `(\w+)` \| (\w+) \|$", _block("pieces"), re.M)
    assert dict(rows) == HOOK_LAYERS
    assert len(rows) == len(HOOK_LAYERS)


def test_the_picture_is_what_the_script_draws_now() -> None:
    svg = (ROOT / "docs" / "architecture.svg").read_text(encoding="utf-8")
    assert svg == architecture_diagram.draw(), "run python scripts/architecture_diagram.py"
    for layer in architecture_diagram.contract_layers():
        assert layer.replace(">", "&gt;") in svg
    for piece in HOOK_LAYERS:
        assert piece in svg


def test_the_page_is_in_the_navigation() -> None:
    assert "(architecture.md)" in (ROOT / "docs" / "SUMMARY.md").read_text(encoding="utf-8")
