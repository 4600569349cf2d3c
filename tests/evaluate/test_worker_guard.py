"""A script that runs a tournament with worker processes: without an
``if __name__ == "__main__":`` guard it gets one line saying what to do, and ends; with the
guard it plays."""

from __future__ import annotations

import subprocess
import sys
import textwrap

BODY = """
from folkcards.cli import main
code = main(["tournament", "--game", "paston", "--agents", "heuristic", "random", "random",
             "--deals", "2", "--seed", "1", "--workers", "2", "--out", {out!r},
             "--no-progress", "--no-plot", "--bootstrap", "0"])
print("exit", code)
"""


def _run(tmp_path, guarded: bool) -> subprocess.CompletedProcess:
    body = BODY.format(out=str(tmp_path / "out"))
    if guarded:
        body = 'if __name__ == "__main__":\n' + textwrap.indent(body, "    ")
    script = tmp_path / "my_tournament.py"
    script.write_text(body)
    return subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path
    )


def test_an_unguarded_script_is_told_in_one_line_and_ends(tmp_path):
    run = _run(tmp_path, guarded=False)
    assert "exit 1" in run.stdout
    errors = [line for line in run.stderr.splitlines() if line.strip()]
    assert len(errors) == 1, run.stderr
    assert 'if __name__ == "__main__":' in errors[0] and "my_tournament.py" in errors[0]


def test_a_guarded_script_plays(tmp_path):
    run = _run(tmp_path, guarded=True)
    assert "exit 0" in run.stdout, run.stderr[-2000:]
    assert (tmp_path / "out" / "results.json").exists()
