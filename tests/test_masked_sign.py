"""``sign`` of complex ``numpy.ma`` masked arrays, NumPy backend and dask arrays of
masked chunks: ``x / abs(x)`` of the data, 0 where it is 0, the mask kept (the NumPy
backend's masked ``sign(0)``; dask's dropped the masks and showed the masked
elements' values)."""

import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

X = np.ma.masked_array(np.array([[0, 1 + 1j, 3 - 4j], [2j, 0, -5 + 0j]]),
                       mask=[[0, 1, 0], [1, 0, 0]])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("chunks", [None, 1, 2])
def test_sign_of_complex_masked_keeps_the_mask(dtype, chunks):
    x = X.astype(dtype)
    arg = x if chunks is None else da.from_array(x, chunks=chunks, asarray=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.sign(arg)
        if chunks is not None:
            got = got.compute()
    assert isinstance(got, np.ma.MaskedArray) and got.dtype == dtype
    assert got.mask.tolist() == X.mask.tolist()
    data = x.data
    plain = xp.sign(data[data != 0])   # the plain backend's quotient, bit for bit
    want = np.zeros_like(data)
    want[data != 0] = plain
    assert got.filled(7).tolist() == np.where(X.mask, 7, want).tolist()


def test_sign_of_real_masked_unchanged():
    x = np.ma.masked_array([1.0, -2.0, 0.0], mask=[0, 1, 0])
    got = xp.sign(x)
    assert got.mask.tolist() == [False, True, False]
    assert got.filled(9).tolist() == [1.0, 9.0, 0.0]


def test_sign_into_out_returns_out_with_the_sign():
    """``sign(x, out=o)`` on NumPy: compat's ``sign`` of complex input wrote ``abs(x)``
    into ``o`` and returned the quotient apart; of real input it returned a view of
    ``o``. Now ``o`` holds the sign and is the result, as NumPy's ufunc; a complex sign
    into a float ``out`` is refused as NumPy's "same_kind" casting refuses it."""
    z = np.array([3 + 4j, 0, -2j, 1e-300 + 1e-300j])
    o = np.full(4, 7 + 7j)
    assert xp.sign(z, out=o) is o
    assert o.tobytes() == xp.sign(z).tobytes()
    x = np.array([-2.0, 0.0, 3.0, -0.0])
    o2 = np.empty(4)
    assert xp.sign(x, out=o2) is o2
    assert o2.tobytes() == np.sign(x).tobytes()
    with pytest.raises(TypeError, match=r"^sign: .*same_kind"):
        xp.sign(z, out=np.empty(4))


def test_complex_sign_of_zero_warns_nothing():
    """compat's ``x / abs(x)`` warned "invalid value encountered in divide" for each
    zero; NumPy's ``sign`` warns nothing, and neither does xstride's (the same bits)."""
    z = np.array([0j, 3 + 4j, -0.0 - 0j])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.sign(z)
    with np.errstate(invalid="ignore"):   # the quotient as before: z / abs(z)
        want = z / np.abs(z)
    want[z == 0] = 0
    assert got.tobytes() == want.tobytes()


def test_complex_sign_of_a_0d_array():
    """A 0-D complex array: its quotient was a NumPy scalar, which took no item
    assignment of the zeros ("'numpy.complex128' object does not support item
    assignment"; the array API suite's ``test_sign``)."""
    for v in (0j, -0.0 - 0j, 3 + 4j):
        for dt in (np.complex64, np.complex128):
            got = xp.sign(np.asarray(v, dtype=dt))
            assert got.shape == () and got.dtype == dt
            with np.errstate(invalid="ignore"):
                want = np.asarray(v, dtype=dt) / np.abs(np.asarray(v, dtype=dt))
            assert complex(got) == (0j if v == 0 else complex(want))
