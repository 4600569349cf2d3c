"""The web table's request validation: bodies, fields, agent specs, one-line errors.

Every bad request is a :class:`RequestError` with a 4xx status and one short line that quotes
at most :data:`ECHO` characters of the input.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeGuard

from folkcards.agents import agent_kinds
from folkcards.envs.registry import GAMES
from starlette.requests import Request

MAX_BODY = 16 * 1024  # bytes of a request body; more is answered 413
MAX_DEPTH = 8  # nesting of a request's JSON; deeper is answered 400
MAX_TEXT = 64  # characters of a game name, mode or agent spec
MAX_MESSAGE = 200  # characters of an error message
ECHO = 32  # characters of other input a message may quote (a name or spec: up to MAX_TEXT)
NEW_GAME_FIELDS = ("game", "num_players", "seat", "opponents", "episode")
MOVE_FIELDS = ("action", "move")


class RequestError(Exception):
    """A bad request: answered with ``status`` and a one-line message, nothing changed."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def clip(value: Any, limit: int = ECHO) -> str:
    """``repr(value)`` cut to ``limit`` characters: how an error message quotes a client's input."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def one_line(message: str, limit: int = MAX_MESSAGE) -> str:
    """``message`` on one line of at most ``limit`` characters."""
    text = " ".join(str(message).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# a spec's argument a web client may give: a registered game (its committed model) or
# key=value parameters whose values are words or numbers (never a path)
_PARAMETERS = re.compile(r"[A-Za-z_]\w*=[\w.+-]*(,[A-Za-z_]\w*=[\w.+-]*)*")


def check_web_agent(spec: str) -> None:
    """``RequestError`` 400 unless ``spec`` is one of the named agent kinds ``/api/meta``
    offers, with no argument, a game's name (its committed model) or ``key=value`` parameters:
    a web client never makes the server import a module or load a file it names
    (``folkcards serve --allow-any-agent`` lifts this)."""
    kinds = agent_kinds()
    kind, colon, arg = spec.partition(":")
    if kind not in kinds:
        raise RequestError(
            400,
            f"unknown agent {clip(spec)} (files and modules only on a server started with "
            f"--allow-any-agent); the web table offers {', '.join(kinds)}",
        )
    if colon and arg not in GAMES and not _PARAMETERS.fullmatch(arg):
        raise RequestError(
            400,
            f"agent {clip(spec)}: a web client may give {kind} only a game's name or "
            "key=value parameters, not a file (the server's --allow-any-agent allows files)",
        )


def is_int(value: Any) -> TypeGuard[int]:
    """Whether ``value`` is an int (a bool is not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def only_fields(body: dict[str, Any], fields: tuple[str, ...]) -> None:
    """``RequestError`` 400 naming the first field of ``body`` not in ``fields``."""
    unknown = [key for key in body if key not in fields]
    if unknown:
        raise RequestError(
            400, f"unknown field {clip(unknown[0])}; the fields are {', '.join(fields)}"
        )


def text_field(body: dict[str, Any], key: str, default: str | None = None) -> str:
    """``body[key]`` (or ``default``), a string of 1 to :data:`MAX_TEXT` characters; else 400."""
    value = body.get(key, default)
    if not isinstance(value, str) or not value or len(value) > MAX_TEXT:
        raise RequestError(400, f"{key!r} must be a string of 1 to {MAX_TEXT} characters")
    return value


def _too_deep(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object: 413 over :data:`MAX_BODY` bytes (read no further), 400 if it
    is not JSON, nested deeper than :data:`MAX_DEPTH` or not an object."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BODY:
        raise RequestError(413, f"the body is over {MAX_BODY} bytes")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise RequestError(413, f"the body is over {MAX_BODY} bytes")
    try:
        body = json.loads(data)
    except RecursionError:
        raise RequestError(
            400, f"the body's JSON is nested deeper than {MAX_DEPTH} levels"
        ) from None
    except ValueError:
        raise RequestError(400, "the body must be JSON") from None
    if _too_deep(body, MAX_DEPTH):
        raise RequestError(400, f"the body's JSON is nested deeper than {MAX_DEPTH} levels")
    if not isinstance(body, dict):
        raise RequestError(400, "the body must be a JSON object")
    return body
