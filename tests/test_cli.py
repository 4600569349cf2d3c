"""The ``folkcards`` command: every subcommand's --help, demo, and the lazy ``train``."""

from __future__ import annotations

import subprocess
import sys

import pytest

from folkcards import cli

COMMANDS = [[], ["demo"], ["play"], ["tournament"], ["train"]]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "folkcards")
def test_help_exits_0(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = cli.main([*command, "--help"])
    except SystemExit as exc:  # argparse's --help
        code = exc.code
    assert code in (0, None)
    out = capsys.readouterr().out
    assert "usage:" in out.lower()


def test_python_m_folkcards_help() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "folkcards", "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    for command in ("demo", "play", "tournament", "train"):
        assert command in result.stdout


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 0
    assert "COMMAND" in capsys.readouterr().out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert "folkcards" in capsys.readouterr().out


def test_demo_plays_and_scores(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo", "--deals", "2", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "=== deal 1 (seed 3) ===" in out and "=== deal 2 (seed 4) ===" in out
    assert "trick:" in out and "totals:" in out


def test_demo_quiet(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo", "--quiet"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 4 and lines[-1].startswith("totals:")


def test_unknown_command_is_an_argparse_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["fly"])
    assert exc.value.code == 2


def test_tournament_subcommand(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = "tournament --game paston --agents random random random --deals 2 --workers 1".split()
    code = cli.main([*argv, "--out", str(tmp_path), "--no-plot"])
    assert code == 0
    assert (tmp_path / "tournament.sqlite").is_file()
    argv = "tournament --game paston --agents random --deals 2".split()
    assert cli.main([*argv, "--out", str(tmp_path / "x")]) == 2
    assert "only 1 agent is given" in capsys.readouterr().err


def test_train_with_a_malformed_yaml_is_one_line(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("run: [unclosed\n")
    assert cli.main(["train", "--config", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not valid YAML" in err and "Traceback" not in err


def test_train_forwards_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    seen = []
    fake = types.ModuleType("folkcards.train.cli")
    fake.main = lambda argv: seen.append(argv) or 0  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "folkcards.train.cli", fake)
    assert cli.main(["train", "--config", "c.yaml", "--seed", "3"]) == 0
    assert seen == [["--config", "c.yaml", "--seed", "3"]]


def test_watch_is_a_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["watch", "--help"])
    assert exc.value.code == 0
    assert "--record FILE" in capsys.readouterr().out
    assert cli.main([]) == 0
    assert "watch" in capsys.readouterr().out


def test_demo_shows_the_prikup_and_plays_tri_palki(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["demo", "--deals", "1", "--seed", "3"]) == 0
    assert "prikup (face down):" in capsys.readouterr().out
    assert cli.main(["demo", "tri_palki", "--deals", "2", "--quiet"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3 and lines[0].startswith("Sticks:") and lines[-1].startswith("totals:")


def test_tournament_verify_a_database_alone(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = "tournament --game paston --agents random random random --deals 1 --workers 1".split()
    assert cli.main([*argv, "--out", str(tmp_path), "--no-plot", "--no-progress"]) == 0
    capsys.readouterr()
    db = str(tmp_path / "tournament.sqlite")
    assert cli.main(["tournament", "--db", db, "--verify"]) == 0
    assert "verified: all 6 stored records replay exactly" in capsys.readouterr().out
    (tmp_path / "afile").write_text("")
    assert cli.main([*argv, "--out", str(tmp_path / "afile" / "out")]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err


@pytest.mark.parametrize(
    "command, option",
    [
        (["play"], "--opponents"),
        (["watch"], "--agents"),
        (["demo"], "--agents"),
        (["tournament"], "--agents"),
    ],
)
def test_agent_options_list_the_registered_kinds(
    command: list[str], option: str, monkeypatch, capsys
) -> None:
    """The help of every agent-spec option lists the agent registry's kinds (pimc
    and rllib too, and a kind registered at run time), not a list written by hand."""
    from folkcards.agents import agent_kinds, base, register_agent

    monkeypatch.setattr(base, "_FACTORIES", dict(base._FACTORIES))
    register_agent("my_new_kind", lambda **kw: None)
    with pytest.raises(SystemExit):
        cli.main([*command, "--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    section = text.rsplit(f"{option} SPEC [SPEC ...]", 1)[1].split(" --", 1)[0]
    for kind in agent_kinds():
        assert kind in section, (kind, section)
    assert "my_new_kind" in section and "module:Class" in section
