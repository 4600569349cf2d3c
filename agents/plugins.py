"""Agents from outside the package: ``module:Class``, ``path/to/file.py:Class`` and entry points.

:func:`folkcards.agents.make_agent` looks a spec's kind up among the registered kinds first
(``random``, ``heuristic``, ``ppo``, …); a spec whose kind is not one of them is resolved here:

- an **entry point** of the group ``folkcards.agents`` named like the spec's kind (a plug-in
  package declares ``[project.entry-points."folkcards.agents"] myagent = "pkg.mod:MyAgent"``);
  the part after the first colon is the factory's ``arg``, as for the built-in kinds;
- ``package.module:Class`` — a class importable from the Python path;
- ``path/to/file.py:Class`` — a class defined in a Python file (imported once per process under
  a module name derived from its absolute path, so worker processes import the same file).

The object named may be an agent class (any class with ``act``, usually a subclass of
:class:`~folkcards.agents.base.Agent`; built as ``Class(game=..., seat=..., seed=...)``) or a factory with the built-in kinds' signature
``factory(game=, seat=, seed=, arg=)``. :func:`external_origin` says where such an agent comes
from, for tournament reports (through :func:`folkcards.agents.agent_origin`).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ENTRY_POINT_GROUP = "folkcards.agents"
SPEC_FORMS = (
    "a registered kind, an entry point of group folkcards.agents, module:Class or file.py:Class"
)


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _entry_point(name: str) -> importlib.metadata.EntryPoint | None:
    matches = [
        ep for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP) if ep.name == name
    ]
    return matches[0] if matches else None


def _load_file(path: Path) -> Any:
    resolved = path.resolve()
    digest = hashlib.sha1(str(resolved).encode()).hexdigest()[:12]
    name = f"folkcards_user_{resolved.stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot import {_short(str(path))!r} as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before running it, so classes defined there can be pickled
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        del sys.modules[name]
        raise ValueError(
            f"importing {_short(str(path))!r} failed: {type(error).__name__}: {_short(str(error))}"
        ) from None
    return module


def _load_module(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError as error:
        raise ValueError(f"cannot import module {_short(name)!r}: {_short(str(error))}") from None
    except Exception as error:
        raise ValueError(
            f"importing {_short(name)!r} failed: {type(error).__name__}: {_short(str(error))}"
        ) from None


def _as_factory(target: Any, where: str) -> Callable[..., Any]:
    if inspect.isclass(target):
        if not callable(getattr(target, "act", None)):
            raise ValueError(f"{where} is a class without act(observation): not an agent")
        cls: Any = target

        def build(game: str, seat: str, seed: int | None, arg: str | None = None, **_: Any) -> Any:
            if arg is not None:
                return cls(game=game, seat=seat, seed=seed, arg=arg)
            return cls(game=game, seat=seat, seed=seed)

        return build
    if callable(target):
        return target
    raise ValueError(f"{where} is neither an agent class nor a factory")


def external_factory(spec: str) -> tuple[Callable[..., Any], str | None] | None:
    """The factory and ``arg`` of a spec that names an agent outside the registered kinds.

    ``None`` if the spec names no entry point and has no ``module:Class`` / ``file.py:Class``
    form; ``ValueError`` (one line) if it has that form and the target cannot be loaded.
    """
    kind, _, rest = spec.partition(":")
    entry = _entry_point(kind)
    if entry is not None:
        try:
            target = entry.load()
        except Exception as error:
            raise ValueError(
                f"entry point {kind!r} ({entry.value}) failed to load: "
                f"{type(error).__name__}: {_short(str(error))}"
            ) from None
        return _as_factory(target, f"entry point {kind!r}"), rest or None
    if not rest:
        return None
    attr, _, arg = rest.partition(":")
    if kind.endswith(".py"):
        path = Path(kind)
        if not path.is_file():
            raise ValueError(f"agent file {_short(kind)!r} does not exist")
        module = _load_file(path)
    elif all(part.isidentifier() for part in kind.split(".")) and attr.isidentifier():
        module = _load_module(kind)
    else:
        return None
    if not hasattr(module, attr):
        raise ValueError(f"{_short(kind)!r} has no {_short(attr)!r}")
    return _as_factory(getattr(module, attr), f"{_short(kind)}:{_short(attr)}"), arg or None


def external_origin(spec: str) -> str:
    """Where the agent of an external ``spec`` comes from: an entry point, a module or a file
    (:func:`folkcards.agents.agent_origin` answers for every spec)."""
    kind, _, rest = spec.partition(":")
    entry = _entry_point(kind)
    if entry is not None:
        dist = entry.dist
        version = f" {dist.version}" if dist is not None else ""
        name = dist.metadata["Name"] if dist is not None else "unknown distribution"
        return f"entry point {kind} = {entry.value} ({name}{version})"
    attr = rest.partition(":")[0]
    if kind.endswith(".py") and Path(kind).is_file():
        digest = hashlib.sha256(Path(kind).read_bytes()).hexdigest()[:12]
        return f"class {attr} in file {Path(kind).resolve()} (sha256 {digest})"
    module = sys.modules.get(kind)
    where = getattr(module, "__file__", None) if module is not None else None
    return f"class {attr} of module {kind}" + (f" ({where})" if where else "")
