"""What fixes an agent's behaviour, recorded with every run and shown in the report."""

from __future__ import annotations

import hashlib
from pathlib import Path


def agent_version(spec: str, game: str, folkcards_version: str) -> str:
    """What fixes an agent's behaviour: its model file's SHA-256 (first 12 hex digits; ``ppo``
    and ``ppo:<game>`` name the packaged model), a folder argument's path, else the folkcards
    version of the built-in agent. Read when the report is written."""
    from folkcards.agents import agent_kinds, agent_origin

    kind, _, arg = spec.partition(":")
    if kind not in agent_kinds():  # module:Class, file.py:Class or a plug-in's entry point
        return agent_origin(spec)
    path: Path | None = Path(arg).expanduser() if arg else None
    if kind == "ppo":
        from folkcards.agents.ppo_agent import resolve_model_path

        path = resolve_model_path(arg or None, game)
    if path is not None and path.is_file():
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
        return f"{path.name} sha256 {digest}"
    if path is not None and path.is_dir():
        return f"folder {path}"
    if path is not None and arg:
        return f"{arg} (not found when this report was written)"
    return f"built in, folkcards {folkcards_version}"


__all__ = ["agent_version"]
