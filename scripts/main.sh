#!/usr/bin/env bash
# The main job end to end on a fresh machine: install, train a quick Paston PPO agent, and run a
# duplicate tournament of it against the committed full agent (when there is one), the heuristic
# and random. Prints the table and writes the plot to results/quickstart/scores.png.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
run_dir=runs/quickstart-paston
if [ ! -f "$run_dir/model.zip" ]; then
    .venv/bin/folkcards train --config configs/paston/ppo_quick.yaml --run-dir "$run_dir"
fi
agents=("ppo:$run_dir/model.zip")
if [ -f agents/models/paston_ppo.zip ]; then
    agents+=("ppo:paston")
fi
agents+=(heuristic random)
rm -f results/quickstart/tournament.sqlite  # a fresh tournament each time (resume is for long ones)
.venv/bin/folkcards tournament --game paston --agents "${agents[@]}" --deals "${DEALS:-300}" \
    --seed 2026 --out results/quickstart "$@"
