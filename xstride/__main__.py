"""python -m xstride: the info, demo and bench subcommands."""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xstride", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p_info = sub.add_parser("info", help="backend, versions, devices and the capability table")
    p_info.add_argument("--json", action="store_true", help="print one JSON object")

    from ._cli import dask_demo as _dask_demo
    from ._cli import demo as _demo

    p_demo = sub.add_parser("demo", help="the end-to-end particle pipeline")
    _demo.add_arguments(p_demo)
    _dask_demo.add_arguments(p_demo)  # --workers, --scheduler, ... of --backend dask

    p_bench = sub.add_parser("bench", help="run the benchmarks of benchmarks/ that apply here")
    p_bench.add_argument("names", nargs="*", help="benchmark names (default: all)")

    args = parser.parse_args(argv)
    if args.command == "info":
        from ._cli.info import run as run_info

        return run_info(json_output=args.json)
    if args.command == "demo":
        problem = _dask_demo.check_arguments(args)
        if problem is not None:
            print(f"xstride demo: error: {problem}", file=sys.stderr)
            return 2
        from . import _backends

        if _backends.get(args.backend).lazy:  # task graphs on a dask cluster
            return _dask_demo.run(args)
        return _demo.run(args)
    from ._cli.bench import run as run_bench

    return run_bench(args.names)


if __name__ == "__main__":
    sys.exit(main())
