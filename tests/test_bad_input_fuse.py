"""Odd code inside ``xp.fuse`` (stand-in CuPy, no GPU): what a newcomer writes that a trace
must not turn into a kernel whose result differs from the unfused run.

Each case failed before its fix: in-place ``&=``/``|=``/``^=`` traced into a new output
(the unfused run writes into the caller's array), the text of a stand-in became a
constant of the kernel (``len(str(k))`` was ``len("Weak(12)")``), a float literal too
large for float32 leaked NumPy's ``RuntimeWarning`` from the trace, and NumPy integer
indices (``x[np.int64(1)]``, basic indexing in NumPy and CuPy) ran unfused;
``Fused.graph`` traced a graph for argument types that run unfused (a list); a fused
method bound as a ``functools.partial`` (no name, the partial's docstring, no
``__self__``, unequal to itself, not picklable).
"""

from __future__ import annotations

import inspect
import math
import pickle
import warnings

import numpy as np
import pytest

import xstride as xp
from xstride.fusion import Fused

from ._fuse_cases import evaluate
from .conftest import FakeCupyArray


def _inplace_and(x):
    x &= 1
    return x


def _inplace_or(x):
    x |= 1
    return x


def _inplace_xor(x):
    x ^= 1
    return x


def _inplace_shift(x):
    x <<= 1
    return x


@pytest.mark.parametrize("fn", [_inplace_and, _inplace_or, _inplace_xor, _inplace_shift])
def test_every_in_place_operator_is_refused(fake_cupy, fn):
    x = FakeCupyArray(np.arange(4, dtype=np.int32))
    assert xp.fuse(fn).graph(x) is None
    with pytest.raises(TypeError, match="fuse: cannot fuse .*an in-place operator"):
        xp.fuse(fn, strict=True)(x)


@pytest.mark.parametrize("fn, arg, what", [
    (lambda x, k: x * len(str(k)), 12, "str"),
    (lambda x, k: x * len(f"{k}"), 12345, "format"),
    (lambda x, k: x * len(str(x)), 1, "str"),
    (lambda x, k: x * len(f"{x:}"), 1, "format"),
])
def test_the_text_of_a_stand_in_is_refused(fake_cupy, fn, arg, what):
    x = FakeCupyArray(np.arange(3, dtype=np.float32))
    assert xp.fuse(fn).graph(x, arg) is None
    with pytest.raises(TypeError, match=rf"fuse: cannot fuse .*{what}\(\)"):
        xp.fuse(fn, strict=True)(x, arg)


