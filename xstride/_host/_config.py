"""Facts the host executors are given by the backend layer at import.

``INCLUDE_DIR``: the folder that holds ``xstride/random.cuh``, the Philox rounds that
the host C loops (``philox_host.c``) share with the device kernels, so both compile
one definition. The shipped headers belong to the CUDA executors; the backend layer,
which knows both executor packages, sets this (``xstride/_backends/numpy.py``).
"""

from __future__ import annotations

INCLUDE_DIR: str | None = None
