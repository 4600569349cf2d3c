#!/usr/bin/env bash
# Set up if needed, then lint, type-check and run the fast test suite (add -m slow for the long one).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python -m pytest -n 2 -q "$@"
