"""What every ``optrees`` sub-command's parser shares: one-line usage errors and a help
formatter that shows defaults (a module of its own so that :mod:`optrees.cli` and
:mod:`optrees.cli_bench` do not import each other)."""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

SEP_HELP = ("column separator of the CSV file (default: sniffed: the one of ',', ';', tab, "
            "'|' that splits the header and the next data lines, quotes honoured, into the "
            "same number of columns, the most when several do; else the one that splits the "
            "header into the most)")
NA_HELP = ("a cell that marks a missing value, besides an empty one and pandas' 'NA', 'nan', "
           "... (UCI's '?', say; repeat the flag for several); with --dropna such rows are left "
           "out (default: none)")
NAMES_HELP = ("the columns' names, one per field, for a file without a header row (its first "
              "line is data); default: the file's first line")
DROPNA_HELP = ("leave out rows with a missing value (an empty cell), with a note of how many "
               "(default: such a file is refused, naming the first row)")


class _UsageError(Exception):
    """A command-line usage error (reported in one line, exit code 2)."""


def task_estimator(cls: type, args: argparse.Namespace, shared: dict[str, str],
                   **fixed: Any) -> Any:
    """``cls`` with the ``shared`` options given (option dest -> parameter) and ``fixed``,
    its parameters checked: a bad value is a usage error naming its option."""
    from ._params import validate_params
    from ._validation import OptreesInputError

    kwargs = {param: getattr(args, dest) for dest, param in shared.items()
              if getattr(args, dest, None) is not None}  # a method option: absent if not given
    est = cls(**kwargs, **fixed)
    try:
        validate_params(est)
    except OptreesInputError as exc:
        dest = next((d for d, p in shared.items() if str(exc).startswith(p)), None)
        if dest is None:
            raise
        raise _UsageError(f"--{dest.replace('_', '-')} {getattr(args, dest)}: {exc}") from exc
    return est


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
