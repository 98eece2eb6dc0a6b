"""The elementwise plan on the CPU: paths, and a model of the kernels' index math.

``_emulate`` decodes the packed ``xstride_ew_params`` exactly as the CUDA kernels do
(outer/rest axes in C order, inner axis, tile axis) and computes ``out = f(inputs)``
over flat NumPy buffers; the result must equal NumPy's on the same views.
"""

from __future__ import annotations

import shutil
import struct
import subprocess

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from xstride import _elementwise_plan as P
from xstride._kernels._elementwise_source import Operand, kernel_source
from xstride.layout import Layout


def _unpack(plan):
    cap, data = P.pack_params(plan)
    nops = len(plan.strides)
    n = len(data) // 8
    f = struct.unpack(f"<{n}q", data)
    it = iter(f)
    take = lambda k: [next(it) for _ in range(k)]  # noqa: E731
    total, e0, e1, ndim = take(4)
    return dict(n=total, e0=e0, e1=e1, ndim=ndim, offset=take(nops), s0=take(nops),
                s1=take(nops), shape=take(cap), strides=[take(cap) for _ in range(nops)])


def _outer(p, rows):
    offs = [np.full(rows.shape, p["offset"][k], dtype=np.int64) for k in range(len(p["offset"]))]
    r = rows.copy()
    for d in range(p["ndim"] - 1, -1, -1):
        n = p["shape"][d]
        c = r % n
        r //= n
        for k in range(len(offs)):
            offs[k] += c * p["strides"][k][d]
    return offs


def _emulate(plan):
    """Per operand, the element offsets the kernel touches, in one common order."""
    p = _unpack(plan)
    if plan.kind == "empty":
        return [np.zeros(0, np.int64) for _ in plan.strides]
    if plan.kind == "tiled":
        e0, e1 = p["e0"], p["e1"]
        rest = p["n"] // (e0 * e1)
        r, i1, i0 = np.meshgrid(np.arange(rest), np.arange(e1), np.arange(e0), indexing="ij")
        base = _outer(p, r.ravel())
        return [base[k] + i0.ravel() * p["s0"][k] + i1.ravel() * p["s1"][k]
                for k in range(len(base))]
    e = np.arange(p["n"], dtype=np.int64)
    row, col = e // p["e0"], e % p["e0"]
    base = _outer(p, row)
    return [base[k] + col * p["s0"][k] for k in range(len(base))]


def _run(out_view, out_buf, out_start, ins):
    """Compute out = sum_k (k+2) * in_k through the plan; ins: (view, buf, start)."""
    lays_in = [Layout.from_array(v) for v, _, _ in ins]
    plan = P.make_plan([Layout.from_array(out_view)], lays_in)
    offs = _emulate(plan)
    acc = np.zeros(len(offs[0]))
    for k, (_, buf, start) in enumerate(ins):
        acc += (k + 2) * buf[start + offs[k + 1]]
    # every output element must be written exactly once
    assert len(np.unique(offs[0])) == out_view.size
    out_buf[out_start + offs[0]] = acc
    return plan


def _start(buf, view):
    return (view.__array_interface__["data"][0] - buf.__array_interface__["data"][0]) // buf.itemsize


@st.composite
def operand_views(draw, shape):
    """A view of ``shape`` (or a broadcastable suffix of it) over a fresh buffer."""
    rank = len(shape)
    keep = draw(st.integers(0, rank))
    sub = list(shape[rank - keep:])
    sub = [1 if draw(st.booleans()) and draw(st.booleans()) else n for n in sub]
    perm = draw(st.permutations(range(len(sub))))
    steps = [draw(st.sampled_from([1, 1, 2, -1, -2])) for _ in sub]
    phys = [sub[a] for a in perm]
    big = [abs(s) * max(n, 1) for s, n in zip([steps[a] for a in perm], phys)]
    buf = np.random.default_rng(len(sub)).standard_normal(int(np.prod(big)) + 3)
    arr = buf[3:].reshape(big) if big else buf[3:4].reshape(())
    ix = tuple(slice(None, None, steps[a]) if steps[a] > 0 else slice(None, None, steps[a])
               for a in perm)
    arr = arr[ix] if ix else arr
    arr = arr[tuple(slice(0, n) for n in phys)] if phys else arr
    inv = np.argsort(perm) if perm else []
    view = arr.transpose(inv) if len(perm) else arr
    assert view.shape == tuple(sub)
    return view, buf, _start(buf, view)


@st.composite
def cases(draw):
    rank = draw(st.integers(0, 5))
    shape = tuple(draw(st.lists(st.integers(0, 6), min_size=rank, max_size=rank)))
    nin = draw(st.integers(1, 3))
    ins = [draw(operand_views(shape)) for _ in range(nin)]
    out_v, out_buf, out_s = draw(operand_views(shape).filter(
        lambda t: t[0].shape == shape and not Layout.from_array(t[0]).has_internal_overlap))
    return shape, ins, (out_v, out_buf, out_s)


@settings(max_examples=200, deadline=None)
@given(cases())
def test_plan_matches_numpy(case):
    shape, ins, (out_v, out_buf, out_s) = case
    want = sum((k + 2) * v for k, (v, _, _) in enumerate(ins))
    out_buf[:] = np.nan
    _run(out_v, out_buf, out_s, ins)
    np.testing.assert_array_equal(out_v, np.broadcast_to(want, shape))


