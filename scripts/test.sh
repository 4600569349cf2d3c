#!/usr/bin/env bash
# Set up if needed, then lint, type-check, check the import contracts, run the fast test suite (add
# -m slow for the long one) and check the built wheel in a clean virtual environment.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python scripts/lint_imports.py  # layer order and no import cycles
.venv/bin/python -m pytest -n 2 -q --durations=15 "$@"  # the slowest tests, to keep the suite short
bash scripts/wheel_check.sh  # sdist and wheel built; the wheel, in a clean venv, plays every game
