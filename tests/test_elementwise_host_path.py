"""The CuPy launch path of the elementwise engine on the CPU, with a stand-in CuPy.

The call cache must launch exactly what the uncached path launches.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

from tests.conftest import FakeCupy, FakeCupyArray, installed_fake_cupy


class _Namespace:
    """The namespace's CuPy-backend functions (the public rules, then the engine), with
    the call forms of the engine's tests: ``ufunc_call(name, args, out=)``."""

    @staticmethod
    def ufunc_call(name, args, out=None):
        from xstride._backends.dispatch import implementation

        return implementation("cupy", name)(*args, out=out)

    def __getattr__(self, name):
        if name == "copy_into":
            import xstride

            return xstride.copy_into
        from xstride._backends.dispatch import implementation

        return implementation("cupy", name)


# ------------------------------------------------------------------ host path, fake CuPy
# The shared stand-in CuPy (tests/conftest.py): arrays over host memory, ``empty``
# 512-byte aligned as CuPy's pool, and a RawModule whose kernels record their launches.
# It checks that the call cache (``_elementwise_exec.repeat``, its prepared calls) launches exactly
# what the uncached path launches, and it times the host path (``python -m
# tests.test_elementwise_host_path``).


@contextlib.contextmanager
def _engine_on(fake):
    """The elementwise executor compiling (``_compile.function``) through ``fake``'s recording RawModule, with
    empty caches; restored afterwards."""
    from xstride._kernels import _elementwise_exec as ex

    saved = ex.function, ex.CACHE
    ex.function = lambda name, *, code=None, options=(), **_: fake.RawModule(
        code=code, options=options).get_function(name)
    ex.clear_caches()
    try:
        yield fake
    finally:
        ex.function, ex.CACHE = saved
        ex.clear_caches()


@pytest.fixture
def fake_cp(fake_cupy):
    with _engine_on(fake_cupy):
        yield fake_cupy


def _norm_arg(v, inputs, out=None, fake=None):
    """A comparable description of one kernel argument. The engine launches through the
    one launcher, so an array arrives as its device address (``numpy.uint64`` on the
    stand-in's ``RawKernel`` path): it is matched to the input, the output or the
    stand-in's allocation (a copy of an overlapping input) at that address."""
    if isinstance(v, np.uint64):
        ptr = int(v)
        if out is not None and out.data.ptr == ptr:
            return ("out",)
        for i, x in enumerate(inputs):
            if x.data.ptr == ptr:
                return ("input", i)
        for a in reversed(fake.allocations if fake is not None else []):
            if a.data.ptr == ptr:
                v = a
                break
        else:
            raise AssertionError(f"a device address {ptr:#x} of no known array")
    if isinstance(v, FakeCupyArray):
        for i, x in enumerate(inputs):
            if v is x:
                return ("input", i)
        # a fresh output or a copy of an overlapping input: layout, alignment, values
        return ("array", v.shape, v.strides, v.dtype.str, v.data.ptr % 16,
                np.ascontiguousarray(v.host).tobytes())
    if isinstance(v, np.ndarray):  # the packed parameter struct
        return ("struct", v.dtype.str, v.tobytes())
    if isinstance(v, np.generic):
        return ("scalar", v.dtype.str, v.tobytes())
    raise AssertionError(f"unexpected kernel argument {type(v).__name__}")


def _norm_launch(rec, inputs, out, fake=None):
    fn, grid, block, args = rec
    norm = []
    for v in args:
        if v is out:
            norm.append(("out",))
        else:
            norm.append(_norm_arg(v, inputs, out, fake))
    return (fn.name, fn.source, tuple(grid), tuple(block), tuple(norm))


def _one_call(fake, call, inputs):
    """Run ``call()``; return (normalized launches, path, result layout)."""
    from xstride._kernels import _elementwise_exec as ex

    fake.launches.clear()
    ex.last_kind = None
    res = call()
    launches = [_norm_launch(r, inputs, res, fake) for r in fake.launches]
    fake.launches.clear()
    return launches, ex.last_kind, (res.shape, res.strides, res.dtype.str)


