"""Command-line parsing shared by ``folkcards tournament`` and ``folkcards report``."""

from __future__ import annotations

import argparse


class ArgumentLineError(Exception):
    """A command-line error, printed by the command as one line (exit code 2)."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors raise :class:`ArgumentLineError` instead of exiting."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise ArgumentLineError(message)


__all__ = ["ArgumentLineError", "OneLineParser"]
