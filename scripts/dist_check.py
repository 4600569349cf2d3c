"""Helpers of ``scripts/wheel_check.sh`` that need no folkcards import.

    python scripts/dist_check.py compare SDIST WHEEL_FROM_SDIST WHEEL_FROM_TREE
    python scripts/dist_check.py readme-example README.md > example.py

``compare``: the sdist holds the project files, and the wheel built from it every file of the wheel
built straight from the source tree. ``readme-example``: prints the first python block of a page.
"""

from __future__ import annotations

import re
import sys
import tarfile
import zipfile
from pathlib import Path

PROJECT_FILES = {"pyproject.toml", "setup.py", "README.md", "LICENSE"}
PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def wheel_files(path: str) -> set[str]:
    with zipfile.ZipFile(path) as wheel:
        return {name for name in wheel.namelist() if ".dist-info/" not in name}


def compare(sdist: str, from_sdist: str, from_tree: str) -> str | None:
    """None when the sdist and its wheel are complete, else what is missing (one line)."""
    with tarfile.open(sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    if missing := PROJECT_FILES - names:
        return f"the sdist lacks {sorted(missing)}"
    if lost := wheel_files(from_tree) - wheel_files(from_sdist):
        return f"the wheel built from the sdist lacks {len(lost)} files: {sorted(lost)[:5]}"
    return None


def first_python_example(page: Path) -> str:
    blocks = PYTHON_BLOCK.findall(page.read_text(encoding="utf-8"))
    if not blocks:
        raise SystemExit(f"dist check: {page} has no python example")
    return blocks[0]


def main(argv: list[str]) -> int:
    if len(argv) == 4 and argv[0] == "compare":
        problem = compare(*argv[1:])
        if problem:
            print(f"dist check: {problem}", file=sys.stderr)
            return 1
        sdist, wheel = Path(argv[1]).name, Path(argv[2]).name
        count = len(wheel_files(argv[2]))
        print(f"built {sdist} and from it {wheel} ({count} files, as from the source tree)")
        return 0
    if len(argv) == 2 and argv[0] == "readme-example":
        print(first_python_example(Path(argv[1])), end="")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
