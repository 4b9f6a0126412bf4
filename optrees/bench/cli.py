"""``optrees bench PROTOCOL``: runs a protocol of :mod:`optrees.bench.protocols`.

The arguments are declared in :func:`optrees.cli_bench.add_bench_parser` (importing this package
loads the whole harness, which ``optrees --help`` should not wait for).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .._validation import OptreesInputError
from ..cli_bench import PAPER, add_bench_parser
from .protocols import _DEFAULT


def cmd_bench(args: argparse.Namespace) -> int:
    """Run the protocol of ``args``; print where the outputs went."""
    from .run import run_protocol

    if args.jobs == 0 or args.jobs < -1:
        raise OptreesInputError(f"--jobs must be a positive number or -1, got {args.jobs}")
    if args.seeds is not None and args.seeds < 1:
        raise OptreesInputError(f"--seeds must be >= 1, got {args.seeds}")
    time_limit = _DEFAULT if args.time_limit == PAPER else args.time_limit
    try:
        result = run_protocol(
            args.protocol, out_dir=args.out, quick=args.quick, jobs=args.jobs,
            scheduler=args.scheduler, dask_local=args.dask_local, time_limit=time_limit,
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
