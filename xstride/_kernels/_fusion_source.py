"""The per-element body of a fused kernel: a traced graph as C++ statements (no CuPy).

The body goes into the engine's kernels (:func:`._elementwise_source.kernel_source`)
like the one-function body of ``xp.add``; the operands are named here:

- ``r0, r1, ...`` the outputs (C type of each output node's dtype);
- ``l0, l1, ...`` the loads (:attr:`xstride._plans.fusion.Graph.loads` order), read in
  their storage type;
- ``s0, s1, ...`` the by-value scalars (:attr:`~xstride._plans.fusion.Graph.scalars`).

Each op becomes ``const T vI = (T)(expr);``: its inputs converted to the loop types
(``(L)x``), the function's expression, the result converted to the result type — the
conversions the unfused run makes when it loads, computes and stores each
intermediate array, so every intermediate is rounded to its dtype as it is there.

Rounding: NVRTC contracts ``a * b + c`` into one fused multiply-add by default
(``--fmad=true``), which the unfused run (one kernel per operator, the product stored
and loaded again) never does. The body therefore writes float32/float64 ``+``, ``-``
and ``*`` with the round-to-nearest intrinsics (``__fadd_rn``, ``__dmul_rn``, ...),
which the compiler never contracts (CUDA C++ Programming Guide, "Intrinsic
Functions"), and keeps the engine's default options, so that the math functions
compile to what CuPy's kernels compile them to.
"""

from __future__ import annotations

from .._core.dtypes import C_TYPES
from .._core.errors import error
from .._core.ufuncs import ENGINE_UFUNCS, FUSION_MATH, FUSION_PREDICATES
from .._plans.fusion import Graph
from ._elementwise_source import Operand

__all__ = ["CUPY_OPERATORS", "fused_body", "op_expression", "operand_names", "operand_specs", "reduce_source"]

#: (function, loop C type) -> the intrinsic that is never contracted into an FMA
_RN = {("add", "float"): "__fadd_rn", ("subtract", "float"): "__fsub_rn",
       ("multiply", "float"): "__fmul_rn", ("add", "double"): "__dadd_rn",
       ("subtract", "double"): "__dsub_rn", ("multiply", "double"): "__dmul_rn"}


#: CuPy's operators //, %, **, <<, >> and the reciprocal of ``x ** -1.0``: (integer loop,
#: float loop) C++ expressions as CuPy's ufuncs write them (cupy/_core: floor_divide,
#: remainder, power, left_shift, right_shift, reciprocal), over the helpers of
#: ``xstride/elementwise.cuh``; the float remainder is left as CuPy writes it (the
#: compiler contracts it as it does there: the same default options).
CUPY_OPERATORS = {
    "floor_divide": ("xstride_fz_floordiv({0}, {1})", "xstride_fz_floordiv({0}, {1})"),
    "remainder": ("(({0} - xstride_fz_floordiv({0}, {1}) * {1}) * ({1} != 0))",
                  "({0} - xstride_fz_floordiv({0}, {1}) * {1})"),
    "power": ("xstride_fz_ipow({0}, {1})", "pow{f}({0}, {1})"),
    "left_shift": ("({0} << {1})", "({0} << {1})"),
    "right_shift": ("({0} >> {1})", "({0} >> {1})"),
    "reciprocal": ("({0} == 0 ? 0 : (1 / {0}))", "(1 / {0})"),
}


