"""CPU tests of complex arrays as real arrays of their parts (``_kernels/complex_parts.py``)
on the stand-in CuPy of tests/conftest.py: the views, the way back, and the two calls
that use them (complex ``cumulative_sum`` through ``scans.complex_sum``, the complex sum
of one element through the engine), with the kernels replaced by NumPy. The kernels'
results: tests/test_complex_parts_gpu.py."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from tests.conftest import FakeCupyArray
from xstride._kernels import complex_parts as cx


def _complex(rng, shape, dtype):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_parts_view_every_layout_in_place(fake_cupy, dtype):
    """The parts of contiguous, transposed, reversed and strided complex arrays: shape
    ``x.shape + (2,)``, the real part first, over the same memory (no copy)."""
    h = _complex(np.random.default_rng(1), (40, 6), dtype)
    part = cx.PART[np.dtype(dtype)]
    for view in (h, h.T, h[::-1], h[:, ::2], h[3], h[::-2, 1::3]):
        x = FakeCupyArray(h)._view(view)
        p = cx.parts(x)
        assert p.dtype == part and p.shape == view.shape + (2,)
        assert p.strides == view.strides + (part.itemsize,)
        assert p.data.ptr == x.data.ptr
        np.testing.assert_array_equal(p.host, np.stack([view.real, view.imag], axis=-1))
        back = cx.from_parts(p, np.dtype(dtype))
        assert back.data.ptr == x.data.ptr and back.strides == view.strides
        np.testing.assert_array_equal(back.host, view)


def test_from_parts_copies_pairs_that_are_not_side_by_side(fake_cupy):
    """Parts whose pairs are not side by side (the pair axis not innermost) or whose
    rows do not step by whole pairs are copied first; axes of one element take any
    stride; the values are right either way."""
    rng = np.random.default_rng(2)
    want = _complex(rng, (50, 4), "complex64")
    planes = np.stack([want.real, want.imag], axis=0)          # (2, 50, 4): pairs apart
    res = FakeCupyArray(np.ascontiguousarray(planes))._view(np.moveaxis(planes, 0, -1))
    got = cx.from_parts(res, np.dtype(np.complex64))
    assert got.host.flags.c_contiguous
    np.testing.assert_array_equal(got.host, want)
    # rows of three floats, pairs from the first two: rows 12 bytes apart, not 8k
    rows = np.ascontiguousarray(rng.standard_normal((30, 3)).astype(np.float32))
    res = FakeCupyArray(rows)._view(rows[:, :2])
    got = cx.from_parts(res, np.dtype(np.complex64))
    np.testing.assert_array_equal(got.host, rows[:, 0] + 1j * rows[:, 1])
    # an axis of one element keeps a view
    one = FakeCupyArray(np.ascontiguousarray(rows[:1, :2]))
    got = cx.from_parts(one, np.dtype(np.complex64))
    assert got.shape == (1,) and got.data.ptr == one.data.ptr


@pytest.mark.parametrize("include_initial", [False, True])
def test_complex_cumulative_sum_scans_the_parts(fake_cupy, monkeypatch, include_initial):
    """``xp.cumulative_sum`` of a complex array (CuPy backend) scans the real array of its
    parts along the same axis into the parts' dtype of the result (a complex128 result
    from complex64: float64 parts), and views the result back: NumPy's cumsum."""
    from xstride._kernels import scans

    calls = []

    def host_scan(op, x, ax, incl, out_dt, *, axis, dtype, prepare=True):
        calls.append((op, x.shape, x.dtype, ax, incl, np.dtype(out_dt)))
        res = np.cumsum(x.host.astype(out_dt), axis=ax)
        if incl:
            res = np.concatenate([np.zeros_like(np.take(res, [0], axis=ax)), res], axis=ax)
        return FakeCupyArray(np.ascontiguousarray(res))

    monkeypatch.setattr(scans, "scan", host_scan)
    rng = np.random.default_rng(3)
    h = _complex(rng, (30, 5), "complex64")
    for view in (h, h.T, h[::-1, ::2]):
        for axis in (0, 1):
            for dtype, part in ((None, np.float32), (xp.complex128, np.float64)):
                calls.clear()
                got = xp.cumulative_sum(FakeCupyArray(h)._view(view), axis=axis, dtype=dtype,
                                        include_initial=include_initial)
                assert calls == [("sum", view.shape + (2,), np.float32, axis,
                                  include_initial, np.dtype(part))]
                re, im = (np.cumsum(getattr(view, n).astype(part), axis=axis)
                          for n in ("real", "imag"))
                want = re + 1j * im    # the host scan's parts, exactly
                if include_initial:
                    want = np.concatenate([np.zeros_like(np.take(want, [0], axis=axis)), want],
                                          axis=axis)
                assert got.dtype == (np.complex64 if dtype is None else np.complex128)
                np.testing.assert_array_equal(got.host, want)


