"""The game registry: names, aliases, player ranges and the env modules it points to."""

from __future__ import annotations

import folkcards.envs  # noqa: F401  (registers the envs)
import pettingzoo
import pytest
from folkcards.envs.registry import GAME_NAMES, GAMES, canonical_game, game_spec


def test_aliases_resolve_and_unknown_names_fail():
    assert canonical_game("Tri-Palki") == "tri_palki"
    assert canonical_game(" PASTON ") == "paston"
    with pytest.raises(ValueError, match="unknown game 'bridge'; choose from paston, tri_palki"):
        canonical_game("bridge")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_spec_agrees_with_its_env(name):
    spec = GAMES[name]
    for players in sorted({spec.min_players, spec.default_players, spec.max_players}):
        env = spec.raw_env(players)
        env.reset(seed=1)
        assert len(env.possible_agents) == players
        assert env.action_space(env.possible_agents[0]).n == spec.num_actions
        assert spec.decode(env.observe(env.possible_agents[0])["observation"], players)
        made = pettingzoo.make("aec", spec.env_id, **spec.env_kwargs(players))
        assert made.unwrapped.metadata["name"] == spec.module.rsplit(".", 1)[1]
    for mode in spec.mode_names:
        spec.raw_env(episode=mode).reset(seed=0)


@pytest.mark.parametrize(
    ("name", "bad"),
    [("paston", 2), ("paston", 4), ("tri_palki", 1), ("tri_palki", 12), ("tri_palki", True)],
)
def test_player_counts_outside_the_range_fail(name, bad):
    with pytest.raises(ValueError, match="played by"):
        game_spec(name).check_players(bad)


def test_unknown_mode_names_the_modes():
    with pytest.raises(ValueError, match="deal, game"):
        game_spec("paston").mode("round")


def test_table_size_rules_are_written_once():
    tri, paston = game_spec("tri_palki"), game_spec("paston")
    assert tri.table_size() == tri.default_players == 4
    assert tri.table_size(None, 5) == 5  # one agent named per seat sets the size
    assert tri.table_size(None, 1) == 4  # one spec fills every seat: the default
    assert tri.table_size(3, 5) == 3  # a size given wins
    assert paston.table_size(None, 5) == 3  # a fixed table ignores the count of names
    assert tri.table_sizes == tuple(range(2, 12)) and paston.table_sizes == (3,)
    with pytest.raises(ValueError, match=r"^paston is played by exactly 3 players, got 4$"):
        paston.table_size(4)
    with pytest.raises(ValueError, match=r"^tri_palki is played by 2 to 11 players, got 12$"):
        tri.table_size(None, 12)


def test_a_missing_piece_is_one_line_naming_it():
    with pytest.raises(
        ValueError, match=r"^paston_bidding has no open-hand analysis of a record's play$"
    ):
        game_spec("paston_bidding").piece("open_hand_analysis")
    with pytest.raises(ValueError, match=r"^paston has no observation size by table size$"):
        game_spec("paston").piece("observation_size")
