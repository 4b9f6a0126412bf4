"""The ``optrees bench`` sub-command's arguments.

They live outside :mod:`optrees.bench` because importing that package loads the whole
benchmark harness (scikit-learn, the solvers), which ``optrees --help`` need not wait for.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Any

from .cli_base import _HelpFormatter


class _ProtocolsHelp(argparse.Action):
    """``-h`` of ``bench``: describes the protocols, imported only when help is asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        """Print the help with the protocols' descriptions, then exit."""
        from .bench.protocols import PROTOCOLS

        parser.description = "Run an experimental protocol: " + "; ".join(
            f"{k}: {v.description}" for k, v in PROTOCOLS.items())
        parser.print_help()
        parser.exit()


PAPER = "paper"
"""``optrees bench --time-limit`` default: each protocol's own (its paper's) time limit."""


def csv_list(conv: Callable[[str], Any]) -> Callable[[str], list[Any]]:
    """An argparse type: comma-separated values, each converted by ``conv``."""

    def parse(text: str) -> list[Any]:
        try:
            return [conv(v.strip()) for v in text.split(",") if v.strip()]
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"bad list {text!r}: {exc}") from exc

    return parse


def _bench_time_limit(text: str) -> float | str | None:
    """An argparse type: seconds > 0, 'none' (no limit) or 'paper' (the protocol's)."""
    if text.lower() in ("none", "inf"):
        return None
    if text.lower() == PAPER:
        return PAPER
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("--time-limit must be positive (or 'none')")
    return value


def add_bench_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``bench`` sub-command to an ``argparse`` subparsers object; return it.

    The command is run by :func:`optrees.bench.cli.cmd_bench` (:mod:`optrees.cli` imports it
    when it runs)."""

    p = subparsers.add_parser(
        "bench", help="run a paper's experimental protocol (CSV + Markdown + figures)",
        add_help=False, formatter_class=_HelpFormatter)
    p.add_argument("-h", "--help", action=_ProtocolsHelp,
                   help="show this help message (with the protocols) and exit")
    # no `choices`, so an unknown protocol gets our own message (exit code 2)
    p.add_argument("protocol", help="a protocol name (listed by --help)")
    p.add_argument("--quick", action="store_true", help="small grid, under 3 minutes")
    p.add_argument("--out", default="bench/results", help="output directory")
    p.add_argument("--jobs", type=int, default=1, help="parallel local processes (-1: all)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", default=None,
                       help="Dask scheduler address (default: none, local processes)")
    where.add_argument("--dask-local", type=int, default=None, metavar="N",
                       help="start a local Dask cluster with N worker processes (default: no)")
    p.add_argument("--time-limit", type=_bench_time_limit, default=PAPER,
                   help="seconds per fit, 'none' (no limit) or 'paper' (the protocol's)")
    p.add_argument("--data-dir", default=None,
                   help="folder of non-bundled datasets (default: $OPTREES_DATA)")
    p.add_argument("--datasets", type=csv_list(str), default=None,
                   help="comma-separated datasets (default: the protocol's)")
    p.add_argument("--methods", type=csv_list(str), default=None,
                   help="methods (for 'accelerated': BendOCT variants; default: the "
                        "protocol's)")
    p.add_argument("--depths", type=csv_list(int), default=None,
                   help="comma-separated depths (default: the protocol's)")
    p.add_argument("--lams", type=csv_list(float), default=None,
                   help="comma-separated penalties (default: the protocol's)")
    p.add_argument("--seeds", type=int, default=None,
                   help="number of random splits (default: the protocol's)")
    p.add_argument("--retry-errors", action="store_true",
                   help="re-run tasks whose stored row has an error")
    p.add_argument("--no-plots", action="store_true", help="skip the figures")
    p.add_argument("--connect-timeout", type=float, default=10.0,
                   help="seconds to wait for the Dask scheduler")
    return p
