#!/usr/bin/env bash
# Build folkcards' sdist and, from the unpacked sdist, its wheel (`python -m build`), and check that
# the wheel built straight from the source tree holds the same files (the sdist carries everything
# the wheel needs). Install the wheel in a clean virtual environment outside the repository and,
# from there, make every registered game through pettingzoo.make, play a random episode of each,
# run the README's first python example (read from README.md at check time) and `folkcards demo`
# (of every game). Last, `python -m folkcards` started inside the source tree, whose own folkcards/
# folder then shadows the installed package, must refuse in one line.
#
#   bash scripts/wheel_check.sh           # dependencies reused from .venv (no network, ~1 min)
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

# The sdist, then the wheel from the unpacked sdist (what `python -m build` does by default).
if ! "$dev_python" -m build --no-isolation --skip-dependency-check --outdir "$work/dist" "$work/src" > "$work/build.log" 2>&1; then
    tail -n 30 "$work/build.log" >&2
    echo "wheel check: python -m build failed (the sdist, or the wheel built from it)" >&2
    exit 1
fi
sdist=$(ls "$work"/dist/folkcards-*.tar.gz)
wheel=$(ls "$work"/dist/folkcards-*.whl)
"$dev_python" -m pip wheel --quiet --no-deps --no-build-isolation -w "$work/direct" "$work/src"
"$dev_python" scripts/dist_check.py compare "$sdist" "$wheel" "$work"/direct/folkcards-*.whl
"$dev_python" scripts/dist_check.py readme-example README.md > "$work/readme_example.py"

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
"$venv_python" readme_example.py > readme_example.out
echo "README.md's first python example ran from the wheel ($(wc -l < readme_example.out) lines printed)"
"$work/venv/bin/folkcards" demo --quiet
for game in $("$venv_python" -c 'from folkcards.envs.registry import GAMES; print(*GAMES)'); do
    "$work/venv/bin/folkcards" demo "$game" --deals 1 --quiet
done

# Inside a source tree its folkcards/ folder comes first on the path: one line, no traceback.
cd "$work/src"
if "$venv_python" -m folkcards --version > "$work/shadow.out" 2> "$work/shadow.err"; then
    echo "wheel check: python -m folkcards inside the source tree ran the tree's partial package" >&2
    exit 1
fi
if [ "$(wc -l < "$work/shadow.err")" -ne 1 ] || ! grep -qF 'pip install -e .' "$work/shadow.err"; then
    echo "wheel check: python -m folkcards inside the source tree did not say what to do in one line:" >&2
    cat "$work/shadow.err" >&2
    exit 1
fi
echo "python -m folkcards inside the source tree refuses: $(cat "$work/shadow.err")"
echo "wheel check passed: $(basename "$sdist"), $(basename "$wheel")"
