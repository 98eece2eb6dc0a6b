"""Executors of the dask backend: xstride's extensions per chunk under dask's scheduler.

Each module builds a dask graph whose tasks call the executor of the chunks' own
backend (``xstride._host`` for NumPy chunks, ``xstride._kernels`` for CuPy chunks),
found through the hooks in :mod:`._config` that ``xstride/_backends/dask.py`` sets (the
backend layer knows the backends; this layer may not import it). Work that depends on
an element's position (the Philox generator's counters) reads the chunk's global offset
from dask's ``block_info``, so results do not depend on the chunking. See
``docs/dask.md``.
"""
