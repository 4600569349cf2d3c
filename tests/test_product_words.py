"""What a user reads or runs speaks of the product, never of how it was developed.

No session or issue numbers, no words naming the day of a change, no run folders of past
experiments (the patterns below, with examples in the matcher's tests) in the README, the
CHANGELOG, the site's pages (stored reports too),
the configs, the package's modules, the benchmarks and scripts, the tests' names, docstrings and
comments, and every ``folkcards`` command's --help. A version (``since 0.4.0``), a spec
(``expert:pass_weight=0.5,whist_margin=0``), a command or a date says it instead.
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"

# Read whole: every line a user may read.
PAGES = ["README.md", "CHANGELOG.md", "CONTRIBUTING.md", "CITATION.cff", "pyproject.toml"]
FOLDERS = ["docs", "configs", "envs", "search", "agents", "evaluate", "train", "play", "web"]
FOLDERS += ["folkcards", "benchmarks", "scripts"]
SUFFIXES = {".md", ".py", ".yaml", ".yml", ".toml", ".sh", ".html", ".js", ".txt", ".cfg"}

# Words of the development process, matched case-insensitively.
PROCESS_WORDS = re.compile(
    r"""
      \bsessions?[\s-]+\d+                                  # session 16, sessions 20-23, session-16
    | \b(?:this|that|last|previous|next|earlier|later)\s+session\b
    | \bissues?[\s-]+\#?\d+                                 # issue 24, issues 12 and 13, issue-11
    | (?<![\w&/\#'"])\#\d+\b(?![-\w])                       # (… #7): not random#2, not (#7-title)
    | \b(?:the|this|that)\s+issue(?:'s)?\b                  # "the issue names", "the issue's text"
    | \btoday(?:'s)?\b
    | \bruns/(?:[\w.-]+/)*(?:[st]\d+[a-z]?|[\w-]*_[st]\d+)\b  # runs/s16/…, runs/t24b, …_s23
    | (?<![\w.~-])/work/[\w.-]                                # the development machine's folders
    """,
    re.IGNORECASE | re.VERBOSE,
)
# Names of tests and test files that list fixes or name a session/issue instead of what they test.
PROCESS_NAMES = re.compile(r"(?:^|_)(?:issues?\d+|sessions?\d+|[st]\d+)(?:_|$)|_(?:bug)?fixes$")

# Ordinary senses of the words: a match inside one of these is not a process word.
ALLOWED = re.compile(
    r"""
      \b(?:the|this|that)\s+issue\s+tracker\b     # where bugs are reported
    | \bthis\s+session\b(?=\s+of\s+play)          # a play session at the terminal or web table
    | \.today\(\)                                  # the calendar call datetime.date.today()
    """,
    re.IGNORECASE | re.VERBOSE,
)


def process_words(text: str) -> list[str]:
    """The process words of ``text`` (one line or several), outside the allowed senses."""
    allowed = [m.span() for m in ALLOWED.finditer(text)]
    return [
        m.group(0)
        for m in PROCESS_WORDS.finditer(text)
        if not any(a <= m.start() and m.end() <= b for a, b in allowed)
    ]


def _lines(where: str, text: str, first: int = 1) -> Iterator[tuple[str, str]]:
    for number, line in enumerate(text.splitlines(), first):
        if process_words(line):
            yield f"{where}:{number}", line.strip()


def read_sources() -> Iterator[tuple[str, str]]:
    """Every page, config and module a user reads, line by line: (file:line, text) of each hit."""
    paths = [ROOT / p for p in PAGES]
    for folder in FOLDERS:
        paths += sorted(p for p in (ROOT / folder).rglob("*") if p.suffix in SUFFIXES)
    for path in paths:
        if path.is_file() and "__pycache__" not in path.parts:
            yield from _lines(path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8"))


def sources_of_tests() -> Iterator[tuple[str, str]]:
    """The tests' file names, test names, docstrings and comments (not their test data)."""
    for path in sorted(TESTS.rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        if PROCESS_NAMES.search(path.stem) or process_words(path.stem.replace("_", " ")):
            yield where, f"file named {path.name}"
        tree = ast.parse(text)
        for node in ast.walk(tree):
            named = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            if named and PROCESS_NAMES.search(node.name.lower()):
                yield f"{where}:{node.lineno}", f"named {node.name}"
            if named or isinstance(node, ast.Module):
                docstring = ast.get_docstring(node, clean=False)
                if docstring:
                    yield from _lines(where, docstring, node.body[0].lineno)
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT and process_words(token.string):
                yield f"{where}:{token.start[0]}", token.string


def _parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):  # aliases share a parser
                yield from _parsers(child)


def help_sources() -> Iterator[tuple[str, str]]:
    """The --help of ``folkcards`` and of every subcommand, the trainer's own parser included."""
    from folkcards.train import cli as train_cli

    from folkcards import cli

    for parser in [*_parsers(cli.build_parser()), train_cli.build_parser()]:
        yield from _lines(f"`{parser.prog} --help`", parser.format_help())


@pytest.mark.parametrize(
    "source", [read_sources, sources_of_tests, help_sources], ids=lambda f: f.__name__
)
def test_no_process_words(source) -> None:
    hits = [f"{where}: {text}" for where, text in source()]
    assert not hits, f"{len(hits)} lines name the development process:\n" + "\n".join(hits)


def test_every_command_help_is_read() -> None:
    """The walk over the parsers reaches every subcommand, nested ones (``bidding …``) too."""
    from folkcards import cli

    parser = cli.build_parser()
    progs = {p.prog for p in _parsers(parser)}
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert {f"folkcards {name}" for name in commands.choices} <= progs
    assert any(p.startswith("folkcards bidding ") for p in progs), progs


@pytest.mark.parametrize(
    "text",
    [
        "since session 16 the expert whists more",
        "Sessions 20-23 measured it",
        "the session-16 defaults",
        "measured this session",
        "Written from issue 24's text",
        "(issues 12 and 21)",
        "Issue 22 (8): the tables wrap",
        "a redeal shows the totals (issue 10 #7)",
        "#24 asked for it",
        "the players the issue names",
        "today's expert",
        "a figure that no longer matches today",
        "--runs runs/agents_page_s23",
        "--out runs/s16/v_pimc_heuristic",
        "--out runs/t24b/tp3",
        "from `/work/runs5/paston_cmp/tournament.sqlite`",
        "ppo:/work/runs5/tri_palki_batched/model.zip",
    ],
)
def test_the_matcher_finds_process_words(text: str) -> None:
    assert process_words(text), text


@pytest.mark.parametrize(
    "text",
    [
        "a Session seats a person against agents",
        "the tournament's sessions table records each run",
        "report bugs on the issue tracker",
        "the totals of this session of play",
        "random and random#2 are two entrants",
        "see [scoring](#7-scoring-a-deal)",
        "`expert` since 0.4.0, measured on 2026-12-01",
        "expert:pass_weight=0.5,whist_margin=0",
        "--out runs/expert_pimc_heuristic and runs/first/model.zip",
        "the sticks of seat 3 after 16 rounds",
        "no issues with numba",
        '"date": datetime.date.today().isoformat(),',
        "--out runs/work/x and ~/work/notes",
    ],
)
def test_the_matcher_leaves_ordinary_words(text: str) -> None:
    assert not process_words(text), process_words(text)


@pytest.mark.parametrize(
    ("name", "flagged"),
    [
        ("test_new_user_fixes", True),
        ("test_issue10_edges", True),
        ("test_s23_cap", True),
        ("test_terminal_play", False),
        ("test_fixed_seed_is_reproducible", False),
        ("test_seed_fixes_the_deal", False),
        ("test_session_totals", False),
        ("test_watch", False),
    ],
)
def test_the_name_matcher(name: str, flagged: bool) -> None:
    assert bool(PROCESS_NAMES.search(name)) is flagged
