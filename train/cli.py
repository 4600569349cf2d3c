"""``folkcards train``: config-driven MaskablePPO training (see :mod:`folkcards.train.ppo`).

Examples::

    folkcards train --config configs/paston/ppo_quick.yaml
    folkcards train --config configs/paston/ppo_full.yaml --seed 3 --run-dir runs/paston-a
    folkcards train --config configs/tri_palki/ppo_quick.yaml --total-steps 20000 --no-progress
    folkcards train --resume runs/paston-ppo-0-20250101-120000 --total-steps 4000000
    folkcards train --config configs/paston/ppo_quick.yaml --print-config
    folkcards train --config configs/paston/rllib_ppo.yaml --total-steps 200000   # RLlib/Ray

``python -m folkcards.train.cli`` works too.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from .config import ConfigError, load_config, with_overrides
from .rllib_train import is_rllib_config, main_rllib


def build_parser(prog: str = "folkcards train") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description=(
            "Train a MaskablePPO agent for Paston or Tri Palki from a YAML config (groups env, "
            "opponents, algorithm, pretrain, run; only what differs from the defaults). Writes a run directory with the model, the resolved "
            "config, checkpoints, TensorBoard logs, an evaluation table vs the heuristic "
            "(eval.csv) and a learning curve (learning_curve.png)."
        ),
        epilog=(
            "Configs: configs/<game>/ppo_quick.yaml (minutes), ppo_full.yaml (the committed "
            "players' recipes, 2.5-3.5 hours on 2 cores) and ppo_full_batched.yaml (the same on "
            "the batched engine, under an hour); configs/<game>/rllib_ppo.yaml (backend: rllib) "
            "trains on RLlib/Ray (needs folkcards[rllib])."
        ),
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--config", type=Path, metavar="YAML", help="the training config to start a new run from"
    )
    source.add_argument(
        "--resume",
        type=Path,
        metavar="RUN_DIR",
        help="continue the run in RUN_DIR from its latest checkpoint (its config.yaml is used)",
    )
    parser.add_argument("--total-steps", type=int, metavar="N", help="override run.total_steps")
    parser.add_argument(
        "--run-dir",
        type=Path,
        metavar="DIR",
        help="the run directory (default runs/<game>-ppo-<seed>-<time>)",
    )
    parser.add_argument("--seed", type=int, help="override run.seed")
    parser.add_argument("--n-envs", type=int, metavar="N", help="override run.n_envs")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--print-config",
        action="store_true",
        help="print the resolved config (every setting, defaults included) as YAML and exit",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    for name in ("total_steps", "n_envs"):
        value = getattr(args, name)
        if value is not None and value < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.resume is not None and (
        args.config is not None or args.run_dir is not None or args.seed is not None
    ):
        parser.error("--resume takes the run's own config, directory and seed")
    try:
        if is_rllib_config(args.config or args.resume / "config.yaml"):  # backend: rllib
            return main_rllib(args)
    except ConfigError as exc:
        print(f"folkcards train: config error: {exc}", file=sys.stderr)
        return 2
    try:
        if args.resume is not None:
            config = load_config(args.resume / "config.yaml")
        else:
            config = load_config(args.config)
        config = with_overrides(
            config,
            total_steps=args.total_steps,
            seed=args.seed,
            n_envs=args.n_envs,
            progress_bar=False if args.no_progress else None,
        )
    except ConfigError as exc:
        print(f"folkcards train: config error: {exc}", file=sys.stderr)
        return 2
    if args.print_config:
        print(config.to_yaml(), end="")
        return 0
    if config.env.tables is not None:  # read now, so that a missing file is one line
        from .batched_training_env import make_engine

        try:
            make_engine(config.env.game, 1, config.env.kwargs, config.env.tables)
        except ValueError as exc:
            print(f"folkcards train: env.tables: {exc}", file=sys.stderr)
            return 2
    try:
        from .ppo import train
    except ImportError as exc:  # pragma: no cover - depends on the install
        print(
            f"folkcards train needs the training extras ({exc}): pip install 'folkcards[train]'",
            file=sys.stderr,
        )
        return 2
    try:
        if args.resume is not None:
            run_dir = train(config, args.resume, resume=True)
        else:
            run_dir = train(config, args.run_dir)
    except (FileExistsError, FileNotFoundError) as exc:
        print(f"folkcards train: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("folkcards train: interrupted; continue with --resume RUN_DIR", file=sys.stderr)
        return 130
    print(f"run directory: {run_dir}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
