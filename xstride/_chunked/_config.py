"""Hooks of the chunked executors, set by ``xstride/_backends/dask.py`` at import.

``xstride/_backends/dask.py`` is imported with ``xstride`` itself, also in a dask
worker that unpickles a task of these modules (importing ``xstride._chunked`` imports
the package ``xstride`` first), so the hooks are set wherever a task runs.
"""

from __future__ import annotations

from .._core.errors import error


def _unset(*args, **kwargs):  # pragma: no cover - xstride/_backends/dask.py sets them
    raise error(RuntimeError, "xstride._chunked", "the dask backend did not set its hooks")


#: ``(kind, chunk) -> executor module`` of the chunk's backend.
executor_of = _unset
#: ``chunk -> numpy.ndarray``.
to_host = _unset
#: ``(numpy array, meta) -> array of meta's backend``.
like = _unset
#: ``(dtype="float64") -> empty array of the active chunk backend`` (dask's meta).
default_meta = _unset
#: ``(dask array) -> its data or None``: the block a one-block array's graph holds as it
#: is, or the NumPy data its chunk backend's ``asarray`` converts (``asarray`` of host
#: data on device chunks).
host_literal = _unset
#: ``() -> the active chunks option``.
default_chunks = _unset
#: ``(name, chunk) -> the namespace's function`` of the chunk's backend (xstride's
#: registered implementation: kernels on CuPy), set by ``_backends/dask_fixes.py``.
namespace_function = _unset
