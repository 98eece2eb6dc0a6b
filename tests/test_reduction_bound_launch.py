"""A prepared reduction launches through ``Launch.bind`` (xstride/_kernels/_launch.py):
a function of exactly the launch's slots, where ``Launch.__call__`` zips values to
slots and would drop an extra one silently. With the stand-in CuPy, every kernel kind
of the reductions (split and one-pass walks, dense rows in registers) is called
twice, the second time through a strict bound launch that checks the count."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
import xstride._kernels._launch as _launch
import xstride._kernels.reductions as _red
from tests.conftest import FakeCupyArray
from tests.test_reduce_rows import fake_rows  # noqa: F401  (fixture)
from tests.test_reduction_host_path import fake_reductions  # noqa: F401  (fixture)


@pytest.fixture
def strict_bind(monkeypatch):
    """Launch.bind -> a launch that refuses a value count other than its slots'."""
    bound = []

    def bind(self):
        def go(*values):
            assert len(values) == len(self.slots), (len(values), len(self.slots))
            bound.append(len(values))
            return self(*values)
        return go

    monkeypatch.setattr(_launch.Launch, "bind", bind)
    return bound


_CASES = [
    ((64, 5000), 1, "sum"),      # long rows
    ((5000, 3), 1, "max"),       # short rows
    ((5000, 3), 0, "sum"),       # few columns: a split walk (partials, counters)
    ((3, 5000), 0, "min"),       # rows side by side
    ((200, 300), None, "prod"),  # everything: one output
    ((40, 50), 0, "mean"),
    ((4096, 8), 1, "any"),
]


def _twice(bound):
    rng = np.random.default_rng(7)
    for shape, axis, func in _CASES:
        h = rng.standard_normal(shape)
        h = (h > 0) if func == "any" else h.astype(np.float32)
        x = FakeCupyArray(h)
        first = getattr(xp, func)(x, axis=axis).get()
        before = len(bound)
        again = getattr(xp, func)(x, axis=axis).get()
        assert len(bound) == before + 1, (shape, axis, func)   # the prepared call
        np.testing.assert_array_equal(again, first)


def test_prepared_reductions_pass_one_value_a_slot(fake_reductions, strict_bind):  # noqa: F811
    _twice(strict_bind)
    assert set(strict_bind) == {3, 5}       # one-pass kernels and split walks both seen


def test_prepared_rows_in_registers_pass_one_value_a_slot(fake_rows, strict_bind):  # noqa: F811
    _twice(strict_bind)
    assert any("xs_reduce_rowregs<" in e[0] for e in fake_rows)
    assert set(strict_bind) == {3, 5}
