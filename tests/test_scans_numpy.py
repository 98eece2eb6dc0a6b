"""The scans on the NumPy backend: array_api_compat.numpy's, with the CuPy path's
argument errors and its handling of 0-D arrays (scanned as shape (1,))."""

from __future__ import annotations

import re

import array_api_compat.numpy as cnp
import numpy as np
import pytest

import xstride as xp


@pytest.mark.parametrize("f", ["cumulative_sum", "cumulative_prod"])
def test_zero_d_scans_as_one_element(f):
    x = np.asarray(np.float64(2.5))
    got = getattr(xp, f)(x)
    np.testing.assert_array_equal(got, np.array([2.5]))
    got = getattr(xp, f)(x, include_initial=True)      # array_api_compat fails here
    np.testing.assert_array_equal(got, np.array([0.0 if f == "cumulative_sum" else 1.0, 2.5]))
    got = getattr(xp, f)(np.asarray(np.int8(3)), include_initial=True)
    assert got.dtype == np.int64 and got.tolist() == [0 if f == "cumulative_sum" else 1, 3]
    got = getattr(xp, f)(np.float32(1.5), include_initial=True)    # a NumPy scalar
    assert got.dtype == np.float32 and got.tolist() == [0.0 if f == "cumulative_sum" else 1.0, 1.5]


@pytest.mark.parametrize("f", ["cumulative_sum", "cumulative_prod"])
def test_values_and_dtypes_as_array_api_compat(f):
    rng = np.random.default_rng(3)
    for h in (rng.integers(-5, 5, size=(4, 7)).astype(np.int16), rng.random((3, 5)) < 0.5,
              rng.standard_normal((2, 6)).astype(np.float32)):
        for axis in (0, 1, -1):
            for ii in (False, True):
                got = getattr(xp, f)(h, axis=axis, include_initial=ii)
                want = getattr(cnp, f)(h, axis=axis, include_initial=ii)
                assert got.dtype == want.dtype and got.shape == want.shape
                np.testing.assert_array_equal(got, want)
    got = xp.cumulative_sum(np.arange(5, dtype=np.int32), dtype=np.float64)
    assert got.dtype == np.float64 and got.tolist() == [0.0, 1.0, 3.0, 6.0, 10.0]


def test_bad_arguments_raise_as_on_cupy():
    x = np.ones((2, 3))
    with pytest.raises(ValueError, match="must be given"):
        xp.cumulative_sum(x)
    with pytest.raises(TypeError, match="include_initial"):
        xp.cumulative_sum(x, axis=0, include_initial="yes")
    with pytest.raises(TypeError, match="include_initial"):
        xp.cumulative_prod(x, axis=0, include_initial=1)
    with pytest.raises(ValueError, match="out of range"):
        xp.cumulative_prod(x, axis=-3)
    with pytest.raises(TypeError, match="axis"):
        xp.cumulative_sum(x, axis=1.0)
    with pytest.raises(TypeError, match="axis"):
        xp.cumulative_sum(x, axis=True)


def test_numpy_reductions_check_arguments_as_on_cupy():
    """sum/prod/mean/var/std on NumPy arrays: array_api_compat's values, with the CuPy
    path's argument errors (NumPy's own do not name the argument, accept
    correction=True, and let axis=0 through on a 0-D array)."""
    x = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(xp.sum(x, axis=-1), cnp.sum(x, axis=-1))
    np.testing.assert_array_equal(xp.prod(x + 1, axis=(0,), keepdims=True),
                                  cnp.prod(x + 1, axis=(0,), keepdims=True))
    assert xp.var(x, axis=(0, 1), correction=1) == cnp.var(x, axis=(0, 1), correction=1)
    assert xp.std(x, axis=(1,)).tolist() == cnp.std(x, axis=1).tolist()
    assert xp.mean(x, axis=()).shape == (3, 4)
    assert xp.sum(np.array(2.5), axis=()) == 2.5
    for f in ("sum", "prod", "mean", "var", "std"):
        with pytest.raises(TypeError, match=f"{f}: argument 'axis'"):
            getattr(xp, f)(x, axis=True)
        with pytest.raises(TypeError, match="axis"):
            getattr(xp, f)(x, axis=1.0)
        with pytest.raises(ValueError, match="duplicate"):
            getattr(xp, f)(x, axis=(1, -1))
        with pytest.raises(ValueError, match="out of range"):
            getattr(xp, f)(x, axis=2)
        with pytest.raises(ValueError, match="out of range"):
            getattr(xp, f)(np.array(2.5), axis=0)
    for f in ("var", "std"):
        for c in (True, 1 + 0j, np.complex128(1), "1", None):
            with pytest.raises(TypeError, match=f"{f}: argument 'correction'"):
                getattr(xp, f)(x, correction=c)
        assert getattr(xp, f)(x, correction=np.int64(1)) == getattr(cnp, f)(x, correction=1)


_ALL = ("sum", "prod", "min", "max", "mean", "var", "std", "all", "any", "argmin",
        "argmax", "cumulative_sum", "cumulative_prod")


