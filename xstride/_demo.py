"""``python -m xstride demo``: until the pipeline exists, it prints ``info``."""

from __future__ import annotations


def add_arguments(parser) -> None:
    parser.add_argument("--backend", choices=("numpy", "cupy"), default="numpy")


def run(args) -> int:
    from ._info import run as run_info

    return run_info()
