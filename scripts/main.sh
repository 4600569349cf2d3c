#!/usr/bin/env bash
# The main job end to end on a fresh machine: install, train a quick Paston PPO agent
# (configs/paston/ppo_quick.yaml: behaviour cloning of the heuristic, then 100k PPO steps), and
# run a duplicate tournament of it against the committed full agent, the heuristic and random.
# Prints the table and writes the plot to results/quickstart/scores.png.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
run_dir=runs/quickstart-paston
if [ ! -f "$run_dir/model.zip" ]; then
    .venv/bin/folkcards train --config configs/paston/ppo_quick.yaml --run-dir "$run_dir"
fi
rm -f results/quickstart/tournament.sqlite  # a fresh tournament each time (resume is for long ones)
.venv/bin/folkcards tournament --game paston \
    --agents "ppo:$run_dir/model.zip" ppo:paston heuristic random \
    --deals "${DEALS:-300}" --seed 2026 --out results/quickstart "$@"
