"""Array views, CudaStruct layouts and Philox's strided geometry against their Python
packing, on the device (DESIGN.md, "Layout"; tests/test_struct_layouts_gpu.py covers
the executors' descriptors the same way).

Each probe kernel is compiled through NVRTC and writes ``sizeof``, ``alignof``, every
field's offset (a ``char*`` difference: NVRTC has no ``<cstddef>``) and every field's
value to an int64 array; the test compares them with what :mod:`xstride.cuda` packs
(``pack_value``, ``CudaStruct.offsets`` / ``itemsize`` / ``tobytes``). A view or struct
whose C layout and Python packing drift apart fails here. The host-side counterpart
(``ctypes`` layouts, no device) is tests/test_struct_layouts_host.py.
"""

from __future__ import annotations

import math
import struct as pystruct

import numpy as np
import pytest

from xstride.cuda import CudaKernel, CudaStruct
from xstride.cuda._args import pack_value
from xstride.cuda._signature import parse_type

pytestmark = pytest.mark.gpu

NDIMS = (1, 2, 3, 4, 8, 16)
ELEMS = {"float": np.float32, "double": np.float64, "int": np.int32,
         "unsigned char": np.uint8}


def _run(cp, src: str, args, nwords: int) -> list[int]:
    """Launch ``probe(*args, long long* out)`` on one thread; the words it wrote."""
    out = cp.full(nwords, -12345, dtype=cp.int64)
    CudaKernel(src, "probe")(*args, out, grid=1, block=1)
    return [int(v) for v in cp.asnumpy(out)]


def _words(packed: bytes) -> list[int]:
    """A view's packed bytes as its 8-byte fields (address unsigned, the rest signed)."""
    assert len(packed) % 8 == 0
    n = len(packed) // 8
    return [pystruct.unpack_from("<Q", packed)[0],
            *pystruct.unpack_from(f"<{n - 1}q", packed, 8)]


# ------------------------------------------------------------------ ArrayND / CArrayND
def _view_array(cp, n: int, dt, contiguous: bool):
    """An ``n``-d CuPy array of ``dt``; strided (steps, a reversed axis, a size-1 axis)
    unless ``contiguous``. Element values are small exact integers (0..250)."""
    ext = [2 if d % 3 else 3 for d in range(n)]
    if n >= 4:
        ext[1] = 1
    if contiguous:
        size = math.prod(ext)
        return (cp.arange(size, dtype=cp.int64) % 251).astype(dt).reshape(ext)
    big = [e * 2 if d % 2 == 0 else e for d, e in enumerate(ext)]
    base = (cp.arange(math.prod(big), dtype=cp.int64) % 251).astype(dt).reshape(big)
    idx = tuple(slice(None, None, 2) if d % 2 == 0 else slice(None) for d in range(n))
    view = base[idx]
    if n >= 2:                               # one reversed axis: a negative stride
        view = view[(slice(None),) * (n - 1) + (slice(None, None, -1),)]
    assert view.shape == tuple(ext)
    return view


def _view_probe(text: str, n: int, strided: bool) -> str:
    body = ["long long k = 0;",
            "out[k++] = sizeof(a);",
            f"out[k++] = alignof({text});",
            "const char* b = (const char*)&a;",
            "out[k++] = (const char*)&a.data - b;",
            "out[k++] = (const char*)&a.shape[0] - b;",
            "out[k++] = (const char*)&a.strides[0] - b;" if strided else "out[k++] = -1;",
            "out[k++] = (long long)(unsigned long long)a.data;",
            f"for (int i = 0; i < {n}; ++i) out[k++] = a.shape[i];"]
    if strided:
        body.append(f"for (int i = 0; i < {n}; ++i) out[k++] = a.strides[i];")
        body.append("out[k++] = (long long)a.at_flat(a.size() - 1);")
    else:
        body.append("out[k++] = (long long)a[a.size() - 1];")
    return ("#include <xstride/array_view.cuh>\n"
            f'extern "C" __global__ void probe({text} a, long long* out) {{\n'
            + "\n".join(body) + "\n}\n")


