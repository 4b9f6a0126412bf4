"""``optrees bench PROTOCOL`` (wired into :mod:`optrees.cli` via :func:`add_bench_parser`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .._validation import OptreesInputError
from .protocols import _DEFAULT, PROTOCOLS


def _csv_list(conv: Callable[[str], Any]) -> Callable[[str], list[Any]]:
    def parse(text: str) -> list[Any]:
        try:
            return [conv(v.strip()) for v in text.split(",") if v.strip()]
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"bad list {text!r}: {exc}") from exc

    return parse


def _time_limit(text: str) -> float | None:
    if text.lower() in ("none", "inf"):
        return None
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("--time-limit must be positive (or 'none')")
    return value


def add_bench_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``bench`` sub-command to an ``argparse`` subparsers object; return it."""
    p = subparsers.add_parser(
        "bench", help="run a paper's experimental protocol (CSV + Markdown + figures)",
        description="Run an experimental protocol: " + "; ".join(
            f"{k}: {v.description}" for k, v in PROTOCOLS.items()))
    # no `choices`, so an unknown protocol gets our own message (exit code 2)
    p.add_argument("protocol", help=f"one of {', '.join(PROTOCOLS)}")
    p.add_argument("--quick", action="store_true", help="small grid, under 3 minutes")
    p.add_argument("--out", default="bench/results", help="output directory")
    p.add_argument("--jobs", type=int, default=1, help="parallel local processes (-1: all)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--scheduler", default=None, help="Dask scheduler address")
    where.add_argument("--dask-local", type=int, default=None, metavar="N",
                       help="start a local Dask cluster with N worker processes")
    p.add_argument("--time-limit", type=_time_limit, default=_DEFAULT,
                   help="seconds per fit ('none': no limit); default: the paper's")
    p.add_argument("--data-dir", default=None,
                   help="folder of non-bundled datasets (default: $OPTREES_DATA)")
    p.add_argument("--datasets", type=_csv_list(str), default=None)
    p.add_argument("--methods", type=_csv_list(str), default=None,
                   help="methods (for 'accelerated': BendOCT variants)")
    p.add_argument("--depths", type=_csv_list(int), default=None)
    p.add_argument("--lams", type=_csv_list(float), default=None)
    p.add_argument("--seeds", type=int, default=None, help="number of random splits")
    p.add_argument("--retry-errors", action="store_true",
                   help="re-run tasks whose stored row has an error")
    p.add_argument("--no-plots", action="store_true")
    p.add_argument("--connect-timeout", type=float, default=10.0,
                   help="seconds to wait for the Dask scheduler")
    p.set_defaults(handler=cmd_bench)
    return p


def cmd_bench(args: argparse.Namespace) -> int:
    """Run the protocol of ``args``; print where the outputs went."""
    from .run import run_protocol

    if args.jobs == 0 or args.jobs < -1:
        raise OptreesInputError(f"--jobs must be a positive number or -1, got {args.jobs}")
    if args.seeds is not None and args.seeds < 1:
        raise OptreesInputError(f"--seeds must be >= 1, got {args.seeds}")
    try:
        result = run_protocol(
            args.protocol, out_dir=args.out, quick=args.quick, jobs=args.jobs,
            scheduler=args.scheduler, dask_local=args.dask_local, time_limit=args.time_limit,
            data_dir=args.data_dir, datasets=args.datasets, methods=args.methods,
            depths=args.depths, seeds=args.seeds, lams=args.lams,
            retry_errors=args.retry_errors, plots=not args.no_plots,
            timeout=args.connect_timeout)
    except KeyboardInterrupt:
        print("\ninterrupted: finished fits are in the CSV; run the same command again to "
              "resume", file=sys.stderr)
        return 130
    errors = int((result.frame["error"] != "").sum()) if not result.frame.empty else 0
    print(f"{len(result.frame)} tasks ({errors} errors) in {result.seconds:.1f}s")
    print(f"CSV      : {result.csv}")
    print(f"summary  : {result.markdown}")
    for fig in result.figures:
        print(f"figure   : {fig}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Stand-alone entry point (``python -m optrees.bench.cli PROTOCOL ...``)."""
    parser = argparse.ArgumentParser(prog="optrees")
    add_bench_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["bench", *(sys.argv[1:] if argv is None else argv)])
    try:
        return cmd_bench(args)
    except (OptreesInputError, FileNotFoundError) as exc:
        print(f"optrees: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