def test_a_float_literal_beyond_float32_traces_without_a_numpy_warning(fake_cupy):
    a = np.arange(3, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        graph = xp.fuse(lambda x: x + 1e300, strict=True).graph(FakeCupyArray(a))
    assert graph is not None
    with np.errstate(over="ignore"):          # the NumPy model converts as NumPy does
        got = evaluate(graph, (a,))[0]
    assert got.dtype == np.float32 and np.isinf(got).all()


@pytest.mark.parametrize("fn", [
    lambda x: x[np.int64(1)],
    lambda x: x[np.int32(-1), np.uint8(0)],
    lambda x: x[np.int64(0):np.int64(2), ::np.int8(-1)],
    lambda x: x[None, np.intp(1), ...],
])
def test_numpy_integer_indices_are_basic_indexing(fake_cupy, fn):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    graph = xp.fuse(fn, strict=True).graph(FakeCupyArray(a))
    assert graph is not None
    got, want = evaluate(graph, (a,))[0], fn(a)
    assert got.shape == want.shape and np.array_equal(got, want)


def test_numpy_bool_indices_still_run_unfused(fake_cupy):
    a = FakeCupyArray(np.arange(3, dtype=np.float32))
    with pytest.raises(TypeError, match="indexing by bool"):
        xp.fuse(lambda x: x[np.True_], strict=True)(a)


@pytest.mark.parametrize("other", [[1, 2], (1, 2), {"a": 1}, 1.5 + 0j, object()])
def test_graph_of_an_argument_type_that_runs_unfused_is_none(fake_cupy, other):
    """``Fused.graph`` answers None where the call runs unfused (it traced and kept a
    graph under the key None for a list argument)."""
    fused = xp.fuse(lambda x, k: x * 2)
    x = FakeCupyArray(np.ones(3, np.float32))
    if isinstance(other, complex):           # a Python complex is a signature type
        assert fused.graph(x, other) is not None
        return
    assert fused.graph(x, other) is None
    assert None not in fused._graphs


def test_graph_of_a_signature_a_call_found_unfusable_is_none():
    """A new-user probe: after a call that ran unfused (``x @ x``, warned), ``graph`` of
    the same signature returned the stored reason, the str ``'operator @ (matmul)'``,
    where its docstring promises None (as it answered before the call)."""
    da = pytest.importorskip("dask.array")
    x = da.from_array(np.ones((2, 2)), chunks=1)
    fused = xp.fuse(lambda v: v @ v)
    assert fused.graph(x) is None
    with pytest.warns(xp.FusionWarning, match="operator @"):
        fused(x)
    assert fused.graph(x) is None


@pytest.mark.parametrize("lookup", [xp.get_array_module, xp.array_namespace])
def test_a_module_looked_up_from_a_stand_in_is_refused(fake_cupy, lookup):
    """Backend-generic code (``if xp.get_array_module(x) is numpy``) took the active
    backend's branch in the trace (get_array_module ignored the stand-in), and the
    kernel kept it: the fused call computed ``x * 3`` where the unfused one computes
    ``x * 2``. The lookup now stops the trace: the call runs unfused."""
    def fn(x):
        mod = lookup(x)
        return x * 3 if mod is np or getattr(mod, "__name__", "").endswith("numpy") else x * 2

    x = FakeCupyArray(np.arange(3, dtype=np.float32))
    assert xp.fuse(fn).graph(x) is None
    with pytest.raises(TypeError, match=rf"fuse: cannot fuse .*xp\.{lookup.__name__}"):
        xp.fuse(fn, strict=True)(x)
    assert lookup(np.ones(2)) is not None              # outside a trace: unchanged


def test_isinstance_of_the_backend_array_type_holds_in_the_trace(fake_cupy):
    """``x * 2 if isinstance(x, cupy.ndarray) else x * 3``: the stand-in answers the
    fused backend's array type to ``isinstance`` (its ``__class__``), so the trace takes
    the branch the unfused run takes; results of operations too; a NumPy scalar
    argument answers its own scalar type."""
    import sys

    cp = sys.modules["cupy"]

    def fn(x, s):
        y = x * 2 if isinstance(x, cp.ndarray) else x * 3
        z = y + 1
        w = z * s if isinstance(s, np.float32) and not isinstance(s, cp.ndarray) else z
        return w if isinstance(z, cp.ndarray) else -w

    x = FakeCupyArray(np.arange(4, dtype=np.float32))
    s = np.float32(0.5)
    graph = xp.fuse(fn).graph(x, s)
    assert graph is not None
    (got,) = evaluate(graph, (x.get(), s))
    np.testing.assert_array_equal(got, (x.get() * 2 + 1) * s)


class _Stepper:
    """A class of fused methods (module level: its bound methods pickle by reference)."""

    k = 3.0

    @xp.fuse
    def step(self, x, dt):
        """One step."""
        return x * self.k + dt

    @xp.fuse(strict=True)
    def strict_step(self, x):
        return x * self.k

    @xp.fuse
    def pair(self, x):
        return self, x             # the unfused run shows what it was given


def test_a_fused_method_binds_as_a_plain_function():
    """``@xp.fuse`` in a class body: the instance is bound as a plain function's is (a
    bound method with the function's name and docstring, ``__self__``, equal per
    instance, pickled by ``getattr``); on NumPy arrays it runs as written, no warning."""
    p, x = _Stepper(), np.arange(4.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(p.step(x, 0.5), x * 3.0 + 0.5)
        np.testing.assert_array_equal(p.step(x, dt=1.0), x * 3.0 + 1.0)
        np.testing.assert_array_equal(_Stepper.step(p, x, 0.5), x * 3.0 + 0.5)
        np.testing.assert_array_equal(p.strict_step(x), x * 3.0)
    bound = p.step
    assert (bound.__name__, bound.__qualname__, bound.__doc__) == \
        ("step", "_Stepper.step", "One step.")
    assert bound.__self__ is p and bound.__func__ is _Stepper.__dict__["step"]
    assert bound == p.step and bound != _Stepper().step
    assert str(inspect.signature(bound)) == "(x, dt)"
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(bound))(x, 0.0), x * 3.0)
    assert isinstance(_Stepper.step, Fused)


