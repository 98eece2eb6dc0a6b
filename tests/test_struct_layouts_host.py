"""CudaStruct layouts and view packing against ``ctypes`` (host only, no device).

``ctypes.Structure`` follows the platform C ABI; on x86-64 Linux (and the other LP64
targets the tests run on) its alignment rules are those NVRTC applies to the same
declaration (each field at a multiple of its alignment, the size a multiple of the
largest). The device check of the same facts is tests/test_struct_layouts_views_gpu.py.
``complex<T>`` has no ctypes type and is checked on the device only.
"""

from __future__ import annotations

import ctypes
import functools
import shutil
import struct as pystruct
import subprocess

import numpy as np
import pytest

from xstride.cuda import CudaStruct
from xstride.cuda._args import pack_value
from xstride.cuda._params import parse_signature
from xstride.cuda._signature import parse_type, struct_layout

_C = {"char": ctypes.c_byte, "unsigned char": ctypes.c_ubyte, "short": ctypes.c_short,
      "unsigned short": ctypes.c_ushort, "int": ctypes.c_int, "unsigned int": ctypes.c_uint,
      "long long": ctypes.c_longlong, "long": ctypes.c_long, "float": ctypes.c_float,
      "double": ctypes.c_double, "bool": ctypes.c_bool, "size_t": ctypes.c_size_t,
      "float*": ctypes.c_void_p, "const double*": ctypes.c_void_p, "void*": ctypes.c_void_p,
      "int8_t": ctypes.c_int8, "uint16_t": ctypes.c_uint16, "int64_t": ctypes.c_int64}

pytestmark = pytest.mark.skipif(ctypes.sizeof(ctypes.c_void_p) != 8 or
                                ctypes.sizeof(ctypes.c_long) != 8,
                                reason="an LP64 host is needed (the device ABI)")


@functools.lru_cache(maxsize=None)
def _view_ctype(ndim: int, strided: bool):
    fields = [("data", ctypes.c_void_p), ("shape", ctypes.c_longlong * ndim)]
    if strided:
        fields.append(("strides", ctypes.c_longlong * ndim))
    return type(f"View{ndim}{'s' if strided else 'c'}", (ctypes.Structure,),
                {"_fields_": fields})


def _ctypes_of(S: CudaStruct):
    """A ctypes.Structure with the fields of ``S`` (nested structs and views included)."""
    def one(fname, ct):
        if ct.kind == "array":      # float m[3][3]: (c_float * 3) * 3
            out = one(fname, ct.elem)
            for n in reversed(ct.shape):
                out = out * n
            return out
        if fname in S._nested:
            return _ctypes_of(S._nested[fname])
        if ct.kind in ("view", "cview"):
            return _view_ctype(ct.ndim, ct.kind == "view")
        return _C[ct.text]

    fields = [(fname, one(fname, ct)) for fname, ct in S.fields]
    return type(S.name, (ctypes.Structure,), {"_fields_": fields})


_INNER = CudaStruct("Inner", [("c", "char"), ("d", "double"), ("s", "short")])
_STRUCTS = [
    CudaStruct("Mixed", [("c", "char"), ("s", "short"), ("d", "double"), ("p", "float*"),
                         ("u", "unsigned char")]),
    CudaStruct("Tail", [("d", "double"), ("c", "char")]),
    CudaStruct("Small", [("c", "char"), ("s", "short"), ("u", "unsigned char")]),
    CudaStruct("Ints", [("b", "bool"), ("i", "int"), ("c", "char"), ("n", "long long"),
                        ("h", "uint16_t"), ("f", "float")]),
    CudaStruct("Nested", [("c", "char"), ("in", _INNER), ("s", "short")]),
    CudaStruct("Views", [("c", "char"), ("x", "Array2D<const float>"), ("s", "short"),
                         ("y", "CArray3D<double>"), ("i", "int"), ("z", "Array16D<int>")]),
    CudaStruct("Deep", [("u", "unsigned char"),
                        ("n", CudaStruct("Mid", [("s", "short"), ("in", _INNER),
                                                 ("v", "CArray1D<unsigned char>")])),
                        ("f", "float"), ("q", "int8_t")]),
    CudaStruct("Arrays", [("c", "char"), ("m", "double", (3, 3)), ("ins", _INNER, 2),
                          ("s", "short[3]"), ("p", "float*[2]"), ("u", "unsigned char[5]"),
                          ("v", "CArray2D<int>[2]"), ("t", "int8_t[2][3][1]")]),
]


