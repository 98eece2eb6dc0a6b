"""``sort``/``argsort`` of dtypes at the standard's edge, on the NumPy and dask backends
alike (``_backends/arg_checks.check_sort_args``)."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp


def _on(backend, host):
    if backend == "numpy":
        return host
    pytest.importorskip("dask.array")
    with xp.use_backend("dask"):
        return xp.asarray(host, chunks=2)   # (object items: dask's "auto" cannot size them)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name", ["sort", "argsort"])
def test_object_arrays_are_refused_naming_the_dtype(backend, name):
    """The standard has no object dtype: one TypeError naming x and its dtype on both
    backends. NumPy's sorted the items by their ``<``; on dask, ``sort`` failed with
    dask's NotImplementedError ("Can not use auto rechunking with object dtype") where
    ``argsort`` answered."""
    x = _on(backend, np.array([3, 1, 2], dtype=object))
    for kwargs in ({}, {"axis": 0}, {"axis": None}, {"descending": True}):
        with pytest.raises(TypeError, match=rf"{name}: argument 'x' got .*dtype=object\); "
                                            r"expected an array of a bool or numeric"):
            getattr(xp, name)(x, **kwargs)