def test_a_fused_method_on_device_arrays_runs_unfused(fake_cupy):
    """The bound instance is an argument of no signature type (its attributes would be
    baked into the kernel): the call runs unfused with a warning, or ``strict`` refuses
    it naming the argument types."""
    p, x = _Stepper(), FakeCupyArray(np.arange(4, dtype=np.float32))
    with pytest.warns(xp.FusionWarning, match=r"_Stepper.pair runs unfused: arguments of "
                                              r"types FakeCupyArray, _Stepper"):
        got = p.pair(x)
    assert got[0] is p and got[1] is x
    with pytest.raises(TypeError, match=r"fuse: cannot fuse _Stepper.strict_step: "
                                        r"arguments of types"):
        p.strict_step(x)


def _add(a, b):
    return a + b


def _pair(a, b):
    return a, b


@pytest.mark.parametrize("args, where, kind", [
    (([1.0, 2.0], None), r"'a' \(position 0\)", "list"),
    ((None, (1.0, 2.0)), r"'b' \(position 1\)", "tuple")])
def test_a_list_argument_is_named_with_what_to_pass(fake_cupy, args, where, kind):
    """A list or tuple beside device arrays runs unfused (``strict``: refused); the
    message gave only "arguments of types FakeCupyArray, list", naming no argument and
    nothing to pass instead."""
    x = FakeCupyArray(np.ones(2, np.float32))
    args = tuple(x if a is None else a for a in args)
    match = (rf"arguments of types .*; argument {where} is a {kind}: a fused kernel takes "
             r"arrays .*xp\.asarray")
    with pytest.raises(TypeError, match=r"^fuse: cannot fuse _pair: " + match):
        xp.fuse(_pair, strict=True)(*args)
    with pytest.warns(xp.FusionWarning, match=r"^fuse: _pair runs unfused: " + match):
        assert xp.fuse(_pair)(*args) == args    # run as written
    with pytest.raises(TypeError, match=r"argument at position 1 is a list"):
        xp.fuse(lambda *z: z[0] + z[1], strict=True)(x, [1.0, 2.0])   # no parameter name


