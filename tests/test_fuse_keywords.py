"""Calls of a fused function with keyword arguments (docs/fuse.md, "How a call runs"):
each gives what the unfused call ``fn(...)`` gives, fused where the keywords name
positional parameters, on the stand-in CuPy (no GPU), NumPy and dask."""

from __future__ import annotations

import functools
import inspect
import warnings

import numpy as np
import pytest

import xstride as xp
from xstride._kernels import fusion as fx

from .conftest import FakeCupyArray
from .test_fuse_exec import engine, launched  # noqa: F401  (engine: the fixture)


def ones(k=1.0, n=8):
    return FakeCupyArray(np.full(n, k, np.float32))


@pytest.fixture
def no_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")            # a FusionWarning fails the test
        yield


def test_a_keyword_after_a_gap_fuses_beside_keyword_only_defaults(engine, no_warnings):
    """The gap's default is filled in, not the keyword-only parameter's: the call passes
    no keyword-only argument, so it fuses (``strict=True`` raised "keyword-only")."""
    @xp.fuse(strict=True)
    def f(x, dt=0.5, s=1.0, *, k=2.0):
        return x * dt * s * k

    x = ones()
    f(x, 0.5, 3.0)
    kernel = engine.launches[-1][0]
    f(x, s=3.0)
    assert len(engine.launches) == 2 and engine.launches[-1][0] is kernel
    assert len(fx.PREPARED) == 1


def test_an_array_given_by_keyword_beside_a_keyword_only_argument_is_seen(engine):
    """``f(x=a, k=3.0)`` is ``f(a, k=3.0)``: it warns (``strict=True``: raises) as
    that call does, instead of running unfused in silence."""
    @xp.fuse
    def f(x, *, k=2.0):
        return x

    a = ones()
    with pytest.warns(xp.FusionWarning, match="keyword-only"):
        assert f(x=a, k=3.0) is a
    g = xp.fuse(f.fn, strict=True)
    for call in (lambda: g(a, k=3.0), lambda: g(x=a, k=3.0)):
        with pytest.raises(TypeError, match="cannot fuse .*keyword-only"):
            call()


def test_a_repeated_keyword_call_does_not_bind_again(engine, monkeypatch):
    """The repeat of a keyword call moves the keywords to their places by a plan kept
    per keyword names (no ``Signature.bind``), then takes the prepared call."""
    @xp.fuse
    def push(x, v, dt=0.5, scale=1.0):
        return x + v * dt * scale

    x, v = ones(1.0), ones(2.0)
    push(x, v, scale=2.0)
    push(x, v=v, dt=0.25)

    def refuse(*a, **k):
        raise AssertionError("bound again")

    monkeypatch.setattr(inspect.Signature, "bind", refuse)
    n = len(engine.launches)
    for _ in range(3):
        push(x, v, scale=4.0)
        push(x, v=v, dt=0.125)
    assert len(engine.launches) == n + 6 and len(fx.PREPARED) == 2
    scalars = launched(engine, 3)[1]                # dt, then scale's default
    assert scalars == [np.float32(0.125), np.float32(1.0)]


def test_a_staticmethod_under_fuse_takes_no_instance(engine, no_warnings):
    """``@xp.fuse`` over ``@staticmethod``: an instance's call passes no instance, as the
    staticmethod's call does."""
    class C:
        @xp.fuse
        @staticmethod
        def step(x, dt=1.0):
            return x * dt

    x = ones()
    for call in (lambda: C.step(x, dt=2.0), lambda: C().step(x, dt=2.0),
                 lambda: C().step(x, 2.0)):
        call()
    assert len(engine.launches) == 3 and len(fx.PREPARED) == 1


def test_a_parameter_named_self_can_be_given_by_keyword(engine, no_warnings):
    """``Stepper.step(self=s, x=x)`` of a fused method (and any fused function with a
    parameter ``self``) reached ``Fused.__call__``'s own ``self``: "multiple values"."""
    class Stepper:
        @xp.fuse
        def step(self, x, dt=1.0):
            return x * dt

    s, x = Stepper(), np.arange(4.0)
    np.testing.assert_array_equal(Stepper.step(self=s, x=x, dt=2.0), x * 2.0)
    assert xp.fuse(lambda self, x: x + self)(self=1.0, x=x)[0] == 1.0


def _kinds(x, dt=0.5, s=None, *, k=2.0, **kw):
    return x * dt * (1.0 if s is None else s) * k + len(kw)


def _positional_only(x, /, dt=1.0, **kw):
    return x * dt + len(kw)