@pytest.mark.parametrize("S", _STRUCTS, ids=lambda S: S.name)
def test_cuda_struct_offsets_match_ctypes(S):
    """``CudaStruct.offsets`` / ``itemsize`` / alignment equal ctypes' for the same
    fields, nested structs and views included (C's rules, as NVRTC applies them)."""
    C = _ctypes_of(S)
    assert S.itemsize == ctypes.sizeof(C)
    assert S.ctype.alignment == ctypes.alignment(C)
    assert S.ctype.nbytes == ctypes.sizeof(C)
    assert list(S.offsets) == [getattr(C, f).offset for f, _ in S.fields]
    for fname, N in S._nested.items():
        assert list(N.offsets) == [getattr(_ctypes_of(N), f).offset for f, _ in N.fields]


class _Dev:
    """A device array stand-in: only ``__cuda_array_interface__`` (what pack_value reads)."""

    def __init__(self, ptr, shape, strides, dtype):
        self.__cuda_array_interface__ = {
            "shape": shape, "typestr": np.dtype(dtype).str, "data": (ptr, False),
            "strides": strides, "version": 3}


@pytest.mark.parametrize("elem,dt", [("float", "f4"), ("double", "f8"), ("int", "i4"),
                                     ("unsigned char", "u1")])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 8, 16])
@pytest.mark.parametrize("carray", [False, True], ids=["ArrayND", "CArrayND"])
def test_view_packing_matches_ctypes(n, elem, dt, carray):
    """``pack_value`` for ``(C)ArrayND<T>`` is the ctypes struct {pointer; long long
    shape[N]; [long long strides[N];]} filled with the array's address, extents and
    element strides: same size, same bytes."""
    item = np.dtype(dt).itemsize
    shape = tuple(2 + d % 3 for d in range(n))
    if carray:
        strides = None
        el = []
        acc = 1
        for e in reversed(shape):
            el.insert(0, acc)
            acc *= e
    else:
        el = [(-1) ** d * (3 + d) for d in range(n)]
        strides = tuple(s * item for s in el)
    ptr = 0x7F00_1234_5600
    text = f"{'C' if carray else ''}Array{n}D<{elem}>"
    ct = parse_type(text)
    packed = pack_value(ct, _Dev(ptr, shape, strides, dt), "test", "a")
    V = _view_ctype(n, not carray)
    v = V(ptr, (ctypes.c_longlong * n)(*shape),
          *(() if carray else ((ctypes.c_longlong * n)(*el),)))
    assert len(packed) == ctypes.sizeof(V) == ct.nbytes
    assert ct.alignment == ctypes.alignment(V)
    assert packed == bytes(v)
    assert pystruct.unpack_from("<Q", packed)[0] == ptr


def test_cuda_struct_bytes_match_ctypes():
    """A packed value's bytes equal the ctypes struct's with the same field values
    (padding zero in both), a view field included."""
    S = _STRUCTS[5]  # Views
    shape, el = (3, 4), (8, -1)
    x = _Dev(0x1000, shape, tuple(4 * s for s in el), "f4")
    y = _Dev(0x2000, (2, 3, 4), None, "f8")
    z = _Dev(0x3000, (1,) * 16, (8,) * 16, "i4")
    raw = S(c=-3, x=x, s=300, y=y, i=-7, z=z).tobytes()
    C = _ctypes_of(S)
    V2, V3, V16 = (_view_ctype(2, True), _view_ctype(3, False), _view_ctype(16, True))
    ref = C(-3, V2(0x1000, (ctypes.c_longlong * 2)(*shape), (ctypes.c_longlong * 2)(*el)),
            300, V3(0x2000, (ctypes.c_longlong * 3)(2, 3, 4)), -7,
            V16(0x3000, (ctypes.c_longlong * 16)(*(1,) * 16),
                (ctypes.c_longlong * 16)(*(2,) * 16)))
    assert raw == bytes(ref)


