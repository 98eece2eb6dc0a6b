"""The reductions of ``xp.fuse`` on the CPU (no GPU): what the tracer records, the
layout of the virtual intermediate and its walk, the generated input type compiled
with NVRTC into every reduction kernel, and the launch on the stand-in CuPy, which must
be the launch the unfused ``xp.sum`` makes for the stored intermediate (same kernel,
grid, block, descriptor): the same order of combination, hence the same bits."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import xstride as xp
from xstride._kernels import _fusion_reduce as fr
from xstride._kernels import _compile
from xstride._kernels import _reduce_common as rc
from xstride._kernels import reductions as kr
from xstride._kernels import fusion as fx
from xstride._kernels._fusion_source import reduce_source
from xstride._kernels._lru import Bounded
from xstride._kernels._prepared import GATE, Store
from xstride._plans import fusion as fplan
from xstride.layout import Layout

from ._fuse_cases import _numpy_view
from .conftest import FakeCupyArray
from .test_cuda_headers_nvrtc import nvrtc

needs_nvrtc = pytest.mark.skipif(nvrtc is None, reason="cuda-bindings/nvrtc not importable")


def fake(a):
    return FakeCupyArray(np.asarray(a))


def graph_of(fn, *arrays):
    return xp.fuse(fn, strict=True).graph(*[fake(a) if isinstance(a, np.ndarray) else a
                                            for a in arrays])


# ----------------------------------------------------------------------------- the trace
def test_kinetic_energy_traces_a_reduction_then_a_scalar_product(fake_cupy):
    m, v = np.ones(8, np.float32), np.ones((8, 3), np.float32)
    g = graph_of(lambda m, v: 0.5 * xp.sum(m[:, None] * v * v), m, v)
    (red,) = g.reductions
    assert (red.func, red.axes, red.keepdims, red.out, red.arg) == ("sum", (0, 1), False,
                                                                    "float32", 2)
    assert g.nodes[red.input].func == "multiply"
    # the elementwise kernel after it: one load (the reduction's result), one op
    assert [g.nodes[i].arg for i in g.loads] == [2]
    assert [g.nodes[i].func for i in g.ops] == ["multiply"]
    pre = fplan.pre_graph(g, red)
    assert [g.nodes[i].arg for i in pre.loads] == [1, 0] and len(pre.ops) == 2


@pytest.mark.parametrize("fn, func, axes, out", [
    (lambda x: xp.sum(x * 2, axis=1), "sum", (1,), "int64"),
    (lambda x: xp.prod(x + 1, axis=(0, -1), dtype=xp.float64), "prod", (0, 1), "float64"),
    (lambda x: xp.min(x - 1, axis=-1, keepdims=True), "min", (1,), "int8"),
    (lambda x: xp.max(x > 1), "max", (0, 1), "bool"),
    (lambda x: xp.mean(x * 3, axis=(0,)), "mean", (0,), "float64"),
    (lambda x: xp.sum(x), "sum", (0, 1), "int64"),
])
def test_reduction_dtypes_and_axes_follow_the_unfused_rules(fake_cupy, fn, func, axes, out):
    x = np.ones((4, 5), np.int8)
    g = graph_of(fn, x)
    (red,) = g.reductions
    assert (red.func, red.axes, red.out) == (func, axes, out)
    assert g.outputs == (g.loads or g.outputs)   # the result itself is the output


def test_results_only_and_several_reductions(fake_cupy):
    x = np.ones((4, 5), np.float32)
    g = graph_of(lambda x: (xp.sum(x * 2, axis=0), xp.max(x - 1)), x)
    assert [r.func for r in g.reductions] == ["sum", "max"]
    assert g.ops == () and len(g.outputs) == 2          # no kernel after them
    # a reduction of a reduction's result, and one whose result goes unused
    g = graph_of(lambda x: (xp.sum(x * 2, axis=0), x - xp.mean(x * 1, axis=0))[1], x)
    assert [r.func for r in g.reductions] == ["mean"]
    g = graph_of(lambda x: xp.sum(x - xp.mean(x * 2, axis=1, keepdims=True)), x)
    assert [r.func for r in g.reductions] == ["mean", "sum"]
    assert g.reductions[1].arg == 2 and g.reductions[0].arg == 1


@pytest.mark.parametrize("body, what", [
    (lambda x: xp.sum(x, axis=0, where=x), r"xp.sum with keyword arguments \(where\)"),
    (lambda x: xp.sum(x * 2, dtype=xp.bool), "xp.sum into dtype bool"),
    (lambda x: xp.mean(x * 2, dtype=xp.int32), "xp.mean into dtype int32"),
    (lambda x: xp.sum(x * 2, 0), "positional arguments after x"),
    (lambda x: xp.max(x * 2, keepdims=1), "keepdims=1"),
    (lambda x: xp.var(x * 2), "xp.var"),
    (lambda x, s: xp.sum(s), "xp.sum of a value that is no traced array"),
])
def test_unfusable_reductions_name_the_operation(fake_cupy, body, what):
    x = fake(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match=what):
        xp.fuse(body, strict=True)(*((x, np.float32(2)) if body.__code__.co_argcount == 2
                                     else (x,)))


def test_a_numpy_bool_keepdims_fuses_as_the_unfused_call_takes_it(fake_cupy):
    """``keepdims=np.True_`` is a bool to the namespace's reductions; the trace refused
    it (``strict=True``: TypeError "keepdims=np.True_ (not a bool)")."""
    g = graph_of(lambda x: xp.sum(x * 2, axis=1, keepdims=np.True_), np.ones((2, 3)))
    (red,) = g.reductions
    assert red.keepdims is True and red.axes == (1,)
    g = graph_of(lambda x: xp.max(x * 2, keepdims=np.False_), np.ones((2, 3)))
    assert g.reductions[0].keepdims is False


def test_bad_axis_gives_the_unfused_error(fake_cupy):
    x = fake(np.ones((2, 3), np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="out of range"):
            xp.fuse(lambda x: xp.sum(xp.multiply(x, 2), axis=2))(x)
        with pytest.raises(TypeError, match="axis"):
            xp.fuse(lambda x: xp.sum(xp.multiply(x, 2), axis=1.5))(x)


# ----------------------------------------------------------------------------- layouts
def _call_shapes(g, red, *arrays):
    pre = fplan.pre_graph(g, red)
    lays = [Layout.from_array(a) for a in arrays]
    shapes, nlays = fplan.node_shapes(pre, lays, red.input + 1)
    return pre, shapes, nlays


def test_virtual_layout_c_order_for_operators_inputs_order_for_the_engine(fake_cupy):
    a = np.ones((6, 4), np.float32)
    for fn, strides in [(lambda a: xp.sum(a.T * 2), (6, 1)),
                        (lambda a: xp.sum(xp.multiply(a.T, 2)), (1, 4)),
                        (lambda a: xp.sum(xp.exp(a.T) * a.T), (6, 1)),
                        # CuPy's exp stores C order, the engine's add keeps it
                        (lambda a: xp.sum(xp.add(xp.exp(a.T), 1)), (6, 1)),
                        (lambda a: xp.sum(xp.add(xp.multiply(a.T, 2), 1)), (1, 4)),
                        (lambda a: xp.sum(a.T.astype(xp.float64)), (1, 4)),
                        (lambda a: xp.sum(xp.clip(a.T, 0, 1)), (1, 4)),
                        (lambda a: xp.sum(xp.clip(a.T * 1, 0, 1)), (6, 1))]:
        g = graph_of(fn, a)
        (red,) = g.reductions
        pre, shapes, nlays = _call_shapes(g, red, fake(a))
        vl = fplan.virtual_layout(pre, red.input, shapes, nlays, 4)
        assert (vl.shape, vl.strides, vl.offset) == ((4, 6), strides, 0)


def test_reduce_walk_coalesces_and_keeps_broadcasts():
    vl = Layout((8, 3), (3, 1), 0, 4)
    ext, strs = fplan.reduce_walk(vl, [Layout((8, 3), (3, 1)), Layout((8, 1), (1, 0))])
    assert ext == (8, 3) and strs == ((3, 1), (1, 0))
    ext, strs = fplan.reduce_walk(vl, [Layout((8, 3), (3, 1)), Layout((8, 3), (6, 2))])
    assert ext == (24,) and strs == ((1,), (2,))
    # the virtual array in F order: the walk goes along its memory
    vl = Layout((8, 3), (1, 8), 0, 4)
    ext, strs = fplan.reduce_walk(vl, [Layout((8, 3), (3, 1))])
    assert ext == (3, 8) and strs == ((1, 3),)
    ext, _ = fplan.reduce_walk(Layout((8, 1, 3), (3, 3, 1)), [Layout((8, 1, 3), (0, 0, 1))])
    assert ext == (8, 3)


def test_magic_division_constants():
    rng = np.random.default_rng(0)
    for d in list(range(1, 70)) + [int(v) for v in rng.integers(1, 2**32, 200)]:
        mg = fplan.magic(d)
        m, s1, s2 = mg & 0xFFFFFFFF, (mg >> 32) & 255, mg >> 40
        for n in [0, 1, d - 1, d, d + 1, 2**32 - 1] + [int(v) for v in rng.integers(0, 2**32, 20)]:
            n &= 0xFFFFFFFF
            t = (m * n) >> 32
            assert (t + ((n - t) >> s1)) >> s2 == n // d


# ----------------------------------------------------------------------------- NVRTC
def _nvrtc_build(source: str, exprs) -> None:
    from .test_cuda_headers_nvrtc import _check
    from xstride._kernels._compile import include_dir

    (prog,) = _check(nvrtc.nvrtcCreateProgram(source.encode(), b"fused.cu", 0, [], []),
                     "create")
    try:
        for e in exprs:
            _check(nvrtc.nvrtcAddNameExpression(prog, e.encode()), e)
        opts = [b"-arch=sm_90", b"-std=c++17", f"-I{include_dir()}".encode()]
        res = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        (size,) = _check(nvrtc.nvrtcGetProgramLogSize(prog), "log size")
        log = bytes(max(size, 2))
        _check(nvrtc.nvrtcGetProgramLog(prog, log), "log")
        assert res[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS, log.decode(errors="replace")
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


_KERNELS = [
    "xs_reduce_rows_warp<{op}, {t}, {a}, {o}, 4, 1, 4, 3, 8>",
    "xs_reduce_rows_group<{op}, {t}, {a}, {o}, 4, 1, 4, 4, 4>",
    "xs_reduce_rows_group<{op}, {t}, {a}, {o}, 4, 4, 1, 4, 4>",
    "xs_reduce_rows_block<{op}, {t}, {a}, {o}, 4, 4, 1, 3, 8>",
    "xs_reduce_rows_block<{op}, {t}, {a}, {o}, 4, 1, 2, 3, 8>",   # V = 2: 8-byte dense loads
    "xs_reduce_cols<{op}, {t}, {a}, {o}, 4, 1, 4, 3, 8>",
    "xs_reduce_cols<{op}, {t}, {a}, {o}, 4, 4, 1, 3, 1>",
    "xs_reduce_short<{op}, {t}, {a}, {o}, 4, 1, 4, 6, 4>",
    "xs_reduce_short<{op}, {t}, {a}, {o}, 4, 4, 1, 6, 4>",
    "xs_reduce_tile<{op}, {t}, {a}, {o}, 4, 1, 1, 2, 8, 32768>",
    "xs_reduce_interleave<{op}, {t}, {a}, {o}, 4, 1, 1, 4, 8>",
]


@needs_nvrtc
@pytest.mark.parametrize("w32", [True, False])
@pytest.mark.parametrize("case", ["kinetic", "ints", "scalars", "narrow", "wide"])
def test_fused_input_compiles_into_every_reduction_kernel(fake_cupy, case, w32):
    f32, i8 = np.ones((8, 3), np.float32), np.ones((8, 3), np.int8)
    fn, arrays, types = {
        "kinetic": (lambda m, v: xp.sum(m[:, None] * v * v), (np.ones(8, np.float32), f32),
                    [(0, "float", "double", "float"), (7, "float", "double", "float"),
                     (3, "float", "float", "float")]),
        "ints": (lambda a, b: xp.sum(a > b.T[::-1].T), (i8, i8),
                 [(0, "bool", "long long", "long long"), (2, "bool", "int", "bool")]),
        "scalars": (lambda a, s, t: xp.sum(xp.where(a > s, a * t, -a)), (f32, 0.5, np.float64(2)),
                    [(0, "double", "double", "double")]),
        "narrow": (lambda a, b: xp.sum(a * b // 3 + (a * 2) ** 2), (i8, i8),
                   [(0, "signed char", "long long", "long long"),
                    (2, "signed char", "int", "signed char"),
                    (7, "signed char", "double", "double")]),
        "wide": (lambda a, b: xp.max(a.astype(xp.uint64) % 7 + b.astype(xp.uint64)), (i8, i8),
                 [(3, "unsigned long long", "unsigned long long", "unsigned long long"),
                  (1, "unsigned long long", "unsigned long long", "unsigned long long")]),
    }[case]
    g = graph_of(fn, *arrays)
    pre = fplan.pre_graph(g, g.reductions[0])
    # with w32 every load but bool ones as a dense load (read by vectors), without
    # none: both walks compile into every kernel
    dense = tuple(k for k, i in enumerate(pre.loads) if pre.nodes[i].dtype != "bool") if w32 else ()
    assert not w32 or dense
    src = reduce_source(pre, 2, w32, dense) + rc.source("reductions.cu")
    exprs = [k.format(op=op, t=t, a=a, o=o) for op, t, a, o in types for k in _KERNELS]
    # the interleave kernel's word walk: 16-byte words of the fused input's elements
    size = {"bool": 1, "signed char": 1, "int": 4, "float": 4, "double": 8, "long long": 8,
            "unsigned long long": 8}
    exprs += [f"xs_reduce_interleave<{op}, {t}, {a}, {o}, 4, 1, {16 // size[t]}, 2, 4>"
              for op, t, a, o in types]
    _nvrtc_build(src, exprs)


# ----------------------------------------------------------------------------- the launch
@pytest.fixture
def stand_in(fake_cupy, monkeypatch):
    monkeypatch.setattr(fx, "view_of", lambda a, lay: a._view(_numpy_view(a.host, lay)))

    # fresh caches: a cached launch holds a kernel of an earlier stand-in
    monkeypatch.setattr(kr, "_RECIPES", Bounded(1024))
    monkeypatch.setattr(kr, "_WORKSPACES", Bounded(1024))
    monkeypatch.setattr(kr, "_CALLS", Store(1024))
    GATE.close()
    fx.clear()
    _compile.clear()
    yield fake_cupy
    fx.clear()
    _compile.clear()


@pytest.mark.parametrize("shape, axis", [
    ((1 << 16, 3), None), ((1 << 16, 3), 0), ((1 << 16, 3), 1), ((300, 500), 0),
    ((300, 500), 1), ((4, 1 << 18), 1), ((20, 30, 40), (0, 2)),
])
@pytest.mark.parametrize("func", ["sum", "max", "mean"])
def test_fused_launch_is_the_unfused_launch_of_the_intermediate(stand_in, shape, axis, func):
    """Kernel name (but the ``(MINB, B)`` of ``FUSED_TUNING``), grid, block and every
    parameter after the input and output pointers (the descriptor, the row counts, the
    split) are the unfused call's for a new array of the intermediate's shape; the
    input is the fused struct. The unfused call with its register kernel of short
    dense rows off (``TUNING["red_regs"]``): the fused reductions stage such rows. The
    interleave kernel's word walk (``(1 << 16, 3)`` over axis 0) is both calls'."""
    from xstride._kernels import _reduce_common as rc

    a = fake(np.ones(shape, np.float32))
    b = fake(np.ones(shape[-1:], np.float32))
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(rc.TUNING, "red_regs", 0)
        getattr(xp, func)(fake(np.ones(shape, np.float32)), axis=axis)
    plain = stand_in.launches[-1]
    xp.fuse(lambda a, b: getattr(xp, func)(a * b, axis=axis), strict=True)(a, b)
    fused = stand_in.launches[-1]
    name = plain[0].name
    kind = name.split("<")[0][len("xs_reduce_"):]
    if shape == (1 << 16, 3) and axis == 0:     # one contiguous run: 16-byte words of 4
        minb, batch = rc.TUNING["interleave_words"]
        assert kind == "interleave" and name.endswith(f", 4, {minb}, {batch}>"), name
    if kind in fr.FUSED_TUNING:   # the template's last two arguments: MINB, B
        minb, batch = fr.FUSED_TUNING[kind]
        name = name.rsplit(",", 2)[0] + f", {minb}, {batch}>"
    assert fused[0].name == name and fused[1:3] == plain[1:3]
    assert [np.asarray(v).tobytes() for v in fused[3][2:]] == \
        [np.asarray(v).tobytes() for v in plain[3][2:]]
    assert "xs_fz_ptr" in fused[0].source
    # the struct: the loads' pointers (a, b), the walk, o = 0
    words = np.frombuffer(np.asarray(fused[3][0]).tobytes(), np.int64)
    assert int(words[0]) == a.data.ptr and int(words[1]) == b.data.ptr
    assert words[-1] == 0


def test_strategies_without_a_kernel_store_the_intermediate(stand_in):
    a = fake(np.ones((5, 1, 7), np.float32))
    out = xp.fuse(lambda a: xp.sum(a * 2, axis=1), strict=True)(a)
    assert out.shape == (5, 7)
    assert stand_in.launches[-1][0].name.startswith("xs_ew_")   # the copy's cast


def test_a_view_of_an_argument_is_reduced_as_it_is(stand_in):
    a = fake(np.ones((30, 40), np.float32))
    xp.sum(fake(np.ones((30, 40), np.float32)).T, axis=0)
    plain = stand_in.launches[-1]
    xp.fuse(lambda a: xp.sum(a.T, axis=0), strict=True)(a)
    got = stand_in.launches[-1]
    assert got[0].name == plain[0].name and "xs_fz_ptr" not in (got[0].source or "")


# ----------------------------------------------------------------------------- the walk, run on the host
_HOST_PRELUDE = r"""
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#define __device__
#define __forceinline__ inline
using std::floor; using std::sqrt; using std::signbit;
template <typename T> T __ldg(const T* p) { return *p; }
struct uint4 { unsigned x, y, z, w; };
struct uint2 { unsigned x, y; };
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
"""

_HOST_MAIN = r"""
int main(int argc, char** argv) {
    // argv: struct file, element count, then one buffer file per load
    FILE* f = fopen(argv[1], "rb");
    static char raw[sizeof(xs_fz_ptr)];
    fread(raw, 1, sizeof raw, f); fclose(f);
    xs_fz_ptr p; memcpy(&p, raw, sizeof p);
    long long n = atoll(argv[2]);
    const char** ptrs = (const char**)&p;
    for (int k = 3; k < argc; ++k) {
        FILE* b = fopen(argv[k], "rb"); fseek(b, 0, SEEK_END); long sz = ftell(b); rewind(b);
        char* buf = (char*)malloc(sz + 1); fread(buf, 1, sz, b); fclose(b);
        ptrs[k - 3] = buf + (long long)ptrs[k - 3];   // the slot holds the byte offset
    }
    for (long long o = 0; o < n; ++o) printf("%.17g\n", (double)p.at(o));
    for (long long o = 0; o + 4 <= n; o += 4) {
        T4 v[4]; p.run<4>(o, v);
        for (int j = 0; j < 4; ++j) printf("%.17g\n", (double)v[j]);
    }
    return 0;
}
"""


def _gxx():
    import shutil
    return shutil.which("g++")


@pytest.mark.skipif(_gxx() is None, reason="no host C++ compiler")
@pytest.mark.parametrize("dense", [False, True])
@pytest.mark.parametrize("w32", [True, False])
@pytest.mark.parametrize("case", ["kinetic", "transposed", "three_d", "flat", "scalars",
                                  "offset", "reversed_rows", "wide_rows"])
def test_generated_walk_reads_the_virtual_array(tmp_path, case, w32, dense, fake_cupy):
    """The generated input type compiled for the host (its device intrinsics as plain
    C++): element o, and four elements from o stepped as a vector load does, are the
    values the unfused run stores at o of the virtual array, for the struct
    :func:`pack_input` packs (loads at offsets in their buffers, negative strides,
    broadcasts, 1, 2 and 3 walked axes, scalars); with ``dense`` the loads that
    :func:`dense_loads` finds are read as vectors (16-byte aligned or, at an offset,
    one by one), and the loads broadcast along the inner axis that
    :func:`row_broadcast_loads` finds as two values a vector (its first row's and its
    last's)."""
    import subprocess

    rng = np.random.default_rng(1)
    m = rng.integers(1, 9, 40).astype(np.float32)
    v = rng.integers(-9, 9, (40, 3)).astype(np.float32)
    big = rng.integers(-9, 9, (6, 9, 10)).astype(np.float64)
    fn, arrays = {
        "kinetic": (lambda m, v: xp.sum(m[:, None] * v * v), (m, v)),
        "transposed": (lambda m, v: xp.sum(xp.multiply(v.T[::-1], m[::2][:3, None]), axis=1),
                       (m, v)),
        "three_d": (lambda b: xp.max(b[1:, ::-2, 1:8].T * 2 - b[0, 0, 0], axis=0), (big,)),
        "flat": (lambda m: xp.sum(m * m), (m,)),
        "scalars": (lambda v, s, t: xp.sum(xp.where(v > s, v * t, -v)), (v, 0.5, np.float32(3))),
        "offset": (lambda v: xp.sum(v[1:] * 2, axis=1), (v,)),
        "reversed_rows": (lambda m, v: xp.sum(m[::-1, None] * v - m[3:4, None], axis=0), (m, v)),
        "wide_rows": (lambda b: xp.sum(b[0] * b[1, :, 2:3], axis=1), (big,)),
    }[case]
    g = graph_of(fn, *arrays)
    (red,) = g.reductions
    pre = fplan.pre_graph(g, red)
    args = [fake(a) if isinstance(a, np.ndarray) else a for a in arrays]
    lays = [Layout.from_array(a) if isinstance(a, FakeCupyArray) else None for a in args]
    shapes, nlays = fplan.node_shapes(pre, lays, red.input + 1)
    in_dt = np.dtype(g.nodes[red.input].dtype)
    vlay = fplan.virtual_layout(pre, red.input, shapes, nlays, in_dt.itemsize)
    load_lays = [nlays[i] for i in pre.loads]
    ext, strs = fplan.reduce_walk(vlay, load_lays)
    # the values the unfused run stores, by the fused graph's NumPy model, in memory order
    from ._fuse_cases import evaluate
    (want,) = evaluate(fplan.build(pre.nodes, pre.host, pre.outputs, pre.nargs), arrays)
    mem = np.empty(vlay.size, in_dt)
    np.lib.stride_tricks.as_strided(mem, vlay.shape, [s * in_dt.itemsize for s in vlay.strides])[
        ...] = want
    # the struct: each load's slot holds its byte offset in its argument's buffer
    offs = [lay.offset * np.dtype(pre.nodes[i].dtype).itemsize
            for i, lay in zip(pre.loads, load_lays)]
    svals = fx.scalar_values(pre, arrays)
    (tmp_path / "x.bin").write_bytes(fr.pack_input(offs, ext, strs, svals, w32))
    files = []
    for k, i in enumerate(pre.loads):
        a = np.ascontiguousarray(arrays[pre.nodes[i].arg])
        (tmp_path / f"b{k}.bin").write_bytes(a.tobytes())
        files.append(str(tmp_path / f"b{k}.bin"))
    t = {"float32": "float", "float64": "double", "bool": "bool"}[in_dt.name]
    from xstride._kernels._compile import include_dir
    header = (Path(include_dir()) / "xstride" / "elementwise.cuh").read_text()
    loads = fr.dense_loads(pre, ext, strs) if dense else ()
    # the model reads vectors of 4 elements: the rule of a 4-byte element's 16 bytes
    rowb = fr.row_broadcast_loads(pre, ext, strs, 4, loads) if dense else ()
    if dense:   # which loads are read as vectors, which as two values of two rows
        assert (loads, rowb) == {
            "kinetic": ((0,), (1,)), "transposed": ((), ()), "three_d": ((), ()),
            "flat": ((0,), ()), "scalars": ((0,), ()), "offset": ((0,), ()),
            "reversed_rows": ((0,), (1, 2)), "wide_rows": ((0,), (1,))}[case], (loads, rowb)
    src = (_HOST_PRELUDE + reduce_source(pre, len(ext), w32, loads, rowb).replace(
        "#include <xstride/elementwise.cuh>", header) + f"typedef {t} T4;\n" + _HOST_MAIN)
    (tmp_path / "walk.cpp").write_text(src)
    subprocess.run([_gxx(), "-std=c++17", "-O1", "-w", "-o", str(tmp_path / "walk"),
                    str(tmp_path / "walk.cpp")], check=True)
    out = subprocess.run([str(tmp_path / "walk"), str(tmp_path / "x.bin"), str(vlay.size)]
                         + files, check=True, capture_output=True, text=True).stdout.split()
    got = np.array([float(x) for x in out])
    n = vlay.size
    assert np.array_equal(got[:n], mem.astype(np.float64))
    assert np.array_equal(got[n:], mem[:n - n % 4].astype(np.float64))


def test_a_repeat_call_reuses_the_recipe_with_its_own_pointers(stand_in):
    """The second call of a kind (same shapes, strides, dtypes) keeps the plan and the
    launch and packs its own arguments' addresses."""
    f = xp.fuse(lambda a, b, s: s * xp.sum(a * b, axis=0), strict=True)
    a1, b1 = fake(np.ones((300, 40), np.float32)), fake(np.ones(40, np.float32))
    a2, b2 = fake(np.ones((300, 40), np.float32)), fake(np.ones(40, np.float32))
    f(a1, b1, 0.5)
    n = len(fr._RECIPES)
    f(a2, b2, 0.25)
    assert len(fr._RECIPES) == n
    red = [lc for lc in stand_in.launches if "xs_fz_ptr" in (lc[0].source or "")]
    w1, w2 = (np.frombuffer(np.asarray(lc[3][0]).tobytes(), np.int64) for lc in red[-2:])
    assert (int(w1[0]), int(w1[1])) == (a1.data.ptr, b1.data.ptr)
    assert (int(w2[0]), int(w2[1])) == (a2.data.ptr, b2.data.ptr)
    assert (w1[2:] == w2[2:]).all()


def test_a_list_axis_is_the_unfused_type_error(fake_cupy):
    """``xp.sum(x, axis=[0])`` is a TypeError unfused (as NumPy 2's); the trace turned the
    list into a tuple and fused it."""
    x = fake(np.ones((2, 3), np.float32))
    for f in ("sum", "prod", "min", "max", "mean"):
        with pytest.raises(TypeError, match=f"{f}: argument 'axis' got list"):
            xp.fuse(lambda x: getattr(xp, f)(x * 2, axis=[0])).graph(x)
