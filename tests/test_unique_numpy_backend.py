"""The NumPy backend's set functions of floating and complex arrays give one answer
where the standard leaves it open (``_backends/numpy_unique.py``): the zero signed as
``x``'s first, the NaNs last in ``x``'s flattened order with their own bits, the k-th
NaN's inverse the count of the other values plus k, the same in all four functions
and bit for bit the dask backend's (NumPy's quicksort decided them: ``unique_values``
of ``[0.0, -0.0, ...]`` could be -0.0 where ``unique_all``'s values were 0.0)."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

FUNCS = ("unique_values", "unique_counts", "unique_inverse", "unique_all")
NAN = np.float64(np.nan)
NEG_NAN = -NAN


def _case(kind):
    rng = np.random.default_rng(7)
    if kind == "zeros":   # many zeros of both signs, no NaN
        return np.where(rng.random(257) < 0.5, -0.0, 0.0) + rng.integers(0, 2, 257) * 0.0
    if kind == "nans":   # NaNs of both signs and several values
        a = rng.integers(-2, 3, 300).astype(np.float64)
        a[rng.random(300) < 0.3] = NAN
        a[rng.random(300) < 0.2] = NEG_NAN
        a[rng.random(300) < 0.2] = -0.0
        return a.reshape(30, 10)
    if kind == "float32":
        a = rng.integers(-1, 2, 100).astype(np.float32)
        a[::3] = np.float32(-0.0)
        a[::7] = np.float32(np.nan)
        return a
    a = np.array([complex(0.0, -0.0), 1j, complex(np.nan, 1.0), complex(-0.0, 0.0), 0j,
                  complex(1.0, np.nan), complex(np.nan, np.nan), 2.0] * 9)
    return a


def _results(x):
    out = {}
    for func in FUNCS:
        r = getattr(xp, func)(x)
        r = (r,) if func == "unique_values" else tuple(r)
        out[func] = [np.ascontiguousarray(xp.to_numpy(v)) for v in r]
    return out


@pytest.mark.parametrize("kind", ["zeros", "nans", "float32", "complex"])
def test_the_zero_is_x_s_first_and_the_nans_in_x_s_order_in_every_function(kind):
    host = _case(kind)
    flat = host.reshape(-1)
    got = _results(host)
    zero = flat[np.flatnonzero(flat == 0)[:1]]
    nans = flat[np.isnan(flat)]
    for func, arrays in got.items():
        values = arrays[0]
        assert values[values == 0].tobytes() == zero.tobytes(), func
        assert values[len(values) - len(nans):].tobytes() == nans.tobytes(), func
    inverse = got["unique_inverse"][1].reshape(-1)
    k = len(got["unique_values"][0]) - len(nans)
    np.testing.assert_array_equal(inverse[np.isnan(flat)], np.arange(k, k + len(nans)))
    values, indices, inverse_all, counts = got["unique_all"]
    assert flat[indices].tobytes() == values.tobytes()
    np.testing.assert_array_equal(inverse_all, got["unique_inverse"][1])
    assert counts[k:].tolist() == [1] * len(nans)


@pytest.mark.parametrize("kind", ["zeros", "nans", "float32", "complex"])
@pytest.mark.parametrize("chunks", [1, 7, -1])
def test_the_numpy_and_dask_backends_agree_bit_for_bit(kind, chunks):
    pytest.importorskip("dask.array")
    host = _case(kind)
    want = _results(host)
    with xp.use_backend("dask", chunks=chunks):
        got = _results(xp.asarray(host))
    for func in FUNCS:
        for g, w in zip(got[func], want[func]):
            assert g.dtype == w.dtype and g.shape == w.shape, func
            assert g.tobytes() == w.tobytes(), (func, g, w)


def test_integer_and_bool_arrays_are_numpy_s():
    for host in (np.array([3, -1, 3, 0], np.int8), np.array([True, False, True])):
        r = xp.unique_all(host)
        v, i, inv, c = np.unique(host, return_index=True, return_inverse=True,
                                 return_counts=True)
        for g, w in zip(r, (v, i, inv.reshape(host.shape), c)):
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("data, mask", [
    ([NAN, 5.0, 6.0], [0, 1, 1]),        # the masked value sorts after the NaN
    ([NAN, 1.0, 2.0], [0, 1, 0]),
    ([1.0, NAN], [0, 1]),                # a NaN under the mask is the masked value
    ([NAN, 1.0, NAN], [0, 0, 1]),
    ([NAN, NAN, 0.0, -0.0, 3.0], [0, 0, 0, 0, 1]),
    ([-0.0, 0.0, NAN], [1, 0, 0]),       # the masked -0.0 is not x's first zero
    ([True, False, True], [0, 1, 0]),    # a review: the fill value True sorted among the
    ([999999, 1, 999999], [0, 1, 0]),    # Trues (both kept); so did an int equal to it
])
def test_a_masked_array_s_nans_and_masked_value_stay_apart(data, mask):
    """``numpy.ma`` input (docs/dask.md: the NumPy backend takes it): the NaNs are
    found by value, since the masked value can sort after them; each function agrees
    with the others and gives back ``x`` through its inverse."""
    x = np.ma.array(data, mask=mask)
    res = xp.unique_all(x)
    values, inverse = res.values, res.inverse_indices
    back = values[inverse]
    np.testing.assert_array_equal(np.ma.getmaskarray(back), np.ma.getmaskarray(x))
    keep = ~np.ma.getmaskarray(x)
    np.testing.assert_array_equal(np.ma.getdata(back)[keep], np.ma.getdata(x)[keep])
    assert len(set(np.ma.getdata(values)[~np.ma.getmaskarray(values)].tolist())) == \
        int((~np.ma.getmaskarray(values)).sum()) or np.isnan(np.ma.getdata(values)).any()
    assert np.ma.getmaskarray(values).sum() == (1 if np.ma.getmaskarray(x).any() else 0)
    zeros = keep & (x.data == 0)
    if zeros.any():   # the zero signed as x's first unmasked zero
        zero = np.ma.getdata(values)[(np.ma.getdata(values) == 0) & ~np.ma.getmaskarray(values)]
        assert np.signbit(zero[0]) == np.signbit(x.data[np.argmax(zeros)])
    np.testing.assert_array_equal(res.counts, np.bincount(inverse, minlength=len(values)))
    shown = ~np.ma.getmaskarray(values)
    np.testing.assert_array_equal(np.ma.getdata(x)[res.indices][shown],
                                  np.ma.getdata(values)[shown])
    np.testing.assert_array_equal(np.ma.getmaskarray(x)[res.indices], ~shown)
    for name in ("unique_values", "unique_counts", "unique_inverse"):
        got = getattr(xp, name)(x)
        got_values = got if name == "unique_values" else got.values
        np.testing.assert_array_equal(np.ma.getmaskarray(got_values), ~shown)
        np.testing.assert_array_equal(np.ma.getdata(got_values)[shown],
                                      np.ma.getdata(values)[shown])
    assert np.array_equal(xp.unique_inverse(x).inverse_indices, inverse)