def test_a_list_in_another_position_is_warned_about_too(fake_cupy):
    """The warning was keyed by the set of argument types only: after f(x, list), a call
    f(list, x) of the same types ran unfused silently, never naming 'a'. Each untaken
    argument's place is now part of the key; a repeated call still warns once."""
    x = FakeCupyArray(np.ones(2, np.float32))
    f = xp.fuse(_pair)
    with pytest.warns(xp.FusionWarning, match=r"argument 'b' \(position 1\) is a list"):
        f(x, [1.0, 2.0])
    with pytest.warns(xp.FusionWarning, match=r"argument 'a' \(position 0\) is a list"):
        f([1.0, 2.0], x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f(x, [3.0]) == (x, [3.0]) and f([3.0], x) == ([3.0], x)   # warned before


def test_lists_on_numpy_give_what_the_unfused_call_gives():
    """On NumPy (no fusion executor) a fused function runs as written, lists and all:
    the unfused call's result, or its own error, and no warning even under ``strict``."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert xp.fuse(_add, strict=True)([1, 2], [3, 4]) == [1, 2, 3, 4]   # as _add's
        assert xp.fuse(_add)(np.asarray([1, 2]), [3, 4]).tolist() == [4, 6]
        with pytest.raises(TypeError, match="bad operand type for unary -: 'list'"):
            xp.fuse(lambda a: -a)([1, 2])


def test_a_list_beside_dask_arrays_is_named():
    da = pytest.importorskip("dask.array")
    x = da.from_array(np.arange(4.0), chunks=2)
    with pytest.raises(TypeError, match=r"^fuse: cannot fuse _add: arguments of types "
                                        r"Array, list; argument 'b' \(position 1\) is a list"):
        xp.fuse(_add, strict=True)(x, [1.0, 2.0, 3.0, 4.0])
    with pytest.warns(xp.FusionWarning, match=r"argument 'b' \(position 1\) is a list"):
        got = xp.fuse(_add)(x, [1.0, 2.0, 3.0, 4.0])
    assert xp.to_numpy(got).tolist() == [1.0, 3.0, 5.0, 7.0]


def test_strict_takes_a_numpy_bool_as_keepdims_does(fake_cupy):
    """``strict=np.True_`` was refused ("expected a bool") although the reductions take
    ``keepdims=np.True_``; other non-bools are still refused."""
    f = xp.fuse(lambda x: x @ x, strict=np.True_)
    assert f.strict is True and type(f.strict) is bool
    with pytest.raises(TypeError, match="fuse: cannot fuse"):
        f(FakeCupyArray(np.ones((2, 2), np.float32)))
    assert xp.fuse(strict=np.False_)(lambda x: x).strict is False
    for bad in (1, 0, None, "yes", np.int8(1), np.array(True)):
        with pytest.raises(TypeError, match="fuse: argument 'strict'.*expected a bool"):
            xp.fuse(lambda x: x, strict=bad)


def _named(body):
    """``body`` traced; its unfused run (on the stand-in CuPy's arrays, which compute
    nothing) answers "unfused"."""
    def fn(x, *s):
        return "unfused" if type(x) is FakeCupyArray else body(x, *s)
    return fn


@pytest.mark.parametrize("body, args, what", [
    (lambda x: x * 2 if x.__array_namespace__() else x, (), r"x\.__array_namespace__\(\)"),
    (lambda x: x.reshape((3, 2), order="F") * 2, (), "reshape with order="),
    (lambda x: x.reshape(6, order="C") * 2, (), "reshape with order="),
    (lambda x: x[:True] * 2, (), "a slice bound that is a bool"),
    (lambda x: x[::np.True_] * 2, (), "a slice bound that is a bool"),
    (lambda x, s: x * round(s), (2.5,), r"round\(\) of a scalar argument"),
    (lambda x, s: x * round(s, 1), (2.5,), r"round\(\) of a scalar argument"),
    (lambda x, s: x * math.floor(s), (2.5,), r"math\.floor\(\) of a scalar argument"),
    (lambda x, s: x * math.ceil(s), (2.5,), r"math\.ceil\(\) of a scalar argument"),
    (lambda x, s: x * math.trunc(s), (2.5,), r"math\.trunc\(\) of a scalar argument"),
    (lambda x: round(x[0, 0]), (), r"round\(\) of a traced array"),
    (lambda x: math.floor(x[0, 0]), (), r"math\.floor\(\) of a traced array"),
])
def test_unfused_operations_are_named_as_written(fake_cupy, body, args, what):
    """These ran unfused (right) but the warning, or strict's TypeError, showed the
    trace's own error: "AttributeError: __array_namespace__", "Traced.reshape() got an
    unexpected keyword argument 'order'", "Layout: a slice bound ... got bool", "type
    Weak doesn't define __round__ method", "float() of a scalar argument"."""
    x = FakeCupyArray(np.arange(6, dtype=np.float32).reshape(2, 3))
    fn = _named(body)
    with pytest.warns(xp.FusionWarning, match=f"runs unfused: {what}"):
        assert xp.fuse(fn)(x, *args) == "unfused"
    with pytest.raises(TypeError, match=f"fuse: cannot fuse _named.<locals>.fn: {what}"):
        xp.fuse(fn, strict=True)(x, *args)
    assert xp.fuse(fn).graph(x, *args) is None


def test_a_lookup_that_races_a_shape_dependent_trace_finds_the_entry(monkeypatch):
    """Thread A's trace of a signature that reads ``x.shape`` stores the signature's
    mark ("kept per shape") between thread B's key and its read: B read the mark as an
    entry (``ValueError: not enough values to unpack``, 1 in 300 calls of two threads)."""
    import dask.array as da
    from xstride import fusion

    a = da.from_array(np.arange(6.0), chunks=3)
    fused = xp.fuse(lambda x: x * x.shape[0])
    np.testing.assert_array_equal(fused(a).compute(), np.arange(6.0) * 6)
    sig = next(k for k, v in fused._graphs.items() if v is fusion._BY_SHAPE)
    real, keys = fused._key, []

    def stale(s, args):          # the first key is read before the mark was stored
        keys.append(s)
        return s if len(keys) == 1 else real(s, args)

    monkeypatch.setattr(fused, "_key", stale)
    entry = fused._lookup(sig, (a,))
    assert entry is not fusion._BY_SHAPE and entry[0] == sig
    np.testing.assert_array_equal(fused(a).compute(), np.arange(6.0) * 6)


def test_two_threads_storing_past_the_signature_limit(monkeypatch):
    """Both threads drop the oldest signature at once: one of them got a ``KeyError``
    (or ``RuntimeError: dictionary changed size during iteration``)."""
    import threading

    from tests.conftest import race
    from xstride import fusion

    monkeypatch.setattr(fusion, "MAX_SIGNATURES", 4)
    fused, errors = xp.fuse(lambda x: x), []
    barrier = threading.Barrier(2)

    def store(k):
        barrier.wait()
        try:
            for i in range(20000):
                fused._store((k, i), (None, "x"))
        except Exception as exc:  # noqa: BLE001 - what the test looks for
            errors.append(exc)

    race(store, [(0,), (1,)])
    assert errors == [] and len(fused._graphs) <= 4


@pytest.mark.parametrize("body", [
    lambda x, dt: x * np.float64(0.1),
    lambda x, dt: np.float64(0.1) + x,
    lambda x, dt: x * (dt * np.float64(2.0)),     # Python arithmetic gives a np.float64
    lambda x, dt: x - (np.float64(2.0) / dt),
])
def test_a_numpy_float64_constant_is_strong_as_in_the_unfused_run(fake_cupy, body):
    # np.float64 is a subclass of float: the trace took it for a weak Python float, so
    # the fused float32 result differed from the unfused float64 one (NEP 50)
    from ._fuse_cases import fake

    x = np.arange(4, dtype=np.float32) + np.float32(0.1)
    want = body(x, 0.5)
    assert want.dtype == np.float64
    fused = xp.fuse(body)
    graph = fused.graph(fake(x), 0.5)
    if graph is not None:                              # traced: the unfused dtype and bits
        (got,) = evaluate(graph, (x, 0.5))
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    with pytest.raises(TypeError, match=r"NumPy scalar that is no argument \(float64"):
        xp.fuse(body, strict=True)(fake(x), 0.5)


@pytest.mark.parametrize("body, what", [
    (lambda v: xp.expand_dims(v, axis=True) + 1, "expand_dims with that axis"),
    (lambda v: xp.permute_dims(v, (True, False)) + 1, "axes that are no ints"),
    (lambda v: v.transpose(True, False) + 1, "axes that are no ints"),
    (lambda v: xp.reshape(v, (3, True, 2)) + 1, "a shape with a bool extent"),
    (lambda v: v.reshape(3, True, 2) + 1, "a shape with a bool extent"),
    (lambda v: xp.broadcast_to(v, (2, True, 3)) + 1, "a shape with a bool extent"),
])
def test_a_bool_axis_or_extent_of_a_view_runs_unfused(fake_cupy, body, what):
    # operator.index(True) is 1: the trace took True for axis or extent 1 and fused a
    # call whose unfused run is the namespace's TypeError (a bool is no axis)
    from ._fuse_cases import fake

    a = np.arange(6.0).reshape(2, 3)
    if "xp." in inspect.getsource(body):
        with pytest.raises(TypeError, match=r"got (bool|tuple \(.*True)"):
            body(a)                                   # the unfused call on NumPy
    assert xp.fuse(body).graph(fake(a)) is None
    with pytest.raises(TypeError, match=what):
        xp.fuse(body, strict=True)(fake(a))
