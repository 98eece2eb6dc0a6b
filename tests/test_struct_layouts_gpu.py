"""Each kernel argument struct against its Python packing, on the device.

A probe kernel receives the struct by value, packed by the same Python code the
executors use and launched through the one launcher (xstride/_kernels/_launch.py), and
writes ``sizeof`` and every field, in declaration order, to an int64 array; the test
compares them with what each field must hold. A struct whose C declaration and Python
packing drift apart fails here (DESIGN.md, "Layout").
"""

from __future__ import annotations

import numpy as np
import pytest

from xstride._kernels import _geometry as G
from xstride._kernels import _reduce_common as rc
from xstride._kernels._compile import raw_module, source
from xstride._kernels._launch import Launch, slot64, struct
from xstride._plans import elementwise as P
from xstride.layout import Layout, compact_strides

pytestmark = pytest.mark.gpu


def _probe(cp, code: str, name: str, packed: bytes, nwords: int) -> list[int]:
    """Launch ``name(struct, long long* out)`` once; the ``nwords`` values it wrote."""
    fn = raw_module(code).get_function(name)
    out = cp.full(nwords, -12345, dtype=cp.int64)
    Launch(fn, 1, 1, [struct(packed), slot64()])(out.data.ptr)
    return [int(v) for v in cp.asnumpy(out)]


def _ew_probe(cap: int, nops: int) -> str:
    body = ["long long k = 0;", "out[k++] = sizeof(p);",
            "out[k++] = p.n; out[k++] = p.e0; out[k++] = p.e1; out[k++] = p.ndim;"]
    for f in ("offset", "s0", "s1"):
        body.append(f"for (int i = 0; i < {nops}; ++i) out[k++] = p.{f}[i];")
    body.append(f"for (int i = 0; i < {cap}; ++i) out[k++] = p.shape[i];")
    body.append(f"for (int j = 0; j < {nops}; ++j) for (int i = 0; i < {cap}; ++i) "
                "out[k++] = p.strides[j][i];")
    return ("#include <xstride/elementwise.cuh>\n"
            f'extern "C" __global__ void probe(const __grid_constant__ '
            f"xstride_ew_params<{cap}, {nops}> p, long long* out) {{\n"
            + "\n".join(body) + "\n}\n")


@pytest.mark.parametrize("shape,perm", [((40, 3, 50), (2, 1, 0)), ((6, 7, 8, 9, 10), None)])
def test_xstride_ew_params(cp, shape, perm):
    out = Layout(shape, compact_strides(shape), 0, 4)
    b = Layout(tuple(reversed(shape)), compact_strides(tuple(reversed(shape))), 3, 4)
    b = b.permute(tuple(range(len(shape) - 1, -1, -1)))
    c = Layout(shape, compact_strides(shape), 5, 4)
    if perm is None:                       # a strided, non-coalescible walk: "nd"
        c = Layout(shape, tuple(2 * s for s in compact_strides(shape)), 1, 4)
    plan = P.make_plan([out], [b, c])
    cap, packed = G.pack_params(plan)
    nops = len(plan.strides)
    got = _probe(cp, _ew_probe(cap, nops), "probe", packed, 5 + 3 * nops + cap + nops * cap)
    inner = len(plan.shape) - 1
    if plan.kind == "tiled":
        outer = [a for a in range(inner) if a != plan.tile_axis]
        e1, s1 = plan.shape[plan.tile_axis], [s[plan.tile_axis] for s in plan.strides]
    else:
        outer, e1, s1 = list(range(inner)), 1, [0] * nops
    pad = cap - len(outer)
    want = [len(packed), plan.size, plan.shape[inner], e1, len(outer), *plan.offsets,
            *[s[inner] for s in plan.strides], *s1, *[plan.shape[a] for a in outer], *[1] * pad]
    for s in plan.strides:
        want += [s[a] for a in outer] + [0] * pad
    assert got == want


def _desc_probe(file: str, decl: str, fields) -> str:
    body = ["long long k = 0;", "out[k++] = sizeof(d);"]
    for f, n in fields:
        body.append(f"for (int i = 0; i < {n}; ++i) out[k++] = d.{f}[i];" if n
                    else f"out[k++] = d.{f};")
    return (source(file) + f'\nextern "C" __global__ void probe(const {decl} d, '
            "long long* out) {\n" + "\n".join(body) + "\n}\n")


@pytest.mark.parametrize("nk,nr", [(2, 3), (5, 1), (1, 1), (3, 6)])
def test_xs_red_desc(cp, nk, nr):
    """reductions.cu's descriptor as reductions.py packs it (rc.pack_struct), with the
    reduced capacity 1 of one reduced axis."""
    ck, cr = rc.capacity(nk), rc.reduced_capacity(nr)
    ks, kt = tuple(range(2, 2 + nk)), tuple(range(100, 100 + nk))
    rs, rt = tuple(range(7, 7 + nr)), tuple(range(-50, -50 + nr))
    desc = rc.pack_struct(rc.pad(ks, ck, 1), rc.pad(kt, ck, 0), rc.pad(rs, cr, 1),
                          rc.pad(rt, cr, 0), tail=(nk, nr))
    fields = [("kshape", ck), ("kstride", ck), ("rshape", cr), ("rstride", cr), ("nk", 0),
              ("nr", 0)]
    code = _desc_probe("reductions.cu", f"xs_red_desc<{ck}, {cr}>", fields)
    got = _probe(cp, code, "probe", desc.tobytes(), 1 + 2 * ck + 2 * cr + 2)
    assert got == [desc.nbytes, *rc.pad(ks, ck, 1), *rc.pad(kt, ck, 0), *rc.pad(rs, cr, 1),
                   *rc.pad(rt, cr, 0), nk, nr]


@pytest.mark.parametrize("nk", [1, 6])
def test_xs_scan_desc(cp, nk):
    """scans.cu's descriptor as scans.py packs it (rc.pack_struct)."""
    cap = rc.capacity(nk)
    ks, kt, ko = tuple(range(3, 3 + nk)), tuple(range(40, 40 + nk)), tuple(range(-9, -9 + nk))
    desc = rc.pack_struct(rc.pad(ks, cap, 1), rc.pad(kt, cap, 0), rc.pad(ko, cap, 0),
                          tail=(nk, 11, 13, 1))
    fields = [("kshape", cap), ("kstride", cap), ("kout", cap), ("nk", 0), ("s_in", 0),
              ("s_out", 0), ("init", 0)]
    code = _desc_probe("scans.cu", f"xs_scan_desc<{cap}>", fields)
    got = _probe(cp, code, "probe", desc.tobytes(), 1 + 3 * cap + 4)
    assert got == [desc.nbytes, *rc.pad(ks, cap, 1), *rc.pad(kt, cap, 0), *rc.pad(ko, cap, 0),
                   nk, 11, 13, 1]
