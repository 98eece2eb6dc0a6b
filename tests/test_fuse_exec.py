"""The fusion executor on the stand-in CuPy (no GPU): what a fused call hands to the
engine's kernel — the loads' pointers (the argument's pointer plus the view's byte
offset), the by-value scalars, the outputs — on the first call and on the prepared
repeat, which must launch the same kernel with the same arguments."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp
from xstride._kernels import _elementwise_exec as ex
from xstride._kernels import fusion as fx

from ._fuse_cases import _numpy_view
from .conftest import FakeCupyArray


def engine_on_stand_in(fake_cupy, monkeypatch):
    """The engine (and ``xp.fuse``) compiling through the stand-in's recording
    ``RawModule``, with empty caches, for one test (a generator: the body of a fixture);
    yields the stand-in module."""
    monkeypatch.setattr(ex, "function", lambda name, *, code=None, options=(), **_:
                        fake_cupy.RawModule(code=code, options=options).get_function(name))
    monkeypatch.setattr(ex, "CACHE", True)
    monkeypatch.setattr(fx, "view_of", lambda a, lay: a._view(_numpy_view(a.host, lay)))
    # the prepared calls' gate opens on the stand-in, even where an earlier test of the
    # process opened it on a real CuPy (restored afterwards)
    from xstride._kernels._prepared import GATE

    monkeypatch.setattr(GATE, "nd", None)
    monkeypatch.setattr(GATE, "getdev", GATE.getdev)
    ex.clear_caches()
    fx.clear()
    yield fake_cupy
    ex.clear_caches()
    fx.clear()


@pytest.fixture
def engine(fake_cupy, monkeypatch):
    yield from engine_on_stand_in(fake_cupy, monkeypatch)


def launched(fake_cupy, nptr, npre=1):
    """Pointer and scalar arguments of the last launch (after the plan struct, and the
    tiled walk's counts: ``npre`` leading arguments)."""
    kernel, grid, block, args = fake_cupy.launches[-1]
    return [int(a) for a in args[npre:npre + nptr]], list(args[npre + nptr:])


def test_push_first_call_and_prepared_repeat(engine):
    x, v, a = (FakeCupyArray(np.full((64, 3), k, np.float32)) for k in (1, 2, 3))

    @xp.fuse
    def push(x, v, a, dt):
        return x + v * dt + 0.5 * a * dt * dt, v + a * dt

    r = push(x, v, a, 0.25)
    assert isinstance(r, tuple) and len(r) == 2
    assert all(o.shape == (64, 3) and o.dtype == np.float32 for o in r)
    assert ex.last_kind == "flat" and len(engine.launches) == 1
    assert "xs_ew_fused_flat" == engine.launches[-1][0].name
    src = engine.launches[-1][0].source
    assert "__fmul_rn" in src and "__fadd_rn" in src
    ptrs, scalars = launched(engine, 5)
    assert ptrs == [r[0].data.ptr, r[1].data.ptr, x.data.ptr, v.data.ptr, a.data.ptr]
    assert scalars == [np.float32(0.25), np.float32(0.5)]
    assert len(fx.PREPARED) == 1

    r2 = push(x, v, a, 0.125)                  # the prepared call: same kernel, new dt
    assert len(engine.launches) == 2 and engine.launches[-1][0] is engine.launches[0][0]
    ptrs, scalars = launched(engine, 5)
    assert ptrs[2:] == [x.data.ptr, v.data.ptr, a.data.ptr]
    assert ptrs[:2] == [r2[0].data.ptr, r2[1].data.ptr] and r2[0].data.ptr != r[0].data.ptr
    assert scalars == [np.float32(0.125), np.float32(0.5)]
    assert len(fx.PREPARED) == 1


def test_jacobi_loads_point_into_u(engine):
    u = FakeCupyArray(np.zeros((34, 40), np.float64))
    c = u[1:-1, 1:-1]

    @xp.fuse
    def jacobi(u, c):
        return c + 0.1 * (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * c)

    for _ in range(2):
        out = jacobi(u, c)
        assert out.shape == (32, 38)
        ptrs, scalars = launched(engine, 6)
        base = u.data.ptr
        assert sorted(p - base for p in ptrs[1:]) == sorted(
            8 * o for o in (41, 81, 1, 42, 40))
        assert scalars == [np.float64(4.0), np.float64(0.1)]
    assert ex.last_kind == "rows"
    assert len(fx.PREPARED) == 1


def test_transposed_operand_takes_the_tiled_path(engine):
    x = FakeCupyArray(np.ones((256, 128), np.float32))
    aT = FakeCupyArray(np.ones((128, 256), np.float32))
    f = xp.fuse(lambda x, a: x + 2 * a.T)
    out = f(x, aT)
    assert out.shape == (256, 128) and ex.last_kind == "tiled"
    ptrs, _ = launched(engine, 3, npre=7)
    assert ptrs[1:] == [x.data.ptr, aT.data.ptr]


def test_a_new_shape_or_dtype_misses_and_a_numpy_scalar_is_passed_by_value(engine):
    f = xp.fuse(lambda x, s: x * s)
    x = FakeCupyArray(np.ones(10, np.float32))
    assert f(x, np.float64(2)).dtype == np.float64
    assert f(FakeCupyArray(np.ones(12, np.float32)), np.float64(3)).dtype == np.float64
    assert len(fx.PREPARED) == 2
    _, scalars = launched(engine, 2)
    assert scalars == [np.float64(3)]


def test_outputs_of_different_call_time_shapes_run_unfused(engine):
    # traced with equal shapes; a later call whose outputs differ runs fn unfused
    ran = []

    def f(x, y):
        if type(x) is FakeCupyArray:     # the unfused run (a stand-in passes isinstance)
            ran.append(True)
            return "unfused"
        return x + 1, x + y

    fused = xp.fuse(f)
    a = FakeCupyArray(np.ones((3, 4), np.float32))
    assert len(fused(a, a)) == 2
    assert fused(FakeCupyArray(np.ones((1, 4), np.float32)),
                 FakeCupyArray(np.ones((3, 4), np.float32))) == "unfused"
    assert ran == [True]


def test_empty_arrays(engine):
    f = xp.fuse(lambda x: x * 2)
    out = f(FakeCupyArray(np.ones((0, 3), np.float32)))
    assert out.shape == (0, 3) and not engine.launches
    out = f(FakeCupyArray(np.ones((0, 3), np.float32)))      # prepared: no launch
    assert out.shape == (0, 3) and not engine.launches


def test_key_function_gives_the_key_of_the_loop(engine):
    """The key written out for one set of argument kinds equals the general key for
    arguments of those kinds, and is the general key (or None) for any others."""
    nd = FakeCupyArray
    a, b = FakeCupyArray(np.ones((4, 3), np.float32)), FakeCupyArray(np.ones(3, np.int64))
    owner = object()
    cases = [(a, b, 0.5), (a,), (), (a, np.float64(2), True), (np.int8(3), a, 2, 1j)]
    for args in cases:
        kinds = tuple(fx._kind(v) for v in args)
        key = fx._key_function(kinds)
        assert key(owner, args, nd, 3) == fx._key(owner, args, nd, 3)
        for other in cases:                       # other kinds: the general key
            assert key(owner, other, nd, 3) == fx._key(owner, other, nd, 3)
        assert fx._key_function(kinds) is key     # generated once per kinds
    # an argument that is no array or scalar: no key, as the general key
    assert fx._key_function(("a", float))(owner, (a, "s"), nd, 0) is None
    assert fx._key_function(("a",))(owner, (a[None],), FakeCupyArray, 0) == \
        fx._key(owner, (a[None],), FakeCupyArray, 0)


def test_prepared_repeat_rounds_python_floats_as_numpy(engine):
    """A Python float for a float32 or float64 scalar reaches the kernel as its NumPy
    scalar of that dtype would: rounded once, overflow to inf; an int still through
    the NumPy scalar (range checked)."""
    f = xp.fuse(lambda x, s: x * s)
    for dt in (np.float32, np.float64):
        x = FakeCupyArray(np.ones(10, dt))
        f(x, 0.5)
        for s in (0.1, 1 / 3, 1e300, -1e-50, 7e-46, float("inf")):
            with np.errstate(over="ignore"):
                f(x, s)
                want = np.asarray(s, dtype=dt)[()]
            _, scalars = launched(engine, 2)
            assert np.asarray(scalars[0]).tobytes() == want.tobytes()
        # past the dtype's range NumPy's cast warns (or raises under errstate): the
        # repeat as the first call
        if dt is np.float32:
            with pytest.warns(RuntimeWarning, match="overflow"):
                f(x, 1e39)
            with np.errstate(over="raise"), pytest.raises(FloatingPointError):
                f(x, -3.5e38)
            f(x, 3.4028235e38)                       # rounds to FLT_MAX: no warning
    xi = FakeCupyArray(np.ones(10, np.int8))
    f(xi, 3)
    f(xi, 5)
    _, scalars = launched(engine, 2)
    assert type(scalars[0]) is np.int8 and scalars[0] == 5
    with pytest.raises(OverflowError):          # __call__ then takes the checked path
        fx.repeat(f, (xi, 1000))
    assert len(fx.PREPARED) == 3


def _twice(x):
    y = x * 2
    return y, x + 1, y, x + 1


def test_a_value_returned_twice_is_one_output_returned_twice(engine):
    """``return y, y``: the unfused run returns one array object at both places (an
    in-place change of one shows in the other), the fused call gave two arrays, and its
    kernel wrote the value twice. Now one output, the same object at each place, on the
    first call and on the prepared repeat; ``x + 1`` computed twice stays two arrays,
    as unfused."""
    x = FakeCupyArray(np.ones((8, 3), np.float32))
    f = xp.fuse(_twice)
    assert len(f.graph(x).outputs) == 3
    for call in range(2):
        r = f(x)
        assert len(r) == 4 and r[0] is r[2] and r[1] is not r[3] and r[0] is not r[1]
        ptrs, _ = launched(engine, 4)
        assert ptrs == [r[0].data.ptr, r[1].data.ptr, r[3].data.ptr, x.data.ptr]
    assert len(engine.launches) == 2 and len(fx.PREPARED) == 1
    s = xp.fuse(lambda x: (lambda t: (t, t))(xp.sum(x * 2)))(x)    # a reduction's result
    assert s[0] is s[1]


def test_keywords_naming_positional_parameters_are_fused(engine):
    """``push(x, v, a, dt=0.25)`` is ``push(x, v, a, 0.25)``: the same prepared kernel,
    no warning; a keyword after a gap takes the default before it."""
    import warnings

    x, v, a = (FakeCupyArray(np.full((64, 3), k, np.float32)) for k in (1, 2, 3))

    @xp.fuse
    def push(x, v, a, dt=0.5, scale=1.0):
        return x + v * dt + 0.5 * a * dt * dt * scale

    with warnings.catch_warnings():
        warnings.simplefilter("error")            # a FusionWarning would fail the test
        push(x, v, a, 0.25)
        kernel = engine.launches[-1][0]
        for call in (lambda: push(x, v, a, dt=0.25), lambda: push(x, v=v, a=a, dt=0.25),
                     lambda: push(dt=0.25, a=a, v=v, x=x)):
            n = len(engine.launches)
            call()
            assert len(engine.launches) == n + 1 and engine.launches[-1][0] is kernel
            assert launched(engine, 4)[1][:1] == [np.float32(0.25)]
        push(x, v, a, scale=2.0)                  # dt's default fills the gap
        scalars = launched(engine, 4)[1]          # dt, then the literal 0.5, then scale
        assert scalars[0] == np.float32(0.5) and scalars[-1] == np.float32(2.0)
    assert len(fx.PREPARED) == 2                  # (x, v, a, float) and (..., float, float)


def test_keyword_only_parameters_and_wrong_keywords_run_unfused(engine):
    import pytest

    @xp.fuse
    def scaled(x, *, k=2.0):
        return x * k

    x = FakeCupyArray(np.ones(8, np.float32))
    with pytest.warns(xp.FusionWarning, match="keyword-only"):
        with pytest.raises(TypeError):        # the stand-in has no operators: ran unfused
            scaled(x, k=3.0)
    with pytest.raises(TypeError, match="unexpected keyword argument 'q'"):
        xp.fuse(lambda x, dt: x * dt)(x, q=1.0)           # Python's error, no warning first
    with pytest.raises(TypeError, match="multiple values for argument 'dt'"):
        xp.fuse(lambda x, dt: x * dt)(x, 1.0, dt=2.0)


def _unfused_marks(body):
    """``body`` traced; run unfused (the stand-in's arrays have no operators), it
    returns ``("unfused", args)`` instead."""
    def fn(*args):
        if type(args[0]).__name__ != "Traced":
            return ("unfused", args)
        return body(*args)
    fn.__qualname__ = body.__name__
    return fn


def test_a_host_scalar_that_turns_complex_on_the_repeat_path_runs_unfused(engine):
    """A new-user probe: the prepared repeat converted ``s ** 0.5`` of ``s < 0`` (a
    Python complex) to float32 and raised ``TypeError`` to the user; now the checked
    path, which runs the call unfused (with a FusionWarning naming why)."""
    x = FakeCupyArray(np.arange(4, dtype=np.float32))

    def root(x, s):
        return x * s ** 0.5

    f = xp.fuse(_unfused_marks(root))
    assert f(x, 4.0).dtype == np.float32
    assert f(x, 9.0).dtype == np.float32      # the prepared repeat from here
    assert len(engine.launches) == 2
    with pytest.warns(xp.FusionWarning, match=r"root runs unfused: the fused kernel cannot "
                                              r"run this call \(TypeError"):
        got = f(x, -4.0)
    assert got[0] == "unfused" and len(engine.launches) == 2


def test_a_reshape_the_kernel_cannot_run_says_so(engine):
    """A new-user probe: ``(x.T + 1).reshape(-1)`` (the reshape pushed onto the load
    ``x.T`` needs a copy) made the engine refuse the run, and the call ran unfused with
    no word, also with ``strict=True``; now a FusionWarning, strict's TypeError."""
    x = FakeCupyArray(np.arange(12, dtype=np.float32).reshape(4, 3))

    def flat_t(x):
        return (x.T + 1).reshape(-1)

    with pytest.warns(xp.FusionWarning, match=r"flat_t runs unfused: the fused kernel "
                                              r"cannot run this call \(ValueError: fuse: "
                                              r"reshape of \(3, 4\)"):
        got = xp.fuse(_unfused_marks(flat_t))(x)
    assert got[0] == "unfused" and engine.launches == []
    with pytest.raises(TypeError, match=r"^fuse: cannot fuse flat_t: the fused kernel "
                                        r"cannot run this call"):
        xp.fuse(_unfused_marks(flat_t), strict=True)(x)
