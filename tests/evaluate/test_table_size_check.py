"""A tournament refuses, before playing, an agent that cannot sit at its table size."""

from __future__ import annotations

import folkcards.agents.table_sizes as table_sizes

from folkcards.cli import main


def test_tournament_refuses_a_table_size_before_playing(monkeypatch, tmp_path, capsys):
    def only_four(spec, game):
        return (4,) if spec == "heuristic" else tuple(range(2, 12))

    monkeypatch.setattr(table_sizes, "agent_table_sizes", only_four)
    code = main(
        [
            "tournament",
            "--game",
            "tri_palki",
            "--agents",
            "heuristic",
            "random",
            "random",
            "--rounds",
            "1",
            "--workers",
            "1",
            "--out",
            str(tmp_path / "t"),
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.count("\n") == 0 and "plays tri_palki at 4 players only, not at 3" in err
    assert not (tmp_path / "t" / "tournament.sqlite").exists()