def op_expression(func: str, loop_ctypes, args) -> str:
    """C++ expression of ``func`` over ``args`` (already of the loop C types).

    Raises
    ------
    ValueError
        A function the fused kernels do not know (a tracer bug: it records only these).
    """
    lt = loop_ctypes[0] if loop_ctypes else ""
    rn = _RN.get((func, lt))
    if rn is not None:
        return f"{rn}({args[0]}, {args[1]})"
    if func == "square" and lt in ("float", "double"):
        return f"{_RN[('multiply', lt)]}({args[0]}, {args[0]})"
    if func in ENGINE_UFUNCS:
        return "(" + ENGINE_UFUNCS[func][1].format(*args) + ")"
    if func in FUSION_MATH:
        name = FUSION_MATH[func][1]
        suffix = "f" if lt == "float" else ""
        return f"{name}{suffix}(" + ", ".join(args) + ")"
    if func in FUSION_PREDICATES:
        return FUSION_PREDICATES[func][1].format(*args)
    if func == "bitwise_invert":
        return f"(!{args[0]})" if lt == "bool" else f"(~{args[0]})"
    if func == "where":
        return f"({args[0]} ? {args[1]} : {args[2]})"
    if func in CUPY_OPERATORS:
        return CUPY_OPERATORS[func][lt in ("float", "double")].format(
            *args, f="f" if lt == "float" else "")
    if func == "astype":
        return args[0]
    raise error(ValueError, "fuse", f"no C expression for {func!r}")


def operand_names(graph: Graph) -> dict[int, str]:
    """Node index -> the C name of its value (``lK``, ``sK`` or ``vI``), for the nodes
    the outputs depend on."""
    names = {i: f"l{k}" for k, i in enumerate(graph.loads)}
    names.update((i, f"s{k}") for k, i in enumerate(graph.scalars))
    names.update((i, f"v{i}") for i in graph.ops)
    return names


def fused_body(graph: Graph) -> str:
    """C++ statements computing the outputs ``r0, r1, ...`` of ``graph`` for one element."""
    names = operand_names(graph)
    lines = []
    for i in graph.ops:
        n = graph.nodes[i]
        ct = C_TYPES[n.dtype]
        lts = [C_TYPES[d] for d in n.loop]
        args = [f"(({lt}){names[k]})" for k, lt in zip(n.inputs, lts)]
        lines.append(f"const {ct} {names[i]} = ({ct})({op_expression(n.func, lts, args)});")
    for k, o in enumerate(graph.outputs):
        lines.append(f"r{k} = {names[o]};")
    return " ".join(lines)


def operand_specs(graph: Graph) -> tuple:
    """The kernel's operands, in the launcher's order: the outputs ``r*``, the loads
    ``l*`` (read in their storage type), the by-value scalars ``s*``."""
    specs = [Operand(f"r{k}", C_TYPES[graph.nodes[o].dtype], kind="out")
             for k, o in enumerate(graph.outputs)]
    specs += [Operand(f"l{k}", C_TYPES[graph.nodes[i].dtype])
              for k, i in enumerate(graph.loads)]
    specs += [Operand(f"s{k}", C_TYPES[graph.nodes[i].dtype], kind="scalar")
              for k, i in enumerate(graph.scalars)]
    return tuple(specs)


