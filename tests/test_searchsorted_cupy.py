"""``searchsorted`` on CuPy arrays (``xstride._backends.sorter_checks.cupy_searchsorted``),
on the tests' stand-in CuPy: the checks of the NumPy backend run before CuPy's function,
``sorter``'s values included (CuPy's ``take`` wrapped an index out of range). The same
calls on the device: ``tests/test_searchsorted_cupy_gpu.py``."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp


@pytest.fixture
def stand_in(cupy_compat, monkeypatch):
    fake = cupy_compat.cupy
    for name in ("min", "max"):
        monkeypatch.setattr(fake.ndarray, name, lambda self, _n=name: getattr(self.host, _n)(),
                            raising=False)
    return cupy_compat


@pytest.mark.parametrize("sorter, bad", [([0, 5], 5), ([0, 2], 2), ([-1, 0], -1),
                                         ([-3, 5], -3)])
def test_a_sorter_index_out_of_range_is_refused_before_cupy(stand_in, sorter, bad):
    fake = stand_in.cupy
    x1, x2 = fake.ndarray(np.asarray([1.0, 2.0])), fake.ndarray(np.asarray([1.5]))
    for dt in (np.int64, np.int8):
        with pytest.raises(ValueError, match=f"^searchsorted: argument 'sorter' holds the "
                                             f"index {bad}, out of range for x1 of 2"):
            xp.searchsorted(x1, x2, sorter=fake.ndarray(np.asarray(sorter, dt)))
    assert stand_in.calls == []


@pytest.mark.parametrize("kw, exc, match", [
    (dict(sorter=np.asarray([0.0, 1.0])), TypeError, "argument 'sorter'"),
    (dict(sorter=np.asarray([[0, 1]])), ValueError, "argument 'sorter' has shape"),
    (dict(sorter=np.asarray([0, 1, 2])), ValueError, "argument 'sorter' has shape"),
    (dict(side="middle"), ValueError, "argument 'side'"),
    (dict(side=1), TypeError, "argument 'side'"),
])
def test_sorter_and_side_are_checked_before_cupy(stand_in, kw, exc, match):
    fake = stand_in.cupy
    kw = {k: fake.ndarray(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    with pytest.raises(exc, match=f"^searchsorted: {match}"):
        xp.searchsorted(fake.ndarray(np.asarray([1.0, 2.0])), fake.ndarray(np.asarray([1.5])),
                        **kw)
    with pytest.raises(ValueError, match="^searchsorted: argument 'x1' has shape"):
        xp.searchsorted(fake.ndarray(np.zeros((2, 2))), fake.ndarray(np.asarray([1.5])))
    assert stand_in.calls == []


def test_a_good_sorter_reaches_cupys_searchsorted(stand_in):
    fake = stand_in.cupy
    x1, x2 = fake.ndarray(np.asarray([2.0, 1.0])), fake.ndarray(np.asarray([1.5]))
    s = fake.ndarray(np.asarray([1, 0]))
    assert xp.searchsorted(x1, x2, side="right", sorter=s) == "searchsorted"
    assert stand_in.calls == [("searchsorted", (x1, x2), {"side": "right", "sorter": s})]
