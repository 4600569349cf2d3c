"""Command-line parsing shared by ``folkcards tournament`` and ``folkcards report``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence


class ArgumentLineError(Exception):
    """A command-line error, printed by the command as one line (exit code 2)."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors raise :class:`ArgumentLineError` instead of exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ArgumentLineError(message)


def parse_line(
    prog: str,
    build_parser: Callable[[argparse.ArgumentParser], argparse.ArgumentParser],
    argv: Sequence[str] | None,
) -> argparse.Namespace | None:
    """``argv`` parsed by ``build_parser``'s parser; ``None`` after printing a bad command line as
    one line (``prog: error: ...``), for the command to exit with code 2."""
    try:
        return build_parser(OneLineParser(prog=prog)).parse_args(argv)
    except ArgumentLineError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return None


__all__ = ["ArgumentLineError", "OneLineParser", "parse_line"]
