"""The dask backend's fixes found by the array API conformance suite (docs/conformance.md,
"dask backend"): each test is a case the suite drew, on dask's local threads."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402


@pytest.fixture(autouse=True)
def _numpy_after():
    yield
    xp.set_backend("numpy")


# --------------------------------------------------------------------- creation
@pytest.mark.parametrize("n_rows, n_cols, k", [
    (3, 4, 0), (3, 4, 1), (1, 9, 8), (2, 5, -1), (4, 3, -1), (5, None, 2), (3, 4, 7),
    (0, 3, 0), (3, 0, 0), (0, 0, 0),
])
@pytest.mark.parametrize("chunks", ["auto", 2, (2, 3), "80B"])
def test_eye_of_any_shape_and_chunks_equals_numpy(n_rows, n_cols, k, chunks):
    """dask's eye(3, M=4) under "auto" chunks declares a column block its graph lacks
    (a ValueError when computed) and refuses per-axis chunks; xstride's gives NumPy's
    values, with the chunks zeros() of that shape gets."""
    with xp.use_backend("dask", chunks=chunks):
        got = xp.eye(n_rows, n_cols, k=k)
        shape = (n_rows, n_rows if n_cols is None else n_cols)
        assert got.chunks == xp.zeros(shape).chunks
    want = np.eye(n_rows, n_cols, k=k)
    assert isinstance(got, da.Array) and got.dtype == want.dtype
    np.testing.assert_array_equal(xp.to_numpy(got), want)


def test_eye_takes_dtype_and_its_own_chunks():
    with xp.use_backend("dask"):
        got = xp.eye(5, 7, k=-2, dtype=xp.int8, chunks=3)
        with pytest.raises(ValueError, match="eye: argument 'chunks'"):
            xp.eye(3, chunks=0)
    assert got.dtype == np.int8 and got.chunks == ((3, 2), (3, 3, 1))
    np.testing.assert_array_equal(xp.to_numpy(got), np.eye(5, 7, k=-2, dtype=np.int8))


# --------------------------------------------------------------------- elementwise
@pytest.mark.filterwarnings("ignore:.* encountered in:RuntimeWarning")   # log(-0), acosh(0.5)
@pytest.mark.parametrize("name", ["expm1", "log", "log1p", "tanh", "acosh"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_complex_fixed_functions_take_real_dask_arrays(name, dtype):
    """The complex special-value fixes send real input to the namespace's function by
    the standard's name: dask.array has no ``acosh`` (an AttributeError before)."""
    a = np.array([np.nan, 0.5, 1.0, 2.0, np.inf, -0.0], dtype=dtype)
    with xp.use_backend("dask", chunks=2):
        x = xp.asarray(a)
    got = getattr(xp, name)(x)
    with np.errstate(all="ignore"):
        want = getattr(np, {"acosh": "arccosh"}.get(name, name))(a)
    assert isinstance(got, da.Array) and got.dtype == want.dtype
    np.testing.assert_array_equal(xp.to_numpy(got), want)
    np.testing.assert_array_equal(np.signbit(xp.to_numpy(got)), np.signbit(want))
