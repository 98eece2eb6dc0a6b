"""CPU tests of two argmin/argmax paths on the stand-in CuPy of
``tests/test_argreductions_host.py`` (its host model of each kernel): the warp kernel's
16-byte words with rows of many chunks combined by a block a row, and ``xs_arg_side``,
rows side by side a word a step. The GPU's: ``tests/test_argreductions_gpu.py``."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from xstride._kernels import argreductions as _arg

from tests.conftest import FakeCupyArray
from tests.test_argreductions_host import fake_args  # noqa: F401  (fixture)
from tests.test_reduction_host_path import fake_reductions  # noqa: F401  (its fixture)


def test_rows_of_many_chunks_are_combined_by_blocks(fake_args, monkeypatch):
    """Past COMBINE_WARP_MOST chunks a row, a block of 256 threads combines each row
    (chunks of 64 here, so that 20,000 elements make 313 of them); the warp kernel
    reads the contiguous float32 and float64 rows, also off a 16-byte boundary, by
    words. NumPy's indices, NaN first."""
    cp, log = fake_args
    monkeypatch.setattr(_arg, "WARP_MIN_CHUNK", 64)
    monkeypatch.setattr(_arg, "WARP_WORDS_MIN_BYTES", 64)     # words for chunks of 64
    rng = np.random.default_rng(9)
    for dt, sl in (("float32", slice(None)), ("float32", slice(1, None)),
                   ("float64", slice(3, None)), ("float32", slice(None, None, -1))):
        h = rng.integers(0, 50, 20_003).astype(dt)[sl]
        for f in ("argmin", "argmax"):
            before = len(log)
            np.testing.assert_array_equal(getattr(xp, f)(FakeCupyArray(h)).get(),
                                          getattr(np, f)(h))
            exprs = [e[0] for e in log[before:]]
            assert len(exprs) == 2 and exprs[1].endswith(", 256>"), exprs
            assert exprs[0].startswith("xs_arg_warp") and exprs[0].endswith(
                f", {16 // np.dtype(dt).itemsize}>"), exprs
        h = h.copy()
        h[12345 % h.size] = np.nan
        assert int(xp.argmax(FakeCupyArray(h)).get()) == int(np.argmax(h))


@pytest.mark.parametrize("dtype", ["float32", "bool", "int8", "uint16", "int32", "float16",
                                   "float64"])
def test_rows_side_by_side_take_a_word_a_step(fake_args, dtype):
    """argmin/argmax(x, axis=1) of a (k, n) array used as .T: W = 16 / itemsize rows
    a thread (``xs_arg_side``) for 1-, 2- and 4-byte elements (float16 too) when
    n and the row stride are multiples of W and the first element is on a 16-byte
    boundary (also for the reversed walk, x[:, ::-1]); otherwise the one-thread walk.
    NumPy's indices either way (ties: the first; NaN first)."""
    cp, log = fake_args
    dt = np.dtype(dtype)
    rng = np.random.default_rng(dt.num)
    w = 16 // dt.itemsize
    side_ok = dt.itemsize <= 4
    for k, n, sl, want_side in ((3, 64, np.s_[:, :], side_ok), (5, 48, np.s_[:, :], side_ok),
                                (3, 64, np.s_[::-1, :], side_ok),
                                (3, 50, np.s_[:, :], side_ok and 50 % w == 0),
                                (3, 65, np.s_[:, 1:], False)):
        base = (rng.integers(0, 3, (k, n)) > 0) if dt.kind == "b" else \
            rng.integers(-2, 3, (k, n)).astype(dt)
        if dt.kind == "f":
            base[1, ::7] = np.nan
        h = base[sl].T
        x = FakeCupyArray(h)
        for f in ("argmin", "argmax"):
            before = len(log)
            np.testing.assert_array_equal(getattr(xp, f)(x, axis=1).get(),
                                          getattr(np, f)(h, axis=1), err_msg=f"{f} {k} {n}")
            names = [e[0] for e in log[before:]]
            assert names[0].startswith("xs_arg_side") == want_side, (names, k, n, sl)
