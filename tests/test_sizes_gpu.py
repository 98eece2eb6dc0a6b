"""Issue 15 item 1 on real CuPy: shapes whose size wraps around 64 bits are refused.

CuPy itself accepts every call below (``cupy.ones(SEVEN, cupy.int8).size == 4``,
``cupy.zeros((2**32, 2**32, 2)).size == 0``); ``test_cupy_itself_wraps`` keeps that
fact checked, so these tests keep meaning something.
"""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

pytestmark = pytest.mark.gpu

SEVEN = (2, 2, 5, 5581, 8681, 49477, 384773)  # product 2**64 + 4


def test_cupy_itself_wraps(cp):
    assert cp.ones(SEVEN, dtype=cp.int8).size == 4
    assert cp.zeros((2**32, 2**32, 2)).size == 0
    assert cp.broadcast_to(cp.ones(1), (2**40, 2**40)).size == 0


_REFUSED = {  # the examples first, then the rest of the class
    "ones": (lambda cp: xp.ones(SEVEN, dtype=xp.int8), "shape"),
    "zeros": (lambda cp: xp.zeros((2**32, 2**32, 2)), "shape"),
    "empty": (lambda cp: xp.empty((2**33, 2**31)), "shape"),
    "full": (lambda cp: xp.full((2**32, 2**32, 2), 1.5), "shape"),
    "broadcast_to": (lambda cp: xp.broadcast_to(xp.ones(1), (2**40, 2**40)), "shape"),
    "as_strided": (lambda cp: xp.as_strided(xp.ones((1, 1)), (1, 2**62), (0, 0)), "shape"),
    "empty bytes": (lambda cp: xp.empty(2**60), "shape"),
    "full_like": (lambda cp: xp.full_like(cp.ones(1), 2.0, shape=(2**32, 2**32)), "shape"),
    "zeros_like": (lambda cp: xp.zeros_like(cp.ones(1), shape=SEVEN), "shape"),
    "eye": (lambda cp: xp.eye(2**32), "n_rows"),
    "arange": (lambda cp: xp.arange(2**62), "start"),
    "linspace": (lambda cp: xp.linspace(0, 1, 2**60), "num"),
    "reshape": (lambda cp: xp.reshape(cp.ones(4), SEVEN), "shape"),
    "reshape -1": (lambda cp: xp.reshape(cp.ones(0), (-1, 2**40, 2**40)), "shape"),
    "broadcast_arrays": (lambda cp: xp.broadcast_arrays(
        cp.broadcast_to(cp.ones((1, 1)), (2**40, 1)), cp.broadcast_to(cp.ones((1, 1)), (1, 2**40))),
        "arrays"),
    "tile": (lambda cp: xp.tile(cp.broadcast_to(cp.ones(1), (2**40,)), (2**40,)), "repetitions"),
    "repeat": (lambda cp: xp.repeat(cp.broadcast_to(cp.ones(1), (2**40,)), 2**40), "repeats"),
    "sliding_window_view": (lambda cp: xp.sliding_window_view(
        cp.broadcast_to(cp.ones(1, cp.int8), (2**40,)), 2**39), "window_shape"),
}


@pytest.mark.parametrize("name", list(_REFUSED))
def test_sizes_past_int64_are_refused_on_cupy(cp, name):
    call, arg = _REFUSED[name]
    func = name.split()[0]
    with xp.use_backend("cupy"):
        with pytest.raises(ValueError, match=rf"^{func}: argument '{arg}' .*overflows int64"):
            call(cp)


def test_valid_calls_still_work_on_cupy(cp):
    with xp.use_backend("cupy"):
        z = xp.zeros((2, 3), dtype=xp.int8)
        assert type(z) is cp.ndarray and z.shape == (2, 3) and z.dtype == np.int8
        assert bool(cp.signbit(xp.full((2,), -0.0)).all())
        b = xp.broadcast_to(xp.ones(1, dtype=xp.int8), (2**62 - 1, 2))  # at the limit
        assert b.size == 2**63 - 2
        np.testing.assert_array_equal(xp.to_numpy(xp.arange(10, 0, -3)), [10, 7, 4, 1])
        np.testing.assert_array_equal(xp.to_numpy(xp.eye(2, 3, k=1)), np.eye(2, 3, k=1))
        np.testing.assert_allclose(xp.to_numpy(xp.linspace(0, 1, 5)), np.linspace(0, 1, 5))
    x = cp.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(xp.to_numpy(xp.reshape(x, (3, -1))), np.arange(6).reshape(3, 2))
    np.testing.assert_array_equal(xp.to_numpy(xp.tile(x, (2, 1))),
                                  np.tile(np.arange(6).reshape(2, 3), (2, 1)))
    np.testing.assert_array_equal(xp.to_numpy(xp.repeat(x, [1, 0, 2], axis=1)),
                                  np.repeat(np.arange(6).reshape(2, 3), [1, 0, 2], axis=1))
    assert xp.empty_like(x, shape=(4, 5)).shape == (4, 5)
    v = xp.as_strided(cp.ones(1, dtype=cp.int8), (2**62 - 1, 2), (0, 0))
    assert v.shape == (2**62 - 1, 2) and v.nbytes == 2**63 - 2