@pytest.mark.parametrize("elem", list(ELEMS))
@pytest.mark.parametrize("n", NDIMS)
@pytest.mark.parametrize("carray", [False, True], ids=["ArrayND", "CArrayND"])
def test_array_view_layout(cp, n, elem, carray):
    """sizeof/alignof/offsetof of ``(C)ArrayND<T>`` and every field the kernel reads,
    against the bytes ``pack_value`` gives for the same CuPy array (the bytes
    ``CudaKernel`` launches with), and the last element read through the view."""
    text = f"{'C' if carray else ''}Array{n}D<{elem}>"
    ct = parse_type(text)
    arr = _view_array(cp, n, ELEMS[elem], contiguous=carray)
    packed = pack_value(ct, arr, "test", "a")
    words = _words(packed)
    got = _run(cp, _view_probe(text, n, not carray), (arr,), 6 + 1 + 2 * n + 1)
    last = int(cp.asnumpy(arr).ravel()[-1])
    assert len(packed) == ct.nbytes == 8 * (1 + (1 if carray else 2) * n)
    want = [len(packed), ct.alignment, 0, 8, -1 if carray else 8 + 8 * n, *words, last]
    assert got[:len(want)] == want
    # and the packed fields are the array's own facts
    assert words[0] == arr.data.ptr and tuple(words[1:1 + n]) == arr.shape
    if not carray:
        assert tuple(words[1 + n:]) == tuple(s // arr.itemsize for s in arr.strides)


# ------------------------------------------------------------------ CudaStruct
_COMPLEX = "#include <cupy/complex.cuh>\n"


def _field_code(expr: str, ct, nested) -> list[str]:
    """C statements writing the value words of field ``expr`` of type ``ct``."""
    if ct.kind == "struct":
        return _struct_code(expr, nested)
    if ct.kind == "pointer":
        return [f"out[k++] = (long long)(unsigned long long){expr};"]
    if ct.kind in ("view", "cview"):
        lines = [f"out[k++] = (long long)(unsigned long long){expr}.data;",
                 f"for (int i = 0; i < {ct.ndim}; ++i) out[k++] = {expr}.shape[i];"]
        if ct.kind == "view":
            lines.append(f"for (int i = 0; i < {ct.ndim}; ++i) out[k++] = {expr}.strides[i];")
        return lines
    kind = ct.dtype.kind
    if kind == "c":
        part = "float" if ct.dtype.itemsize == 8 else "double"
        return [f"out[k++] = __double_as_longlong((double)((const {part}*)&{expr})[{j}]);"
                for j in (0, 1)]
    if kind == "f":
        return [f"out[k++] = __double_as_longlong((double){expr});"]
    return [f"out[k++] = (long long){expr};"]


def _struct_code(expr: str, S: CudaStruct) -> list[str]:
    """sizeof, alignof, then per field: its offset in ``S`` and its value words."""
    base = "b_" + expr.replace(".", "_")
    lines = [f"out[k++] = sizeof({S.name});", f"out[k++] = alignof({S.name});",
             f"const char* {base} = (const char*)&{expr};"]
    for fname, ct in S.fields:
        lines.append(f"out[k++] = (const char*)&{expr}.{fname} - {base};")
        lines += _field_code(f"{expr}.{fname}", ct, S._nested.get(fname))
    return lines


def _field_want(ct, value, nested) -> list[int]:
    if ct.kind == "struct":
        return _struct_want(nested, value)
    if ct.kind == "pointer":
        return [value.data.ptr]
    if ct.kind in ("view", "cview"):
        words = [value.data.ptr, *value.shape]
        if ct.kind == "view":
            words += [s // value.itemsize for s in value.strides]
        return words
    if ct.dtype.kind == "c":
        c = complex(np.asarray(value, dtype=ct.dtype))
        return [_bits(c.real), _bits(c.imag)]
    if ct.dtype.kind == "f":
        return [_bits(float(np.asarray(value, dtype=ct.dtype)))]
    return [int(value)]


def _bits(x: float) -> int:
    return pystruct.unpack("<q", pystruct.pack("<d", x))[0]


def _struct_want(S: CudaStruct, values: dict) -> list[int]:
    want = [S.itemsize, S.ctype.alignment]
    for (fname, ct), off in zip(S.fields, S.offsets):
        want.append(off)
        want += _field_want(ct, values[fname], S._nested.get(fname))
    return want


def _structs(cp):
    """(outer struct, nested structs in declaration order, field values)."""
    x2 = cp.arange(60, dtype=cp.float32).reshape(6, 10)[::2, ::-3]
    c1 = cp.arange(7, dtype=cp.float64)
    ptr = cp.zeros(4, dtype=cp.float32)
    inner = CudaStruct("XsInner", [("c", "char"), ("d", "double"), ("s", "short")])
    cases = []
    A = CudaStruct("XsMixed", [("c", "char"), ("s", "short"), ("d", "double"),
                               ("p", "float*"), ("z", "complex<float>"), ("u", "unsigned char")])
    cases.append((A, [], dict(c=-7, s=-300, d=2.5, p=ptr, z=1.5 - 0.25j, u=200)))
    B = CudaStruct("XsNested", [("c", "char"), ("in", inner), ("z", "complex<float>"),
                                ("s", "short")])
    cases.append((B, [inner], dict(c=3, **{"in": dict(c=-1, d=-0.125, s=31000)},
                                   z=-2 + 4j, s=-5)))
    C = CudaStruct("XsViews", [("c", "char"), ("x", "Array2D<const float>"), ("s", "short"),
                               ("y", "CArray1D<double>"), ("z", "complex<float>"),
                               ("i", "int")])
    cases.append((C, [], dict(c=1, x=x2, s=2, y=c1, z=0.5j, i=-(2**31))))
    D = CudaStruct("XsTail", [("d", "double"), ("c", "char")])   # tail padding: 16
    cases.append((D, [], dict(d=1.0, c=9)))
    E = CudaStruct("XsSmall", [("c", "char"), ("s", "short"), ("u", "unsigned char")])
    cases.append((E, [], dict(c=-128, s=-32768, u=255)))
    F = CudaStruct("XsDeep", [("u", "unsigned char"), ("n", B), ("f", "float")])
    cases.append((F, [inner, B], dict(u=1, n=cases[1][2], f=0.75)))
    # complex<T> is __align__(2 * sizeof(T)) on the device: after an int or a char
    G = CudaStruct("XsComplexAlign", [("n", "int"), ("z", "complex<float>"), ("c", "char"),
                                      ("w", "complex<double>")])
    cases.append((G, [], dict(n=-3, z=1.5 - 2j, c=5, w=0.25 + 8j)))
    return cases


def _pack(S: CudaStruct, values: dict):
    """A CudaStruct value; nested structs given as dicts are packed first."""
    kw = {f: (_pack(S._nested[f], v) if f in S._nested else v) for f, v in values.items()}
    return S(**kw)


@pytest.mark.parametrize("case", range(7))
def test_cuda_struct_layout(cp, case):
    """sizeof, alignof and every field offset of a CudaStruct's declaration as NVRTC
    lays it out, against ``CudaStruct.itemsize`` / ``offsets`` / its C alignment, and
    every field's value as the kernel reads it from the packed bytes."""
    S, nested, values = _structs(cp)[case]
    decls = "".join(N.declaration() + "\n" for N in nested) + S.declaration() + "\n"
    body = ["long long k = 0;", *_struct_code("p", S)]
    src = (_COMPLEX + "#include <xstride/array_view.cuh>\n" + decls
           + f'extern "C" __global__ void probe({S.name} p, long long* out) {{\n'
           + "\n".join(body) + "\n}\n")
    want = _struct_want(S, values)
    value = _pack(S, values)
    assert len(value.tobytes()) == S.itemsize
    assert _run(cp, src, (value,), len(want) + 1)[:len(want)] == want


# ------------------------------------------------------------------ Philox geometry
_GEO_PROBE = r"""
extern "C" __global__ void xs_geo_probe(
    unsigned long long as, unsigned long long at, unsigned long long ac,
    long long n, int ndim, const long long* geo, long long* out)
{
    // the three arguments of xs_real, read exactly as its XS_LOAD(x, slot) reads them
    const unsigned long long* ps = (const unsigned long long*)as;
    const unsigned long long* pt = (const unsigned long long*)at;
    const unsigned long long* pc = (const unsigned long long*)ac;
    const unsigned long long vs = 0, vt = 0, vc = 0;
    const long long ls = 0, lt = 0, lc = 0;
    const int ms = 2, mt = 2, mc = 2;
    for (long long i = 0; i < n; ++i) {
        out[i] = (long long)XS_LOAD(s, 1);
        out[n + i] = (long long)XS_LOAD(t, 2);
        out[2 * n + i] = (long long)XS_LOAD(c, 3);
    }
}
"""


def _geo_cases(cp, mult: int = 1, add: int = 0):
    """(output shape, three uint64 CuPy views that broadcast to it, each read in mode 2
    (strided) by the plan). Element ``e`` of a base buffer holds ``e * mult + add``
    (with the defaults, its own offset: a read reveals the offset the kernel used)."""
    def base(n):
        return cp.arange(n, dtype=cp.uint64) * cp.uint64(mult) + cp.uint64(add)
    return [
        ((3, 4, 5), [base(60).reshape(5, 4, 3).transpose(2, 1, 0), base(5),
                     base(40).reshape(4, 10)[:, ::-2]]),
        ((2, 1, 6, 3), [base(18).reshape(6, 3)[::-1], base(2).reshape(2, 1, 1, 1),
                        base(48).reshape(2, 1, 6, 4)[..., 1:]]),
        ((7, 9), [base(63).reshape(9, 7).T, base(126).reshape(9, 14)[:, ::2].T,
                  base(7).reshape(7, 1)]),
    ]


@pytest.mark.parametrize("case", range(3))
def test_philox_strided_geometry(cp, case):
    """The general Philox kernels' strided arguments: ``geo`` is a plain int64 array
    (``dims[ndim]``, then one element-stride vector per argument, in argument order),
    packed by ``_kernels.philox._general_args`` from ``_plans.philox.plan``; the
    kernels read argument ``j`` with ``XS_LOAD(x, j + 1)`` (philox.cu). A probe built on
    philox.cu's own ``xs_load``/``XS_LOAD`` reads each argument through that array for
    every flat index; it must read the broadcast array's elements in C order."""
    from xstride._kernels import philox as K

    from xstride._kernels._compile import source

    shape, arrays = _geo_cases(cp)[case]
    srcs = [K._src(a) for a in arrays]
    assert [m for m, _, _ in K.plan(srcs, shape)[0]] == [2, 2, 2]  # chosen strided
    tail, geo_arr = K._general_args(cp, srcs, shape)
    assert geo_arr is not None
    geo = cp.asnumpy(geo_arr)
    nd, n = len(shape), math.prod(shape)
    assert geo.dtype == np.int64 and geo.shape == ((1 + len(arrays)) * nd,)
    assert tuple(int(v) for v in geo[:nd]) == shape
    assert tail[-2].value == nd and tail[-1].value == geo_arr.data.ptr
    out = cp.full(3 * n, -1, dtype=cp.int64)
    kern = CudaKernel(source(K.SOURCE_FILE) + _GEO_PROBE, "xs_geo_probe")
    kern(*(a.data.ptr for a in arrays), n, nd, geo_arr, out, grid=1, block=1)
    got = cp.asnumpy(out).reshape(3, n)
    for j, a in enumerate(arrays):
        want = np.broadcast_to(cp.asnumpy(a), shape).ravel().astype(np.int64)
        np.testing.assert_array_equal(got[j], want, err_msg=f"argument {j}")


@pytest.mark.parametrize("case", range(3))
@pytest.mark.parametrize("kind", ["uniform", "uniform2", "normal", "normal2"])
def test_philox_general_kernel_reads_geo_slots(cp, kind, case):
    """End to end through the real general kernel (``fast=False``): strided seed,
    stream and counter views (mode 2, read through ``geo``) give the same values as
    dense copies of their broadcasts (mode 1, no geometry), so each argument's stride
    vector is read from its own slot of ``geo``."""
    from xstride._kernels import philox as K

    shape, views = _geo_cases(cp, mult=2654435761, add=12345)[case]
    dense = [cp.ascontiguousarray(cp.broadcast_to(a, shape)) for a in views]
    assert [m for m, _, _ in K.plan([K._src(a) for a in dense], shape)[0]] == [1, 1, 1]
    got = K._real(kind, *views, shape, fast=False)
    ref = K._real(kind, *dense, shape, fast=False)
    got = got if isinstance(got, tuple) else (got,)
    ref = ref if isinstance(ref, tuple) else (ref,)
    for g, r in zip(got, ref):
        np.testing.assert_array_equal(cp.asnumpy(g), cp.asnumpy(r))


def test_philox_words_reads_geo_slots(cp):
    """The raw block function's general kernel (six arguments, slots 1..6): strided
    counter words (a transposed (..., 4) array) and broadcast keys give the same words
    as dense copies."""
    from xstride._kernels import philox as K

    shape = (5, 6)
    cw = (cp.arange(4 * 6 * 5, dtype=cp.uint32) * cp.uint32(2246822519)).reshape(4, 6, 5)
    cw = cw.transpose(2, 1, 0)                       # (5, 6, 4), not C-contiguous
    k0 = cp.arange(6, dtype=cp.uint32) + cp.uint32(77)
    k1 = (cp.arange(5, dtype=cp.uint32) * cp.uint32(3)).reshape(5, 1)
    got = K.words(cw, k0, k1, shape)
    dense = K.words(cp.ascontiguousarray(cw), cp.ascontiguousarray(cp.broadcast_to(k0, shape)),
                    cp.ascontiguousarray(cp.broadcast_to(k1, shape)), shape)
    np.testing.assert_array_equal(cp.asnumpy(got), cp.asnumpy(dense))


# ------------------------------------------------------------------ array members
_ARRAY_SRC = """
struct In { char c; double d; };
struct P { char c; double m[2][3]; In ins[2]; short s[3]; float* ps[2]; int n; };
extern "C" __global__ void probe(P p, long long* out) {
    long long k = 0;
    const char* b = (const char*)&p;
    out[k++] = sizeof(P);
    out[k++] = alignof(P);
    out[k++] = (const char*)&p.m - b;
    out[k++] = (const char*)&p.ins - b;
    out[k++] = (const char*)&p.s - b;
    out[k++] = (const char*)&p.ps - b;
    out[k++] = (const char*)&p.n - b;
    out[k++] = p.c;
    for (int i = 0; i < 2; ++i) for (int j = 0; j < 3; ++j) out[k++] = (long long)p.m[i][j];
    for (int i = 0; i < 2; ++i) { out[k++] = p.ins[i].c; out[k++] = (long long)p.ins[i].d; }
    for (int i = 0; i < 3; ++i) out[k++] = p.s[i];
    for (int i = 0; i < 2; ++i) out[k++] = (long long)(unsigned long long)p.ps[i];
    out[k++] = p.n;
}
"""


def test_struct_array_members_on_the_device(cp):
    """A source struct with array members (several bounds, of structs, of pointers):
    NVRTC's sizeof, alignof and offsets are the parsed layout and the CudaStruct's, and
    every element the kernel reads is the one packed."""
    In = CudaStruct("In", [("c", "char"), ("d", "double")])
    P = CudaStruct("P", [("c", "char"), ("m", "double[2][3]"), ("ins", In, 2),
                         ("s", "short[3]"), ("ps", "float*[2]"), ("n", "int")])
    a, b = cp.zeros(3, cp.float32), cp.zeros(5, cp.float32)
    v = P(c=-5, m=np.arange(6.0).reshape(2, 3) - 2, ins=[In(c=1, d=7.0), In(c=-2, d=-8.0)],
          s=[100, -200, 300], ps=[a, b], n=-9)
    got = _run(cp, _ARRAY_SRC, (v,), 40)
    assert got[:7] == [P.itemsize, P.ctype.alignment, *P.offsets[1:]]
    assert got[7:] == [-5, -2, -1, 0, 1, 2, 3, 1, 7, -2, -8, 100, -200, 300,
                       a.data.ptr, b.data.ptr, -9] + [-12345] * 16
