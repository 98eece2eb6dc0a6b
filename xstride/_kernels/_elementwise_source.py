"""CUDA source generation for the elementwise engine (no CuPy import).

One kernel per (path, operand types, body, vector width, index type, capacity). The
generated source includes ``xstride/elementwise.cuh`` and is compiled through
:func:`xstride._kernels._compile.function` (cached per device). The generator is
pure string work so it is unit-tested on the CPU and the sources are compiled with
``nvcc`` in the offline tests.

Operands are described by :class:`Operand`: outputs first, then inputs; an input is an
array or a scalar passed by value. ``body`` is C++ that reads the inputs by name and
assigns the outputs by name (an output declared ``preload`` starts from its current
value, for user kernels that read their outputs).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._core import dtypes as _dtypes
from .._plans.elementwise import FLAT2D_MAX

__all__ = ["C_TYPES", "COMPUTE_TYPES", "HALF_C", "Operand", "kernel_source", "UNROLL", "BLOCK",
           "TABLE_ROWS",
           "ROW_TILE_STEPS", "ROW_TILE_ROWS"]

#: NumPy dtype name -> C type the engine stores it as: the one table, _core/dtypes.py,
#: and float16 as its bits (``xs_half``, ``xstride/detail/half.cuh``), whose loops
#: compute in float (:data:`COMPUTE_TYPES`), each result rounded once to float16 as
#: NumPy's float16 loops do.
HALF_C = "xs_half"
C_TYPES = {**_dtypes.C_TYPES, "float16": HALF_C}
#: C type of the values a loop computes on, where it is not the stored one.
COMPUTE_TYPES = {HALF_C: "float"}
#: Threads per block of the flat/rows/nd kernels, and vectors per thread.
BLOCK = 256
UNROLL = 4
#: Most elements of a repeated row read from a table of its rotations: the longest
#: "flat2d" row.
TABLE_ROWS = FLAT2D_MAX


#: Steps of ``BLOCK * UNROLL`` vectors one row tile takes (the row's pointers are set
#: once per tile). On the H200 (2026-12-02, one process, three rounds) 2 against 4:
#: the fused Jacobi step on 8192**2 float32 0.194 against 0.201 ms (and 0.188 against
#: 0.194 in another process), ``add`` of two column slices 0.168 against 0.179 ms,
#: ``u[1:-1, 1:-1] * 2`` 0.155 against 0.173 ms; 1 was slower (0.218 ms for Jacobi).
ROW_TILE_STEPS = 2
#: Rows one work item of row tiles covers, one after the other over the same columns,
#: where the inputs read one buffer at least a row apart (a stencil's rows above and
#: below: the row read as "below" for one output row is read again as "centre" and
#: "above" for the next two, and is still in L1). On the H200 (2026-12-03, two
#: processes) the fused Jacobi step on 8192**2 float32: 1 row 0.180 ms, 2 rows
#: 0.168-0.170, 3 0.170-0.172, 4 0.177-0.178; Nsight Compute put the one-row kernel's
#: L2 fabric at 95 % busy. Plain kernels without such inputs lose by it (``u[1:-1,
#: 1:-1] * 2`` 0.138 -> 0.150 ms; a 3-D ``w[:, :, 1:] * 2`` 0.545 -> 0.602 ms), so they
#: keep one row.
ROW_TILE_ROWS = 2


@dataclass(frozen=True)
class Operand:
    """One operand of a generated kernel.

    name : C identifier the body uses.
    ctype : storage C type (arrays) or the type of a by-value scalar.
    ltype : C type of the value the body sees (inputs; conversion on load).
    kind : "out", "in" (array) or "scalar".
    preload : outputs only: read the current value before the body runs.
    """

    name: str
    ctype: str
    ltype: str = ""
    kind: str = "in"
    preload: bool = False


#: Extra by-value parameters of the grid-walk tiled kernel, after ``p`` (the launcher
#: passes them in this order: int64, int64, int32, int32, int32, int32).
WALK_ARGS = ("const long long __xs_rest", "const long long __xs_nchunks", "const int __xs_r",
             "const int __xs_ga", "const int __xs_nga", "const int __xs_nz")


def _signature(name, ops, cap, nops, extra=(), minb=0):
    params = [f"const __grid_constant__ xstride_ew_params<{cap}, {nops}> p", *extra]
    for o in ops:
        if o.kind == "out":
            params.append(f"{o.ctype}* __xs_p_{o.name}")
        elif o.kind == "in":
            params.append(f"const {o.ctype}* __xs_p_{o.name}")
        else:
            params.append(f"const {o.ctype} __xs_s_{o.name}")
    bounds = f"BLOCK_THREADS, {minb}" if minb else "BLOCK_THREADS"
    return (f'extern "C" __global__ void __launch_bounds__({bounds}) {name}('
            + ", ".join(params) + ")")


def _element_code(ops, body, val, store, indent="        "):
    """Declarations, body and stores for one element.

    ``val(k, op)`` gives the C expression of the stored value of array operand ``k``;
    ``store(k, op, expr)`` the statement that stores ``expr`` to output ``k``. Values
    are first read into ``__xs_``-prefixed temporaries, and the user's names are
    declared in an inner scope, so a user name (``p``, ``u``, ``base``...) can never
    capture the kernel's own variables.
    """
    pre, decl, post, stores = [], [], [], []
    k = 0
    for o in ops:
        lt = o.ltype or o.ctype
        if o.kind == "scalar":
            decl.append(f"const {lt} {o.name} = ({lt})__xs_s_{o.name};")
            continue
        if o.kind == "in":
            pre.append(f"const {lt} __xs_e{k} = ({lt}){val(k, o)};")
            decl.append(f"const {lt} {o.name} = __xs_e{k};")
        else:
            if o.preload:
                pre.append(f"{o.ctype} __xs_e{k} = {val(k, o)};")
            else:
                pre.append(f"{o.ctype} __xs_e{k};")
            decl.append(f"{o.ctype} {o.name} = __xs_e{k};" if o.preload else f"{o.ctype} {o.name};")
            post.append(f"__xs_e{k} = {o.name};")
            stores.append(store(k, o, f"__xs_e{k}"))
        k += 1
    lines = pre + ["{"] + ["  " + d for d in decl] + ["  { " + body + " }"] + \
        ["  " + p for p in post] + ["}"] + stores
    return "\n".join(indent + ln for ln in lines)


def kernel_source(name: str, kind: str, ops, body: str, *, vec: int = 1, bcast: tuple = (),
                  idx32: bool = False, cap: int = 4, trans: tuple = (), tile: int = 32,
                  preamble: str = "", index_var: bool = False, off32: bool = False,
                  rest32: bool = True,
                  minb: int = 0, rest_axes: int = 2, indexed: tuple = (),
                  unit: tuple = (), row_tiles: bool = False, tile_rows: int = 1,
                  tile_unroll: int = 0, unroll: int = UNROLL, table: tuple = ()) -> str:
    """CUDA source of one elementwise kernel.

    Parameters
    ----------
    name : str
        ``extern "C"`` kernel name.
    kind : {"flat", "flat2d", "rows", "nd", "tiled"}
        The plan's path ("flat", "flat2d" and "rows"/"nd" share one loop; "tiled" is the
        grid-walk kernel of :func:`_tiled_walk_body`, launched with :data:`WALK_ARGS`
        and the geometry of :func:`xstride._kernels._geometry.tiled_geometry`).
    ops : sequence of Operand
        Outputs first, then inputs and scalars, in the launcher's argument order.
    body : str
        C++ statement(s) computing the outputs from the inputs.
    vec : int
        Elements per vector (1 = scalar loads). With ``vec > 1`` every array operand
        with a non-zero inner stride must be contiguous and aligned on the inner axis.
    bcast : tuple of bool
        Per array operand: stride 0 on the inner axis (loaded once per vector).
    idx32 : bool
        32-bit unsigned index arithmetic (the host checked every index fits).
    cap : int
        Capacity of the outer axes in the parameter struct.
    trans : tuple of bool
        "tiled": per array operand, whether it goes through shared memory.
    tile : {32, 64}
        "tiled": side of the square tile (the block is always 32 x 8 threads).
    off32 : bool
        "tiled": 32-bit offset arithmetic (the host checked every offset fits).
    rest32 : bool
        "tiled": the number of rest indices fits in 32 bits.
    minb : int
        "tiled": minimum resident blocks per SM for ``__launch_bounds__``
        (0: none); 8 caps the kernel at 32 registers.
    rest_axes : {0, 1, 2}
        "tiled": number of rest axes (2: any number, decoded at run time).
    index_var : bool
        Declare ``i``, the linear C-order index of the element, for the body (only
        meaningful for plans made with ``keep_order=True``).
    indexed : tuple of bool
        "flat2d": per array operand, whether it is read element by element at (row,
        column) ``(i div e0, i mod e0)`` of flat index ``i`` through its outer and
        inner strides (a repeated row, a transposed or strided view); the others are
        dense (or scalars) and take ``vec``-wide loads at ``i``.
    unit : tuple of bool
        "rows": per array operand, whether its inner stride is 1 (else 0, a value
        repeated along the row); the offsets then add the column without multiplying
        by the stride. Empty: the strides are read from the parameter struct.
    row_tiles : bool
        "rows"/"nd": each block iteration takes one tile of ``BLOCK * UNROLL`` vectors
        of one row (row and tile from one division per iteration, the outer offsets
        once per tile) instead of ``BLOCK * UNROLL`` vectors of the flattened rows
        (a division and the outer offsets per vector). For long rows
        (:func:`xstride._kernels._geometry.row_tiles_fit`).
    tile_rows : int
        With ``row_tiles``: rows one work item covers, one after the other over the
        same columns (:data:`ROW_TILE_ROWS` where inputs read one buffer some rows
        apart, so that a row read for one output row is still in L1 for the next).
    tile_unroll : int
        With ``row_tiles``: 0 for tiles of ``ROW_TILE_STEPS`` steps of ``BLOCK *
        UNROLL`` vectors; else one step of ``BLOCK * tile_unroll`` vectors (rows of
        fewer than ``BLOCK * UNROLL`` vectors, :func:`short_row_unroll`).
    unroll : int
        "flat", "flat2d", "rows", "nd": vectors a thread takes a step, their loads
        issued before any is used (:func:`._elementwise_vectors.vector_unroll` of ``vec``); in the text
        above, ``UNROLL`` stands for it.
    table : tuple of bool
        "flat2d" with ``vec > 1``: per array operand, one row repeated (outer stride 0,
        ``e0`` at most :data:`TABLE_ROWS` elements) read as whole vectors from a table
        in shared memory that each block fills first: entry ``c`` holds the row's
        elements ``c, c + 1, ...`` (mod ``e0``), ``vec`` of them, so the vector at
        flat index ``i`` is entry ``i mod e0`` (one load in place of ``vec``). Such an
        operand must be ``indexed`` too.
    """
    arrays = [o for o in ops if o.kind != "scalar"]
    nops = len(arrays)
    head = ["#include <xstride/elementwise.cuh>", f"#define BLOCK_THREADS {BLOCK}",
            preamble]
    if any(o.ctype == HALF_C or o.ltype == HALF_C for o in ops):   # float16 operands
        head.insert(1, "#include <xstride/detail/half.cuh>")
    ptr = {o.name: f"__xs_p_{o.name}" for o in arrays}
    if kind == "tiled":
        sig = _signature(name, ops, cap, nops, WALK_ARGS, minb)
        return "\n".join(head + [sig, "{", _tiled_walk_body(ops, arrays, body, trans, tile, nops,
                                                             off32, rest32, rest_axes), "}"])
    sig = _signature(name, ops, cap, nops)
    idx = "unsigned int" if idx32 else "long long"
    flat = kind in ("flat", "flat2d")
    # "flat2d": the operands read at (row, column) of the flat index
    per = tuple(indexed) if kind == "flat2d" else (False,) * nops
    v = vec
    out = []
    out.append(f"    typedef {idx} IDX;")
    if any(per):
        out.append(f"    long long pr[{unroll}], pc[{unroll}];")
    tab = tuple(table) if kind == "flat2d" and vec > 1 and table else (False,) * nops
    for k, o in enumerate(arrays):
        if tab[k]:   # the rotations of a repeated row (docstring: table)
            out += [f"    __shared__ xstride_vec<{o.ctype}, {vec}> __xs_t{k}[{TABLE_ROWS}];",
                    f"    for (int c = threadIdx.x; c < (int)p.e0; c += {BLOCK}) {{",
                    f"      xstride_vec<{o.ctype}, {vec}> w;",
                    "      int e = c;",
                    f"      #pragma unroll\n      for (int j = 0; j < {vec}; ++j) {{",
                    f"        w.v[j] = {ptr[o.name]}[p.offset[{k}] + (long long)e * p.s0[{k}]];",
                    "        if (++e == (int)p.e0) e = 0;",
                    "      }",
                    f"      __xs_t{k}[c] = w;",
                    "    }"]
    if any(tab):
        out.append("    __syncthreads();")
    if row_tiles and not flat:
        return "\n".join(head + [sig, "{", _row_tiles_loop(ops, arrays, body, v, idx, kind, unit,
                                                           bcast, index_var, ptr, tile_rows,
                                                           *((tile_unroll, 1) if tile_unroll
                                                             else (unroll,))),
                                           "}"])
    span = BLOCK * unroll
    if flat:
        out.append(f"    const IDX total = (IDX)(p.n / {v});")
    else:
        out.append(f"    const IDX nv = (IDX)(p.e0 / {v});")
        out.append("    const IDX total = (IDX)(p.n / p.e0) * nv;")
    out.append(f"    const IDX step = (IDX)gridDim.x * (IDX)({span});")
    out.append(f"    for (IDX base = (IDX)blockIdx.x * (IDX)({span}) + threadIdx.x; "
               "base < total; base += step) {")
    # phase 1: offsets and loads of every input for unroll vectors
    out.append(f"      long long off[{unroll}][{nops}];")
    out.append(f"      #pragma unroll\n      for (int u = 0; u < {unroll}; ++u) {{")
    out.append(f"        const IDX vi = base + (IDX)(u * {BLOCK});")
    out.append(f"        #pragma unroll\n        for (int k = 0; k < {nops}; ++k) off[u][k] = p.offset[k];")
    out.append("        if (vi < total) {")
    if flat:
        out.append(f"          const long long col = (long long)vi * {v};")
        if any(per):
            out.append(f"          const IDX fi = (IDX)vi * (IDX){v}, q = fi / (IDX)p.e0;")
            out.append("          pr[u] = (long long)q;")
            out.append("          pc[u] = (long long)(fi - q * (IDX)p.e0);")
    else:
        out.append("          const IDX row = vi / nv;")
        out.append(f"          const long long col = (long long)(vi - row * nv) * {v};")
        out.append("          xstride_ew_outer(p, row, off[u]);")
    if unit and kind == "rows":   # inner strides 1 or 0, known here
        out.extend(f"          off[u][{k}] += col;" for k in range(nops) if unit[k])
    elif any(per):
        for k in range(nops):
            if per[k]:
                out.append(f"          off[u][{k}] += pr[u] * p.strides[{k}][0] + pc[u] * p.s0[{k}];")
            else:
                out.append(f"          off[u][{k}] += col * p.s0[{k}];")
    else:
        out.append(f"          #pragma unroll\n          for (int k = 0; k < {nops}; ++k) off[u][k] += col * p.s0[k];")
    out.append("        }\n      }")
    # loads into registers
    for k, o in enumerate(arrays):
        if o.kind == "in" or o.preload:
            out.append(f"      xstride_vec<{o.ctype}, {v}> __xs_v{k}[{unroll}];")
            out.append(f"      #pragma unroll\n      for (int u = 0; u < {unroll}; ++u) if (base + (IDX)(u * {BLOCK}) < total) {{")
            if v == 1:
                out.append(f"        __xs_v{k}[u].v[0] = {ptr[o.name]}[off[u][{k}]];")
            elif tab[k]:
                out.append(f"        __xs_v{k}[u] = __xs_t{k}[pc[u]];")
            elif per[k]:   # by (row, column): element j of the vector at i + j
                out.append(f"        long long o = off[u][{k}], c = pc[u];")
                out.append(f"        #pragma unroll\n        for (int j = 0; j < {v}; ++j) {{")
                out.append(f"          __xs_v{k}[u].v[j] = {ptr[o.name]}[o];")
                out.append(f"          if (++c == p.e0) {{ c = 0; o += p.strides[{k}][0] - (p.e0 - 1) * p.s0[{k}]; }}")
                out.append(f"          else o += p.s0[{k}];")
                out.append("        }")
            elif bcast and bcast[k]:
                out.append(f"        const {o.ctype} t = {ptr[o.name]}[off[u][{k}]];")
                out.append(f"        #pragma unroll\n        for (int j = 0; j < {v}; ++j) __xs_v{k}[u].v[j] = t;")
            else:
                out.append(f"        __xs_v{k}[u] = *reinterpret_cast<const xstride_vec<{o.ctype}, {v}>*>("
                           f"{ptr[o.name]} + off[u][{k}]);")
            out.append("      }")
    # phase 2: compute and store
    for k, o in enumerate(arrays):
        if o.kind == "out":
            out.append(f"      xstride_vec<{o.ctype}, {v}> __xs_r{k}[{unroll}];")
    out.append(f"      #pragma unroll\n      for (int u = 0; u < {unroll}; ++u) if (base + (IDX)(u * {BLOCK}) < total) {{")
    out.append(f"        #pragma unroll\n        for (int j = 0; j < {v}; ++j) {{")
    if index_var:
        out.append(f"          const long long i = (long long)(base + (IDX)(u * {BLOCK})) * {v} + j;")
    out.append(_element_code(ops, body, lambda k, o: f"__xs_v{k}[u].v[j]",
                             lambda k, o, e: f"__xs_r{k}[u].v[j] = {e};", indent="          "))
    out.append("        }")
    for k, o in enumerate(arrays):
        if o.kind == "out":
            if v == 1:
                out.append(f"        {ptr[o.name]}[off[u][{k}]] = __xs_r{k}[u].v[0];")
            else:
                out.append(f"        *reinterpret_cast<xstride_vec<{o.ctype}, {v}>*>({ptr[o.name]} + off[u][{k}]) = __xs_r{k}[u];")
    out.append("      }\n    }")
    if flat and v > 1:  # the tail of a flat zip whose length is not a multiple of vec
        out.append("    {")
        out.append(f"      const long long i = (long long)total * {v} + (long long)blockIdx.x * {BLOCK} + threadIdx.x;")
        out.append("      if (i < p.n) {")
        def at(k):
            if per[k]:
                return f"(i / p.e0) * p.strides[{k}][0] + (i % p.e0) * p.s0[{k}]"
            return f"i * p.s0[{k}]"
        out.append(_element_code(
            ops, body, lambda k, o: f"{ptr[o.name]}[p.offset[{k}] + {at(k)}]",
            lambda k, o, e: f"{ptr[o.name]}[p.offset[{k}] + {at(k)}] = {e};"))
        out.append("      }\n    }")
    return "\n".join(head + [sig, "{", "\n".join(out), "}"])


def _row_tiles_loop(ops, arrays, body, v, idx, kind, unit, bcast, index_var, ptr, rows,
                    unroll=UNROLL, steps=ROW_TILE_STEPS):
    """The "rows"/"nd" loop over row tiles: work item ``w`` is tile ``w mod nch`` of the
    ``rows`` rows from ``rows * (w div nch)``, one row after the other (``nch`` tiles of
    ``steps`` steps of ``BLOCK * unroll`` vectors per row, the last one cut at the row's
    end). Each operand's
    pointer is moved to the row once per tile; an element is that pointer plus its
    column (times the inner stride: 1 or 0 on "rows", where ``unit`` says which; read
    from the parameter struct on "nd"), so no offset array stays live across the
    loads (registers: a Jacobi step's six operands would hold 24 64-bit offsets)."""
    span = BLOCK * unroll
    item = span * steps
    nops = len(arrays)
    L = [f"    typedef {idx} IDX;",
         f"    const IDX nv = (IDX)(p.e0 / {v});",
         f"    const IDX nch = (nv + (IDX)({item - 1})) / (IDX)({item});",
         "    const IDX nrows = (IDX)(p.n / p.e0);",
         f"    const IDX total = (nrows + (IDX)({rows - 1})) / (IDX)({rows}) * nch;",
         "    for (IDX w = blockIdx.x; w < total; w += gridDim.x) {",
         "      const IDX group = w / nch;",
         f"      const IDX first = (w - group * nch) * (IDX)({item});",
         f"      const IDX lim = nv - first < (IDX)({item}) ? nv : first + (IDX)({item});",
         f"      for (int r = 0; r < {rows}; ++r) {{",
         f"      const IDX row = group * (IDX)({rows}) + (IDX)r;",
         "      if (row >= nrows) break;",
         f"      long long rb[{nops}];",
         f"      #pragma unroll\n      for (int k = 0; k < {nops}; ++k) rb[k] = p.offset[k];",
         "      xstride_ew_outer(p, row, rb);"]

    def at(k, col):   # element offset from the row pointer
        if kind == "rows" and unit:
            return col if unit[k] else "0"
        return f"(long long)({col}) * p.s0[{k}]"

    for k, o in enumerate(arrays):
        # inputs are only read (an output overlaps an input only as the same view)
        q = f"const {o.ctype}* __restrict__" if o.kind == "in" else f"{o.ctype}*"
        L.append(f"      {q} __xs_q{k} = {ptr[o.name]} + rb[{k}];")
    L.append(f"      for (IDX base = first + threadIdx.x; base < lim; base += (IDX)({span})) {{")
    valid = f"base + (IDX)(u * {BLOCK}) < lim"
    col = f"(base + (IDX)(u * {BLOCK})) * (IDX){v}"
    vector = [v > 1 and not (bcast and bcast[k]) for k in range(nops)]
    for k, o in enumerate(arrays):
        if o.kind == "in" or o.preload:
            L.append(f"      xstride_vec<{o.ctype}, {v}> __xs_v{k}[{unroll}];")
            L.append(f"      #pragma unroll\n      for (int u = 0; u < {unroll}; ++u) if ({valid}) {{")
            if vector[k]:
                L.append(f"        __xs_v{k}[u] = *reinterpret_cast<const xstride_vec<{o.ctype}, {v}>*>("
                         f"__xs_q{k} + {col});")
            else:
                L.append(f"        const {o.ctype} t = __xs_q{k}[{at(k, col)}];")
                L.append(f"        #pragma unroll\n        for (int j = 0; j < {v}; ++j) __xs_v{k}[u].v[j] = t;"
                         if v > 1 else "        __xs_v{k}[u].v[0] = t;".replace("{k}", str(k)))
            L.append("      }")
    for k, o in enumerate(arrays):
        if o.kind == "out":
            L.append(f"      xstride_vec<{o.ctype}, {v}> __xs_r{k}[{unroll}];")
    L.append(f"      #pragma unroll\n      for (int u = 0; u < {unroll}; ++u) if ({valid}) {{")
    L.append(f"        #pragma unroll\n        for (int j = 0; j < {v}; ++j) {{")
    if index_var:
        L.append(f"          const long long i = (long long)row * p.e0 + (long long)({col}) + j;")
    L.append(_element_code(ops, body, lambda k, o: f"__xs_v{k}[u].v[j]",
                           lambda k, o, e: f"__xs_r{k}[u].v[j] = {e};", indent="          "))
    L.append("        }")
    for k, o in enumerate(arrays):
        if o.kind == "out":
            if vector[k]:
                L.append(f"        *reinterpret_cast<xstride_vec<{o.ctype}, {v}>*>(__xs_q{k} + {col})"
                         f" = __xs_r{k}[u];")
            else:   # v == 1 (an output is never repeated along the row)
                L.append(f"        __xs_q{k}[{at(k, col)}] = __xs_r{k}[u].v[0];")
    L.append("      }\n      }\n      }\n    }")
    return "\n".join(L)


def _tiled_walk_body(ops, arrays, body, trans, tile, nops, off32, rest32, rest_axes):
    """The grid-walk tiled kernel: group-ordered tiles, a chunk of rest indices per block.

    Block (x, y, z) owns one TILE x TILE tile of (inner axis, tile axis), found without
    64-bit division (``xstride._kernels._geometry.TiledGeometry``), and walks the rest
    indices of chunk y. For each rest index every input is loaded into registers (a
    transposed operand along its unit-stride axis, the others along the output's);
    the transposed values go to shared memory (rows padded by one word), and the loads
    of the next rest index are issued before the current one is computed and stored,
    so they overlap the stores and the barrier. Offsets are 32-bit when the host has
    checked that they fit (``off32``); tiles inside the array skip the bounds tests.
    The block is 32 x 8 threads; each handles ``TILE/8 * TILE/32`` elements per rest
    index.
    """
    t, rows = tile, 8
    nh = t // 32
    per = (t // rows) * nh
    off = "int" if off32 else "long long"
    ridx = "unsigned int" if rest32 else "long long"
    direct = [k for k, o in enumerate(arrays) if not trans[k] and (o.kind == "in" or o.preload)]
    tks = [k for k in range(len(arrays)) if trans[k]]
    L = []
    for k in tks:
        L.append(f"    __shared__ {arrays[k].ctype} __xs_t{k}[{t}][{t + 1}];")
    L += [f"    typedef {off} OFF;", f"    typedef {ridx} RIDX;",
          "    const int tx = threadIdx.x, ty = threadIdx.y;",
          "    const unsigned int ga = (unsigned int)__xs_ga, gb = gridDim.x / ga;",
          "    const unsigned int a_in = blockIdx.x % ga, b_in = blockIdx.x / ga;"]
    for k in direct:
        L.append(f"    {arrays[k].ctype} __xs_d{k}[{per}], __xs_n{k}[{per}];")
    for k in tks:
        L.append(f"    {arrays[k].ctype} __xs_q{k}[{per}];")
    L += [f"    OFF nb[{nops}], cb[{nops}];",
          "    for (unsigned int z = blockIdx.z; z < (unsigned int)__xs_nz; z += gridDim.z) {",
          "      const unsigned int bg = z / (unsigned int)__xs_nga;",
          "      const unsigned int ag = z - bg * (unsigned int)__xs_nga;",
          f"      const long long i0b = (long long)(ag * ga + a_in) * {t};",
          f"      const long long i1b = (long long)(bg * gb + b_in) * {t};",
          f"      const int lim0 = p.e0 - i0b < {t} ? (int)(p.e0 - i0b) : {t};",
          f"      const int lim1 = p.e1 - i1b < {t} ? (int)(p.e1 - i1b) : {t};",
          f"      const bool full = lim0 == {t} && lim1 == {t};",
          f"      OFF td[{nops}], tt[{nops}];",
          f"      #pragma unroll\n      for (int k = 0; k < {nops}; ++k) {{",
          "        td[k] = (OFF)(i0b + tx) * (OFF)p.s0[k] + (OFF)(i1b + ty) * (OFF)p.s1[k];",
          "        tt[k] = (OFF)(i0b + ty) * (OFF)p.s0[k] + (OFF)(i1b + tx) * (OFF)p.s1[k];",
          "      }",
          "      for (RIDX rc = blockIdx.y; rc < (RIDX)__xs_nchunks; rc += gridDim.y) {",
          "        const RIDX r0 = rc * (RIDX)__xs_r;",
          "        const RIDX r1 = (long long)r0 + __xs_r < __xs_rest ? r0 + (RIDX)__xs_r : (RIDX)__xs_rest;",
          "        if (full) {",
          _walk_rest_loop(ops, arrays, body, trans, direct, tks, t, nh, rest_axes, True),
          "        } else {",
          _walk_rest_loop(ops, arrays, body, trans, direct, tks, t, nh, rest_axes, False),
          "        }",
          "      }",
          "    }"]
    return "\n".join(L)


def _rest_base(rest_axes, rr, nops):
    """Lines adding the offsets of rest index ``rr`` to ``b_`` (``rest_axes``: 0, 1 or
    2 = any number, decoded by ``xstride_ew_outer``)."""
    if rest_axes == 0:
        return []
    if rest_axes == 1:
        return [f"  #pragma unroll\n  for (int k = 0; k < {nops}; ++k) "
                f"b_[k] += (long long)({rr}) * p.strides[k][0];"]
    return [f"  xstride_ew_outer(p, (RIDX)({rr}), b_);"]


def _walk_rest_loop(ops, arrays, body, trans, direct, tks, t, nh, rest_axes, full):
    """The loop over one chunk's rest indices (``full``: no bounds tests)."""
    rows = 8
    slot = f"(u / {rows}) * {nh} + h / 32"
    gd = "true" if full else "tx + h < lim0 && ty + u < lim1"   # output-order element
    gt = "true" if full else "ty + u < lim0 && tx + h < lim1"   # transposed element
    loop = (f"#pragma unroll\nfor (int u = 0; u < {t}; u += {rows})\n"
            f"#pragma unroll\nfor (int h = 0; h < {t}; h += 32)")
    nops = len(arrays)

    def load(rr):
        out = ["{",
               f"  long long b_[{nops}];",
               f"  #pragma unroll\n  for (int k = 0; k < {nops}; ++k) b_[k] = p.offset[k];",
               *_rest_base(rest_axes, rr, nops),
               f"  #pragma unroll\n  for (int k = 0; k < {nops}; ++k) nb[k] = (OFF)b_[k];",
               "}"]
        if direct:
            out += [loop + " {", f"  if ({gd}) {{"]
            for k in direct:
                out.append(f"    __xs_n{k}[{slot}] = __xs_p_{arrays[k].name}[nb[{k}] + td[{k}]"
                           f" + (OFF)u * (OFF)p.s1[{k}] + (OFF)h * (OFF)p.s0[{k}]];")
            out += ["  }", "}"]
        if tks:
            out += [loop + " {", f"  if ({gt}) {{"]
            for k in tks:
                out.append(f"    __xs_q{k}[{slot}] = __xs_p_{arrays[k].name}[nb[{k}] + tt[{k}]"
                           f" + (OFF)u * (OFF)p.s0[{k}] + (OFF)h * (OFF)p.s1[{k}]];")
            out += ["  }", "}"]
        return out

    L = load("r0")
    L.append("for (RIDX rr = r0; rr < r1; ++rr) {")
    L.append(f"  #pragma unroll\n  for (int k = 0; k < {nops}; ++k) cb[k] = nb[k];")
    if tks:
        L += [loop + " {", f"  if ({gt}) {{"]
        for k in tks:
            L.append(f"    __xs_t{k}[ty + u][tx + h] = __xs_q{k}[{slot}];")
        L += ["  }", "}"]
    for k in direct:
        L.append(f"  #pragma unroll\n  for (int s = 0; s < {(t // rows) * nh}; ++s) "
                 f"__xs_d{k}[s] = __xs_n{k}[s];")
    if tks:
        L.append("  __syncthreads();")
    L.append("  if (rr + 1 < r1) {")
    L += ["    " + ln for ln in "\n".join(load("rr + 1")).split("\n")]
    L.append("  }")
    L += [loop + " {", f"  if ({gd}) {{"]

    def val(k, o):
        if trans[k]:
            return f"__xs_t{k}[tx + h][ty + u]"
        return f"__xs_d{k}[{slot}]"

    def store(k, o, e):
        return (f"__xs_p_{o.name}[cb[{k}] + td[{k}] + (OFF)u * (OFF)p.s1[{k}]"
                f" + (OFF)h * (OFF)p.s0[{k}]] = {e};")

    L.append(_element_code(ops, body, val, store, indent="    "))
    L += ["  }", "}"]
    if tks:
        L.append("  __syncthreads();")
    L.append("}")
    return "\n".join("          " + ln for ln in "\n".join(L).split("\n"))
