"""Terminal play and watch refuse, before anything is dealt, an agent that cannot play the table."""

from __future__ import annotations

import folkcards.agents.table_sizes as table_sizes

from folkcards.cli import main


def _only_four(spec, game):
    return (4,) if spec == "heuristic" else (2, 3, 4, 5, 6)


def test_play_refuses_a_table_size_before_dealing(monkeypatch, capsys):
    monkeypatch.setattr(table_sizes, "agent_table_sizes", _only_four)
    code = main(
        [
            "play",
            "tri_palki",
            "--players",
            "5",
            "--opponents",
            "heuristic",
            "random",
            "random",
            "random",
        ]
    )
    out = capsys.readouterr()
    assert code == 2
    assert out.err.strip().count("\n") == 0
    assert "plays tri_palki at 4 players only, not at 5" in out.err
    assert "dealer" not in out.out.lower()


def test_watch_refuses_a_table_size_before_dealing(monkeypatch, capsys):
    monkeypatch.setattr(table_sizes, "agent_table_sizes", _only_four)
    code = main(["watch", "tri_palki", "--players", "5", "--agents", "heuristic", "--delay", "0"])
    out = capsys.readouterr()
    assert code == 2
    assert "plays tri_palki at 4 players only, not at 5" in out.err
