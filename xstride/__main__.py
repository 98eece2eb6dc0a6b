"""python -m xstride: the info, demo and bench subcommands."""

from __future__ import annotations

import argparse
import os
import sys

#: The exit status of a Unix tool killed by SIGPIPE (128 + signal 13), as a shell shows it.
_BROKEN_PIPE_STATUS = 141
#: Status of a command stopped by Ctrl-C (SIGINT): 128 + 2, as a shell reports it.
_INTERRUPTED_STATUS = 130
#: Status of a command whose output could not be written (a full disk, ``> /dev/full``):
#: ``EX_IOERR`` of sysexits.h.
_OUTPUT_ERROR_STATUS = 74


#: How every error line of the command begins: ``xstride: error: ...``, or with the
#: subcommand, ``xstride demo: error: ...`` (the parser's own errors included).
ERROR_PREFIX = "xstride"


class _Parser(argparse.ArgumentParser):
    """The command's parser (and its subcommands'): its usage says ``python -m
    xstride ...``, and its errors begin as the subcommands' own do, ``xstride demo:
    error: ...`` (argparse's began ``python -m xstride demo: error:``); exit status 2."""

    def error(self, message):
        from ._cli.demo_extras import shown_text   # a newline or ESC of an argument escaped:

        self.print_usage(sys.stderr)               # one line ("unrecognized arguments: ...")
        name = ERROR_PREFIX + self.prog.removeprefix("python -m xstride")
        self.exit(2, f"{name}: error: {shown_text(message)}\n")


def main(argv=None) -> int:
    parser = _Parser(prog="python -m xstride", description=__doc__)
    from . import __version__

    parser.add_argument("--version", action="version", version=f"xstride {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p_info = sub.add_parser(
        "info", help="backend, versions, devices and the capability table",
        description="Print the active backend, the versions of xstride and its libraries, "
                    "the GPU and the capability table (what HIP refuses, the host loops "
                    "in use); exits 0 without a GPU. docs/api.md, 'Command line'.")
    p_info.add_argument("--json", action="store_true", help="print one JSON object")
    p_info.add_argument("--kernels", action="store_true",
                        help="run a short workload and list the kernels it compiles, with "
                             "their compile times (docs/performance.md, 'Cold start')")
    from . import _backends

    p_info.add_argument("--backend", type=str.lower, choices=_backends.names(), default=None,
                        help="backend of the --kernels workload (default: the active one)")

    from ._cli import dask_options as _dask_options
    from ._cli import demo as _demo

    p_demo = sub.add_parser(
        "demo", help="the end-to-end particle pipeline",
        description="The end-to-end particle pipeline: Philox points in the unit cube (or "
                    "a point file), bounding box, Morton keys, sort_by_key, occupancy, "
                    "reductions and the Morton tree, each stage timed; on NumPy, CuPy or a "
                    "dask cluster. docs/demo.md.")
    _demo.add_arguments(p_demo)
    _dask_options.add_arguments(p_demo)  # --workers, --scheduler, ... of --backend dask

    from ._cli.bench import known_names as _bench_names

    known = _bench_names()
    p_bench = sub.add_parser(
        "bench", help="run the benchmarks of benchmarks/ that apply here",
        description="Run the benchmarks of benchmarks/ (from a checkout) that apply on this "
                    "machine: those that time CuPy only are skipped without a GPU (one line "
                    "says why). "
                    "docs/performance.md.")
    p_bench.add_argument("names", nargs="*", metavar="name",
                         help="benchmark names (default: all); known: "
                              + (", ".join(known) if known else
                                 "none (benchmarks/ is not beside the package)"))

    # an option the subcommand does not take is its error, with its usage (argparse
    # leaves unknown arguments of a subparser to the top-level parser, whose usage
    # says nothing of the subcommand's options)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        {"info": p_info, "demo": p_demo, "bench": p_bench}[args.command].error(
            f"unrecognized arguments: {' '.join(unknown)}")
    if args.command == "info":
        if args.kernels:
            from ._cli.kernels import run as run_kernels

            return run_kernels(args.backend, json_output=args.json)
        if args.backend is not None:
            p_info.error("--backend goes with --kernels (the backend of its workload)")
        from ._cli.info import run as run_info

        return run_info(json_output=args.json)
    if args.command == "demo":
        problem = _dask_options.check_arguments(args) or _demo.check_arguments(args)
        if problem is not None:
            print(_demo.error_line(problem), file=sys.stderr)
            return 2
        from . import _backends

        if _backends.get(args.backend).lazy:  # task graphs on a dask cluster
            from ._cli import dask_demo as _dask_demo

            return _dask_demo.run(args)
        return _demo.run(args)
    from ._cli.bench import run as run_bench

    return run_bench(args.names)


