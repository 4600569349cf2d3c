"""Held-out deal sets shipped with the package: the fixed deals of the standard gauntlet.

A deal set (``gauntlet-v1``) holds, for each game family and table size it covers, a list of
deals (Paston) or rounds (Tri Palki), each stored as the env ``reset`` options that deal it
(the cards and the dealer, exactly as the env's record shows them), so a deal means the same
cards whatever the env's shuffling code becomes. They were drawn once by the env's own deal
procedure (``raw_env().reset(seed=...)``, seeds from ``SeedSequence([seed, num_players, d])``)
with the recorded seed and command (:func:`generate`; ``python scripts/make_deal_set.py``), and
are **never used for training or tuning**: every training run and every tuning tournament deals
from its own seeds; these deals are only played by ``folkcards gauntlet``.

A game reads a record's first deal as reset options through its registry hook ``deal_options``
(:func:`paston_deal`, :func:`tri_palki_deal`); a variant with the same deals (``paston_bidding``)
plays its family's set.

>>> from folkcards.evaluate.storage.deal_sets import deal_set_sizes
>>> deal_set_sizes("gauntlet-v1", "tri_palki")
(3, 4, 6)
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
from importlib import resources
from typing import Any

import numpy as np
from folkcards.envs.registry import game_spec

DEAL_SETS = ("gauntlet-v1",)
CURRENT = "gauntlet-v1"
SEED = 20261204  # the seed gauntlet-v1 was drawn with
COUNT = 2000  # deals per game family and table size in gauntlet-v1
COMMAND = "python scripts/make_deal_set.py"
_PACKAGE = "folkcards.evaluate.storage.gauntlet_data"


def file_name(version: str, family: str, num_players: int) -> str:
    return f"{version}-{family}-{num_players}.json.gz"


def _check_version(version: str) -> None:
    if version not in DEAL_SETS:
        raise ValueError(f"unknown deal set {version!r}; shipped: {', '.join(DEAL_SETS)}")


def deal_set_sizes(version: str, game: str) -> tuple[int, ...]:
    """The table sizes deal set ``version`` has for ``game`` (its family's)."""
    _check_version(version)
    spec = game_spec(game)
    if spec.deal_options is None:  # a game whose deals the set cannot hold (another deck)
        return ()
    return tuple(
        n for n in shipped_sizes(version, spec.family) if spec.min_players <= n <= spec.max_players
    )


@functools.lru_cache(maxsize=16)
def shipped_sizes(version: str, family: str) -> tuple[int, ...]:
    """The table sizes whose deal file of ``version`` and game ``family`` ships with the package."""
    suffix = ".json.gz"
    prefix = file_name(version, family, 0).removesuffix(f"0{suffix}")
    sizes = []
    for entry in resources.files(_PACKAGE).iterdir():
        middle = entry.name.removeprefix(prefix).removesuffix(suffix)
        if entry.name.startswith(prefix) and entry.name.endswith(suffix) and middle.isdigit():
            sizes.append(int(middle))
    return tuple(sorted(sizes))


@functools.lru_cache(maxsize=16)
def load(version: str, game: str, num_players: int) -> dict[str, Any]:
    """The deal set file's content for ``game`` at ``num_players`` (``ValueError`` in one line
    for a game or table size the set does not cover)."""
    spec = game_spec(game)
    sizes = deal_set_sizes(version, game)
    if num_players not in sizes:
        where = f"at {', '.join(map(str, sizes))} players" if sizes else "for no table size"
        raise ValueError(f"deal set {version} has {spec.name} {where}, not {num_players}")
    name = file_name(version, spec.family, num_players)
    data = resources.files(_PACKAGE).joinpath(name).read_bytes()
    content = json.loads(gzip.decompress(data))
    content["sha256"] = hashlib.sha256(data).hexdigest()
    return content


def deal_count(version: str, game: str, num_players: int) -> int:
    return len(load(version, game, num_players)["deals"])


def deal_options(version: str, game: str, num_players: int, deal: int) -> dict[str, Any]:
    """The env reset options of deal ``deal`` of the set (``ValueError`` past its end)."""
    deals = load(version, game, num_players)["deals"]
    if not 0 <= deal < len(deals):
        raise ValueError(f"deal set {version} has {len(deals)} deals, not deal {deal}")
    return json.loads(json.dumps(deals[deal]))  # a fresh copy: the env may keep it


# --- the registry hooks: a record's first deal as reset options -------------------------------


def paston_deal(record: dict[str, Any]) -> dict[str, Any]:
    first = record["deals"][0]
    return {"dealer": first["dealer"], "deal": {"hands": first["hands"], "prikup": first["prikup"]}}


def tri_palki_deal(record: dict[str, Any]) -> dict[str, Any]:
    first = record["rounds"][0]
    return {"dealer": int(str(first["dealer"]).rpartition("_")[2]), "deck": first["deck"]}


# --- generation (once per version) -------------------------------------------------------------


def generate(version: str, family: str, num_players: int, count: int, seed: int) -> dict[str, Any]:
    """Draw ``count`` deals with the env's own procedure (the content of one deal set file)."""
    spec = game_spec(family)
    reader = spec.piece("deal_options")
    env = spec.raw_env(num_players)
    deals = []
    for d in range(count):
        state = np.random.SeedSequence([seed, num_players, d]).generate_state(1, np.uint64)
        env.reset(seed=int(state[0] >> np.uint64(1)))
        deals.append(reader(env.unwrapped.record()))
    return {
        "version": version,
        "game": spec.name,
        "num_players": num_players,
        "seed": seed,
        "command": COMMAND,
        "note": "held out: never used for training or tuning (folkcards gauntlet only)",
        "deals": deals,
    }


__all__ = [
    "CURRENT",
    "DEAL_SETS",
    "deal_count",
    "deal_options",
    "deal_set_sizes",
    "generate",
    "load",
    "paston_deal",
    "tri_palki_deal",
]
