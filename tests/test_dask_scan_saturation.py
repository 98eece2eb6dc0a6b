"""Float scans of dask arrays where the carry across chunks has become inf (a product's:
0): NumPy's values, not NaN. Each chunk scans its own rows side by side; a carried inf
met a chunk's own overflowed partial scan (``inf + -inf``, ``0 * inf``) and gave NaN
where NumPy's sequential scan stays inf (0)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import xstride as xp

da = pytest.importorskip("dask.array")

M64 = np.finfo(np.float64).max
M32 = float(np.finfo(np.float32).max)

CASES = [
    ("cumulative_prod", [1e-200, 1e-200, 1e200, 1e200]),            # 0 carried, inf own
    ("cumulative_prod", [1e200, 1e200, 1e-200, 1e-200]),            # inf carried, 0 own
    ("cumulative_prod", [1e-200, -1e-200, 1e200, 1e200, 2.0]),      # -0 carried
    ("cumulative_prod", [1e-200, 1e-200, 1e200, 1e200, np.inf, 3.0]),   # 0 * inf: NaN
    ("cumulative_prod", [1e200, 1e200, 0.0, 5.0]),                  # inf * 0: NaN
    ("cumulative_prod", [1e-200, 1e-200, -1e200, 1e200, -1e200]),   # signs of zero
    # a chunk's -0.0 after a carried zero: sign(-0.0) is +0.0, and the carry past it
    # lost the zero's sign (a new-user probe)
    ("cumulative_prod", [-0.0, -0.0, -1.0]),
    ("cumulative_prod", [-0.0, 0.0, -0.0, -1.0]),
    ("cumulative_prod", [2.0, -0.0, -0.0, 3.0, -0.0, -1.0]),
    ("cumulative_sum", [M64, M64, -M64, -M64]),                     # inf carried, -inf own
    ("cumulative_sum", [M64, M64, -M64, -np.inf, 1.0]),             # a real -inf: NaN
    ("cumulative_sum", [-M64, -M64, M64, M64, np.nan, 1.0]),
    ("cumulative_sum", [M64, M64, np.inf, -M64, -M64]),
]


def _same(got, want):
    """Equal values, NaN where NumPy's is NaN, and zeros of the same sign."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want)) or np.isnan(want).any()
    zeros = want == 0
    assert np.array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))


@pytest.mark.parametrize("name, values", CASES)
@pytest.mark.parametrize("chunks", [1, 2, 3])
def test_a_carried_inf_or_zero_stays_as_numpy_keeps_it(name, values, chunks):
    x = np.array(values)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # NumPy's overflow warnings
        want = getattr(np, name)(x)
        got = getattr(xp, name)(da.from_array(x, chunks=chunks)).compute()
    _same(got, want)


def test_float32_along_axis_0_with_the_initial_row():
    x = np.array([[M32, 1e-30], [M32, 1e-30], [-M32, 1e30], [-M32, 1e30]], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for name in ("cumulative_sum", "cumulative_prod"):
            want = getattr(np, name)(x, axis=0, include_initial=True)
            got = getattr(xp, name)(da.from_array(x, chunks=(2, 1)), axis=0,
                                    include_initial=True).compute()
            _same(got, want)


def test_masked_chunks_keep_their_mask_past_a_carried_inf():
    x = np.ma.array([M64, M64, -M64, -M64, 1.0], mask=[0, 0, 1, 0, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.ma.cumsum(x)
        got = xp.cumulative_sum(da.from_array(x, chunks=2, asarray=False)).compute()
    np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want))
    np.testing.assert_array_equal(np.ma.getdata(got)[~want.mask], want.compressed())


def test_finite_scans_keep_one_task_of_each_kind_a_chunk():
    """The graph: per chunk along the axis its own scan, a summary and a carry (the
    first chunk: its scan only, the last: no summary), and the results; no more."""
    x = da.from_array(np.arange(12.0), chunks=3)
    res = xp.cumulative_sum(x)
    layer = res.dask.layers[res.name]
    kinds = {}
    for key in layer:
        part = key[0].split("-")[1] if isinstance(key, tuple) else key
        kinds[part] = kinds.get(part, 0) + 1
    assert kinds == {"carried": 4, "own": 3, "summary": 3, "carry": 4}   # + the start
    np.testing.assert_array_equal(res.compute(), np.cumulative_sum(np.arange(12.0)))


@pytest.mark.parametrize("name, values", CASES + [
    ("cumulative_sum", [np.inf, -1e308, -1e308]),   # inf carried, -inf own (a probe's)
    ("cumulative_prod", [1 + 1j, 1e200j, 1e200, 1e-300j, 2.0]),
])
@pytest.mark.parametrize("chunks", [1, 2, 3])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_scans_are_numpy_s_values(name, values, chunks, dtype):
    """A complex scan continues each chunk from the row before it (its parts do not
    carry apart): dask's carry gave ``inf+nanj`` or ``nan+nanj`` (``0j * (inf+0j)``)
    where NumPy's scan stays inf or 0."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # (1e200 as complex64: inf)
        x = np.array(values, dtype=dtype)
        want = getattr(np, name)(x)
        got = getattr(xp, name)(da.from_array(x, chunks=chunks)).compute()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.real, want.real)
    np.testing.assert_array_equal(got.imag, want.imag)
