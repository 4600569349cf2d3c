"""The house plotting helpers in folkcards.evaluate.plot (used by the tournament and training)."""

from __future__ import annotations

from pathlib import Path

from folkcards.evaluate import plot


def test_new_figure_style_and_save(tmp_path: Path) -> None:
    fig, axes = plot.new_figure(4.0, 3.0, panels=3)
    assert len(axes) == 3
    assert tuple(fig.get_size_inches()) == (12.0, 3.0)
    axes[0].plot([0, 1, 2], [1, 0, 2], color=plot.COLOURS[0])
    plot.style(axes[0], "a title", grid="y")
    assert axes[0].get_title() == "a title"
    assert axes[0].title.get_fontsize() == plot.TITLE_SIZE
    path = plot.save(fig, tmp_path / "deeper" / "curve.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from PIL import Image

    with Image.open(path) as image:
        assert image.size == (12 * plot.DPI, 3 * plot.DPI)
