"""What fixes an agent's behaviour, recorded with every run and shown in the report."""

from __future__ import annotations

import hashlib
from pathlib import Path


def agent_version(spec: str, game: str, folkcards_version: str) -> str:
    """What fixes an agent's behaviour beside the package's code (the report names the
    folkcards version): the SHA-256 (first 12 hex digits) of each file its ``model_files()``
    names (a trained network, the expert's evaluator); ``built in`` for a rule-based or search
    agent; a plug-in's origin. Read when the report is written (the agent is built
    to find its files; one that cannot be built any more is said so)."""
    from folkcards.agents import agent_kinds, agent_origin, make_agent

    kind, _, arg = spec.partition(":")
    if kind not in agent_kinds():  # module:Class, file.py:Class or a plug-in's entry point
        return agent_origin(spec)
    try:
        files = make_agent(spec, game).model_files()
    except (ValueError, OSError):
        return f"{arg or spec} (not found when this report was written)"
    if not files:
        return f"built in, folkcards {folkcards_version}"
    return "; ".join(_digest(Path(f)) for f in files)


def _digest(path: Path) -> str:
    if not path.is_file():
        return f"{path.name} (missing)"
    return f"{path.name} sha256 {hashlib.sha256(path.read_bytes()).hexdigest()[:12]}"


__all__ = ["agent_version"]
