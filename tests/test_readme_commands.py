"""Every shell command of the README and the getting-started page runs as written.

The commands are read from those pages' ```bash / ```sh / ```console blocks (a ``console`` block's
commands are its ``$`` lines; ``#`` starts a comment). Each is run from a scratch folder holding
the repository's ``configs/`` (the README's commands are typed at the repository's root):

- ``.venv/bin/folkcards …`` through ``folkcards.cli.main``, the function the ``folkcards``
  console script calls (``[project.scripts]``), in this process, so the imports are paid once;
  an interactive command gets scripted input (``play``: ``quit`` at its first turn; ``watch``: a
  few Enters, then ``q``). A command passes when it returns 0 with nothing on stderr but
  progress lines (``what: done/total units (p%), …``, what long work logs off a terminal).
- ``folkcards serve`` as a process, with ``--port`` set to a free port (the one change: the
  README's port 8000 may be taken), until its page answers 200.
- ``report`` and ``export`` read ``results/quickstart/tournament.sqlite``, which the main job
  writes; here a one-deal tournament of the main job's game and agents writes it first.
- The long jobs — the main job, the test command, the 300-deal tournament and a training run —
  are marked ``slow`` (``scripts/test.sh -m slow``); the README gives no shorter form of them.
  ``scripts/*.sh`` run in a fresh clone of the repository, since they install into ``.venv``.
"""

from __future__ import annotations

import io
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from folkcards import cli

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
FENCE = re.compile(r"^```(bash|sh|console)\s*\n(.*?)^```", re.MULTILINE | re.DOTALL)

# the README's long jobs (none of them has a shorter form in the README)
LONG = {
    "bash scripts/main.sh": "the main job: set-up, training and a 300-deal tournament",
    "bash scripts/test.sh": "the test command: set-up, lint and the whole suite",
    "folkcards tournament --config configs/tournament/paston.yaml": "1,800 episodes",
    "folkcards train --config configs/tri_palki/ppo_quick.yaml": "a training run",
}
# scripted input of the interactive commands
INPUT = {"play": "quit\n", "watch": "\n" * 4 + "q\n"}


def readme_commands(text: str) -> list[str]:
    """The shell commands of a README's bash / sh / console blocks, comments dropped."""
    commands = []
    for kind, body in FENCE.findall(text):
        for line in body.splitlines():
            if kind == "console":
                if not line.startswith("$ "):
                    continue  # output
                line = line[2:]
            words = shlex.split(line, comments=True)
            if words:
                commands.append(shlex.join(words))
    return commands


def _plain(command: str) -> str:
    """The command without the ``.venv/bin/`` of the folkcards executable."""
    return command.removeprefix(".venv/bin/")


# the pages a new user runs commands from first: the front page and the getting-started page
PAGES = (README, ROOT / "docs" / "getting_started.md")
COMMANDS = list(
    dict.fromkeys(c for page in PAGES for c in readme_commands(page.read_text(encoding="utf-8")))
)
QUICK = [c for c in COMMANDS if _plain(c) not in LONG]


