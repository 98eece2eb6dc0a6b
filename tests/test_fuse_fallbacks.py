"""``xp.fuse`` on the CPU: what runs unfused (NumPy arrays, unfusable operations with
their warning, keyword and positional-only arguments), the strict errors, the errors of
the unfused functions, and the signature's parts (stand-in CuPy, no GPU).
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

import xstride as xp
from xstride._plans import fusion as fplan

from ._fuse_cases import check, evaluate, fake, same
from .conftest import FakeCupyArray


# ----------------------------------------------------------------------------- fallbacks
def test_numpy_arrays_run_as_written():
    calls = []

    @xp.fuse
    def f(x, y):
        calls.append(type(x))
        return x * y + 1

    x = np.arange(5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same(f(x, x), x * x + 1)
    assert calls == [np.ndarray]
    assert f.__name__ == "f"


def test_strict_on_numpy_runs_as_written_and_the_docstrings_say_so():
    # a float % and a list argument: a TypeError under strict=True where a call traces;
    # on NumPy the function runs as written, and help(xp.fuse) must not promise otherwise
    @xp.fuse(strict=True)
    def f(x, k):
        return x % 1.5 + xp.asarray(k)

    x = np.arange(4.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same(f(x, [1.0, 2.0, 3.0, 4.0]), x % 1.5 + np.asarray([1.0, 2.0, 3.0, 4.0]))
    strict_doc = xp.fuse.__doc__.split("strict : bool")[1].split("Returns")[0]
    assert "NumPy arrays" in strict_doc and "no ``TypeError``" in strict_doc
    raises_doc = xp.fusion.Fused.__call__.__doc__.split("Raises")[1]
    assert "never one on NumPy" in raises_doc.split("ValueError")[0]


def _unfused_marker(x):
    return type(x) is FakeCupyArray     # a stand-in answers isinstance like the array


@pytest.mark.parametrize("body, what", [
    (lambda x: x if x else x, "Python control flow"),
    (lambda x: x[x > 0], "indexing by Traced"),
    (lambda x: x[[0, 1]], "indexing by list"),
    (lambda x: xp.var(x * 2), r"xp.var \(only sum, prod, min, max and mean fuse\)"),
    (lambda x: xp.sum(x * 2, where=x), r"xp.sum with keyword arguments \(where\)"),
    (lambda x: xp.matmul(x, x), r"xp.matmul \(neither elementwise nor one of the fused "
                                r"views and reductions: docs/fuse.md"),
    (lambda x: xp.roll(x, 1) + x, r"xp.roll \(.*refresh ghost cells with xp.copy_into"),
    (lambda x: x @ x, "operator @"),
    (lambda x: x.mean(), r"\.mean"),
    (lambda x: float(x), r"float\(\)"),
    (lambda x: x.sum(), r"\.sum"),
    (lambda x: xp.sum((x * 2)[::-1], axis=0), "xp.sum of a view of a computed value"),
    (lambda x: (x, x[0]), "outputs of different shapes"),
    (lambda x: 3, "returning int"),
])
def test_unfusable_warns_once_and_runs_unfused(fake_cupy, body, what):
    ran = []

    def fn(x):
        if _unfused_marker(x):
            ran.append(True)
            return "unfused"
        return body(x)

    f = xp.fuse(fn)
    x = fake(np.arange(6, dtype=np.float32).reshape(2, 3))
    with pytest.warns(xp.FusionWarning, match=what):
        assert f(x) == "unfused"
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # once per signature
        assert f(x) == "unfused"
    assert ran == [True, True]
    with pytest.warns(xp.FusionWarning, match=what):   # a new signature warns again
        assert f(fake(np.arange(6, dtype=np.float64))) == "unfused"


@pytest.mark.parametrize("body, what", [
    (lambda x: x if x else x, "Python control flow"),
    (lambda x: xp.std(x), "xp.std"),
    (lambda x, y=np.ones(3): x + y, "an array that is no argument"),
    (lambda x: xp.exp(x), "float16"),                  # int8 -> float16 outside the engine
])
def test_strict_raises_type_error_naming_the_operation(fake_cupy, body, what):
    f = xp.fuse(strict=True)(body)
    with pytest.raises(TypeError, match=what):
        f(fake(np.arange(3, dtype=np.int8)))


def _suppressing(x):
    import contextlib

    if _unfused_marker(x):
        return "unfused"
    with contextlib.suppress(Exception):
        return xp.std(x)
    return x * 2


def _catching(x):
    if _unfused_marker(x):
        return "unfused"
    try:
        return xp.cumulative_sum(x)
    except:  # noqa: E722 (a bare except, as users write it)
        return x + 0


@pytest.mark.parametrize("body, what", [(_suppressing, "xp.std"),
                                        (_catching, "cumulative_sum")])
def test_a_refusal_the_function_catches_still_refuses_the_trace(fake_cupy, body, what):
    """The function catches the trace's refusal and returns its fallback: the trace is
    refused all the same (the fallback alone would fuse, but the unfused run takes the
    other branch)."""
    x = fake(np.arange(3, dtype=np.float64))
    with pytest.raises(TypeError, match=what):
        xp.fuse(strict=True)(body)(x)
    with pytest.warns(xp.FusionWarning, match=what):
        assert xp.fuse(body)(x) == "unfused"


_HALF = np.float32(0.5)


@pytest.mark.parametrize("body, what", [
    (lambda x: x * _HALF, r"a NumPy scalar that is no argument \(float32: a literal, "
                          r"global or closure value; pass it as an argument or write a "
                          r"Python scalar\)"),
    (lambda x: x + xp.asarray(0.5, dtype=x.dtype),
     r"an array that is no argument of the fused function \(numpy.ndarray: made inside "
     r"it, or a global or closure value; pass it as an argument, or write a Python "
     r"scalar for a 0-D constant\)"),
])
def test_constants_that_are_no_argument_say_what_to_pass_instead(fake_cupy, body, what):
    # a scientist's float32 constant (np.float32(0.5), xp.asarray(0.5, dtype=x.dtype)):
    # the message said only "a NumPy scalar that is no argument (float32)"
    f = xp.fuse(strict=True)(body)
    with pytest.raises(TypeError, match=what):
        f(fake(np.arange(3, dtype=np.float32)))
    doc = (__import__("pathlib").Path(__file__).parents[1] / "docs" / "fuse.md").read_text()
    assert "a NumPy scalar that is\n  not an argument (a literal `np.float32(0.5)`" in doc


@pytest.mark.parametrize("name, op", [("bitwise_left_shift", "<<"),
                                      ("bitwise_right_shift", ">>"), ("floor_divide", "//"),
                                      ("remainder", "%"), ("pow", r"\*\*"),
                                      ("nextafter", None), ("copysign", None)])
def test_an_elementwise_function_that_does_not_fuse_says_what_to_do(fake_cupy, name, op):
    """docs/fuse.md, "What fuses": ``xp.bitwise_left_shift`` (and the others here) does
    not fuse; the message said "neither elementwise nor one of the fused views and
    reductions" of an elementwise function, and not what to write instead."""
    def body(x):
        if _unfused_marker(x):
            return "unfused"
        return getattr(xp, name)(x, 2) + 1

    x = fake(np.arange(6, dtype=np.uint32))
    instead = (rf"write the operator {op} in its place \(it fuses\) or call xp.{name} "
               if op else f"call xp.{name} ") + "outside the fused function$"
    reason = (rf"xp.{name} is not supported inside xp.fuse \(docs/fuse.md, \"What "
              rf"fuses\"\); {instead}")
    with pytest.raises(TypeError, match=rf"^fuse: cannot fuse \S*body: {reason}") as info:
        xp.fuse(body, strict=True)(x)
    assert "neither elementwise" not in str(info.value)
    with pytest.warns(xp.FusionWarning, match=rf"^fuse: \S*body runs unfused: {reason}"):
        assert xp.fuse(body)(x) == "unfused"


