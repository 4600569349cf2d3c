"""Draw docs/architecture.svg: the layers of the import contract and where a game's pieces live.

The layers come from the layers contract of ``pyproject.toml`` (``[tool.importlinter]``), the
pieces from the registry's ``HOOK_LAYERS``; ``tests/test_architecture.py`` checks that the
committed picture is what this script draws now.

    python scripts/architecture_diagram.py            # writes docs/architecture.svg
    python scripts/architecture_diagram.py --check    # exit 1 if the picture is out of date
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "docs" / "architecture.svg"

# What each layer holds besides the registry's hooks (one short line each).
HOLDS = {
    "__main__ : cli : records_cli : bidding_cli": "the folkcards command and its subcommands",
    "envs": "rules.py (reference), kernels.py (compiled rules), env, batched engine; registry",
    "search": "open-hand solver, table maker, belief samplers, evaluators",
    "agents": "heuristics, pimc, expert, ppo, distilled; agent registry",
    "evaluate": "running, storage, statistics, reports, pages, benchmarks",
    "train | play | web": "training; terminal play and watch; the web table",
    "errors": "ConfigError, load_yaml",
}


def contract_layers() -> list[str]:
    """The layers contract's layers, highest first, as written in pyproject.toml."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [
        c
        for c in config["tool"]["importlinter"]["contracts"]
        if c["type"] == "layers" and c["containers"] == ["folkcards"]
    ]
    return list(contract["layers"])


def pieces_by_layer() -> dict[str, list[str]]:
    """The registry's hook fields grouped by the layer they point into."""
    from folkcards.envs.registry import HOOK_LAYERS

    out: dict[str, list[str]] = {}
    for piece, layer in HOOK_LAYERS.items():
        out.setdefault(layer, []).append(piece)
    return out


def draw() -> str:
    """The SVG text of the picture (deterministic: no date, fixed ids, text kept as text)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matplotlib.rcParams["svg.fonttype"] = "none"
    matplotlib.rcParams["svg.hashsalt"] = "folkcards-architecture"
    layers = contract_layers()
    pieces = pieces_by_layer()
    height = len(layers)
    fig, ax = plt.subplots(figsize=(11, 0.95 * height + 0.6))
    ax.set_xlim(0, 11)
    ax.set_ylim(-0.2, height + 0.1)
    ax.axis("off")
    for row, layer in enumerate(layers):
        y = height - 1 - row
        names = [n.strip() for part in layer.split("|") for n in part.split(":")]
        ax.add_patch(
            plt.Rectangle((0.1, y + 0.08), 3.0, 0.8, facecolor="#d8efec", edgecolor="#00695c")
        )
        size = 10 if len(layer) < 25 else 7
        ax.text(1.6, y + 0.48, layer, ha="center", va="center", fontsize=size, weight="bold")
        held = HOLDS.get(layer, HOLDS.get(" | ".join(names), ""))
        hooks = sorted(p for name in names for p in pieces.get(name, []))
        lines = [held] if held else []
        if hooks:
            text = "game pieces: " + ", ".join(hooks)
            while len(text) > 95:
                cut = text.rfind(", ", 0, 95)
                lines.append(text[: cut + 1])
                text = "    " + text[cut + 2 :]
            lines.append(text)
        ax.text(3.3, y + 0.48, "\n".join(lines), ha="left", va="center", fontsize=8)
        if row < len(layers) - 1:
            ax.annotate(
                "",
                xy=(1.6, y + 0.08),
                xytext=(1.6, y - 0.12),
                arrowprops={"arrowstyle": "<-", "color": "#00695c"},
            )
    ax.text(0.1, -0.15, "an upper layer imports the ones below it, never the other way",
            fontsize=8, style="italic")  # fmt: skip
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", metadata={"Date": None}, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the picture is stale")
    args = parser.parse_args(argv)
    svg = draw()
    if args.check:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != svg:
            print(f"{OUT.relative_to(REPO)} is out of date: run {Path(__file__).name}")
            return 1
        return 0
    OUT.write_text(svg, encoding="utf-8")
    print(f"wrote {OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
