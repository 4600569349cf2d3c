#!/usr/bin/env bash
# Build folkcards' wheel, install it in a clean virtual environment outside the repository and,
# from there, make every registered game through pettingzoo.make, play a random episode of each,
# and run `folkcards demo` (of every game). Fails if the wheel misses a module or its package data.
#
#   bash scripts/wheel_check.sh           # dependencies reused from .venv (no network, ~30 s)
#   bash scripts/wheel_check.sh --pypi    # dependencies resolved from PyPI (checks the list too)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
dev_python=${PYTHON:-$repo/.venv/bin/python}
mode=${1:-reuse}
case "$mode" in
    reuse | --pypi) ;;
    *) echo "usage: bash scripts/wheel_check.sh [--pypi]" >&2; exit 2 ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/folkcards-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The source as a fresh clone would see it: tracked and new unignored files, no build leftovers.
mkdir "$work/src"
git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
    | tar --null -T - -cf - | tar -xf - -C "$work/src"

"$dev_python" -m pip wheel --quiet --no-deps --no-build-isolation -w "$work/dist" "$work/src"
wheel=$(ls "$work"/dist/folkcards-*.whl)
echo "built $(basename "$wheel")"

"$dev_python" -m venv "$work/venv"
venv_python=$work/venv/bin/python
"$venv_python" -m pip install --quiet --disable-pip-version-check --no-deps "$wheel"
if [ "$mode" = --pypi ]; then
    "$venv_python" -m pip install --quiet --disable-pip-version-check "$wheel"
else
    # Reuse the dependencies installed for .venv: its site-packages folders as plain path entries
    # after the clean venv's own (their .pth files, the editable folkcards among them, are not
    # run, so folkcards can only come from the wheel).
    venv_site=$("$venv_python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    "$dev_python" -c 'import sys; print(*(p for p in sys.path if p.endswith("site-packages")), sep="\n")' \
        > "$venv_site/zz_folkcards_dependencies.pth"
fi

cp scripts/wheel_check.py "$work/check.py"
cd "$work"  # outside the repository: nothing can be imported from the source tree
"$venv_python" check.py
"$work/venv/bin/folkcards" demo --quiet
for game in $("$venv_python" -c 'from folkcards.envs.registry import GAMES; print(*GAMES)'); do
    "$work/venv/bin/folkcards" demo "$game" --deals 1 --quiet
done
echo "wheel check passed: $(basename "$wheel")"
