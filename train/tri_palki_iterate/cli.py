"""``folkcards iterate``: expert iteration for Tri Palki from a YAML config, resumable."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .config import load_iterate_config
from .loop import run_iteration

__all__ = ["DESCRIPTION"]


DESCRIPTION = (
    "Expert iteration for Tri Palki: each generation collects the search's decisions on fresh "
    "deals (the search using the current network for its rollouts, priors and model of the "
    "others), fits the next network (policy and value) and gates it by a duplicate match "
    "against the previous generation. Resumable: rerun the same command to continue. Writes "
    "RUN_DIR/gen_NNN/, summary.json and curves.png."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--config", required=True, help="the YAML config (configs/tri_palki/iterate.yaml)"
    )
    p.add_argument("--run-dir", help="override the config's run_dir")
    p.add_argument("--generations", type=int, help="override the config's generations")
    p.add_argument(
        "--no-progress", action="store_true", help="no bars: a log line per chunk and per step"
    )


def run(args: argparse.Namespace) -> int:
    """``folkcards iterate``: bad input is one line on stderr and exit code 2."""

    def log(text: str) -> None:
        print(text, flush=True)

    try:
        config = load_iterate_config(
            args.config, run_dir=args.run_dir, generations=args.generations
        )
        summary = run_iteration(
            config, Path(config.run_dir), log, show_progress=not args.no_progress
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
    done = [r for r in summary["generations"] if r["gate"]]
    print(f"{len(done)} of {config.generations} generations done in {config.run_dir}")
    return 0
