"""Host state of the look-back scan's launches (xstride/_kernels/scans.py), with a
stand-in for the few CuPy calls it makes: descriptor buffers per (device, stream) and
an epoch per launch that no two launches on one stream share."""

from __future__ import annotations

import threading
import types

import numpy as np

from xstride._kernels import scans
from xstride._kernels._lru import Bounded
from xstride._kernels._prepared import GATE, Store

from tests.conftest import FakeCupy, FakeMemory, FakeMemoryPointer, race


def test_epochs_are_unique_across_threads_on_one_stream(monkeypatch, fake_cupy):
    monkeypatch.setattr(scans, "_DESCS", Bounded(1024))
    cp = fake_cupy
    seen, lock = [], threading.Lock()

    def work():
        mine = [scans._lookback_state(cp, 0, 100, 4)[2] for _ in range(2000)]
        with lock:
            seen.extend(mine)

    race(work, [()] * 6)
    assert len(seen) == 12000 and len(set(seen)) == 12000
    assert max(seen) == 12000


def test_buffers_per_device_and_stream_and_regrowth(monkeypatch, fake_cupy):
    monkeypatch.setattr(scans, "_DESCS", Bounded(1024))
    cp0, cp7 = fake_cupy, FakeCupy()                     # current streams 0 and 7
    cp7.current.stream = types.SimpleNamespace(ptr=7)
    allocs0, allocs7 = cp0.allocations, cp7.allocations
    t0, g0, e0 = scans._lookback_state(cp0, 0, 100, 4)
    t1, g1, e1 = scans._lookback_state(cp0, 0, 100, 4)
    assert (t1, g1, e1) == (t0, g0, e0 + 1) and g0 - t0 == 16 * 100
    ts, _, es = scans._lookback_state(cp7, 0, 100, 4)     # another stream: own buffer
    assert es == 1 and ts != t0 and len(allocs7) == 1
    td, _, ed = scans._lookback_state(cp0, 1, 100, 4)     # another device: own buffer
    assert ed == 1 and td != t0 and len(allocs0) == 2
    big = scans._lookback_state(cp0, 0, 10_000, 313)      # grows: new zeroed buffer
    assert big[2] == 1 and len(allocs0) == 3 and allocs0[-1].size >= 2 * (10_000 + 313)
    monkeypatch.setattr(scans, "_EPOCH_LIMIT", 3)
    for want in (2, 3, 1):                               # at the limit: fresh buffer
        assert scans._lookback_state(cp0, 0, 10_000, 313)[2] == want
    assert len(allocs0) == 4


def test_repeat_misses_without_a_prepared_call(monkeypatch):
    """Before any prepared call, or for another array type, repeat answers None (the
    checked path then runs)."""
    monkeypatch.setattr(scans, "_PREPARED", Store(1024))
    GATE.close()
    assert scans.repeat("sum", np.zeros(3), None, None, False) is None

    class FakeArray:
        shape, strides, dtype = (3,), (4,), np.dtype(np.float32)
        data = FakeMemoryPointer(0, FakeMemory(0, 12))   # device 0, which the key holds

    monkeypatch.setattr(GATE, "nd", FakeArray)
    monkeypatch.setattr(GATE, "getdev", lambda: 0)
    assert scans.repeat("sum", FakeArray(), None, None, False) is None   # no entry
    assert scans.repeat("sum", FakeArray(), True, None, False) is None   # not keyable