@pytest.mark.parametrize("f", _ALL)
def test_a_list_axis_is_refused_by_every_reduction_and_scan(f):
    """NumPy 2 refuses ``axis=[0]`` in every one of these (the standard types axis as
    an int or a tuple); xstride took a list in sum, prod, min, max, mean, var, std, all
    and any but refused it in argmin, argmax and the scans."""
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(TypeError):
        getattr(np, f)(x, axis=[0])
    with pytest.raises(TypeError, match=f"{f}: argument 'axis' got list"):
        getattr(xp, f)(x, axis=[0])
    if f not in ("argmin", "argmax", "cumulative_sum", "cumulative_prod"):
        np.testing.assert_array_equal(getattr(xp, f)(x, axis=(0,)), getattr(cnp, f)(x, axis=0))


@pytest.mark.parametrize("f", _ALL)
def test_a_list_axis_is_refused_on_the_cupy_path(fake_cupy, f):
    from .conftest import FakeCupyArray

    x = FakeCupyArray(np.arange(6.0).reshape(2, 3))
    with pytest.raises(TypeError, match=f"{f}: argument 'axis' got list"):
        getattr(xp, f)(x, axis=[0])


@pytest.mark.parametrize("f", ["cumulative_sum", "cumulative_prod"])
def test_an_axis_out_of_range_of_a_0d_input_names_the_0d_input(f):
    """A 0-D array is scanned as shape (1,), as NumPy's scan does (axis 0, -1 and None
    go; the standard asks for one or more dimensions); an axis past that was reported
    as "out of range for an array of 1 dimension", which the input is not."""
    for x in (np.array(2.0), np.float64(2.0)):
        for axis in (1, -2):
            with pytest.raises(ValueError, match=rf"{f}: argument 'axis' {axis} is out of "
                                                 r"range for a 0-D array \(scanned as one "
                                                 r"of shape \(1,\)"):
                getattr(xp, f)(x, axis=axis)
        assert getattr(xp, f)(x, axis=-1).tolist() == [2.0]
    with pytest.raises(ValueError, match="out of range for an array of 1 dimension$"):
        getattr(xp, f)(np.ones(3), axis=1)


@pytest.mark.parametrize("f", ["cumulative_sum", "cumulative_prod"])
def test_an_axis_out_of_range_of_a_0d_input_on_the_cupy_path(fake_cupy, f):
    from .conftest import FakeCupyArray

    with pytest.raises(ValueError, match=r"out of range for a 0-D array"):
        getattr(xp, f)(FakeCupyArray(np.array(2.0)), axis=1)


@pytest.mark.parametrize("f", ["cumulative_sum", "cumulative_prod"])
def test_include_initial_keeps_the_mask_of_a_masked_array(f):
    """A numpy.ma array scanned with include_initial=True keeps its mask, the identity
    first and not masked (array_api_compat's concatenate with a plain array of the
    identity dropped the whole mask: the running values under masked elements showed),
    as without include_initial and as on the dask backend."""
    m = np.ma.masked_array([[1.0, 2, 3], [4, 5, 6]], mask=[[0, 1, 0], [1, 0, 0]])
    ma_scan = np.ma.cumsum if f == "cumulative_sum" else np.ma.cumprod
    first = 0.0 if f == "cumulative_sum" else 1.0
    for axis in (0, 1):
        got = getattr(xp, f)(m, axis=axis, include_initial=True)
        want = ma_scan(m, axis=axis)
        assert np.ma.isMaskedArray(got)
        rest = (slice(None),) * axis + (slice(1, None),)
        head = (slice(None),) * axis + (slice(0, 1),)
        np.testing.assert_array_equal(np.ma.getmaskarray(got[rest]), m.mask)
        np.testing.assert_array_equal(np.ma.getdata(got[rest]), np.ma.getdata(want))
        assert not np.ma.getmaskarray(got[head]).any() and (got[head] == first).all()
    got = getattr(xp, f)(np.ma.masked_array(np.int8(3), mask=True), include_initial=True)
    assert got.dtype == np.int64 and got.mask.tolist() == [False, True]


@pytest.mark.parametrize("f, dtype, kwargs", [
    ("sum", np.float32, {"dtype": np.bool_}), ("prod", np.float32, {"where": True}),
    ("mean", np.float32, {"dtype": np.int32}), ("var", np.float16, {}),
    ("std", np.complex64, {})])
@pytest.mark.parametrize("axis, error, match", [
    (True, TypeError, "got bool True"), (1.0, TypeError, "got float 1.0"),
    ([0], TypeError, "got list"), ((0, -2), ValueError, "names axis 0 twice"),
    (5, ValueError, "5 is out of range")])
def test_the_cupy_library_path_checks_axis_first(cupy_compat, f, dtype, kwargs, axis,
                                                 error, match):
    """Where a CuPy call goes to CuPy's own function (a bool dtype= of sum/prod,
    NumPy-only keywords, an integer dtype= of mean, float16 or complex var/std), its
    axis is checked as on the kernels' path and on NumPy: a bool, a float, a list,
    duplicates and an axis out of range were handed to CuPy unchecked, for CuPy's
    own rules to take or refuse)."""
    from .conftest import FakeCupyArray

    x = FakeCupyArray(np.ones((2, 3), dtype))
    with pytest.raises(error, match=rf"{f}: argument 'axis' .*{re.escape(match)}"):
        getattr(xp, f)(x, axis=axis, **kwargs)
    assert cupy_compat.calls == []
    getattr(xp, f)(x, axis=-1, **kwargs)       # a good axis still reaches CuPy's function
    assert [c[0] for c in cupy_compat.calls] == [f]
