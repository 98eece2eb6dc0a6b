"""What the tests of one call on the NumPy and dask backends share: the NumPy backend
put back after each test, and an operand of either backend."""

from __future__ import annotations

import pytest

import xstride as xp

da = pytest.importorskip("dask.array")


@pytest.fixture(autouse=True)
def numpy_after():
    """The NumPy backend again after the test (a test may leave dask set)."""
    yield
    xp.set_backend("numpy")


def on_backend(backend: str, a, chunks: int = 2):
    """``a`` (a NumPy array) as an operand of ``backend``: itself, or a dask array of
    ``chunks`` elements along every axis."""
    return a if backend == "numpy" else da.from_array(a, chunks=chunks)
