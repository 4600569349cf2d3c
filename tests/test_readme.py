"""The README's examples run as written, and its tables match the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


@pytest.mark.parametrize("index", range(len(_python_blocks())))
def test_readme_python_example_runs(index, capsys):
    code = _python_blocks()[index]
    exec(compile(code, f"README block {index}", "exec"), {"__name__": "__readme__"})


def test_readme_paston_observation_table_matches_the_code():
    from folkcards.envs.paston.observation import layout_table

    assert layout_table() in README.read_text()


def test_readme_tri_palki_observation_table_matches_the_code():
    from folkcards.envs.tri_palki.observation import layout_table

    assert layout_table(4) in README.read_text()
