"""GPU tests of ``xs_arg_tile`` (argreductions.cu): argmin/argmax of short rows staged
in shared memory by asynchronous 16-byte copies, a thread a row. Against NumPy on host
copies of the same views, exactly: ties give the first occurrence, NaN the first NaN,
for every element type, rows on and off a 16-byte boundary, reversed rows, rows in
reverse order and rows with gaps, at each ``TUNING["arg_tile"]`` variant, with a block
looping over many tiles (the next tile's copies in flight) and in the prepared call.
The CPU model of the kernel: ``tests/test_argreductions_tile.py``."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from xstride._kernels import _reduce_common as rc
from xstride._kernels import argreductions as ka
from xstride._plans.argreduction import plan_arg_array

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("poisoned_pool")]


def _rows(rng, n, k, dt):
    """(n, k) values of ``dt`` with many ties; floats with 2 % NaN."""
    if dt.kind == "b":
        return rng.random((n, k)) < 0.3
    h = rng.integers(0 if dt.kind == "u" else -2, 3, size=(n, k)).astype(dt)
    if dt.kind == "f":
        h.ravel()[rng.choice(h.size, h.size // 50, replace=False)] = np.nan
    return h


def _views(h, d, n):
    return {"dense": (h[:n], d[:n]), "offset": (h[1:n + 1], d[1:n + 1]),
            "reversed rows": (h[:n, ::-1], d[:n, ::-1]),
            "rows backwards": (h[n - 1::-1], d[n - 1::-1]),
            "gaps": (h[:n, 1:], d[:n, 1:])}


def _run_all(cp, monkeypatch, dtype, k, n):
    """Every view, argmin and argmax, at each variant; the set of (variant, view) that
    took ``xs_arg_tile``, checked against :func:`arg_tile_rows`'s choice."""
    rng = np.random.default_rng(700 + k)
    dt = np.dtype(dtype)
    h = _rows(rng, n + 4, k, dt)
    d = cp.asarray(h)
    real, seen = rc.kernel, []
    monkeypatch.setattr(rc, "kernel", lambda src, expr, partner=None:
                        seen.append(expr) or real(src, expr, partner))
    for knob in rc.VARIANTS["arg_tile"]:
        monkeypatch.setitem(rc.TUNING, "arg_tile", knob)
        for name, (hv, x) in _views(h, d, n).items():
            if hv.shape[1] < 2:
                continue
            for f in ("argmin", "argmax"):
                want = getattr(np, f)(hv, axis=1)
                ka._RECIPES.clear()
                ka._CALLS.clear()
                seen.clear()
                for _ in range(2):     # the checked call, then the prepared one
                    got = cp.asnumpy(getattr(xp, f)(x, axis=1))
                    assert np.array_equal(got, want), (knob, name, f, dtype, k)
                took = any(e.startswith("xs_arg_tile") for e in seen)
                plan = plan_arg_array(x, (1,))
                geo = ka.arg_geometry(plan, rc.sm_count(), dt.itemsize)
                aligned = (x.data.ptr + plan.offset * dt.itemsize) % 16 == 0
                regs = (ka.arg_regs_rows(plan, x, geo, aligned)
                        or ka.arg_side_rows(plan, x, geo, aligned))
                assert took == (bool(ka.arg_tile_rows(plan, x, geo)) and not regs), (
                    knob, name, dtype, k, seen)
                if knob and name == "gaps" and 3 <= k <= 16:
                    assert took, (knob, name, dtype, k, seen)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "uint8", "int16",
                                   "int32", "uint64", "int64", "bool"])
@pytest.mark.parametrize("k", [2, 3, 5, 7, 10, 16, 33, 100])
def test_staged_rows_give_numpys_indices(cp, monkeypatch, dtype, k):
    _run_all(cp, monkeypatch, dtype, k, 20_011)


@pytest.mark.parametrize("dtype", ["float32", "uint8", "float64", "float16"])
@pytest.mark.parametrize("k", [3, 5])
def test_a_block_loops_over_many_tiles(cp, monkeypatch, dtype, k):
    """One SM's worth of blocks: each block takes many tiles, the next one's copies in
    flight while it compares the current one, the last tile partial."""
    monkeypatch.setattr(rc, "sm_count", lambda: 1)
    _run_all(cp, monkeypatch, dtype, k, 200_003)


def test_run_to_run_and_the_last_nan(cp, monkeypatch):
    """A row whose only NaN is its last element gives that index; two runs give the
    same bytes."""
    n, k = 50_000, 5
    h = np.zeros((n, k), np.float32)
    h[:, -1] = np.nan
    h[::3, 2] = 7
    d = cp.asarray(h)
    for f in ("argmin", "argmax"):
        a, b = (cp.asnumpy(getattr(xp, f)(d, axis=1)) for _ in range(2))
        np.testing.assert_array_equal(a, getattr(np, f)(h, axis=1))
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", ["float32", "uint8", "float64", "float16", "bool"])
def test_overlapping_and_gapped_rows(cp, monkeypatch, dtype):
    """Rows 1 to k - 1 elements apart (``as_strided`` windows) and rows with gaps of
    less than a 32-byte sector, forward and backwards, one SM's worth of blocks."""
    monkeypatch.setattr(rc, "sm_count", lambda: 1)
    ka._RECIPES.clear()
    ka._CALLS.clear()
    dt = np.dtype(dtype)
    rng = np.random.default_rng(80 + dt.num)
    n, k = 100_003, 6
    for ks in (1, 4, 7, 6 + 31 // dt.itemsize):
        size = (n - 1) * ks + k + 16
        flat = rng.random(size) < 0.3 if dt.kind == "b" else \
            rng.integers(-2, 3, size).astype(dt)
        if dt.kind == "f":
            flat[::13] = np.nan
        strides = (ks * dt.itemsize, dt.itemsize)
        h = np.lib.stride_tricks.as_strided(flat[3:], shape=(n, k), strides=strides)
        d = cp.lib.stride_tricks.as_strided(cp.asarray(flat)[3:], shape=(n, k),
                                            strides=strides)
        for hv, dv in ((h, d), (h[::-1], d[::-1])):
            for f in ("argmin", "argmax"):
                got = cp.asnumpy(getattr(xp, f)(dv, axis=1))
                np.testing.assert_array_equal(got, getattr(np, f)(hv, axis=1),
                                              err_msg=f"{dtype} {ks} {f}")
