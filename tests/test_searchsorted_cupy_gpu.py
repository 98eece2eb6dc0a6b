"""``searchsorted`` on CuPy arrays with a ``sorter``: indices out of range are refused
(CuPy's ``take`` wrapped them into ``x1``), good ones give NumPy's answer."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("sorter", [[0, 5, 1], [-1, 0, 1], [0, 1, 3]])
def test_a_sorter_index_out_of_range_is_refused(cp, sorter):
    x1, x2 = cp.asarray([3.0, 1.0, 2.0]), cp.asarray([1.5, 2.5])
    with pytest.raises(ValueError, match="^searchsorted: argument 'sorter' holds the index"):
        xp.searchsorted(x1, x2, sorter=cp.asarray(sorter))


@pytest.mark.parametrize("side", ["left", "right"])
def test_a_good_sorter_gives_numpys_answer(cp, side):
    rng = np.random.default_rng(3)
    a = rng.integers(0, 20, 200).astype(np.float32)
    s = np.argsort(a, kind="stable")
    v = rng.integers(-2, 22, 50).astype(np.float32)
    want = np.searchsorted(a, v, side=side, sorter=s)
    for dt in (np.int64, np.int32):
        got = xp.searchsorted(cp.asarray(a), cp.asarray(v), side=side,
                              sorter=cp.asarray(s.astype(dt)))
        np.testing.assert_array_equal(cp.asnumpy(got), want)