CXX = shutil.which("g++") or shutil.which("c++")

# structs with array members, as a kernel's source declares them
_ARRAY_STRUCTS = """
struct In { char c; double d; short s; };
struct P { float x[4]; int n; };
struct Q { char c; double m[3][3]; In ins[2]; short s[3]; float *ps[2], f; };
struct R { unsigned char u[5]; long long q; char t[2][3][1]; };
struct T { short h; In grid[2][2]; bool b[3]; };
struct U { R r[2]; char c; int8_t i8[7]; uint16_t w[3]; };
"""


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler (g++) on PATH")
def test_array_member_layouts_match_the_host_compiler(tmp_path):
    """The layout read from a source's structs with array members (element alignment,
    count * element size, several bounds, arrays of structs and of pointers) is the
    layout g++ gives the same definitions on this LP64 host (sizeof, alignof, offsetof),
    and a CudaStruct of the same fields has it too."""
    names = ["P", "Q", "R", "T", "U"]
    sig = parse_signature(_ARRAY_STRUCTS + "__global__ void k(" +
                          ", ".join(f"{n} {n.lower()}" for n in names) + ") {}", "k")
    lines, expected = [], []
    for prm in sig.params:
        ct, name = prm.ctype, prm.ctype.struct
        offsets, size = struct_layout(ct.fields)
        assert size == ct.nbytes
        lines += [f"sizeof({name})", f"alignof({name})"]
        expected += [ct.nbytes, ct.alignment]
        for (fname, _), off in zip(ct.fields, offsets):
            lines.append(f"offsetof({name}, {fname})")
            expected.append(off)
    src = ("#include <cstdio>\n#include <cstddef>\n#include <cstdint>\n" + _ARRAY_STRUCTS
           + "int main() {\n" + "".join(f'    std::printf("%zu\\n", (size_t)({e}));\n'
                                        for e in lines) + "}\n")
    (tmp_path / "t.cpp").write_text(src)
    res = subprocess.run([CXX, "-std=c++17", "-o", str(tmp_path / "t"), str(tmp_path / "t.cpp")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    out = subprocess.run([str(tmp_path / "t")], capture_output=True, text=True, timeout=60)
    got = [int(v) for v in out.stdout.split()]
    assert dict(zip(lines, got)) == dict(zip(lines, expected))
    # the CudaStructs of the same fields: the same layout, and the kernel takes them
    In = CudaStruct("In", [("c", "char"), ("d", "double"), ("s", "short")])
    R = CudaStruct("R", [("u", "unsigned char[5]"), ("q", "long long"),
                         ("t", "char", (2, 3, 1))])
    made = {
        "P": CudaStruct("P", [("x", "float[4]"), ("n", "int")]),
        "Q": CudaStruct("Q", [("c", "char"), ("m", "double[3][3]"), ("ins", In, 2),
                              ("s", "short[3]"), ("ps", "float*[2]"), ("f", "float")]),
        "R": R,
        "T": CudaStruct("T", [("h", "short"), ("grid", In, (2, 2)), ("b", "bool[3]")]),
        "U": CudaStruct("U", [("r", R, 2), ("c", "char"), ("i8", "int8_t[7]"),
                              ("w", "uint16_t[3]")]),
    }
    for prm in sig.params:
        S = made[prm.ctype.struct]
        assert (S.itemsize, S.ctype.alignment) == (prm.ctype.nbytes, prm.ctype.alignment)
        assert S.offsets == struct_layout(prm.ctype.fields)[0]
        S._check_matches(prm.ctype, "test", prm.name)    # no TypeError: the same struct
