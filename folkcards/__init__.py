"""folkcards: Paston and Tri Palki as reinforcement-learning environments.

The subpackages are ``folkcards.envs`` (the PettingZoo environments),
``folkcards.agents`` (random, heuristic and PPO players), ``folkcards.evaluate``
(tournaments) and ``folkcards.train`` (MaskablePPO training).
"""

__version__ = "0.1.0"