def _buf(shape, dtype=np.float32, shift=0):
    """A fake array of fresh random values, ``shift`` elements past a 512-byte boundary."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    base = FakeCupyArray((n + shift,), dt)
    base.host[...] = np.random.default_rng(n + shift).standard_normal(n + shift).astype(dt)
    return base[shift:].reshape(shape)


def _cases(cp):
    """(label, function of the fake module, inputs) of many layouts and functions."""
    ew = _Namespace()

    i8 = np.int8
    a = _buf((8,))
    x = _buf((16, 16))
    y = _buf((16, 16))
    cube = _buf((9, 10, 11))
    cube_t = _buf((11, 9, 10)).transpose((1, 2, 0))
    row = _buf((16,))
    wide = _buf((16, 32))
    neg = _buf((24,))[::-1]
    zero_d = _buf(())
    empty = _buf((0, 3))
    mis = _buf((64,), shift=1)
    ints = _buf((16, 16), i8)
    flags = FakeCupyArray(_buf((16, 16)).host > 0)
    big = _buf((40, 3, 50))
    big_t = _buf((50, 3, 40)).transpose((2, 1, 0))
    out_x = _buf((16, 16))
    out_t = _buf((16, 16)).T
    scratch = _buf((40,))
    def add(*v, **k):
        return lambda: ew.ufunc_call("add", v, **k)

    yt, xt, ot = y.T, x.T, out_x.T
    wide2, neg2, neg1 = wide[:, ::2], neg[::2], neg[1::2]
    mis1, mis2 = mis[:60], mis[4:]
    s1, s2 = scratch[:39], scratch[1:]
    yield "contiguous", add(a, a), [a]
    yield "2-D", add(x, y), [x, y]
    yield "transposed (tiled)", add(x, yt), [x, yt]
    yield "3-D permuted (tiled)", add(cube, cube_t), [cube, cube_t]
    yield "tiled, two rest axes", add(big, big_t), [big, big_t]
    yield "broadcast row", add(x, row), [x, row]
    yield "broadcast 0-d", add(x, zero_d), [x, zero_d]
    yield "sliced", add(wide2, x), [wide2, x]
    yield "negative strides", add(neg2, neg1), [neg2, neg1]
    yield "0-d", add(zero_d, zero_d), [zero_d]
    yield "empty", add(empty, empty), [empty]
    yield "misaligned", add(mis1, mis2), [mis1, mis2]
    yield "python float", add(x, 1.5), [x]
    yield "python int, int8", add(ints, 3), [ints]
    yield "mixed dtypes", add(ints, xt), [ints, xt]
    yield "unary", lambda: ew.ufunc_call("negative", (cube_t,)), [cube_t]
    yield "comparison", lambda: ew.ufunc_call("less", (x, yt)), [x, yt]
    yield "out= given", add(x, y, out=out_x), [x, y, out_x]
    yield "out= transposed", add(x, y, out=out_t), [x, y, out_t]
    yield "in place, same view", add(out_x, yt, out=out_x), [out_x, yt]
    yield "in place, shifted (copy)", add(s1, s2, out=s2), [s1, s2]
    yield "in place, transposed (copy)", add(out_x, ot, out=out_x), [out_x, ot]
    yield "where", lambda: ew.where(flags, x, yt), [flags, x, yt]
    yield "where scalars", lambda: ew.where(flags, 2, x), [flags, x]
    yield "where out=", lambda: ew.where(flags, x, 0.5, out=out_t), [flags, x, out_t]
    yield "astype", lambda: ew.astype(cube_t, np.float64), [cube_t]
    yield "astype int8", lambda: ew.astype(xt, i8), [xt]
    yield "copy_into", lambda: ew.copy_into(out_t, y), [out_t, y]
    yield "copy_into scalar", lambda: ew.copy_into(out_x, 7), [out_x]
    yield "copy_into broadcast", lambda: ew.copy_into(out_x, row), [out_x, row]


@pytest.mark.parametrize("label", [c[0] for c in _cases(FakeCupy())])
def test_call_cache_launches_what_the_uncached_path_launches(fake_cp, label, monkeypatch):
    """Same kernel, grid, block and arguments with the call cache, on a hit, and without."""
    from xstride._kernels import _elementwise_exec as ex

    case = {c[0]: c for c in _cases(fake_cp)}[label]
    _, call, inputs = case
    prepared = []
    real_prepare = ex._prepare
    monkeypatch.setattr(ex, "_prepare", lambda *a: prepared.append(1) or real_prepare(*a))

    ex.CACHE = False
    ref = [_one_call(fake_cp, call, inputs) for _ in range(2)]
    assert len(prepared) == 2                      # uncached: planned every time
    assert ref[0] == ref[1]
    ex.CACHE = True
    ex.clear_caches()
    first = _one_call(fake_cp, call, inputs)
    n_prep = len(prepared)
    hits = [_one_call(fake_cp, call, inputs) for _ in range(3)]
    assert first == ref[0]
    for h in hits:
        assert h == ref[0]
    launches, kind, _ = ref[0]
    if kind == "empty":
        assert launches == []
    else:
        assert len(launches) == 1 and launches[0][0].startswith("xs_ew_")
    copies = any(a[0] == "array" for a in launches[0][4] if a != ("out",)) if launches else False
    if "(copy)" in label:
        assert copies                               # the overlapping input was copied
        assert len(prepared) == n_prep              # its launch entry is still cached
    else:
        assert not copies
        assert len(prepared) == n_prep              # hits: no planning at all
        assert len(ex.CALLS) == 1                  # served by the call cache


def test_call_cache_rechecks_overlap_per_call(fake_cp):
    """Layouts that hit the cache but whose pointers now overlap take the copy path."""
    from xstride._kernels import _elementwise_exec as ex
    ew = _Namespace()

    buf = _buf((64,))
    ex.CACHE = True
    disjoint = (buf[0:16], buf[16:32], buf[32:48])
    ew.ufunc_call("add", disjoint[1:], out=disjoint[0])
    assert len(ex.CALLS) == 1
    # same dtypes, shapes, strides and pointers modulo 16: the same key
    out, x, z = buf[8:24], buf[16:32], buf[32:48]
    assert ex.call_key("add", (x, z), out, FakeCupyArray, 0) in ex.CALLS
    got = _one_call(fake_cp, lambda: ew.ufunc_call("add", (x, z), out=out), [x, z])
    ex.CACHE = False
    want = _one_call(fake_cp, lambda: ew.ufunc_call("add", (x, z), out=out), [x, z])
    assert got == want
    args = got[0][0][4]
    assert args[2][0] == "array" and args[3] == ("input", 1)  # x copied, the other not
    # the same view in and out overlaps but needs no copy
    ex.CACHE = True
    v, w = buf[48:64], buf[0:16]
    assert ex.call_key("add", (v, w), v, FakeCupyArray, 0) in ex.CALLS
    hit = _one_call(fake_cp, lambda: ew.ufunc_call("add", (v, w), out=v), [v, w])
    assert hit[0][0][4][1:] == (("out",), ("out",), ("input", 1))


def test_call_cache_rechecks_output_alignment(fake_cp):
    """A fresh output whose pointer modulo 16 differs from the cached one is a miss."""
    from xstride._kernels import _elementwise_exec as ex
    ew = _Namespace()

    x = _buf((64,))
    ex.CACHE = True
    aligned = _one_call(fake_cp, lambda: ew.ufunc_call("add", (x, x)), [x])
    assert "p.n / 4" in aligned[0][0][1]        # 4-wide vectors
    # the cached call allocates a misaligned output: a miss; the uncached path that
    # follows allocates again (misaligned too here) and plans for it
    fake_cp.misalign, fake_cp.misalign_n = 4, 2
    mis = _one_call(fake_cp, lambda: ew.ufunc_call("add", (x, x)), [x])
    assert fake_cp.misalign_n == 0
    ex.CACHE = False
    fake_cp.misalign, fake_cp.misalign_n = 4, 1
    want = _one_call(fake_cp, lambda: ew.ufunc_call("add", (x, x)), [x])
    assert mis == want and mis[0] != aligned[0]  # another vector width: another kernel
    assert "p.n / 4" not in mis[0][0][1]
    ex.CACHE = True
    assert _one_call(fake_cp, lambda: ew.ufunc_call("add", (x, x)), [x]) == aligned


def test_call_cache_keys_and_switches(fake_cp):
    from xstride._kernels import _elementwise_exec as ex
    ew = _Namespace()

    x, y = _buf((8,)), _buf((8,))
    k = ex.call_key("add", (x, y), None, FakeCupyArray, 0)
    assert k == ("add", ex._MAX_GRID_YZ, 0, None,
                 x.dtype, (8,), (4,), x.data.ptr % 16, 0, y.dtype, (8,), (4,), y.data.ptr % 16, 0)
    assert ex.call_key("add", (x, 2), None, FakeCupyArray, 0)[-1] is int
    assert ex.call_key("add", (x, True), None, FakeCupyArray, 0)[-1] is bool
    assert ex.call_key("add", (x, np.float32(2)), None, FakeCupyArray, 0) is None
    assert ex.call_key("add", (x, y), np.zeros(8), FakeCupyArray, 0) is None
    ex.CACHE = True
    ew.ufunc_call("add", (x, y))
    assert len(ex.CALLS) == 1 and len(ex._launch_cache) == 1
    # repeat's two-array shortcut builds the same key: it finds the prepared call
    (stored,) = ex.CALLS
    assert stored == k
    ex.GATE.open(fake_cp)
    ex.last_kind = None
    got = ex.repeat("add", (x, y), None)        # (the stand-in runs no engine kernel)
    assert got is not None and got.shape == (8,) and ex.last_kind == "flat"
    assert ex.repeat("add", (x, _buf((8,), np.float64)), None) is None   # another key
    ex._launch_cache.clear()                    # what tests/benchmarks do after a change
    assert len(ex.CALLS) == 0
    # errors are never cached: the same bad call raises every time
    bad = _buf((3,))
    for _ in range(2):
        with pytest.raises(ValueError, match="cannot be broadcast"):
            ew.ufunc_call("add", (x, bad))
        with pytest.raises(ValueError, match="expected the broadcast shape"):
            ew.ufunc_call("add", (x, y), out=_buf((4,)))
        with pytest.raises(OverflowError):
            ew.ufunc_call("add", (FakeCupyArray(np.zeros(4, np.int8)), 300))
    with pytest.raises(TypeError, match="same_kind"):
        ew.ufunc_call("add", (x, y), out=FakeCupyArray(np.zeros(8, np.int32)))
    ew.ufunc_call("add", (FakeCupyArray(np.zeros(4, np.int8)), 3))
    with pytest.raises(OverflowError):           # a hit converts each value again
        ew.ufunc_call("add", (FakeCupyArray(np.zeros(4, np.int8)), 300))


def test_cache_switch_from_environment():
    import os
    import subprocess
    import sys

    code = "from xstride._kernels import _elementwise_exec as ex; print(ex.CACHE)"
    for val, want in (("0", "False"), ("1", "True"), ("off", "False"), ("No", "False"),
                      (" false ", "False"), ("on", "True"), ("", "True")):
        env = dict(os.environ, XSTRIDE_EW_CACHE=val)
        res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True)
        assert res.stdout.strip() == want, val
    # a value neither on nor off is an error naming the variable (a new-user probe: "off"
    # and "abc" left the cache on silently)
    env = dict(os.environ, XSTRIDE_EW_CACHE="abc")
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True)
    assert res.returncode != 0 and "XSTRIDE_EW_CACHE='abc'" in res.stderr


def host_cost(number=20000, repeat=7):
    """Per-call host time (us, best of ``repeat``) on the fake CuPy, cache on and off."""
    import timeit

    from xstride._kernels import _elementwise_exec as ex
    ew = _Namespace()

    with installed_fake_cupy() as fake, _engine_on(fake):
        a, b, o = _buf((8,)), _buf((8,)), _buf((8,))
        x, y = _buf((64, 64)), _buf((64, 64))
        flags = FakeCupyArray(a.host > 0)
        cases = [("add(a, b), 8 elements", lambda: ew.ufunc_call("add", (a, b))),
                 ("add(a, b, out=o)", lambda: ew.ufunc_call("add", (a, b), out=o)),
                 ("add(a, 1.5)", lambda: ew.ufunc_call("add", (a, 1.5))),
                 ("add(x, y.T), 64x64 tiled", lambda: ew.ufunc_call("add", (x, y.T))),
                 ("where(c, a, b)", lambda: ew.where(flags, a, b)),
                 ("astype(a, float64)", lambda: ew.astype(a, np.float64)),
                 ("fake cupy.empty(8) alone", lambda: fake.empty((8,), np.float32))]
        rows = []
        for name, fn in cases:
            t = {}
            for on in (False, True):
                ex.CACHE = on
                fn()
                fake.launches.clear()
                fake.allocations.clear()
                best = min(timeit.repeat(fn, number=number // (10 if not on else 1),
                                         repeat=repeat))
                t[on] = best / (number // (10 if not on else 1)) * 1e6
                fake.launches.clear()
                fake.allocations.clear()
            rows.append((name, t[False], t[True]))
        return rows


if __name__ == "__main__":
    for name, off, on in host_cost():
        print(f"{name:28s} uncached {off:7.2f} us   cached {on:6.2f} us")


def test_repeat_through_the_driver_launches_what_the_first_call_launched(fake_cp, monkeypatch):
    """Kernels with a function handle launch through the driver: a first ``add`` through
    ``Launch.__call__``, its repeat through the bound launch (``Launch.bind``). Both
    hand the driver the same function, grid, block, plan and input addresses; the
    output slot holds each call's own new output."""
    import ctypes
    import types

    from tests.conftest import FakeKernel
    from xstride._kernels import _elementwise_exec as ex
    from xstride._kernels import _launch

    launches, by_params = [], {}
    init = _launch.Launch.__init__

    def recording_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        by_params[self.pp] = self

    class Driver:
        def launchKernel(self, f, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
            launch = by_params[params]
            arr = (ctypes.c_void_p * len(launch.objs)).from_address(params)
            seen = [ctypes.string_at(arr[i], ctypes.sizeof(o)) for i, o in enumerate(launch.objs)]
            launches.append(((f, gx, gy, gz, bx, by, bz, smem), seen))

    monkeypatch.setattr(_launch.Launch, "__init__", recording_init)
    monkeypatch.setattr(FakeKernel, "kernel", types.SimpleNamespace(ptr=0x5150), raising=False)
    fake_cp.cuda.driver = Driver()
    ex.CACHE = True
    ex.clear_caches()
    x, y = _buf((1000,)), _buf((1000,))
    ew = _Namespace()
    outs = [ew.ufunc_call("add", (x, y)) for _ in range(3)]
    assert len(launches) == 3 and len(ex.CALLS) == 1
    (first, seen0), *rest = launches
    assert first[0] == 0x5150
    for (call, seen), out in zip(launches, outs):
        assert call == first
        assert seen[0] == seen0[0] and seen[2:] == seen0[2:]          # plan, inputs
        assert int.from_bytes(seen[1], "little") == out.data.ptr       # its own output
    assert [int.from_bytes(s, "little") for s in seen0[2:]] == [x.data.ptr, y.data.ptr]


@pytest.mark.parametrize("scalar", [np.float64(2.5e-16), np.float32(2.5), np.int64(3),
                                    np.int8(-2), np.bool_(True), np.complex128(1 + 2j),
                                    np.uint16(7)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "complex64"])
def test_numpy_scalar_operands_with_out_as_numpy(scalar, dtype):
    """A NumPy scalar operand is strong (its own dtype, NEP 50) with ``out=`` as without
    it, as in NumPy's own call: the same values, and the same refusals (a cast out of
    kind into ``out``)."""
    import xstride as xp

    x = (np.arange(6) - 2).astype(dtype)
    for func in ("add", "multiply", "maximum"):
        if func == "maximum" and "c" in (x.dtype.kind, scalar.dtype.kind):
            continue
        want_dt = getattr(np, func)(x, scalar).dtype
        assert getattr(xp, func)(x, scalar).dtype == want_dt
        out = np.empty(6, want_dt)
        got = getattr(xp, func)(x, scalar, out=out)
        assert got is out
        np.testing.assert_array_equal(out, getattr(np, func)(x, scalar))
        if not np.can_cast(want_dt, x.dtype, casting="same_kind"):
            with pytest.raises(TypeError, match=func):
                getattr(xp, func)(x, scalar, out=x.copy())
    out = np.empty(6, np.result_type(x, scalar))
    xp.where(x > 0, x, scalar, out=out)
    np.testing.assert_array_equal(out, np.where(x > 0, x, scalar))
