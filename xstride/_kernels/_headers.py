"""Where the shipped CUDA headers (``include/xstride/*.cuh``) are: one fact, read by the
compiler of the kernels (``_compile.py``) and, through the backend layer, by the host
Philox C loops. A module of its own so that reading it imports nothing else."""

from __future__ import annotations

import os

__all__ = ["include_dir"]

_INCLUDE = os.path.join(os.path.dirname(os.path.realpath(__file__)), "include")


def include_dir() -> str:
    """Folder that holds ``xstride/*.cuh`` (pass it as ``-I``)."""
    return _INCLUDE
