"""The options of ``python -m xstride demo`` that only the dask backend takes, and their
check: what the parser needs from the dask demo (:mod:`xstride._cli.dask_demo`), which
is imported only when ``--backend dask`` runs."""

from __future__ import annotations

import argparse

from .. import _backends
from .._backends.dask import CHUNK_BYTES_PAST, CHUNK_BYTES_UNDER
from .demo import DemoError
from .numbers import option as _number, plain as _plain

__all__ = ["add_arguments", "check_arguments", "DEFAULT_TIMEOUT"]

DEFAULT_TIMEOUT = 10.0


def _lazy_backend():
    """The backend whose arrays are task graphs (the one this module drives)."""
    for be in _backends.each():
        if be.lazy:
            return be
    raise DemoError("this build has no lazy backend")  # pragma: no cover


_CHUNKS_FORMS = "give rows (1000), 'auto' or a byte size with its unit (64MiB)"


def _chunks_arg(text: str):
    """``--chunks``: an int (elements per chunk on each axis), 'auto' or a byte size with
    its unit. A number without a unit counts rows (``1e3`` is 1000 rows, not dask's
    1000 bytes); one that is not whole is refused. The value is checked here, by the
    backend's own option check, so that a bad one is the parser's error naming
    ``--chunks`` before any cluster starts."""
    if not _plain(text):   # float() and int() take 1_000 and other scripts' digits
        why = ("'_' digit separators are not taken" if "_" in text
               else "only ASCII digits are taken")
        raise argparse.ArgumentTypeError(f"{text!r}: {why}; {_CHUNKS_FORMS}")
    try:
        rows = float(text)
    except ValueError:
        value = text   # 'auto' or a byte size: the backend's check parses it
        problem = f"{text!r} is neither 'auto' nor a byte size with its unit; {_CHUNKS_FORMS}"
    else:
        if not rows.is_integer():
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of rows; "
                                             f"{_CHUNKS_FORMS}")
        # int(text) is exact, also past 2**53
        value = int(text) if text.strip().lstrip("+-").isdigit() else int(rows)
        problem = (f"{text!r} rows is more than a chunk holds (2**63-1 rows)" if value > 0
                   else f"{text!r} is not a positive number of rows (or -1: one chunk); "
                        f"{_CHUNKS_FORMS}")
    if value == "auto":
        return value
    try:
        _lazy_backend().check_options("demo", {"chunks": value})
    except (TypeError, ValueError) as exc:
        # a byte size dask parses, yet under one byte ('0MiB') or past any count ('1e999MiB')
        why = next((w for w in (CHUNK_BYTES_UNDER, CHUNK_BYTES_PAST) if str(exc).endswith(w)),
                   None)
        if isinstance(value, str) and why is not None:
            problem = f"{text!r} is {why}; {_CHUNKS_FORMS}"
        raise argparse.ArgumentTypeError(problem) from None
    except RuntimeError:
        pass   # the backend's library is missing: the run says so
    return value


def add_arguments(parser) -> None:
    """The options of ``demo`` that only the dask backend takes."""
    be = _lazy_backend()
    group = parser.add_argument_group(f"--backend {be.name}")
    group.add_argument("--workers", type=_number(int), default=None, metavar="N",
                       help="worker processes of the local cluster (default: 2; with "
                            "--chunk-backend cupy, one per GPU)")
    group.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="use the running cluster of this scheduler (tcp://host:8786) "
                            "instead of a local one")
    group.add_argument("--chunk-backend", type=str.lower, default=None,
                       choices=be.chunk_backends, help="backend of the chunks (default numpy)")
    group.add_argument("--chunks", type=_chunks_arg, default=None, metavar="SIZE",
                       help="rows per chunk, 'auto' (default) or a byte size such as 64MiB")
    group.add_argument("--connect-timeout", type=_number(float), default=None, metavar="SECONDS",
                       help=f"how long to wait for --scheduler (default {DEFAULT_TIMEOUT:g})")


_OWN = ("workers", "scheduler", "chunk_backend", "chunks", "connect_timeout")


#: Options of the in-memory demo that the dask demo does not take (voxel_downsample and
#: morton_tree run on NumPy and CuPy arrays; the plot and the PLY file need the points
#: in one memory).
_IN_MEMORY = ("voxel", "out", "plot")


def check_arguments(args) -> str | None:
    """A one-line error when an option of this module is given for another backend, an
    option of the in-memory demo for this one, or ``--connect-timeout`` without
    ``--scheduler`` (it would be ignored)."""
    if _backends.get(args.backend).lazy:
        given = [f"--{name}" for name in _IN_MEMORY if getattr(args, name, None) is not None]
        if given:
            return (f"{', '.join(given)} need{'s' if len(given) == 1 else ''} the points in "
                    f"one memory: use --backend "
                    f"{' or '.join(b.name for b in _backends.each() if not b.lazy)} "
                    f"(got --backend {args.backend})")
        if args.connect_timeout is not None and args.scheduler is None:
            # the local cluster is started here, not connected to: the wait is unused
            return ("--connect-timeout bounds the wait for --scheduler: it does nothing "
                    "with the local cluster; give --scheduler ADDRESS or leave it out")
        return None
    given = [f"--{name.replace('_', '-')}" for name in _OWN if getattr(args, name, None) is not None]
    if given:
        return (f"{', '.join(given)} appl{'ies' if len(given) == 1 else 'y'} only to --backend "
                f"{_lazy_backend().name}; "
                f"got --backend {args.backend}")
    return None
