"""What every ``optrees`` sub-command's parser shares: one-line usage errors and a help
formatter that shows defaults (a module of its own so that :mod:`optrees.cli` and
:mod:`optrees.cli_bench` do not import each other)."""

from __future__ import annotations

import argparse
from typing import NoReturn


class _UsageError(Exception):
    """A command-line usage error (reported in one line, exit code 2)."""


class _Parser(argparse.ArgumentParser):
    """Reports a usage error in one line instead of usage + message + SystemExit."""

    def error(self, message: str) -> NoReturn:
        """Raise the one-line error that :func:`main` prints."""
        raise _UsageError(f"{message} (see `{self.prog} --help`)")


class _HelpFormatter(argparse.HelpFormatter):
    """Shows every option's default: "(default: 2)", "(default: off)" for a flag; options
    whose default is None say in their own help what happens without them."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if (not action.option_strings or action.required or "default:" in text
                or action.default in (None, argparse.SUPPRESS)):
            return text
        return f"{text} (default: {'off' if action.default is False else '%(default)s'})"
