#!/usr/bin/env bash
# The main job end to end on a fresh machine: install, then play and score a few Paston deals.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/folkcards demo "$@"
