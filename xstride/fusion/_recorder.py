"""The record of a trace of ``xp.fuse``: the device nodes with their trace-time shapes,
the host nodes (Python arithmetic on scalar arguments), and :class:`Unfusable`, what a
trace raises when the function does what no fused kernel expresses. The stand-ins that
fill it are in :mod:`._tracer`.

An :class:`Unfusable` raised while a function is traced is also kept by the trace's
recorder (:data:`TRACING`): where the function catches it (``except Exception``, a bare
``except``, ``contextlib.suppress``) and goes on, the trace is still refused when the
function returns. Before, the trace recorded only the fallback branch and fused it,
while each dask block's run took the branch the trace had left (a scan inside ``try``
restarted at every block).
"""

from __future__ import annotations

import contextvars

import numpy as np

from .._plans import fusion as _plan

__all__ = ["ENGINE_DTYPES", "Unfusable", "Recorder", "TRACING"]

#: dtypes a fused kernel computes in (the engine's; the ``_core.dtypes`` table).
ENGINE_DTYPES = frozenset(np.dtype(n) for n in
                          ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                           "uint32", "uint64", "float32", "float64"))
_PY_SCALARS = (bool, int, float, complex)


class Unfusable(Exception):
    """What the function did that no fused kernel expresses (``what`` names it);
    ``by_value``: only for this call's scalar values (a Python int outside its loop
    dtype), not for every call of the signature."""

    def __init__(self, what: str, by_value: bool = False):
        super().__init__(what)
        self.what = what
        self.by_value = by_value
        rec = TRACING.get()
        if rec is not None and rec.unfusable is None:
            rec.unfusable = self   # the first one: refused at the trace's end if caught


#: The :class:`Recorder` of the trace running in this context (None outside a trace).
TRACING: contextvars.ContextVar = contextvars.ContextVar("xstride_fuse_tracing",
                                                         default=None)


def _memo_key(node):
    return (type(node).__name__,) + tuple(getattr(node, f) for f in node.__dataclass_fields__)


class Recorder:
    """The graph being recorded: device nodes with their trace-time shapes, host nodes."""

    def __init__(self, nargs: int):
        self.nargs = nargs
        self.nodes: list = []
        self.shapes: list = []
        self.memo: dict = {}
        self.host: list = []
        self.hmemo: dict = {}
        self.shape_dependent = False
        #: the reductions recorded (:class:`~xstride._plans.fusion.Reduce`), in call order
        self.reductions: list = []
        #: the array type of the backend being fused (what ``__class__`` of a traced
        #: array answers, so ``isinstance(x, cupy.ndarray)`` holds as in the unfused run)
        self.array_type = None
        #: the function read an array stand-in's class (``isinstance(x, np.ndarray)``):
        #: its branch holds for the arguments' type, not for a dask argument's blocks
        self.type_read = False
        #: the first :class:`Unfusable` raised in the trace (the function may catch it)
        self.unfusable = None

    def add(self, node, shape) -> int:
        """Index of ``node`` (an equal node recorded before is reused)."""
        key = _memo_key(node)
        i = self.memo.get(key)
        if i is None:
            i = self.memo[key] = len(self.nodes)
            self.nodes.append(node)
            self.shapes.append(tuple(shape))
        return i

    def host_node(self, h) -> int:
        # 1, 1.0 and True differ, and so do 0.0 and -0.0: constants keyed by type and repr
        key = (h[0], type(h[1]), repr(h[1])) if h[0] == "const" else h
        i = self.hmemo.get(key)
        if i is None:
            i = self.hmemo[key] = len(self.host)
            self.host.append(h)
        return i

    def graph(self, outputs) -> _plan.Graph:
        return _plan.build(self.nodes, self.host, outputs, self.nargs, self.shape_dependent,
                           tuple(self.reductions), self.type_read)


#: CuPy operators whose fused expression gave other bits than CuPy's own kernel on the
#: H200 for loops of these dtype kinds: ``%`` of floats (CuPy's kernel contracts
#: ``x - floor(x / y) * y`` into a fused multiply-add), shifts of signed integers by
#: negative counts (CuPy: -1 for a negative value, the fused kernel: 0). They run
#: unfused (``FusionWarning``) until the fused expressions match.
_UNFUSED_LOOPS = {"remainder": "f", "left_shift": "i", "right_shift": "i"}
