"""The prepared Philox launch on the CPU (the emulated kernels and fixtures of
tests/test_philox_morton_launch.py): a repeated call hits the prepared call and launches
as the checked path, a seed or stream out of range raises the checked error, and any
other dtype, shape, strides, kind, device or stream misses (split from
tests/test_philox_morton_launch.py, past 600 lines)."""

from __future__ import annotations

import types

import numpy as np
import pytest

from xstride._host import philox as H
from xstride._kernels import philox as K
from xstride._kernels._prepared import GATE

from tests.test_philox_morton_launch import U64, bits, dev, emu, libs, rand_u64  # noqa: F401 (fixtures)


def _launch_of(emu, outs):
    """The last launch, output addresses replaced by names (they differ per call)."""
    name, grid, block, stream, values = emu.calls[-1]
    outs = outs if isinstance(outs, tuple) else (outs,)
    ptrs = {o.data.ptr: f"out{i}" for i, o in reversed(list(enumerate(outs)))}
    return name, grid, block, stream, [ptrs.get(v, v) for v in values]


def _counters(rs):
    """Counter layouts: dense (fast kernel), 2-D strided (grid), 3-D strided (general)."""
    c = rand_u64(rs, 6, 10)
    return [("dense", c, "_f1"), ("grid", c[::-1, 1::2], "_g2"),
            ("general", rand_u64(rs, 6, 7, 3)[:, ::3, ::2], "_k")]


@pytest.mark.parametrize("kind", ["uniform", "uniform2", "normal", "normal2"])
def test_a_repeated_call_hits_and_launches_as_the_checked_path(emu, kind, monkeypatch):
    """xstride.rng's first call takes the checked path and prepares it; an equal second
    call (other seed, stream, counter values of the same layout) goes through
    ``K.repeat``: no checks, no planning, the same launch bytes as the checked path."""
    from xstride import rng
    from xstride.rng import _args
    rs = np.random.default_rng(11)
    func = getattr(rng, f"philox_{kind}")
    for label, c, family in _counters(rs):
        func(2**64 - 1, 7, dev(c))                      # checked, prepares
        assert emu.calls[-1][0] == f"xstride_philox_{kind}{family}", label
    assert len(K._CALLS) == 3 and GATE.nd is emu.cupy.ndarray
    checked, devs = {}, {}
    for label, c, family in _counters(np.random.default_rng(12)):
        d = devs[label] = dev(c)
        checked[label] = _launch_of(emu, K._real(kind, 5, 2**63 + 9, d, d.shape))
    # no argument checks, no plan, no kernel lookup, no new launch on a hit
    calls = {"n": 0}

    def boom(*a, **k):
        calls["n"] += 1
        raise AssertionError("planned on a repeat")
    for mod, name in ((_args, "_prepare"), (K, "_prepare_real"), (K, "plan"), (K, "grid2"),
                      (K, "kernel")):
        monkeypatch.setattr(mod, name, boom)
    launches = len(K._LAUNCHES)
    for label, c, family in _counters(np.random.default_rng(12)):
        got = func(5, 2**63 + 9, devs[label])           # the same counter array
        assert _launch_of(emu, got) == checked[label], label
        want = getattr(H, kind)(5, 2**63 + 9, c, c.shape)
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            assert g.shape == c.shape
            np.testing.assert_array_equal(bits(g), bits(w), err_msg=f"{label} {emu.mode}")
    assert calls["n"] == 0 and len(K._LAUNCHES) == launches and len(K._CALLS) == 3


def test_a_repeat_with_seed_or_stream_out_of_range_raises_the_checked_error(emu):
    from xstride import rng
    c = dev(rand_u64(np.random.default_rng(3), 8))
    rng.philox_uniform(1, 2, c)
    assert len(K._CALLS) == 1 and K.repeat("uniform", 1, 2, c) is not None
    for seed, stream in ((-1, 2), (2**64, 2), (1, -5), (1, 2**64), (True, 2), (1, False)):
        assert K.repeat("uniform", seed, stream, c) is None
        with pytest.raises((ValueError, TypeError)) as got:
            rng.philox_uniform(seed, stream, c)
        with pytest.raises(type(got.value)) as want:    # the checked path's error
            rng.philox_uniform(seed, stream, rand_u64(np.random.default_rng(3), 8))
        assert str(got.value) == str(want.value)
    assert len(K._CALLS) == 1


def test_other_dtype_shape_strides_kind_device_or_stream_miss(emu):
    from xstride import rng
    rs = np.random.default_rng(5)
    c = rand_u64(rs, 4, 6)
    rng.philox_normal(1, 2, dev(c))
    assert K.repeat("normal", 3, 4, dev(c)) is not None
    wide = rand_u64(rs, 4, 12)
    for counter in (dev(c.astype(np.uint32)), dev(c[:, :5]), dev(wide[:, ::2]),
                    dev(np.asfortranarray(c)), dev(c.reshape(6, 4)), c):
        assert K.repeat("normal", 3, 4, counter) is None
    assert K.repeat("uniform", 3, 4, dev(c)) is None
    assert K.repeat("normal", np.uint64(3), 4, dev(c)) is None
    emu.cupy.current.stream = types.SimpleNamespace(ptr=6)
    assert K.repeat("normal", 3, 4, dev(c)) is None
    emu.cupy.current.stream = types.SimpleNamespace(ptr=5)
    emu.cupy.current.device = 1
    assert K.repeat("normal", 3, 4, dev(c)) is None
    emu.cupy.current.device = 0
    # a miss takes the checked path: right values, and (uint64 layouts) a new prepared call
    c32 = c.astype(np.uint32)
    got = rng.philox_normal(3, 4, dev(c32))
    np.testing.assert_array_equal(bits(got), bits(H.normal(3, 4, c32.astype(U64), (4, 6))))
    got = rng.philox_normal(3, 4, dev(wide[:, ::2]))
    np.testing.assert_array_equal(bits(got), bits(H.normal(3, 4, wide[:, ::2], (4, 6))))
    assert K.repeat("normal", 3, 4, dev(wide[:, ::2])) is not None
    assert K.repeat("normal", 3, 4, dev(c)) is not None     # uint32 -> uint64 copy: dense
