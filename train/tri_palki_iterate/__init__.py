"""Expert iteration for Tri Palki: search, learn from it, search with what was learned, repeat.

``folkcards iterate --config configs/tri_palki/iterate.yaml [--run-dir DIR]``. Generation ``g``
has three steps, each stored under ``RUN_DIR/gen_NNN/`` before the next starts:

1. **collect** (``data/chunk_KKKK.npz``): rounds on fresh seeded deals at the config's table sizes;
   the *teacher* (the last generation that passed its gate; generation 0 is the search with the
   heuristic's rules, i.e. ``expert``'s decisions) plays ``collect.search_seats`` seats as the
   :class:`~folkcards.agents.tri_palki_net_search.TriPalkiNetSearchAgent` with the teacher's
   network for its rollouts, priors and world weights; the other seats are drawn from the
   league (``teacher``: the same search, ``past``: the search of an earlier passed generation,
   ``search``: the search with the heuristic's rules, or any agent spec such as
   ``heuristic``). Every searched decision of a teacher seat is a training sample: the policy
   features and the search's choice, and world features right after each candidate action with
   that rollout's stick (the value targets).
2. **fit** (``net/policy.npz``, ``net/value.npz``, ``net/fit.json``): the policy (the learned
   opponent model's shape: move scores from the hand, the centre and three flags) is fitted
   by cross-entropy to the search's choices, the value network by log-loss to the rollouts'
   sticks, on the data of the last ``fit.window`` generations (a held-out share of rounds
   reports agreement and loss).
3. **gate** (``gate/gate.json`` and the tournament's database and report): a duplicate
   tournament (every seating, the same deals) of the new generation's search against the
   teacher's search and the heuristic at ``gate.num_players`` seats; the new generation
   becomes the teacher when it gets fewer sticks per round than the teacher (the paired
   difference's mean below ``-gate.margin``; with ``gate.require_interval`` its interval
   too). With ``gate.report_rounds`` > 0 a second tournament reports it against ``expert``.

Re-running the command continues where the run stopped: a finished step is never redone (its
file exists), collection resumes at its first missing chunk, and a gate tournament resumes
from its database. ``RUN_DIR/summary.json`` and ``RUN_DIR/curves.png`` hold every generation's
fit metrics and gate results. Randomness comes only from the config's seed (each step's and
chunk's generator is derived from it), so the same config gives the same generations.

One job per module: :mod:`.config` (the schema of the YAML config), :mod:`.layout` (the run
folder's files and each step's seed), :mod:`.collect` (the search's decisions as samples),
:mod:`.fit` (the policy and value networks), :mod:`.gate` (the duplicate match against the
teacher), :mod:`.report` (``summary.json`` and ``curves.png``), :mod:`.loop` (the generations,
resumed, and a parent run's) and :mod:`.cli` (the command).
"""
