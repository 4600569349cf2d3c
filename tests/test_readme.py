"""The README's examples run as written and print what the README says they print; its tables
match the code."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
# A python block, optionally followed by "It prints:" and a text block with its exact output.
EXAMPLE = re.compile(r"```python\n(.*?)```\n(?:\nIt prints:\n\n```text\n(.*?)```\n)?", re.S)


def _examples() -> list[tuple[str, str | None]]:
    return [(m.group(1), m.group(2)) for m in EXAMPLE.finditer(README.read_text())]


@pytest.mark.parametrize("index", range(len(_examples())))
def test_readme_python_example_prints_what_the_readme_says(index):
    code, expected = _examples()[index]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"README block {index}", "exec"), {"__name__": "__readme__"})
    if expected is None:
        assert out.getvalue() == "", "this example prints: show its output under 'It prints:'"
    else:
        assert out.getvalue() == expected


def test_readme_examples_are_found():
    assert len(_examples()) >= 5
    assert sum(expected is not None for _, expected in _examples()) >= 5


def test_readme_paston_observation_table_matches_the_code():
    from folkcards.envs.paston.observation import layout_table

    assert layout_table() in README.read_text()


def test_readme_tri_palki_observation_table_matches_the_code():
    from folkcards.envs.tri_palki.observation import layout_table

    assert layout_table(4) in README.read_text()


def test_readme_links_stay_inside_the_repository():
    root = README.parent
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text()):
        if target.startswith(("http://", "https://")):
            continue
        path = (root / target).resolve()
        assert path.is_relative_to(root), f"README links outside the repository: {target}"
        assert path.exists(), f"README links a missing file: {target}"