@pytest.fixture
def repo_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch folder laid out like the repository's root for the commands: ``configs/``."""
    (tmp_path / "configs").symlink_to(ROOT / "configs", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _main_job_database(command: str) -> None:
    """What the main job leaves behind that ``command`` reads: its tournament's database, from a
    one-deal tournament of the same game and agents (``scripts/main.sh`` plays 300)."""
    if "results/quickstart/tournament.sqlite" not in command:
        return
    argv = ["tournament", "--game", "paston", "--agents", "ppo:paston", "heuristic", "random"]
    argv += ["--deals", "1", "--workers", "1", "--no-plot", "--bootstrap", "0"]
    assert cli.main([*argv, "--out", "results/quickstart"]) == 0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(words: list[str], timeout: float = 120.0) -> None:
    """Start ``folkcards serve …`` as a process and wait until its page answers 200."""
    port = _free_port()
    exe = Path(sys.executable).parent / "folkcards"
    proc = subprocess.Popen(
        [str(exe), *words[1:], "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                raise AssertionError(f"serve exited with {proc.returncode}: {proc.stderr.read()}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as answer:
                    assert answer.status == 200
                    return
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError(f"serve did not answer within {timeout:.0f} s") from None
                time.sleep(0.5)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


PROGRESS = re.compile(r"^[\w .:-]+: [\d,]+/[\d,]+ \w+ \(\d+%\), ")


def run_command(command: str, monkeypatch: pytest.MonkeyPatch, capsys) -> str:
    """Run one README command as the module docstring says; its standard output, or
    ``AssertionError`` naming the command and what it wrote to stderr."""
    words = shlex.split(command)
    assert words[0] in ("folkcards", ".venv/bin/folkcards"), f"not a folkcards command: {command}"
    if words[1] == "serve":
        _serve(words)
        return ""
    _main_job_database(command)
    capsys.readouterr()
    monkeypatch.setattr(sys, "stdin", io.StringIO(INPUT.get(words[1], "")))
    try:
        code = cli.main(words[1:])
    except SystemExit as exc:  # argparse
        code = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    err = "\n".join(line for line in captured.err.splitlines() if not PROGRESS.match(line))
    assert code == 0 and not err.strip(), f"`{command}` -> {code}: {captured.err}"
    return captured.out


def test_the_readme_has_the_commands_this_test_knows() -> None:
    plain = {_plain(c) for c in COMMANDS}
    assert set(LONG) <= plain, "a long command of this test is no longer in the pages"
    assert len(QUICK) >= 7 and all(c.split()[0].endswith("folkcards") for c in QUICK)


@pytest.mark.parametrize("command", QUICK)
def test_readme_command(command: str, repo_cwd: Path, monkeypatch, capsys) -> None:
    out = run_command(command, monkeypatch, capsys)
    assert "Traceback" not in out


def test_a_broken_command_fails(repo_cwd: Path, monkeypatch, capsys) -> None:
    """The runner catches a broken command: an unknown option, an agent that does not exist, a
    missing database (so a README command that breaks fails its test)."""
    for broken in (
        ".venv/bin/folkcards demo --no-such-option",
        ".venv/bin/folkcards watch paston --agents pimc ppo:nowhere heuristic",
        ".venv/bin/folkcards export --db results/none/tournament.sqlite --unit 0",
    ):
        with pytest.raises(AssertionError, match=re.escape(broken)):
            run_command(broken, monkeypatch, capsys)


def test_commands_are_read_from_every_kind_of_block() -> None:
    text = (
        "```bash\nfolkcards demo   # a comment\n\nfolkcards watch x\n```\n"
        "```python\nprint(1)\n```\n"
        "```console\n$ folkcards report --db 'a b.sqlite'\nwrote a b\n```\n"
        "```sh\nbash scripts/test.sh\n```\n"
    )
    assert readme_commands(text) == [
        "folkcards demo",
        "folkcards watch x",
        "folkcards report --db 'a b.sqlite'",
        "bash scripts/test.sh",
    ]


# --- the long jobs (-m slow) -------------------------------------------------------------------


@pytest.fixture(scope="module")
def fresh_clone(tmp_path_factory) -> Path:
    clone = tmp_path_factory.mktemp("clone") / "folkcards"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    return clone


@pytest.mark.slow
@pytest.mark.parametrize("command", [c for c in COMMANDS if _plain(c) in LONG])
def test_readme_long_command(command: str, request, monkeypatch, capsys) -> None:
    words = shlex.split(command)
    if words[0] == "bash":  # the scripts install into .venv: a fresh clone of the repository
        clone = request.getfixturevalue("fresh_clone")
        done = subprocess.run(words, cwd=clone, capture_output=True, text=True, timeout=3 * 3600)
        assert done.returncode == 0, f"`{command}`: {done.stdout[-2000:]}{done.stderr[-2000:]}"
        return
    request.getfixturevalue("repo_cwd")
    run_command(command, monkeypatch, capsys)
