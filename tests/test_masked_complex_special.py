"""``expm1``, ``log``, ``log1p``, ``tanh`` and ``acosh`` of complex ``numpy.ma`` masked
arrays: the standard's special values patched on the data, the mask kept, alike on the
NumPy and dask backends (``numpy.ma``'s arrays refuse ``.real = ...``: ``expm1`` failed
on NumPy, all five on masked chunks when computed)."""

import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

INF = float("inf")
Z = np.ma.masked_array([-1 + 0j, -4 + 1j, 4, 2j, 0.5 + 0.5j, complex(-INF, 0.0), 3 - 2j],
                       mask=[0, 0, 0, 1, 0, 0, 1])


@pytest.mark.parametrize("name", ["expm1", "log", "log1p", "tanh", "acosh"])
def test_complex_special_of_masked_agrees_on_numpy_and_dask(name):
    f = getattr(xp, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # log1p(-1), log(-inf)
        got = f(Z)
        on_dask = f(da.from_array(Z, chunks=3, asarray=False)).compute()
        plain = f(Z.data)
    for out in (got, on_dask):
        assert isinstance(out, np.ma.MaskedArray) and out.dtype == Z.dtype
        assert out.mask[3] and out.mask[6]   # Z's mask kept
        kept = ~out.mask
        np.testing.assert_array_equal(out.data[kept], plain[kept])
    assert got.mask.tolist() == on_dask.mask.tolist()


def test_expm1_of_masked_patches_the_standards_special_value():
    got = xp.expm1(Z)
    assert got[5] == -1 + 0j and not got.mask[5]   # expm1(-inf + 0j): -1 + 0j