_NUMPY_CALLS = {
    "a gap": (_kinds, (1,), {"s": 2.0}),
    "all by keyword": (_kinds, (), {"x": 1, "k": 1.0, "dt": 3.0}),
    "**kwargs": (_kinds, (1,), {"q": 1}),
    "a value twice": (_kinds, (1,), {"x": 1}),
    "an unknown keyword": (lambda x, dt: x * dt, (1,), {"q": 1.0}),
    "a missing argument": (lambda x, dt: x * dt, (), {"dt": 1.0}),
    "positional-only by keyword": (_positional_only, (), {"x": 1}),
    "positional-only name into **kwargs": (_positional_only, (1,), {"x": 1}),
    "*args and a keyword": (lambda *a, s=1.0: sum(a) * s, (1, 1), {"s": 2.0}),
    "a partial's keyword": (functools.partial(_kinds, dt=3.0), (1,), {"dt": 2.0}),
    "a ufunc's out": (np.multiply, (1, 2.0), {"out": "out"}),
    "np.where's x by keyword": (np.where, (1,), {"x": 1, "y": 0.0}),
}


@pytest.mark.parametrize("name", list(_NUMPY_CALLS))
def test_numpy_calls_give_the_unfused_result_or_error(name):
    fn, args, kwargs = _NUMPY_CALLS[name]

    def run(f):
        a = tuple(np.arange(5.0) if v == 1 else v for v in args)
        kw = {k: np.arange(5.0) if v == 1 else np.empty(5) if v == "out" else v
              for k, v in kwargs.items()}
        try:
            return f(*a, **kw)
        except TypeError as e:
            return e

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = run(xp.fuse(fn))
    want = run(fn)
    if isinstance(want, TypeError):
        assert type(got) is TypeError and str(got) == str(want)
    else:
        np.testing.assert_array_equal(got, want)


def test_a_fused_function_calls_another_with_keywords_inside_its_trace(engine, no_warnings):
    inner = xp.fuse(lambda x, dt=1.0, *, k=1.0: x * dt * k)
    outer = xp.fuse(lambda x, dt: inner(x, k=2.0, dt=dt) + 1, strict=True)
    for _ in range(2):
        outer(x=ones(), dt=2.0)
    assert len(engine.launches) == 2 and len(fx.PREPARED) == 1


def test_dask_keyword_calls_are_fused_per_block():
    import dask.array as da

    def push(x, v, dt=0.5, s=1.0, *, k=1.0):
        return x + v * dt * s * k

    f = xp.fuse(push, strict=True)
    x = da.from_array(np.arange(10.0), chunks=5)
    v = da.from_array(np.arange(10.0) + 1, chunks=5)
    xp.set_backend("dask")
    try:
        for args, kwargs in (((x, v), {"s": 2.0}), ((), {"x": x, "v": v, "dt": 0.1})):
            got = f(*args, **kwargs)
            assert got.name.startswith("xstride-fuse-push")
            np.testing.assert_array_equal(got.compute(), push(*args, **kwargs).compute())
        with pytest.raises(TypeError, match="keyword-only"):
            f(x=x, v=v, k=2.0)
        with pytest.raises(TypeError, match="unexpected keyword argument 'q'"):
            f(x, v, q=2.0)
    finally:
        xp.set_backend("numpy")


def test_the_warning_says_why_keywords_run_unfused(engine):
    """A keyword-only argument or ``**kwargs`` is named as such; keywords of a function
    whose signature cannot be read (``max``) are not called keyword-only."""
    a = ones()
    with pytest.warns(xp.FusionWarning, match=r"keyword-only arguments or \*\*kwargs"):
        assert xp.fuse(lambda x, **kw: x)(a, q=1) is a
    with pytest.warns(xp.FusionWarning, match="no signature to read") as got:
        with pytest.raises(TypeError, match="invalid keyword argument for max"):
            xp.fuse(max)(a, a, q=1)              # then Python's error, as max(a, a, q=1)
    assert "keyword-only" not in str(got[0].message)


def test_a_default_of_another_type_filled_into_a_gap_still_fuses(engine, no_warnings):
    """``f(a, scale=2.0)`` fills ``c``'s default tuple in; ``f(a)`` fuses with that
    tuple part of the kernel, and so does the keyword call (it ran unfused: "arguments
    of types ..., tuple"; ``strict=True`` raised)."""
    @xp.fuse(strict=True)
    def f(x, c=(1.0, 2.0), scale=1.0):
        return (x * c[0] + c[1]) * scale

    a = ones(3.0)
    f(a)
    f(a, scale=2.0)
    f(a, scale=4.0)
    assert len(engine.launches) == 3
    assert launched(engine, 2)[1] == [np.float32(1.0), np.float32(2.0), np.float32(4.0)]
    with pytest.raises(TypeError, match="arguments of types .*tuple"):
        f(a, tuple([1.0, 2.0]), 2.0)          # a tuple of the caller's: as before


class _Scale:
    def __call__(self, x, dt=1.0, s=1.0):
        return x * dt * s


def _logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


def _plain(x, dt=1.0, s=1.0):
    return x * dt * s


@_logged
def _wrapped(x, dt=1.0, s=1.0):
    return x * dt * s


_by_reference = xp.fuse(_plain)


@pytest.mark.parametrize("fn", [_Scale(), _plain, functools.partial(_plain),
                                xp.fuse(_plain)], ids=["instance", "function", "partial", "fused"])