#: The subcommands, whose errors are named after them (``xstride demo: error: ...``).
_SUBCOMMANDS = ("info", "demo", "bench")


def entry_point(argv=None) -> int:
    """:func:`main`, stopping quietly when the reader of stdout goes away.

    ``python -m xstride info --json | head -1``: once ``head`` exits, a write to stdout
    raises ``BrokenPipeError``; the command then ends with status 141 and no traceback,
    as a Unix tool killed by SIGPIPE (stdout is pointed at the null device so that
    Python's own flush at exit does not fail again).

    An environment variable of xstride that holds a value it does not take
    (``XSTRIDE_NUM_THREADS=abc``, ``XSTRIDE_BACKEND=bogus``:
    :class:`~xstride._core.errors.SettingError`) is one line on stderr and status 2, as a
    bad option is, not a traceback.

    Ctrl-C (``KeyboardInterrupt``) ends the command with ``xstride: interrupted`` on
    stderr and status 130, not a traceback through the stage that was running.

    Output that cannot be written (``> /dev/full``, a full disk: an ``OSError`` of a
    write to stdout other than a broken pipe; a closed stdout, ``>&-``) is one line on
    stderr and status 74 (``EX_IOERR``); an ``OSError`` of anything else goes on as
    before.

    A closed stderr (``2>&-``: Python's ``sys.stderr`` is None) discards what goes there
    (the demo's progress lines, an error line): ``print(file=None)`` writes to stdout,
    which put them into the ``--json`` output, and the progress line's flush of None
    ended a longer demo with status 1 and no output.
    """
    from ._backends.select import check_setting
    from ._core.errors import SettingError

    if sys.stderr is None:   # started with stderr closed (``2>&-``): Python's None
        sys.stderr = open(os.devnull, "w")   # print(file=None) would write to stdout
    real = sys.stdout
    who = "xstride"   # the error line's name: the subcommand's once it runs
    try:
        check_setting()   # a bad XSTRIDE_BACKEND, deferred by the import for this line
        args = sys.argv[1:] if argv is None else list(argv)
        if args and args[0] in _SUBCOMMANDS:
            who = f"xstride {args[0]}"
        sys.stdout = _Stdout(real)
        try:
            status = main(argv)
            sys.stdout.flush()
        finally:
            sys.stdout = real
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return _BROKEN_PIPE_STATUS
    except SettingError as exc:   # (XSTRIDE_NUM_THREADS=0 during a demo: its name)
        print(f"{who}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("xstride: interrupted", file=sys.stderr)
        return _INTERRUPTED_STATUS
    except _OutputError as exc:
        print(f"xstride: error: cannot write the output: {exc}", file=sys.stderr)
        if sys.stdout is not None:   # a closed stdout (``>&-``) is None: nothing to flush
            devnull = os.open(os.devnull, os.O_WRONLY)   # Python's own flush at exit
            os.dup2(devnull, sys.stdout.fileno())
        return _OUTPUT_ERROR_STATUS
    return status


class _OutputError(Exception):
    """A write to stdout failed (not a broken pipe): its ``OSError``'s text."""


class _Stdout:
    """stdout while a command runs: its writes' ``OSError`` (but a broken pipe's)
    becomes :class:`_OutputError`, so that :func:`entry_point` tells it from the
    ``OSError`` of anything else, and a character its encoding cannot write is written
    as its escape (``\\xe9``) rather than ending the command with a traceback; the rest
    is the real stream's."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        if self._stream is None:   # started with stdout closed (``>&-``): Python's None
            raise _OutputError("stdout is closed")
        try:
            try:
                return self._stream.write(text)
            except UnicodeEncodeError:
                # a character the stream's encoding lacks (a point file named café.csv on
                # an ASCII or Latin-1 stdout): its escape, as stderr writes it; the whole
                # text was refused, nothing of it written
                encoding = getattr(self._stream, "encoding", None) or "ascii"
                return self._stream.write(text.encode(encoding, "backslashreplace")
                                          .decode(encoding))
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _OutputError(exc.strerror or str(exc)) from exc

    def flush(self):
        if self._stream is None:
            return None
        try:
            return self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _OutputError(exc.strerror or str(exc)) from exc

    def __getattr__(self, name):
        return getattr(self._stream, name)


if __name__ == "__main__":
    sys.exit(entry_point())