def reduce_source(graph: Graph, nd: int, w32: bool, dense: tuple = (), rowb: tuple = ()) -> str:
    """The text put before ``reductions.cu`` for a fused reduction of ``graph``'s one
    output: the type ``xs_fz_ptr`` that the reduction kernels read in place of a pointer
    (``XS_RED_IN``, ``XS_RED_PTR``, ``XS_RED_ADDR``), whose element ``o`` is the fused
    expression at the operands' offsets of element ``o`` of the array the unfused run
    would have stored and reduced (a contiguous virtual array, address ``o *
    sizeof(T)``: as aligned as a new allocation).

    The kernel parameter (all 8-byte slots, packed by the host in this order): the
    loads' addresses ``p0, p1, ...``; the extents ``ext[nd]`` of the virtual array's
    axes (outermost first) and their division constants ``mg[nd]``
    (:func:`xstride._plans.fusion.magic`, used when ``w32``: every offset below 2**32);
    the loads' element strides ``st[loads][nd]``; the scalars ``s0, s1, ...``; the
    offset ``o`` (0).

    ``place`` splits an offset into the operands' offsets (a division per axis but
    the outermost); a vector load (``xs_load_vec``) places its first element only and
    steps the innermost axis for the others (with one carry into the outer axis when
    there are two, a new ``place`` past that), so that a thread evaluates its elements
    in the order, and to the values, of the plain kernel's loads.

    ``dense``: the loads (their numbers ``k``) whose element for element ``o`` of the
    virtual array is element ``o`` of the load's own memory (its strides are the
    virtual array's C-order strides; not bool). A vector load of ``V`` elements reads
    such a load's ``V`` values as one 8- or 16-byte load where its address is aligned
    (``xs_fz_dense``, checked at run time), else one by one: the same values in the
    same order, in a fraction of the load instructions, whose lanes would each read
    ``V`` elements apart.

    ``rowb``: on a walk of two axes (``nd == 2``), the loads (numbers ``k``, not bool,
    not dense) broadcast along the inner axis (inner stride 0: ``m[:, None]`` of
    ``m[:, None] * v``), where the host has checked that the inner extent is at least
    ``16 / sizeof(T) - 1``, so that the ``V`` elements of a vector load (at most 16
    bytes) lie in at most two rows. A vector load reads such a load twice, the value of
    its first row and of its last (the same address when the vector stays in one row),
    both before any is used, and each element takes the one of its row: two load
    instructions in place of ``V``, none of them conditional.
    """
    out = graph.nodes[graph.outputs[0]]
    t = C_TYPES[out.dtype]
    nl = max(len(graph.loads), 1)
    loop = "#pragma unroll\n        for (int k = 0; k < " + str(nl) + "; ++k) "
    lines = ["#include <xstride/elementwise.cuh>",
             "#define XS_RED_IN(T) xs_fz_ptr", "#define XS_RED_PTR(T) xs_fz_ptr",
             "#define XS_RED_ADDR(p) ((p).address())"]
    if dense:
        lines += [
            "template <typename C, int V>",
            "__device__ __forceinline__ void xs_fz_dense(const C* p, C (&d)[V])",
            "{",
            "    const unsigned long long a = (unsigned long long)p;",
            "    if constexpr (sizeof(C) * V == 16) {",
            "        if ((a & 15ull) == 0ull) {",
            "            union { uint4 u; C t[V]; } w; w.u = __ldg(reinterpret_cast<const uint4*>(p));",
            "#pragma unroll\n            for (int j = 0; j < V; ++j) d[j] = w.t[j];",
            "            return;",
            "        }",
            "    } else if constexpr (sizeof(C) * V == 8) {",
            "        if ((a & 7ull) == 0ull) {",
            "            union { uint2 u; C t[V]; } w; w.u = __ldg(reinterpret_cast<const uint2*>(p));",
            "#pragma unroll\n            for (int j = 0; j < V; ++j) d[j] = w.t[j];",
            "            return;",
            "        }",
            "    }",
            "#pragma unroll\n    for (int j = 0; j < V; ++j) d[j] = __ldg(p + j);",
            "}"]
    lines.append("struct xs_fz_ptr {")
    for k, i in enumerate(graph.loads):
        lines.append(f"    const {C_TYPES[graph.nodes[i].dtype]}* p{k};")
    lines += [f"    long long ext[{nd}];", f"    unsigned long long mg[{nd}];",
              f"    long long st[{nl}][{nd}];"]
    for k, i in enumerate(graph.scalars):
        lines.append(f"    alignas(8) {C_TYPES[graph.nodes[i].dtype]} s{k};")
    lines += [
        "    long long o;",
        "    __device__ __forceinline__ xs_fz_ptr operator+(long long k) const "
        "{ xs_fz_ptr r = *this; r.o = o + k; return r; }",
        f"    __device__ __forceinline__ {t} operator[](long long k) const {{ return at(o + k); }}",
        "    __device__ __forceinline__ unsigned long long address() const "
        f"{{ return (unsigned long long)o * sizeof({t}); }}",
        # the operands' offsets of element i; returns its index on the innermost axis
        f"    __device__ __forceinline__ long long place(long long i, long long (&f)[{nl}]) const {{",
        "        long long q = i; long long inner = i;",
        "        " + loop + "f[k] = 0;",
        f"#pragma unroll\n        for (int a = {nd - 1}; a > 0; --a) {{"]
    if w32:
        lines.append("            const unsigned u = (unsigned)q; const unsigned long long g = mg[a];"
                     " const unsigned h = __umulhi((unsigned)g, u);"
                     " const long long qq = (long long)((h + ((u - h) >> (unsigned)((g >> 32) & 255u)))"
                     " >> (unsigned)(g >> 40));")
    else:
        lines.append("            const long long qq = q / ext[a];")
    lines += [
        "            const long long ix = q - qq * ext[a]; q = qq;",
        f"            if (a == {nd - 1}) inner = ix;",
        "            " + loop.replace("        ", "            ") + "f[k] += ix * st[k][a];",
        "        }",
        "        " + loop + "f[k] += q * st[k][0];",
        "        return inner;",
        "    }",
        f"    __device__ __forceinline__ {t} val(const long long (&f)[{nl}]) const {{"]
    for k, i in enumerate(graph.loads):
        ct = C_TYPES[graph.nodes[i].dtype]
        src = f"p{k}[f[{k}]]" if ct == "bool" else f"__ldg(p{k} + f[{k}])"
        lines.append(f"        const {ct} l{k} = {src};")
    lines += [f"        {t} r0;",
              "        " + fused_body(graph),   # the scalars s* are members
              "        return r0;",
              "    }",
              f"    __device__ __forceinline__ {t} at(long long i) const "
              f"{{ long long f[{nl}]; place(i, f); return val(f); }}",
              "    template <int V>",
              f"    __device__ __forceinline__ void run(long long i, {t} (&out)[V]) const {{",
              f"        long long f[{nl}]; long long ix = place(i, f);"]
    for k in dense:
        ct = C_TYPES[graph.nodes[graph.loads[k]].dtype]
        lines.append(f"        {ct} d{k}[V]; xs_fz_dense<{ct}, V>(p{k} + f[{k}], d{k});")
    rowb = rowb if nd == 2 else ()
    if rowb:   # the last element's row is the next one: one carry at most (the host's check)
        lines.append("        const bool xs_two = ix + (long long)(V - 1) >= ext[1]; bool xs_next = false;")
    for k in rowb:
        ct = C_TYPES[graph.nodes[graph.loads[k]].dtype]
        lines.append(f"        const {ct} a{k} = __ldg(p{k} + f[{k}]);"
                     f" const {ct} b{k} = __ldg(p{k} + f[{k}] + (xs_two ? st[{k}][0] : 0ll));")
    lines += ["#pragma unroll\n        for (int j = 0; j < V; ++j) {"]
    if dense or rowb:
        lines.append("            {")
        for k, i in enumerate(graph.loads):
            ct = C_TYPES[graph.nodes[i].dtype]
            src = (f"d{k}[j]" if k in dense else f"(xs_next ? b{k} : a{k})" if k in rowb
                   else f"p{k}[f[{k}]]" if ct == "bool" else f"__ldg(p{k} + f[{k}])")
            lines.append(f"                const {ct} l{k} = {src};")
        lines += [f"                {t} r0;", "                " + fused_body(graph),
                  "                out[j] = r0;", "            }"]
    else:
        lines.append("            out[j] = val(f);")
    lines += ["            if (j + 1 == V) break;"]
    if nd == 1:
        lines.append("            " + loop.replace("        ", "            ") + "f[k] += st[k][0];")
    elif nd == 2:
        lines += ["            ++ix;",
                  "            " + loop.replace("        ", "            ") + "f[k] += st[k][1];",
                  "            if (ix == ext[1]) { ix = 0;" + (" xs_next = true;" if rowb else ""),
                  "                " + loop.replace("        ", "                ")
                  + "f[k] += st[k][0] - ext[1] * st[k][1]; }"]
    else:
        lines += ["            if (++ix == ext[" + str(nd - 1) + "]) { ix = place(i + j + 1, f); "
                  "continue; }",
                  "            " + loop.replace("        ", "            ") + "f[k] += st[k]["
                  + str(nd - 1) + "];"]
    lines += ["        }", "    }", "};",
              "template <typename Tin, int V>",
              "__device__ __forceinline__ void xs_load_vec(const xs_fz_ptr& p, Tin (&out)[V])",
              "{",
              "    p.run<V>(p.o, out);",
              "}"]
    return "\n".join(lines) + "\n"
