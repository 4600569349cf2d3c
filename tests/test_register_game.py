"""``register_game``: a variant made with ``dataclasses.replace`` joins the registry and every
command plays it; a name that is taken or an entry lacking a piece is refused in one line and
nothing is registered."""

from __future__ import annotations

from dataclasses import replace

import pettingzoo
import pytest
from folkcards.agents import make_agent
from folkcards.agents.episode import play_episode
from folkcards.envs import registry
from folkcards.envs.registry import GAMES, game_spec, register_game


@pytest.fixture
def clean_registry():
    saved_games, saved_aliases = dict(GAMES), dict(registry._ALIASES)
    saved_names, saved_help = registry.GAME_NAMES, registry.GAMES_HELP
    yield
    GAMES.clear()
    GAMES.update(saved_games)
    registry._ALIASES.clear()
    registry._ALIASES.update(saved_aliases)
    registry.GAME_NAMES, registry.GAMES_HELP = saved_names, saved_help


def _duel(**changes):
    fields = dict(
        name="tri_palki_duel_test",
        title="Tri Palki for two",
        aliases=("duel-test",),
        min_players=2,
        max_players=2,
        default_players=2,
        env_id="folkcards/tri_palki_duel_test-v0",
        base_game="tri_palki",
    )
    fields.update(changes)
    return replace(GAMES["tri_palki"], **fields)


def test_a_registered_variant_is_played_everywhere(clean_registry):
    register_game(_duel())
    spec = game_spec("duel-test")
    assert spec.name in registry.GAME_NAMES and spec.name in registry.GAMES_HELP
    env = spec.raw_env()
    assert len(env.possible_agents) == 2, "the variant's fixed size reaches the env"
    assert make_agent("heuristic", spec.name).game == spec.name
    made = pettingzoo.make("aec", "folkcards/tri_palki_duel_test-v0", num_players=2)
    made.reset(seed=0)
    assert made.agents == ["player_0", "player_1"]


@pytest.mark.parametrize("kind", ["ppo", "distilled"])
def test_a_variant_at_another_size_plays_its_base_games_networks(clean_registry, kind):
    """The committed Tri Palki networks read a 4-player observation; a heads-up variant of Tri
    Palki plays them through the size adapter, as its base game does at 2 players."""
    register_game(_duel())
    spec = game_spec("duel-test")
    env = spec.raw_env()
    seats = env.possible_agents
    table = [make_agent(kind, spec.name, seats[0], seed=1, num_players=2)]
    table.append(make_agent("heuristic", spec.name, seats[1], seed=2))
    run = play_episode(env, table, 3)
    assert run.decision_seconds.get(seats[0]), f"{kind} never acted in the variant"
    assert table[0].table_sizes() == (2,)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"name": "paston"}, "game name or alias 'paston' is registered already"),
        ({"aliases": ("tri-palki",)}, "'tri-palki' is registered already"),
        ({"tournament_scorer": None}, "incomplete: no tournament scorer"),
        ({"spectator": "folkcards.play.watch:Nope"}, "incomplete: spectator"),
    ],
)
def test_a_bad_entry_is_refused_in_one_line_and_nothing_changes(clean_registry, changes, message):
    before = dict(GAMES)
    with pytest.raises(ValueError, match=message) as caught:
        register_game(_duel(**changes))
    assert "\n" not in str(caught.value)
    assert before == GAMES and "duel-test" not in registry._ALIASES


def test_only_a_game_spec_is_registered(clean_registry):
    with pytest.raises(ValueError, match="takes a GameSpec"):
        register_game({"name": "x"})  # type: ignore[arg-type]
