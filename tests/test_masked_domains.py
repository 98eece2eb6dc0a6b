"""``sqrt``, ``log``, ``log2``, ``log10``, ``asin``, ``acos``, ``acosh`` and ``atanh`` of
complex ``numpy.ma`` masked arrays: the complex result, masked where ``x`` is and at the
poles only, alike on the NumPy and dask backends (``numpy.ma`` applied its real domain
to complex input: ``sqrt(-1+0j)``, a valid ``1j``, came back masked)."""

import inspect
import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

X = np.ma.masked_array([-1 + 0j, -2 + 1j, 2 + 0j, 0j, 1 + 0j, 0.5 - 3j, 4 + 4j],
                       mask=[0, 0, 0, 0, 0, 0, 1])
UFUNC = {"sqrt": "sqrt", "log": "log", "log2": "log2", "log10": "log10",
         "asin": "arcsin", "acos": "arccos", "acosh": "arccosh", "atanh": "arctanh"}
#: the poles each masks besides x's mask (x's indices), and numpy.ma's data there
POLES = {"log": ([3], 1.0), "log2": ([3], 1.0), "log10": ([3], 1.0), "atanh": ([0, 4], 0.0)}


def _on(backend, f, x):
    if backend == "numpy":
        return f(x)
    out = f(da.from_array(x, chunks=3, asarray=False))
    assert isinstance(out._meta, np.ma.MaskedArray)
    return out.compute()


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name", list(UFUNC))
def test_complex_masked_is_masked_where_x_is_and_at_poles_only(name, backend):
    poles, fill = POLES.get(name, ([], None))
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # log(0j) warned nothing: a pole, masked
        got = _on(backend, getattr(xp, name), X)
    with np.errstate(all="ignore"):
        want = getattr(np, UFUNC[name])(X.data)   # NumPy's complex results
    assert isinstance(got, np.ma.MaskedArray) and got.dtype == X.dtype
    mask = [i in poles or i == 6 for i in range(len(X))]
    assert got.mask.tolist() == mask
    off = np.array([i not in poles for i in range(len(X))])
    np.testing.assert_array_equal(got.data[off], want[off])   # under x's mask too
    if poles:
        assert got.data[poles].tolist() == [fill] * len(poles)
    # numpy.ma masked -1+0j (sqrt, log*, acosh), 2+0j (asin, acos), -2+1j (all but
    # acos's interval): no more
    assert not got.mask[0] or name == "atanh"
    assert not got.mask[1] and not got.mask[2]


@pytest.mark.parametrize("name", list(UFUNC))
def test_complex_masked_agrees_on_numpy_and_dask_with_chunks(name):
    f = getattr(xp, name)
    x = np.ma.masked_array(np.linspace(-3, 3, 12) + 1j * np.linspace(2, -2, 12),
                           mask=[i % 5 == 0 for i in range(12)]).astype(np.complex64)
    got = f(x)
    with xp.use_backend("dask", chunks=5):
        on_dask = f(xp.asarray(x)).compute()
    assert got.dtype == on_dask.dtype == np.complex64
    assert got.mask.tolist() == on_dask.mask.tolist() == x.mask.tolist()
    np.testing.assert_array_equal(got.data, on_dask.data)


def test_complex_masked_keeps_the_fill_value_and_hard_mask():
    x = np.ma.masked_array([-1 + 0j, 4 + 0j], mask=[0, 1], fill_value=3 + 3j, hard_mask=True)
    got = xp.sqrt(x)
    assert got.fill_value == 3 + 3j and got.hardmask
    assert got.mask.tolist() == [False, True] and got[0] == 1j


def test_complex_masked_0d_as_numpy_ma():
    got = xp.sqrt(np.ma.masked_array(-4 + 0j))
    assert isinstance(got, np.ma.MaskedArray) and got.shape == () and got == 2j
    assert xp.sqrt(np.ma.masked_array(-4 + 0j, mask=True)) is np.ma.masked
    assert xp.log(np.ma.masked_array(0j)) is np.ma.masked   # a pole


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_real_masked_keeps_numpy_ma_domains(backend):
    x = np.ma.masked_array([-1.0, 0.0, 4.0, 2.0], mask=[0, 0, 0, 1])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = _on(backend, xp.sqrt, x)
        want = np.sqrt(x)
        assert _on(backend, xp.log, x).mask.tolist() == np.log(x).mask.tolist()
    assert got.mask.tolist() == want.mask.tolist() == [True, False, False, True]


def test_plain_arrays_and_signatures_as_numpys():
    z = np.array([-1 + 0j, 4 + 0j])
    np.testing.assert_array_equal(xp.sqrt(z), np.sqrt(z))
    assert type(xp.sqrt(z)) is np.ndarray
    assert inspect.signature(xp.sqrt) == inspect.signature(np.sqrt)
    assert "numpy.ma" in xp.sqrt.__doc__ and "poles" in xp.acos.__doc__
    out = np.empty(2, dtype=complex)
    assert xp.sqrt(z, out=out) is out
    with pytest.raises(TypeError, match="sqrt.* takes 1 positional argument but 2"):
        xp.sqrt(z, out)   # out positionally: refused, as for NumPy's ufunc before
