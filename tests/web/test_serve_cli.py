"""``folkcards serve``'s new options refuse bad values with one line and exit code 2."""

from __future__ import annotations

import pytest

from folkcards.cli import main


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bot-workers", "-1"], "--bot-workers must be 0–64"),
        (["--bot-workers", "1000"], "--bot-workers must be 0–64"),
        (["--move-budget", "0"], "--move-budget must be a positive"),
        (["--move-budget", "inf"], "--move-budget must be a positive"),
        (["--agents-module", "no_such_module_here"], "No module named"),
        (["--bot-niceness", "30"], "niceness must be 0 to 19"),
    ],
)
def test_bad_serve_options_are_one_line(tmp_path, capsys, args, message):
    assert main(["serve", "--store", str(tmp_path / "h.sqlite"), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
