"""The documentation's examples run as written and print what their pages say they print.

Every ```python block of the README and of the site's pages (``docs/``) runs; a block followed by
"It prints…:" and a ```text block must print that text (``...`` stands for any text, as in
doctest's ELLIPSIS). The blocks of one page run in order in one namespace, as a reader runs them;
the tutorials run in a fresh temporary folder. The site itself builds in strict mode with no URL
of another host in its pages, and every public module has its API page.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
# A python block, optionally followed by "It prints…:" and a text block with its output.
EXAMPLE = re.compile(r"```python\n(.*?)```\n(?:\nIt prints[^\n]*:\n\n```text\n(.*?)```\n)?", re.S)
_CHECKER = doctest.OutputChecker()


def pages_with_examples() -> list[Path]:
    """The README and every page of the site that holds a python example."""
    pages = [README, *sorted(DOCS.rglob("*.md"))]
    return [p for p in pages if "```python" in p.read_text()]


def examples(page: Path) -> list[tuple[str, str | None]]:
    return [(m.group(1), m.group(2)) for m in EXAMPLE.finditer(page.read_text())]


def _id(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


@pytest.fixture
def registries_restored(monkeypatch):
    """A page's example may register an agent kind or a tournament statistic (docs/extending.md
    does): the process's registries are put back after it, so no later test sees them."""
    from folkcards.agents import base
    from folkcards.evaluate import statistics

    base.agent_kinds()  # the built-in kinds registered first: they stay
    monkeypatch.setattr(base, "_FACTORIES", dict(base._FACTORIES))
    monkeypatch.setattr(statistics, "_REGISTRY", dict(statistics._REGISTRY))


@pytest.mark.parametrize("page", pages_with_examples(), ids=_id)
def test_page_examples_print_what_the_page_says(page, tmp_path, monkeypatch, registries_restored):
    blocks = examples(page)
    assert blocks, f"{_id(page)}: a python block the pattern does not read"
    if page.parent.name == "tutorials":
        monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    for index, (code, expected) in enumerate(blocks):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"{_id(page)} block {index}", "exec"), namespace)
        got = out.getvalue()
        where = f"{_id(page)}, python block {index}"
        if expected is None:
            assert got == "", f"{where} prints: show its output under 'It prints:'"
        else:
            assert _CHECKER.check_output(expected, got, doctest.ELLIPSIS), (
                f"{where} printed:\n{got}\nthe page says:\n{expected}"
            )


def test_every_tutorial_has_tested_code():
    for page in sorted((DOCS / "tutorials").glob("*.md")):
        blocks = examples(page)
        assert blocks, f"{_id(page)} has no python example the tests run"
        assert any(expected is not None for _, expected in blocks), (
            f"{_id(page)}: no example shows what it prints"
        )


def test_environment_pages_hold_the_observation_tables_of_the_code():
    from folkcards.envs.paston.observation import layout_table as paston_table
    from folkcards.envs.tri_palki.observation import layout_table as tri_palki_table

    assert paston_table() in (DOCS / "envs" / "paston.md").read_text()
    assert tri_palki_table(4) in (DOCS / "envs" / "tri_palki.md").read_text()


def test_readme_is_a_front_page_whose_links_stay_in_the_repository():
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if target.startswith(("http://", "https://")):
            continue
        path = (ROOT / target).resolve()
        assert path.is_relative_to(ROOT), f"README links outside the repository: {target}"
        assert path.exists(), f"README links a missing file: {target}"


def test_version_agrees_everywhere():
    import tomllib

    import folkcards

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    citation = re.search(r'^version:\s*"?([^"\n]+)"?', (ROOT / "CITATION.cff").read_text(), re.M)
    changelog = re.search(r"^## \[(\d[^\]]*)\]", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert citation and citation.group(1) == version
    assert changelog and changelog.group(1) == version, "CHANGELOG.md's newest entry"
    assert folkcards.__version__ == version
    cli = subprocess.run(
        [sys.executable, "-m", "folkcards", "--version"], capture_output=True, text=True
    )
    assert cli.stdout.strip() == f"folkcards {version}"


# A URL of another host in a built page: anything but XML namespaces and the loopback address.
_EXTERNAL = re.compile(r"https?://(?!www\.w3\.org/|127\.0\.0\.1|localhost)[^\s\"'<>)]+")


@pytest.fixture(scope="module")
def built_site(tmp_path_factory):
    if shutil.which("mkdocs", path=str(Path(sys.executable).parent)) is None:
        pytest.fail("mkdocs is not installed: it is part of the dev extra")
    site = tmp_path_factory.mktemp("site")
    env = {**os.environ, "DISABLE_MKDOCS_2_WARNING": "true", "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run(
        [str(Path(sys.executable).parent / "mkdocs"), "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    warnings = [line for line in run.stderr.splitlines() if line.startswith("WARNING")]
    assert not warnings, "\n".join(warnings)
    return site


def test_site_builds_strictly_with_no_url_of_another_host(built_site):
    pages = list(built_site.rglob("*.html"))
    assert len(pages) > 50
    for page in pages:
        found = _EXTERNAL.findall(page.read_text(errors="replace"))
        assert not found, f"{page.relative_to(built_site)} refers to another host: {found[:3]}"


def test_every_public_module_has_an_api_page(built_site):
    spec = importlib.util.spec_from_file_location("_api_list", DOCS / "_gen" / "modules.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    names = module.public_modules()
    assert "folkcards.envs.paston_v0" in names and "folkcards.search.paston_solver" in names
    for name in names:
        parts = name.split(".")[1:] or ["folkcards"]
        page = built_site / "api" / Path(*parts).with_suffix(".html")
        assert page.exists(), f"no API page for {name}"
        assert name in page.read_text(), f"the API page of {name} does not name it"
