"""python -m xstride: the info, demo and bench subcommands."""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m xstride", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p_info = sub.add_parser("info", help="backend, versions, devices and the capability table")
    p_info.add_argument("--json", action="store_true", help="print one JSON object")
    p_info.add_argument("--kernels", action="store_true",
                        help="run a short workload and list the kernels it compiles, with "
                             "their compile times (docs/performance.md, 'Cold start')")
    from . import _backends

    p_info.add_argument("--backend", type=str.lower, choices=_backends.names(), default=None,
                        help="backend of the --kernels workload (default: the active one)")

    from ._cli import dask_options as _dask_options
    from ._cli import demo as _demo

    p_demo = sub.add_parser("demo", help="the end-to-end particle pipeline")
    _demo.add_arguments(p_demo)
    _dask_options.add_arguments(p_demo)  # --workers, --scheduler, ... of --backend dask

    from ._cli.bench import known_names as _bench_names

    known = _bench_names()
    p_bench = sub.add_parser("bench", help="run the benchmarks of benchmarks/ that apply here")
    p_bench.add_argument("names", nargs="*", metavar="name",
                         help="benchmark names (default: all); known: "
                              + (", ".join(known) if known else
                                 "none (benchmarks/ is not beside the package)"))

    args = parser.parse_args(argv)
    if args.command == "info":
        if args.kernels:
            from ._cli.kernels import run as run_kernels

            return run_kernels(args.backend, json_output=args.json)
        if args.backend is not None:
            p_info.error("--backend goes with --kernels (the backend of its workload)")
        from ._cli.info import run as run_info

        return run_info(json_output=args.json)
    if args.command == "demo":
        problem = _dask_options.check_arguments(args)
        if problem is not None:
            print(f"xstride demo: error: {problem}", file=sys.stderr)
            return 2
        from . import _backends

        if _backends.get(args.backend).lazy:  # task graphs on a dask cluster
            from ._cli import dask_demo as _dask_demo

            return _dask_demo.run(args)
        return _demo.run(args)
    from ._cli.bench import run as run_bench

    return run_bench(args.names)


if __name__ == "__main__":
    sys.exit(main())
