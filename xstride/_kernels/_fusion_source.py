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

__all__ = ["fused_body", "op_expression", "operand_names", "operand_specs"]

#: (function, loop C type) -> the intrinsic that is never contracted into an FMA
_RN = {("add", "float"): "__fadd_rn", ("subtract", "float"): "__fsub_rn",
       ("multiply", "float"): "__fmul_rn", ("add", "double"): "__dadd_rn",
       ("subtract", "double"): "__dsub_rn", ("multiply", "double"): "__dmul_rn"}


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