def test_complex_sum_of_one_element_adds_zero_to_the_parts(fake_cupy, monkeypatch):
    """The complex sum over an axis of one element is the engine's ``add(parts, 0.0)``
    over the parts (one pass), viewed back; other ops and widened dtypes do not take
    it."""
    from xstride._kernels import elementwise as ew

    calls = []
    real_ufunc = ew.ufunc

    def host_ufunc(func, kinds, loop, args, out, shape):
        if np.dtype(loop[0]).kind != "f":
            return real_ufunc(func, kinds, loop, args, out, shape)
        calls.append((func, args[0].shape, np.dtype(loop[0]), args[1]))
        return FakeCupyArray(np.ascontiguousarray(args[0].host + args[1]))

    monkeypatch.setattr(ew, "ufunc", host_ufunc)
    h = _complex(np.random.default_rng(4), (20, 1), "complex64")
    h[0, 0] = complex(-0.0, -0.0)
    got = xp.sum(FakeCupyArray(h), axis=1)
    assert calls == [("add", (20, 2), np.dtype(np.float32), 0.0)]
    assert got.dtype == np.complex64 and got.shape == (20,)
    np.testing.assert_array_equal(got.host, np.sum(h, axis=1))
    assert not np.signbit(got.host[0].real) and not np.signbit(got.host[0].imag)


@pytest.fixture
def partwise_host(fake_cupy, monkeypatch):
    """The engine's ufunc on the parts replaced by NumPy (recording each call), no
    prepared calls, :data:`PARTWISE_MIN` of 1; the library's ``add``/``subtract``/
    ``multiply`` recorded too. Yields the record."""
    from xstride._kernels import elementwise as ew

    seen = []

    def host_ufunc(func, kinds, loop, args, out, shape):
        seen.append(("engine", func, tuple(a.shape for a in args), np.dtype(loop[-1]),
                     out is not None))
        res = getattr(np, func)(*(a.host for a in args))
        if out is None:
            return FakeCupyArray(np.ascontiguousarray(res))
        out.host[...] = res
        return out

    def library(name):
        def call(*args):
            seen.append(("library", name))
            return FakeCupyArray(getattr(np, name)(*(getattr(a, "host", a) for a in args)))
        return call

    monkeypatch.setattr(ew, "ufunc", host_ufunc)
    monkeypatch.setattr(ew, "repeat", lambda tag, args, out: None)
    monkeypatch.setattr(ew, "PARTWISE_MIN", 1)
    for name in ("add", "subtract", "multiply"):
        monkeypatch.setattr(fake_cupy, name, library(name), raising=False)
    yield seen


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_add_and_subtract_run_on_the_parts(partwise_host, dtype):
    """``add``/``subtract`` of complex arrays of one dtype (broadcast, views, ``out=``)
    are the engine's float function of their parts: NumPy's values."""
    seen = partwise_host
    rng = np.random.default_rng(5)
    h = _complex(rng, (40, 3), dtype)
    x = FakeCupyArray(h)
    part = cx.PART[np.dtype(dtype)]
    for func in ("add", "subtract"):
        for a, b in ((x, x._view(h[0])), (x._view(h[::-1, ::-1]), x._view(h[5])),
                     (x._view(h[::2]), x._view(h[1::2])), (x._view(h[:, :1]), x._view(h[0]))):
            seen.clear()
            got = getattr(xp, func)(a, b)
            want = getattr(np, func)(a.host, b.host)
            assert seen == [("engine", func, (a.shape + (2,), b.shape + (2,)), part, False)]
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got.host, want)
        out = FakeCupyArray(np.zeros((40, 3), dtype))
        seen.clear()
        assert getattr(xp, func)(x, x._view(h[1]), out=out) is out
        assert seen == [("engine", func, ((40, 3, 2), (3, 2)), part, True)]
        np.testing.assert_array_equal(out.host, getattr(np, func)(h, h[1]))


def test_other_complex_calls_stay_the_librarys(partwise_host, monkeypatch):
    """Mixed complex dtypes, a Python scalar operand, ``multiply``, a call below
    ``PARTWISE_MIN`` elements and broadcast errors: not the parts."""
    from xstride._kernels import elementwise as ew

    seen = partwise_host
    h = _complex(np.random.default_rng(6), (40, 3), "complex64")
    x, wide = FakeCupyArray(h), FakeCupyArray(h.astype(np.complex128))
    for call, name in ((lambda: xp.add(x, wide), "add"), (lambda: xp.add(x, 1.5), "add"),
                       (lambda: xp.multiply(x, x), "multiply")):
        seen.clear()
        call()
        assert seen == [("library", name)], seen
    t = FakeCupyArray(np.ascontiguousarray(h.T))
    t = t._view(t.host.T)                   # a (3, n) array used as .T
    for a, b in ((t, t._view(t.host[0])), (x, t)):
        seen.clear()
        xp.add(a, b)                        # its last axis not the innermost: the library's
        assert seen == [("library", "add")], seen
    monkeypatch.setattr(ew, "PARTWISE_MIN", 121)
    seen.clear()
    xp.subtract(x, x)                       # 120 elements
    assert seen == [("library", "subtract")]
    seen.clear()
    # xstride's check, before the library
    with pytest.raises(ValueError, match=r"^add: shapes \(40, 3\) and \(40, 2\) cannot"):
        xp.add(x, FakeCupyArray(h[:, :2]))
    assert seen == []
