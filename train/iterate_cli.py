"""``folkcards iterate``: expert iteration from a YAML config naming its game, resumable.

The loop is the game's (the registry's ``expert_iteration``): Tri Palki's fits a network to
its search (:mod:`folkcards.train.tri_palki_iterate`), Paston's refits the expert's evaluator
to its own results (:mod:`folkcards.train.paston_iterate`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["DESCRIPTION", "add_arguments", "run"]


DESCRIPTION = (
    "Expert iteration from a YAML config naming its game (configs/tri_palki/iterate.yaml, "
    "configs/paston/iterate.yaml): each generation collects the search's decisions on fresh "
    "deals with the current teacher, fits the next network or evaluator to them and gates it "
    "by a duplicate match against its teacher; the generations that pass become the next "
    "teachers. Resumable: rerun the same command to continue. Writes RUN_DIR/gen_NNN/, "
    "summary.json and curves.png."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", required=True, help="the YAML config (configs/<game>/iterate.yaml)")
    p.add_argument("--run-dir", help="override the config's run_dir")
    p.add_argument("--generations", type=int, help="override the config's generations")
    p.add_argument(
        "--no-progress", action="store_true", help="no bars: a log line per chunk and per step"
    )


def _loop(path: str) -> Any:
    """The loop of the game the config names (the registry's ``expert_iteration``)."""
    from ..envs.registry import game_spec
    from ..errors import load_yaml

    game = load_yaml(path).get("game")
    if not isinstance(game, str):
        raise ValueError(f"{path}: name the game the loop plays (game: paston or tri_palki)")
    return game_spec(game).piece("expert_iteration")


def run(args: argparse.Namespace) -> int:
    """``folkcards iterate``: bad input is one line on stderr and exit code 2."""

    def log(text: str) -> None:
        print(text, flush=True)

    try:
        loop = _loop(args.config)
        done, total, run_dir = loop(
            args.config, args.run_dir, args.generations, log, not args.no_progress
        )
    except ValueError as error:
        print(f"folkcards iterate: {error}", file=sys.stderr)
        return 2
    except ImportError:
        print("folkcards iterate: needs torch: pip install 'folkcards[train]'", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(
            "\nfolkcards iterate: interrupted; finished steps are stored — rerun to continue",
            file=sys.stderr,
        )
        return 130
    print(f"{done} of {total} generations done in {run_dir}")
    return 0
