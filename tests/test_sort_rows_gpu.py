"""``sort`` and ``argsort`` of short rows on the CuPy backend (xstride/_kernels/sort_rows.cu
through xstride/_backends/cupy_sort_rows.py): NumPy's order (stable; NaN last ascending,
first descending; equal elements, -0.0 and 0.0 among them, in their order) for every
dtype of the kernel, rows of 1 to 16 elements along any axis, views, and the same errors
as the NumPy backend; longer rows stay on CuPy's sort."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("on_cupy")]

cp = pytest.importorskip("cupy")

from xstride._kernels.sort_rows import DTYPES as KERNEL_DTYPES  # noqa: E402

DTYPES = sorted(KERNEL_DTYPES)   # every dtype the rows kernel takes


def _values(rs, shape, dtype):
    """Few distinct values (many ties); floats with NaN, -0.0 and 0.0."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rs.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.max, 0, 1, 2, info.max - 1], dtype=dtype)
        return pool[rs.integers(0, pool.size, shape)]
    pool = np.array([np.nan, -0.0, 0.0, 1.5, -2.0, np.inf, -np.inf, 3.0], dtype=dtype)
    return pool[rs.integers(0, pool.size, shape)]


def _want(x, axis, descending, arg):
    """NumPy's stable order, the NumPy backend's descending (flip, sort, flip); C-ordered
    (its bytes are compared)."""
    if descending:
        f = np.flip(x, axis=axis)
        if arg:
            got = x.shape[axis] - 1 - np.flip(np.argsort(f, axis=axis, kind="stable"), axis=axis)
        else:
            got = np.flip(np.sort(f, axis=axis, kind="stable"), axis=axis)
    else:
        got = (np.argsort if arg else np.sort)(x, axis=axis, kind="stable")
    return np.ascontiguousarray(got)


def _bytes(a):
    """The bytes of an array's elements in C order (-0.0 and NaN payloads told apart)."""
    return np.ascontiguousarray(a).view(np.uint8)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 7, 8, 15, 16])
def test_rows_of_every_length_and_dtype(dtype, k):
    rs = np.random.default_rng(k)
    x = _values(rs, (20_011, k), dtype)
    d = cp.asarray(x)
    for descending in (False, True):
        got = xp.sort(d, axis=-1, descending=descending)
        assert got.dtype == x.dtype and got.shape == x.shape
        want = _want(x, -1, descending, False)
        # bit for bit: -0.0 and 0.0, NaN in their places
        np.testing.assert_array_equal(_bytes(cp.asnumpy(got)), _bytes(want))
        idx = xp.argsort(d, axis=-1, descending=descending)
        assert idx.dtype == np.int64
        np.testing.assert_array_equal(cp.asnumpy(idx), _want(x, -1, descending, True))


@pytest.mark.parametrize("shape, axis", [((3, 50_001), 0), ((4, 5, 6), 1), ((4, 5, 6), 0),
                                         ((7,), 0), ((7,), None), ((2, 3), None),
                                         ((0, 3), 1), ((5, 0), 0)])
def test_other_axes_views_and_flattened(shape, axis):
    rs = np.random.default_rng(len(shape))
    x = _values(rs, shape, "float64")
    for d, h in ((cp.asarray(x), x), (cp.asarray(x)[..., ::-1], x[..., ::-1])):
        for descending in (False, True):
            if axis is None:
                hh, ax = h.reshape(-1), -1
            else:
                hh, ax = h, axis
            got = xp.sort(d, axis=axis, descending=descending)
            assert got.flags.c_contiguous   # as NumPy's and CuPy's sorts
            np.testing.assert_array_equal(_bytes(cp.asnumpy(got)),
                                          _bytes(_want(hh, ax, descending, False)))
            got = xp.argsort(d, axis=axis, descending=descending)
            np.testing.assert_array_equal(cp.asnumpy(got), _want(hh, ax, descending, True))


def test_long_rows_and_other_dtypes_stay_on_cupys_sort():
    rs = np.random.default_rng(3)
    x = rs.standard_normal((100, 17))
    np.testing.assert_array_equal(cp.asnumpy(xp.sort(cp.asarray(x))), np.sort(x))
    h = rs.standard_normal((50, 3)).astype(np.float16)
    np.testing.assert_array_equal(cp.asnumpy(xp.sort(cp.asarray(h))), np.sort(h))


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "int32"])
@pytest.mark.parametrize("shape, axis", [((300, 17), -1), ((40, 1000), 1), ((100, 5), 0),
                                         ((1000,), None)])
def test_long_rows_descending_keep_equal_elements_in_order(dtype, shape, axis):
    """Rows longer than 16 elements (and float16, which the rows kernel does not take)
    sort on CuPy's sort; descending, equal elements keep their order as on the NumPy
    backend (flip, stable sort, flip: -0.0 and 0.0 bit for bit), C-ordered; argsort's
    order is compat's, the same."""
    rs = np.random.default_rng(sum(shape))
    x = _values(rs, shape, dtype)
    d = cp.asarray(x)
    hh, ax = (x.reshape(-1), -1) if axis is None else (x, axis)
    got = xp.sort(d, axis=axis, descending=True)
    assert got.flags.c_contiguous and got.dtype == x.dtype
    np.testing.assert_array_equal(_bytes(cp.asnumpy(got)), _bytes(_want(hh, ax, True, False)))
    with xp.use_backend("numpy"):
        np.testing.assert_array_equal(_bytes(cp.asnumpy(got)),
                                      _bytes(xp.sort(x, axis=axis, descending=True)))
    idx = xp.argsort(d, axis=axis, descending=True)
    np.testing.assert_array_equal(cp.asnumpy(idx), _want(hh, ax, True, True))


def test_a_zero_d_integer_array_axis():
    x = cp.asarray([[3, 1, 2], [0, 5, 4]])
    got = xp.sort(x, axis=np.array(0))
    assert cp.asnumpy(got).tolist() == [[0, 1, 2], [3, 5, 4]]


@pytest.mark.parametrize("func", ["sort", "argsort"])
@pytest.mark.parametrize("kwargs, cls, match", [
    ({"axis": 2}, np.exceptions.AxisError, r"argument 'axis' is 2, out of range"),
    ({"axis": 1.0}, TypeError, r"argument 'axis' got float"),
    ({"descending": 1}, TypeError, r"argument 'descending'"),
    ({"stable": "yes"}, TypeError, r"argument 'stable'"),
    ({"kind": "quicksort"}, TypeError, r"argument 'kind' got str 'quicksort'; expected no "
                                       r"kind \(NumPy's keyword\): the standard's stable="),
])
def test_bad_arguments_as_on_numpy(func, kwargs, cls, match):
    x = cp.ones((4, 3))
    with pytest.raises(cls, match=rf"^{func}: {match}"):
        getattr(xp, func)(x, **kwargs)
    with xp.use_backend("numpy"), pytest.raises(cls, match=rf"^{func}: {match}"):
        getattr(xp, func)(np.ones((4, 3)), **kwargs)


def test_a_zero_d_array_is_refused():
    with pytest.raises(Exception, match=r"^sort: argument 'axis'"):
        xp.sort(cp.asarray(1.0))
