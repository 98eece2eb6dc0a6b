"""``isin``'s ``invert``: a bool, by keyword (``xstride/_backends/isin_checks.py``), the
same on the NumPy and dask backends."""

import numpy as np
import pytest

import xstride as xp
from tests._two_backends import on_backend


def _on(backend, a):
    return on_backend(backend, np.asarray(a), chunks=2)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("invert", ["no", None, 0, 1.0])
def test_isin_refuses_an_invert_of_no_bool(backend, invert):
    """Both libraries took any ``invert`` by its truth: ``invert="no"`` inverted."""
    x1, x2 = _on(backend, [1, 2, 3]), _on(backend, [2])
    with pytest.raises(TypeError, match=r"^isin: argument 'invert' got .*; expected a bool$"):
        xp.isin(x1, x2, invert=invert)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_isin_takes_invert_by_keyword_only(backend):
    """A third positional argument was the libraries' ``assume_unique``: ``isin(x1, x2,
    True)``, meant as ``invert``, gave the answer not inverted."""
    x1, x2 = _on(backend, [1, 2, 1]), _on(backend, [1])
    with pytest.raises(TypeError, match=r"^isin: isin\(\) takes 2 positional arguments but 3 "
                                        "were given"):
        xp.isin(x1, x2, True)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("invert", [False, True, np.False_, np.True_])
def test_isin_with_a_bool_invert(backend, invert):
    x1, x2 = _on(backend, [1, 2, 3, 2]), _on(backend, [2, 5])
    got = xp.to_numpy(xp.isin(x1, x2, invert=invert))
    assert got.dtype == np.bool_
    assert got.tolist() == np.isin([1, 2, 3, 2], [2, 5], invert=bool(invert)).tolist()
    assert xp.to_numpy(xp.isin(x1, x2)).tolist() == [False, True, False, True]
