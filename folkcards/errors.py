"""What every layer shares about bad input: :class:`ConfigError` and reading a YAML config.

The lowest layer of the package (it imports nothing of folkcards): tournaments
(:mod:`folkcards.evaluate.config`), both training stacks (:mod:`folkcards.train.config`,
:mod:`folkcards.train.rllib_config`) and the commands raise and catch the same error.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


class ConfigError(ValueError):
    """A malformed configuration, tournament or training (the message is one clear line)."""


def load_yaml(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The mapping in a YAML file; ``ConfigError`` (one line, with the line and column of a
    syntax error) for a missing, unreadable or malformed file or one that is not a mapping."""
    import yaml

    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"config file {str(p)!r} not found")
    try:
        data = yaml.safe_load(p.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{p}: not valid YAML{where}: {problem}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{p}: cannot read: {exc}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{p}: the config must be a mapping of keys, not a {type(data).__name__}")
    return data


__all__ = ["ConfigError", "load_yaml"]