def test_paths_of_the_benchmark_cases():
    n = 16
    x = np.zeros((n, n, n), np.float32)
    lay = lambda a: Layout.from_array(a)  # noqa: E731
    xt = x.transpose(2, 0, 1)
    assert P.make_plan([lay(x)], [lay(x), lay(x)]).kind == "flat"
    plan = P.make_plan([lay(np.zeros((n, n, n), np.float32))], [lay(x), lay(xt)])
    assert plan.kind == "tiled" and plan.transposed == (False, False, True)
    # same permutation and an output in the inputs' order (NumPy's K order): flat
    order = P.result_axis_order(xt.shape, [xt.strides])
    out = np.empty([xt.shape[a] for a in order], np.float32).transpose(np.argsort(order))
    assert P.make_plan([lay(out)], [lay(xt), lay(xt)]).kind == "flat"
    row = np.zeros(n, np.float32)
    assert P.make_plan([lay(x)], [lay(x), lay(row)]).kind == "rows"
    sl = np.zeros((n, 2 * n, n), np.float32)[:, ::2, :]
    plan = P.make_plan([lay(np.zeros((n, n, n), np.float32))], [lay(sl)])
    assert plan.kind == "rows" and plan.shape == (n * n, n)
    assert P.make_plan([lay(x)], [lay(x.transpose(2, 1, 0))]).kind == "tiled"
    assert P.make_plan([lay(x[:, :, ::2])], [lay(x[:, :, ::2])]).kind == "nd"
    assert P.make_plan([lay(np.zeros((0, 3)))], [lay(np.zeros((0, 3)))]).kind == "empty"
    one = P.make_plan([lay(np.zeros((1, 1)))], [lay(np.zeros(()))])
    assert one.kind == "flat" and one.size == 1


def test_keep_order_does_not_reorder():
    x = np.zeros((4, 5)).T
    plan = P.make_plan([Layout.from_array(x)], [], keep_order=True)
    assert plan.kind == "nd" and plan.shape == (5, 4)
    assert P.replay_offsets(plan, 0) == [i + 5 * j for i in range(5) for j in range(4)]


def test_negative_output_strides_are_flipped():
    buf = np.zeros(10)
    out = buf[::-1]
    plan = P.make_plan([Layout.from_array(out)], [Layout.from_array(np.zeros(10)[::-1])])
    assert plan.kind == "flat" and plan.strides[0] == (1,) and plan.offsets[0] == -9
    assert plan.strides[1] == (1,) and plan.offsets[1] == -9
    mixed = P.make_plan([Layout.from_array(out)], [Layout.from_array(np.zeros(10))])
    assert mixed.kind == "nd" and mixed.strides[1] == (-1,) and mixed.offsets[1] == 9


def test_broadcast_shapes_errors_name_both():
    assert P.broadcast_shapes((3, 1), (1, 4), ()) == (3, 4)
    with pytest.raises(ValueError, match=r"add: shapes \(2, 3\) and \(4,\)"):
        P.broadcast_shapes((2, 3), (4,), func="add")
    assert P.make_plan([Layout((2, 3))], [Layout((3,)), Layout((3,))]).kind == "rows"
    with pytest.raises(ValueError, match=r"\(2,\).*\(2, 3\)"):
        P.make_plan([Layout((2, 3))], [Layout((2,))])


def test_rank_64_plan():
    shape = (1,) * 60 + (2, 3, 2, 2)
    x = np.zeros(shape)
    xt = x.transpose(tuple(range(60)) + (63, 61, 62, 60))
    out = np.zeros(xt.shape)
    plan = P.make_plan([Layout.from_array(out)], [Layout.from_array(xt)])
    offs = _emulate(plan)
    src = np.arange(x.size, dtype=float)
    np.testing.assert_array_equal(src[offs[1]][np.argsort(offs[0])],
                                  src.reshape(shape).transpose(
                                      tuple(range(60)) + (63, 61, 62, 60)).ravel())
    big = P.make_plan([Layout((2,) * 40, tuple(3 ** i for i in range(40)))], [])
    assert P.pack_params(big)[0] == 64


def test_overlap_helpers():
    assert P.ranges_overlap((0, 8), (4, 12)) and not P.ranges_overlap((0, 8), (8, 16))
    assert not P.ranges_overlap((0, 0), (0, 8))
    assert P.byte_range(100, Layout((3,), (-1,), 2, 4)) == (100, 112)


# ------------------------------------------------------------------ generated CUDA
_SPECS = [Operand("r", "float", kind="out"), Operand("a", "float", "float"),
          Operand("b", "signed char", "float"), Operand("s", "float", "float", kind="scalar")]


def _variants():
    yield dict(kind="flat", vec=4, bcast=(False, False, True))
    yield dict(kind="flat", vec=1)
    yield dict(kind="rows", vec=4, bcast=(False, True, False), idx32=True)
    yield dict(kind="rows", vec=2, idx32=False, cap=16)
    yield dict(kind="nd", cap=64)
    yield dict(kind="tiled", trans=(False, True, False), cap=4)
    yield dict(kind="tiled", trans=(False, True, True), cap=64)
    yield dict(kind="rows", vec=1, index_var=True)


def test_generated_sources_compile_with_nvcc(tmp_path):
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not on PATH")
    from xstride._kernels._compile import include_dir

    parts = []
    for i, v in enumerate(_variants()):
        src = kernel_source(f"k{i}", v.pop("kind"), _SPECS, "r = xstride_max(a, b) + s;", **v)
        parts.append(src)
    for i, src in enumerate(parts):
        f = tmp_path / f"k{i}.cu"
        f.write_text(src)
        res = subprocess.run([nvcc, "-std=c++17", "-arch=sm_90", f"-I{include_dir()}", "--ptx",
                              "-o", str(tmp_path / f"k{i}.ptx"), str(f)],
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stderr + src