def test_callables_fuse_keyword_calls(engine, no_warnings, fn):
    """A callable instance, a function, a partial, a fused function: ``f(a, s=2.0)`` is
    one prepared kernel. (A partial's own keywords are keyword-only: ``partial(g,
    s=1.0)(a, s=2.0)`` runs unfused, as docs/fuse.md says.)"""
    f = xp.fuse(fn, strict=True)
    a = ones()
    for _ in range(2):
        f(a, s=2.0)
        f(x=a, s=2.0)
    assert len(engine.launches) == 4 and len(fx.PREPARED) == 1


def test_a_wraps_wrapper_fuses_positional_calls_and_runs_keyword_calls_unfused(engine):
    """A ``functools.wraps`` wrapper's own parameters are ``(*args, **kwargs)``: what it
    does with keywords is its own (it may fill or read them), so a keyword call runs
    unfused, as written, and says why; positional calls fuse."""
    f = xp.fuse(_logged(lambda x, dt=1.0, s=1.0: xp.multiply(xp.multiply(x, dt), s)))
    a = ones()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(a, 2.0, 3.0)
        f(a, 2.0, 3.0)
    assert len(engine.launches) == 2 and len(fx.PREPARED) == 1     # one fused kernel
    with pytest.warns(xp.FusionWarning, match=r"\*\*kwargs"):
        f(a, s=2.0)
    assert len(engine.launches) == 4                               # two unfused calls


def test_a_pickled_fused_function_takes_keywords():
    import pickle

    x = np.arange(4.0)
    for f in (_by_reference, xp.fuse(_wrapped, strict=True)):
        f(x, s=3.0)
        g = pickle.loads(pickle.dumps(f))
        assert g.strict == f.strict
        np.testing.assert_array_equal(g(x, s=3.0), _wrapped(x, s=3.0))


def _posonly(x, /, dt=1.0):
    return x * dt


@pytest.mark.parametrize("call,match", [
    (lambda f, a: f(a, q=1.0), "unexpected keyword argument 'q'"),
    (lambda f, a: f(a, 1.0, dt=2.0), "multiple values for argument 'dt'"),
    (lambda f, a: f(dt=2.0), "missing 1 required positional argument: 'x'"),
    (lambda f, a: _posonly_fused(x=a), "positional-only arguments passed as keyword"),
])
def test_strict_calls_that_do_not_fit_raise_pythons_error(engine, call, match):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(TypeError, match=match):
            call(xp.fuse(lambda x, dt: x * dt, strict=True), ones())


_posonly_fused = xp.fuse(_posonly, strict=True)


_SEEN: list = []   # what the wrappers below were called with: (positional count, keywords)


def _with_defaults(**defaults):
    """A decorator (functools.wraps) whose wrapper fills keywords in itself."""
    def deco(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            _SEEN.append((len(args), sorted(kwargs)))
            for k, v in defaults.items():
                kwargs.setdefault(k, v)
            return f(*args, **kwargs)
        return wrapper
    return deco


def _reads_scale(f):
    """A decorator whose wrapper reads a keyword of its own from ``**kwargs``."""
    @functools.wraps(f)
    def wrapper(x, *args, **kwargs):
        _SEEN.append((1 + len(args), sorted(kwargs)))
        return xp.multiply(f(x, *args), kwargs.get("scale", 1.0))
    return wrapper


@_with_defaults(a=10.0)
def _step(x, a=1.0, b=2.0):
    return xp.add(xp.multiply(x, a), b)     # (the stand-in CuPy array has no operators)


@_reads_scale
def _scaled(x, y=1.0):
    return xp.add(x, y)


@pytest.mark.parametrize("fn, kwargs", [(_step, {"b": 5.0}), (_step, {}),
                                        (_scaled, {"scale": 3.0}), (_scaled, {"y": 2.0})])
def test_a_wrapped_function_gets_the_call_as_written(engine, fn, kwargs):
    """``functools.wraps`` makes ``inspect.signature`` report the wrapped function's
    parameters; the call must reach the wrapper as the user wrote it (keywords stay
    keywords, no defaults filled in), on NumPy and dask (the unfused function's result)
    and on the stand-in CuPy (whose kernels compute nothing: the call the wrapper saw)."""
    import dask.array as da

    base = np.arange(6.0, dtype=np.float32)
    want = fn(base, **kwargs)
    written = (1, sorted(kwargs))
    f = xp.fuse(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xp.FusionWarning)   # **kwargs: runs unfused
        _SEEN.clear()
        np.testing.assert_array_equal(f(base, **kwargs), want)
        f(FakeCupyArray(base), **kwargs)
        xp.set_backend("dask")
        try:
            got = f(da.from_array(base, chunks=4), **kwargs)
            np.testing.assert_array_equal(got.compute(), want)
        finally:
            xp.set_backend("numpy")
    assert _SEEN and all(seen == written for seen in _SEEN), (_SEEN, written)