@pytest.mark.parametrize("body, other", [
    (lambda x, h: x * h, np.float16(1.5)),               # a float16 NumPy scalar
    (lambda x, h: x * h, np.ones(3, np.float16)),        # a float16 array
    (lambda x, h: x > h, np.array(2, np.float16)),       # a 0-D float16 array
    (lambda x, h: xp.astype(h, xp.float32) + x, np.ones(3, np.float16)),
    (lambda x, h: xp.clip(x, h, None), np.float16(0.5)),
])
def test_operands_outside_the_engine_dtypes_are_refused(fake_cupy, body, other):
    """A float16 operand promoted into a float32 loop was traced, and the kernel's
    source then failed with KeyError 'float16' (no C type for it)."""
    x = fake(np.ones(3, np.float32))
    h = fake(other) if isinstance(other, np.ndarray) else other
    with pytest.raises(TypeError, match="operand of dtype float16"):
        xp.fuse(body, strict=True)(x, h)
    assert xp.fuse(body, strict=True).graph(x, h) is None   # runs unfused


@pytest.mark.parametrize("strict", [False, True])
def test_a_fused_function_called_inside_another_is_traced_inline(fake_cupy, strict):
    """The inner fused function got the outer trace's stand-ins as CuPy arrays: it
    traced them and launched, failing with ``KeyError: 0`` in ``call_layouts``, so the
    outer call ran unfused with a FusionWarning naming a KeyError (strict: TypeError)."""
    kick = xp.fuse(lambda v, a, dt: v + a * dt, strict=strict)

    def step(x, v, a, dt):
        v2 = kick(v, a, dt)
        return x + v2 * dt, v2

    x, v, a = (np.arange(6, dtype=np.float32).reshape(2, 3) + k for k in range(3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = check(step, x, v, a, 0.25)
        g2 = check(lambda x, s: kick(x, x, s) * 2, x, np.float32(3))
    assert [g.nodes[i].func for i in g.ops] == ["multiply", "add", "multiply", "add"]
    assert len(g2.ops) == 3


@pytest.mark.parametrize("body", [
    lambda x: xp.sum(x=x * 2), lambda x: xp.mean(x=x * 2, axis=0),
    lambda x: xp.permute_dims(x=x, axes=(1, 0)) * 2, lambda x: xp.reshape(x=x, shape=(6,)),
    lambda x: xp.broadcast_to(x=x, shape=(2, 2, 3)) * 2, lambda x: xp.clip(x=x, min=0.0),
    lambda x: xp.matrix_transpose(x=x) * 2, lambda x: xp.expand_dims(x=x, axis=0) * 2,
    lambda x: xp.astype(x, dtype=xp.float64), lambda x: xp.astype(x, xp.float64, False),
])
def test_positional_only_arguments_by_keyword_are_not_fused(fake_cupy, body):
    """``x`` (and astype's ``dtype``) are positional-only in the namespace: the unfused
    call raises TypeError, but the trace took them and the fused call gave a result."""
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    with pytest.raises(TypeError):
        body(a)                                          # the unfused run's error
    with pytest.raises(TypeError, match="cannot fuse"):
        xp.fuse(body, strict=True)(fake(a))
    assert xp.fuse(body).graph(fake(a)) is None


@pytest.mark.parametrize("body", [lambda x: x.mT * 2, lambda x: xp.matrix_transpose(x) * 2])
@pytest.mark.parametrize("shape", [(3,), ()])
def test_matrix_transpose_of_fewer_than_two_axes_is_the_unfused_error(fake_cupy, body, shape):
    """``.mT`` of a 1-D or 0-D value was traced as the identity, so the fused call
    returned ``x * 2`` where the unfused run raises ValueError."""
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        xp.fuse(body).graph(fake(np.ones(shape, np.float32)))
    with pytest.raises(ValueError):
        body(np.ones(shape, np.float32))                 # the unfused run's error


def test_rule_errors_are_the_unfused_errors(fake_cupy):
    def f(x, y):
        return x + y

    with pytest.raises(ValueError, match="broadcast"):
        xp.fuse(f).graph(fake(np.ones(3)), fake(np.ones(4)))
    with pytest.raises(TypeError):
        xp.fuse(f)(fake(np.ones(3)))                 # wrong argument count: fn's own error


def test_mixed_backends_give_the_unfused_error(fake_cupy):
    @xp.fuse
    def f(x, y):
        return xp.add(x, y)

    with pytest.raises(TypeError, match="different backends"):
        f(np.ones(3), fake(np.ones(3)))


def test_keyword_arguments_run_unfused_with_a_warning(fake_cupy):
    f = xp.fuse(lambda x, *, k=1: "unfused" if _unfused_marker(x) else x * k)
    with pytest.warns(xp.FusionWarning, match="keyword"):
        assert f(fake(np.ones(3)), k=2) == "unfused"


def test_static_arguments_are_part_of_the_signature(fake_cupy):
    def f(x, mode):
        return x * 2 if mode == "double" else x * 3

    fused = xp.fuse(f, strict=True)
    a = fake(np.ones(3, np.float32))
    g2, g3 = fused.graph(a, "double"), fused.graph(a, "triple")
    assert g2 is not g3 and g2 != g3


def _below(x, s):
    return x < s


def test_a_python_int_outside_the_dtype_runs_that_call_unfused_not_the_signature():
    """A new-user probe: ``x < 300`` of an int8 dask ``x`` runs unfused (NumPy compares
    by value; no int8 by-value operand holds 300), and its warning stored the whole
    signature (int8 array, int) as unfusable: every later call, ``x < 2`` too, ran
    unfused (no per-block graph), where a first call with 2 fuses. The reason is the
    value's: a later call traces again; the warning is given once per value."""
    da = pytest.importorskip("dask.array")
    a = np.arange(-3, 3, dtype=np.int8)
    x = da.from_array(a, chunks=2)
    below = xp.fuse(_below)
    with pytest.warns(xp.FusionWarning, match="Python int 300 outside the range of int8"):
        same(xp.to_numpy(below(x, 300)), np.ones(6, dtype=bool))
    assert isinstance(below.graph(x, 2), fplan.Graph)
    got = below(x, 2)
    assert any("xstride-fuse" in str(k) for k in got.dask.layers)
    same(xp.to_numpy(got), a < 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        same(xp.to_numpy(xp.fuse(_below)(x, 2)), a < 2)
        again = below(x, 300)                  # warned before: runs unfused, silent
    assert not any("xstride-fuse" in str(k) for k in again.dask.layers)
    same(xp.to_numpy(again), np.ones(6, dtype=bool))


@pytest.mark.parametrize("strict", [False, True])
def test_a_python_int_outside_the_dtype_after_one_that_fit_is_named_too(strict):
    """A new-user probe: ``x < 300`` of an int8 dask ``x`` after ``x < 1`` had fused ran
    unfused without a word, also with ``strict=True`` (the by-value refusal was made
    only by a trace); as a first call of 300, it warns once per value, or raises."""
    da = pytest.importorskip("dask.array")
    a = np.array([1, -2, 3, 100], dtype=np.int8)
    x = da.from_array(a, chunks=2)
    below = xp.fuse(_below, strict=strict)
    same(xp.to_numpy(below(x, 1)), a < 1)
    if strict:
        with pytest.raises(TypeError, match=r"^fuse: cannot fuse _below: .*Python int 300 "
                                            r"outside the range of int8"):
            below(x, 300)
        return
    with pytest.warns(xp.FusionWarning, match="Python int 300 outside the range of int8"):
        got = below(x, 300)
    same(xp.to_numpy(got), np.ones(4, dtype=bool))
    same(xp.to_numpy(below(x, 1)), a < 1)      # the signature still fuses


@pytest.mark.parametrize("name", ["concat", "stack"])
def test_a_join_of_traced_arrays_is_named_as_the_function(name):
    """A new-user probe: ``xp.concat([x, x])`` inside a fused function warned "the array
    attribute or method .chunks" (what dask's function read of the stand-in), where
    docs/fuse.md says the warning names the function."""
    da = pytest.importorskip("dask.array")
    a = np.arange(4.0)
    x = da.from_array(a, chunks=2)
    fn = getattr(xp, name)
    with pytest.warns(xp.FusionWarning, match=rf"runs unfused: xp\.{name} \(neither "
                                              r"elementwise nor one of the fused"):
        got = xp.fuse(lambda x: fn([x, x]))(x)
    same(xp.to_numpy(got), getattr(np, "concatenate" if name == "concat" else name)([a, a]))


def test_bad_arguments_of_fuse():
    with pytest.raises(TypeError, match="fuse: argument 'fn'"):
        xp.fuse(3)
    with pytest.raises(TypeError, match="fuse: argument 'strict'"):
        xp.fuse(strict="yes")
    with pytest.raises(TypeError, match=r"Fused.graph: .*backend that traces \(CuPy or dask\); "
                                        "on NumPy arrays the function runs as written"):
        xp.fuse(lambda x: x).graph(np.ones(2))


def test_signed_zero_constants_stay_apart(fake_cupy):
    x = np.array([1.0, -2.0, 0.0], np.float32)
    g = check(lambda x: (x * 0.0, xp.where(x > 0, x, -0.0)), x)
    vals = sorted(repr(h[1]) for h in g.host if h[0] == "const")
    assert "-0.0" in vals and "0.0" in vals


def test_int_power_of_scalar_arguments_is_unfusable(fake_cupy):
    f = xp.fuse(lambda x, k: x * 2 ** k, strict=True)
    with pytest.raises(TypeError, match=r"\*\* of Python int"):
        f(fake(np.ones(3, np.float32)), 3)


@pytest.mark.parametrize("dt", ["bool", "int8", "int32", "uint8", "float32", "float64"])
def test_predicates(fake_cupy, dt):
    x = np.array([0, 1, -2, 3, 7, 1, 0, 2]).astype(dt)
    if np.dtype(dt).kind == "f":
        x[1:4] = [np.nan, np.inf, -np.inf]
        x[6] = -0.0
    g = check(lambda x: (xp.isnan(x), xp.isinf(x), xp.isfinite(x), xp.logical_not(x)), x)
    assert all(g.nodes[o].dtype == "bool" for o in g.outputs)
    if np.dtype(dt).kind == "f":
        check(lambda x: xp.signbit(x), x)


def test_a_trace_that_reads_shapes_is_kept_per_shape(fake_cupy):
    fused = xp.fuse(lambda x: x * x.shape[0], strict=True)
    a, b = np.ones(3, np.float32), np.ones(5, np.float32)
    ga, gb = fused.graph(fake(a)), fused.graph(fake(b))
    assert ga.shape_dependent and ga is not gb
    assert fused.graph(fake(np.zeros(3, np.float32))) is ga
    same(evaluate(gb, (b,))[0], b * 5)
    same(evaluate(ga, (a,))[0], a * 3)
    g = xp.fuse(lambda x: x * 2, strict=True)
    assert g.graph(fake(a)) is g.graph(fake(b))          # shapes are no part of it


def test_reductions_of_views_of_computed_values_are_refused_where_the_order_differs(fake_cupy):
    """The unfused run reduces the value it stored, seen through the view (the order of
    a float sum's folds is that layout's): a reduction whose input's stored layout
    depends on a pushed view is refused (strict: TypeError); a view of an argument, or
    an operator's result (stored in C order whatever its inputs), still fuses."""
    x = fake(np.arange(12, dtype=np.float32).reshape(3, 4))
    for fn in (lambda x: xp.max((x + 1).T, axis=1),
               lambda x: xp.sum(xp.multiply((x + 1).T, 2.0)),     # the engine's order
               lambda x: xp.mean(xp.astype((x * 2)[:, ::-1], xp.float64))):
        with pytest.raises(TypeError, match="view of a computed value"):
            xp.fuse(fn, strict=True)(x)
    for fn in (lambda x: xp.sum(x[::-1] * 2, axis=0), lambda x: xp.sum((x + 1).T * 2.0),
               lambda x: xp.sum(xp.multiply(x.T, 2.0))):
        assert xp.fuse(fn, strict=True).graph(x).reductions


def test_the_stored_layout_check_visits_a_shared_subexpression_once():
    """A chain that reuses its value through xp functions (``y = xp.add(y, xp.multiply(h,
    y))``) doubles the paths per step: the check and the virtual layout must stay linear
    in the nodes."""
    import time
    import types

    from xstride._plans import fusion as fplan

    nodes = [fplan.Load(0, (), "float32")]
    for _ in range(60):
        i = len(nodes) - 1
        nodes.append(fplan.Op("multiply", (i, i), ("float32", "float32"), "float32", "xp"))
    t0 = time.perf_counter()
    assert fplan.stored_layout_known(nodes, len(nodes) - 1)
    # the layout itself, the inputs' order (a transposed argument: F order) throughout
    from xstride.layout import Layout

    lays = [Layout((4, 3), (1, 4), 0, 4)] + [None] * (len(nodes) - 1)
    graph = types.SimpleNamespace(nodes=nodes)   # virtual_layout reads the nodes only
    vl = fplan.virtual_layout(graph, len(nodes) - 1, [(4, 3)] * len(nodes), lays, 4)
    assert vl.strides == (1, 4)
    nodes.append(fplan.Op("negative", (len(nodes) - 1,), ("float32",), "float32", "xp",
                          pushed=True))
    nodes.append(fplan.Op("add", (len(nodes) - 1, 0), ("float32", "float32"), "float32", "xp"))
    assert not fplan.stored_layout_known(nodes, len(nodes) - 1)
    assert time.perf_counter() - t0 < 1.0     # 2**60 paths if walked path by path


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("x, bound, error, said", [
    (np.array([True, False]), -200, TypeError, "argument 'min'"),        # int bound of bools
    (np.arange(4, dtype=np.int8), 0.5, TypeError, "argument 'min'"),     # float of ints
    (np.arange(4, dtype=np.int8), 300, OverflowError, "argument 'min'"),  # past int8's end
    (np.ones(3, np.float32), np.ones(3, np.float64), TypeError, "argument 'min'"),
    (np.arange(3, dtype=np.int16), np.ones(3, np.float32), TypeError, "argument 'min'"),
])
def test_clip_inside_fuse_checks_its_bounds_as_the_unfused_call(fake_cupy, strict, x, bound,
                                                                error, said):
    """The tracer's ``clip`` converted every bound to ``x``'s dtype (a bool ``x`` clipped
    by -200, a float64 array bound of float32): the fused call answered where the
    unfused call raises, naming the bound."""
    body = lambda x, b: xp.clip(x, b)   # noqa: E731
    with pytest.raises(error, match=said):
        body(x, bound)                                   # the unfused (NumPy) call
    b = fake(bound) if isinstance(bound, np.ndarray) else bound
    with pytest.raises(error, match=f"^clip: {said}"):
        xp.fuse(body, strict=strict)(fake(x), b)


def test_clip_inside_fuse_takes_a_narrower_array_bound_and_drops_a_near_int(fake_cupy):
    x = np.arange(-3, 3, dtype=np.int64)
    check(lambda x, b: xp.clip(x, b, 2**63 - 1), x, np.full(6, -1, np.int8))
    check(lambda x: xp.clip(x, -2**63, 1), x)


def test_a_recursive_function_that_does_not_fuse_traces_and_warns_once(fake_cupy):
    """A fused function calling itself from its unfused run traced and warned again at
    every level (the signature's entry was stored only after the outermost run): one
    trace and one warning per signature. An unfused run that raises keeps nothing, and
    ``strict=True`` still raises at each call."""
    traced = []

    @xp.fuse
    def f(x, n):
        traced.append(type(x) is not FakeCupyArray)
        if n <= 0:                                   # bool() of a scalar argument
            return x
        return f(x, n - 1)

    x = fake(np.arange(3, dtype=np.float32))
    with pytest.warns(xp.FusionWarning, match="control flow on a scalar argument") as got:
        assert f(x, 5) is x
    assert len(got) == 1 and traced.count(True) == 1 and len(traced) == 7

    @xp.fuse
    def g(x, n):
        if n > 3:
            raise ValueError("too deep")
        return g(x, n + 1)

    for _ in range(2):              # raised at the bottom: nothing kept, warned never
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(ValueError, match="too deep"):
                g(x, 0)
    assert g._graphs == {}

    s = xp.fuse(lambda x, n: x if n else x, strict=True)
    for _ in range(2):
        with pytest.raises(TypeError, match="cannot fuse .*<lambda>: Python control flow"):
            s(x, 1)


def test_the_unfused_warning_names_the_caller_s_line(fake_cupy):
    """The ``FusionWarning`` of a signature found unfusable by its trace named a line
    of ``xstride/fusion/__init__.py`` (the unfused run moved one frame deeper), not the
    user's call, so a filter on the caller's module missed it; it names the call again,
    as the warning of keyword arguments (found without a trace) does."""
    x = fake(np.arange(3, dtype=np.float32))
    f = xp.fuse(lambda x, n: x if n else x)      # bool() of a scalar: found by the trace
    with pytest.warns(xp.FusionWarning, match="control flow") as got:
        line = sys._getframe().f_lineno + 1
        f(x, 1)
    assert (got[0].filename, got[0].lineno) == (__file__, line)

    def h(x, *, k=1):
        return x
    g = xp.fuse(h)                                 # keyword-only: found before a trace
    with pytest.warns(xp.FusionWarning, match="keyword") as got:
        line = sys._getframe().f_lineno + 1
        g(x, k=2)
    assert (got[0].filename, got[0].lineno) == (__file__, line)


def test_a_branch_on_a_scalar_argument_runs_unfused_and_the_docs_say_so(fake_cupy):
    # a scientist's check of a step size inside the function: the kernel takes dt by
    # value, so the branch cannot be traced; docs/fuse.md named only array values
    def step(x, dt):
        if dt <= 0:
            raise ValueError("dt must be positive")
        return x + dt

    x = np.arange(3, dtype=np.float32)
    with pytest.raises(TypeError, match=r"Python control flow on a scalar argument"):
        xp.fuse(step, strict=True)(fake(x), 0.5)

    def flagged(x, mode):              # the docs' way out: a str is part of the signature
        return x * 2 if mode == "double" else x + 1

    assert xp.fuse(flagged, strict=True).graph(fake(x), "double") is not None
    doc = (__import__("pathlib").Path(__file__).parents[1] / "docs" / "fuse.md").read_text()
    assert "or on a scalar\n  argument (`if dt <= 0: raise ValueError(...)`" in doc
