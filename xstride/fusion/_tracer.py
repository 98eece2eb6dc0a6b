"""The tracer of ``xp.fuse``: the user's function run once on stand-in arrays.

:func:`trace` calls the function with a :class:`Traced` for each array argument (and
for each NumPy scalar), a :class:`Weak` for each Python scalar, and the other
arguments as they are. The stand-ins record, into a :class:`Recorder`, what the
function does with them:

- operators (arithmetic, comparison, bitwise, reflected and unary forms) and the
  namespace's elementwise functions called through ``xp.*`` (the dispatch hands a call
  whose arguments are stand-ins to :func:`._calls.namespace_call`) become Op nodes whose loop
  and result dtypes come from the same rules the unfused call uses
  (:func:`xstride.elementwise.resolve`, :func:`~xstride.elementwise.where_dtype`: NumPy's
  ``ufunc.resolve_dtypes`` with Python scalars weak, NEP 50);
- basic indexing, ``.T``, ``.mT``, ``permute_dims``, ``matrix_transpose``,
  ``expand_dims``, ``broadcast_to`` and ``reshape`` become view steps of the loads
  (:mod:`xstride._plans.fusion`, recorded by :mod:`._views`): a view of a computed
  value is pushed down to the loads it was computed from, each first broadcast to the
  value's shape;
- Python arithmetic on Python scalar arguments and literals is recorded as host nodes,
  computed per call on the host as the unfused run computes it;
- ``xp.sum``, ``prod``, ``min``, ``max``, ``mean`` (and the exact reduction methods,
  :mod:`._operators`) become :class:`~xstride._plans.fusion.Reduce` records
  (:mod:`._reduce`) whose results are loads of virtual arguments.

Anything else — a Python ``if`` on a traced value (``__bool__``), indexing by an
array, a function outside the list, an array that is not an argument — raises
:class:`Unfusable` naming the operation.
"""

from __future__ import annotations

import operator
import sys

import numpy as np

from .._core.errors import error
from .._core.ufuncs import ENGINE_UFUNCS, FUSION_MATH, IDENTITY_ON_INTEGERS
from .._plans import fusion as _plan
from .._plans.elementwise import broadcast_shapes
from ..elementwise import resolve
from . import _operators as _ops
from . import _reduce
from ._views import index, permute, reshape
from ._recorder import (_PY_SCALARS, _UNFUSED_LOOPS, ENGINE_DTYPES, TRACING, Recorder,
                        Unfusable)
from ._reduce import red_shape

__all__ = ["Unfusable", "Recorder", "Traced", "Weak", "trace", "ENGINE_DTYPES"]

# ----------------------------------------------------------------------------- operands
def _operand(rec, v):
    """``("dev", Traced)`` or ``("weak", host node, python type, value)`` of an operand."""
    if isinstance(v, Traced):
        if v._rec is not rec:
            raise Unfusable("a value traced by another fused function")
        return ("dev", v)
    if isinstance(v, Weak):
        return ("weak", v._h, _pytype(v.value), v.value)
    # np.float64 and np.complex128 are float and complex too, but strong (NEP 50):
    # not a weak Python scalar (``x * np.float64(2)`` of float32 ``x`` is float64)
    if isinstance(v, _PY_SCALARS) and not isinstance(v, np.generic):
        return ("weak", rec.host_node(("const", v)), _pytype(v), v)
    if isinstance(v, np.generic):
        raise Unfusable(f"a NumPy scalar that is no argument ({type(v).__name__}: a "
                        "literal, global or closure value; pass it as an argument or "
                        "write a Python scalar)")
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        raise Unfusable(f"an array that is no argument of the fused function "
                        f"({type(v).__module__.split('.')[0]}.{type(v).__name__}: made "
                        "inside it, or a global or closure value; pass it as an argument, "
                        "or write a Python scalar for a 0-D constant)")
    raise Unfusable(f"an operand of type {type(v).__name__}")


def _pytype(v):
    return bool if isinstance(v, bool) else int if isinstance(v, int) else \
        float if isinstance(v, float) else complex


def _engine(func, dts):
    for d in dts:
        if np.dtype(d) not in ENGINE_DTYPES:
            raise Unfusable(f"{func} in dtype {np.dtype(d)} (fused kernels compute in bool, "
                            "integer, float32 and float64 dtypes)")


def _node_of(rec, op, ldt) -> int:
    """The node of one operand converted to loop dtype ``ldt`` (a weak scalar becomes a
    by-value Scalar of ``ldt``, checked as the engine converts it)."""
    if op[0] == "dev":
        return op[1]._node
    try:
        with np.errstate(all="ignore"):   # 1e300 into float32 is inf, as the kernel has it
            np.asarray(op[3], dtype=ldt)
    except OverflowError:   # NumPy raises, or compares by value; the unfused run decides
        raise Unfusable(f"the Python int {op[3]} outside the range of {np.dtype(ldt)}",
                        by_value=True) from None
    return rec.add(_plan.Scalar(("host", op[1]), np.dtype(ldt).name), ())


def _apply(rec, func, ops, loop, rdt, np_strict=False, via=None) -> "Traced":
    """An Op node of ``func`` over operands ``ops`` with loop dtypes ``loop``."""
    _engine(func, tuple(loop) + (rdt,))
    devs = [o[1] for o in ops if o[0] == "dev"]
    if not devs:
        raise Unfusable(f"{func} of Python scalars only")
    if np_strict:
        for t in devs:
            if t._nparg is not None:
                raise Unfusable(f"xp.{func} of a NumPy scalar argument")
    for t in devs:   # an operand the loop promotes (float16 in a float32 loop) is read too
        if t.dtype not in ENGINE_DTYPES:
            raise Unfusable(f"{func} of an operand of dtype {t.dtype} (fused kernels read "
                            "bool, integer, float32 and float64 dtypes)")
    shape = devs[0]._shape
    for t in devs[1:]:
        if t._shape != shape:
            shape = broadcast_shapes(*(d._shape for d in devs), func=func)
            break
    ins = tuple(_node_of(rec, o, ld) for o, ld in zip(ops, loop))
    node = _plan.Op(func, ins, tuple(np.dtype(d).name for d in loop), np.dtype(rdt).name,
                    via or ("xp" if np_strict and func in _ENGINE else "op"))
    return Traced(rec, rec.add(node, shape), np.dtype(rdt), shape)


def ufunc(rec, func, args, np_strict=False):
    """An engine function or a math function of :data:`FUSION_MATH` over ``args``."""
    ops = [_operand(rec, a) for a in args]
    kinds = tuple(o[1].dtype if o[0] == "dev" else o[2] for o in ops)
    if func in IDENTITY_ON_INTEGERS and ops[0][0] == "dev" and ops[0][1].dtype.kind in "iu":
        return ops[0][1]
    loop = resolve(func, kinds)
    if func in FUSION_MATH and np.dtype(loop[-1]).kind != "f":
        raise Unfusable(f"xp.{func} in dtype {np.dtype(loop[-1])}")
    if func in _UNFUSED_LOOPS and np.dtype(loop[0]).kind in _UNFUSED_LOOPS[func]:
        raise Unfusable(f"CuPy's {func} in dtype {np.dtype(loop[0])} (not yet bit-identical)")
    return _apply(rec, func, ops, loop[:-1], loop[-1], np_strict)


# ----------------------------------------------------------------------------- stand-ins
def _read_by_user() -> bool:
    """Whether the ``__class__`` being read (by the property calling this) is read by
    code outside xstride: ``isinstance`` in the user's function, whose frame is the
    reader's (``isinstance`` itself has none; an ABC's check, ``numbers.Real``, is
    ``abc``'s frame, whose caller reads); the tracer's own checks are xstride's."""
    f = sys._getframe(2)
    while f.f_back is not None and f.f_globals.get("__name__") == "abc":
        f = f.f_back
    return f.f_globals.get("__name__", "").partition(".")[0] != "xstride"


def _binop(func, swap=False):
    def method(self, other):
        a, b = (other, self) if swap else (self, other)
        return ufunc(self._rec, func, (a, b))
    method.__name__ = func
    return method


def _refuse(what):
    def method(self, *args):
        raise Unfusable(what)
    return method


class Traced:
    """A stand-in array: a node of the graph, its dtype and trace-time shape.

    ``ndim`` and ``dtype`` are part of the signature; reading ``shape`` or ``size``
    makes the graph shape-dependent (keyed by the input shapes).
    """

    __slots__ = ("_rec", "_node", "dtype", "_shape", "_nparg", "_npcls")
    __array_ufunc__ = None          # NumPy defers to the reflected operators
    __hash__ = None

    @property
    def __class__(self):
        """What ``isinstance`` sees besides the exact type: the fused backend's array
        type (a NumPy scalar argument: its own scalar type), so that a branch on
        ``isinstance(x, cupy.ndarray)`` takes the side the unfused run takes."""
        if self._npcls is not None:
            return self._npcls
        # a branch on the array type holds for the arguments' type: a dask argument's
        # blocks (NumPy or CuPy arrays) would take the other one
        if _read_by_user():
            self._rec.type_read = True
        return self._rec.array_type or Traced

    def __init__(self, rec, node, dtype, shape, nparg=None, npcls=None):
        self._rec, self._node, self.dtype, self._shape = rec, node, np.dtype(dtype), tuple(shape)
        self._nparg = nparg
        self._npcls = npcls

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def shape(self):
        self._rec.shape_dependent = True
        return self._shape

    @property
    def size(self):
        self._rec.shape_dependent = True
        n = 1
        for e in self._shape:
            n *= e
        return n

    def __len__(self):
        if not self._shape:
            raise error(TypeError, "len()", "of a 0-d array (unsized object)")
        self._rec.shape_dependent = True
        return self._shape[0]

    @property
    def T(self):
        return permute(self, tuple(range(self.ndim))[::-1])

    @property
    def mT(self):
        if self.ndim < 2:   # the unfused .mT and xp.matrix_transpose raise (no 1-D no-op)
            raise error(ValueError, "mT", f"needs an array of at least 2 dimensions, got "
                                          f"{self.ndim}")
        axes = list(range(self.ndim))
        axes[-2:] = axes[-2:][::-1]
        return permute(self, axes)

    def transpose(self, *axes):
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = axes[0]
        return permute(self, axes or tuple(range(self.ndim))[::-1])

    def reshape(self, *shape, **kwargs):
        if kwargs:   # CuPy's order= (and copy=): run unfused, named (not the TypeError)
            raise Unfusable(f"reshape with {', '.join(k + '=' for k in kwargs)}")
        return reshape(self, shape[0] if len(shape) == 1 else shape)

    def __array_namespace__(self, *args, **kwargs):
        # as xp.array_namespace(x): backend-generic code would keep the trace's branch
        raise Unfusable("x.__array_namespace__() of a traced array")

    def astype(self, dtype, copy=True):
        return astype(self, dtype, copy)

    def __getitem__(self, key):
        return index(self, key)

    __add__, __radd__ = _binop("add"), _binop("add", True)
    __sub__, __rsub__ = _binop("subtract"), _binop("subtract", True)
    __mul__, __rmul__ = _binop("multiply"), _binop("multiply", True)
    __truediv__, __rtruediv__ = _binop("divide"), _binop("divide", True)
    __and__, __rand__ = _binop("bitwise_and"), _binop("bitwise_and", True)
    __or__, __ror__ = _binop("bitwise_or"), _binop("bitwise_or", True)
    __xor__, __rxor__ = _binop("bitwise_xor"), _binop("bitwise_xor", True)
    __lt__, __le__ = _binop("less"), _binop("less_equal")
    __gt__, __ge__ = _binop("greater"), _binop("greater_equal")
    __eq__, __ne__ = _binop("equal"), _binop("not_equal")

    def __neg__(self):
        return ufunc(self._rec, "negative", (self,))

    def __pos__(self):
        return ufunc(self._rec, "positive", (self,))

    def __abs__(self):
        return ufunc(self._rec, "abs", (self,))

    def __invert__(self):
        return ufunc(self._rec, "bitwise_invert", (self,))

    __bool__ = _refuse("Python control flow on an array value (bool() of a traced array)")
    __int__ = _refuse("int() of a traced array")
    __float__ = _refuse("float() of a traced array")
    __complex__ = _refuse("complex() of a traced array")
    __index__ = _refuse("a traced array used as an index or int")
    __round__ = _refuse("round() of a traced array")
    __floor__ = _refuse("math.floor() of a traced array")
    __ceil__ = _refuse("math.ceil() of a traced array")
    __trunc__ = _refuse("math.trunc() of a traced array")
    __iter__ = _refuse("iteration over a traced array")
    __array__ = _refuse("conversion of a traced array to a NumPy array")
    __setitem__ = _refuse("assignment into a traced array (setitem)")
    # CuPy's operators (their kernels' expressions: _fusion_source.CUPY_OPERATORS)
    __floordiv__, __rfloordiv__ = _binop("floor_divide"), _binop("floor_divide", True)
    __mod__, __rmod__ = _binop("remainder"), _binop("remainder", True)
    __lshift__, __rlshift__ = _binop("left_shift"), _binop("left_shift", True)
    __rshift__, __rrshift__ = _binop("right_shift"), _binop("right_shift", True)
    __rpow__ = _binop("power", True)

    def __pow__(self, other):
        return _ops.power(self, other, ufunc, astype, Weak)

    def __divmod__(self, other):
        return self // other, self % other

    def __rdivmod__(self, other):
        return other // self, other % self

    sum, prod, max, min = (_ops.bound(n, lambda *a: _reduction(*a))
                           for n in ("sum", "prod", "max", "min"))

    __matmul__ = __rmatmul__ = _refuse("operator @ (matmul)")
    # all of them: unfused, ``x &= 1`` writes into the caller's array; a kernel would not
    __iadd__ = __isub__ = __imul__ = __itruediv__ = __iand__ = __ior__ = __ixor__ = \
        __ifloordiv__ = __imod__ = __ipow__ = __ilshift__ = __irshift__ = __imatmul__ = \
        _refuse("an in-place operator")
    # the text of a stand-in would become a constant of the kernel (``len(str(x))``), and
    # a branch on it take the other side than on the argument itself
    __str__ = __format__ = __repr__ = _refuse("str(), repr() or format() of a traced array")

    def __getattr__(self, name):
        if name.startswith("__"):
            # a special name the argument's array type has (``__dask_graph__`` of a dask
            # array, ``__cuda_array_interface__`` of a CuPy one): ``hasattr`` on the
            # stand-in said False, and a branch on it took the other side silently
            kind = self._npcls or self._rec.array_type
            if kind is not None and hasattr(kind, name):
                raise Unfusable(f"the array attribute {name}")
            raise AttributeError(name)
        raise Unfusable(f"the array attribute or method .{name}")


def _hostop(name, swap=False):
    def method(self, other):
        if isinstance(other, Traced):
            return NotImplemented
        if isinstance(other, Weak):
            h, v = other._h, other.value
        elif isinstance(other, np.generic):   # strong (NEP 50), though np.float64 is a float
            raise Unfusable(f"a NumPy scalar that is no argument ({type(other).__name__}: "
                            "a literal, global or closure value; pass it as an argument "
                            "or write a Python scalar)")
        elif isinstance(other, _PY_SCALARS):
            h, v = self._rec.host_node(("const", other)), other
        else:
            return NotImplemented
        a, b = ((h, v), (self._h, self.value)) if swap else ((self._h, self.value), (h, v))
        if name == "pow" and isinstance(a[1], int) and isinstance(b[1], int):
            # int ** int is an int or a float by the exponent's sign: no fixed type
            raise Unfusable("** of Python int scalar arguments")
        value = getattr(operator, name)(a[1], b[1])
        return Weak(self._rec, self._rec.host_node(("binary", name, a[0], b[0])), value)
    return method


def _hostun(name):
    def method(self):
        value = getattr(operator, name)(self.value)
        return Weak(self._rec, self._rec.host_node(("unary", name, self._h)), value)
    return method


class Weak:
    """A stand-in Python scalar argument (or Python arithmetic on one): weak in the
    elementwise functions (NEP 50), its value computed per call on the host."""

    __slots__ = ("_rec", "_h", "value")
    __array_ufunc__ = None
    __hash__ = None

    def __init__(self, rec, h, value):
        self._rec, self._h, self.value = rec, h, value

    @property
    def __class__(self):
        """What ``isinstance`` in the user's function sees: the value's type (its type is
        the signature's), so that ``isinstance(s, int)`` takes the unfused run's branch;
        the tracer's own checks see the stand-in."""
        return type(self.value) if _read_by_user() else Weak

    __add__, __radd__ = _hostop("add"), _hostop("add", True)
    __sub__, __rsub__ = _hostop("sub"), _hostop("sub", True)
    __mul__, __rmul__ = _hostop("mul"), _hostop("mul", True)
    __truediv__, __rtruediv__ = _hostop("truediv"), _hostop("truediv", True)
    __floordiv__, __rfloordiv__ = _hostop("floordiv"), _hostop("floordiv", True)
    __mod__, __rmod__ = _hostop("mod"), _hostop("mod", True)
    __pow__, __rpow__ = _hostop("pow"), _hostop("pow", True)
    __neg__, __pos__, __abs__ = _hostun("neg"), _hostun("pos"), _hostun("abs")
    __lt__, __le__, __gt__, __ge__ = (_hostop("lt"), _hostop("le"), _hostop("gt"),
                                      _hostop("ge"))
    __eq__, __ne__ = _hostop("eq"), _hostop("ne")
    __and__, __rand__ = _hostop("and_"), _hostop("and_", True)
    __or__, __ror__ = _hostop("or_"), _hostop("or_", True)
    __xor__, __rxor__ = _hostop("xor"), _hostop("xor", True)
    __lshift__, __rlshift__ = _hostop("lshift"), _hostop("lshift", True)
    __rshift__, __rrshift__ = _hostop("rshift"), _hostop("rshift", True)
    __invert__ = _hostun("invert")

    def __divmod__(self, other):
        return self // other, self % other

    def __rdivmod__(self, other):
        return other // self, other % self

    __bool__ = _refuse("Python control flow on a scalar argument (bool())")
    __int__ = _refuse("int() of a scalar argument")
    __float__ = _refuse("float() of a scalar argument")
    __index__ = _refuse("a scalar argument used as an index or int")
    __round__ = _refuse("round() of a scalar argument")
    __floor__ = _refuse("math.floor() of a scalar argument")
    __ceil__ = _refuse("math.ceil() of a scalar argument")
    __trunc__ = _refuse("math.trunc() of a scalar argument")
    # its text holds the first call's value (``len(str(k))`` would be a constant)
    __str__ = __format__ = _refuse("str() or format() of a scalar argument")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise Unfusable(f"the attribute or method .{name} of a scalar argument")

    def __repr__(self):
        return f"Weak({self.value!r})"


# ----------------------------------------------------------------------------- functions
def astype(t, dtype, copy=True):
    dt = np.dtype(dtype)
    if not copy and dt == t.dtype:
        return t
    _engine("astype", (dt,))
    return _apply(t._rec, "astype", (("dev", t),), (dt,), dt)


#: what xstride's engine computes when called as ``xp.<name>`` (its own allocation order)
_ENGINE = frozenset(ENGINE_UFUNCS) | {"where"}
def _reduction(name, args, kwargs) -> Traced:
    """``xp.<name>`` (a reduction of :mod:`._reduce`): its result, a load of the
    reduction's virtual argument."""
    x, red = _reduce.reduction(name, args, kwargs, Traced)
    shape = red_shape(x, red)
    return Traced(x._rec, x._rec.add(_plan.Load(red.arg, (), red.out), shape), red.out, shape)


def trace(fn, args, owns):
    """Run ``fn`` on stand-ins of ``args`` and return its graph and ``multi``: whether it
    returned a tuple, or, where it returned one value at several places, the output
    index of each place (:func:`~xstride._plans.fusion.results`). ``owns(a)``: the test
    for an array of the backend being fused.

    Raises
    ------
    Unfusable
        What the function did that no fused kernel expresses.
    Exception
        Whatever ``fn`` raised (an error of the unfused rules, a user error).
    """
    rec = Recorder(len(args))
    targs = []
    for i, a in enumerate(args):
        if isinstance(a, np.generic):
            targs.append(Traced(rec, rec.add(_plan.Scalar(("arg", i), a.dtype.name), ()),
                                a.dtype, (), nparg=i, npcls=type(a)))
        elif owns(a):
            if rec.array_type is None:
                rec.array_type = type(a)
            targs.append(Traced(rec, rec.add(_plan.Load(i, (), a.dtype.name), a.shape),
                                a.dtype, a.shape))
        elif isinstance(a, _PY_SCALARS):
            targs.append(Weak(rec, rec.host_node(("arg", i)), a))
        else:
            targs.append(a)
    token = TRACING.set(rec)
    try:
        res = fn(*targs)
    finally:
        TRACING.reset(token)
    if rec.unfusable is not None:   # raised, and caught by the function itself
        raise rec.unfusable
    multi = isinstance(res, tuple)
    outs = res if multi else (res,)
    nodes = []
    for o in outs:
        if not isinstance(o, Traced) or o._rec is not rec:
            raise Unfusable(f"returning {type(o).__name__} (a fused function returns "
                            "traced arrays)")
    # a value returned at several places (``y, y``) is one output, returned at each
    # (the same array object, as unfused); ``multi`` then the places' output indices
    first = {}
    picks = tuple(first.setdefault(id(o), len(first)) for o in outs)
    if len(first) < len(outs):
        outs = tuple({id(o): o for o in outs}.values())
        multi = picks
    if all(_reduce.is_result(rec, o._node) for o in outs):   # reductions' results as they are
        return rec.graph(tuple(o._node for o in outs)), multi
    for o in outs:
        _engine("fuse", (o.dtype,))
        k = o._node
        if not isinstance(rec.nodes[k], _plan.Op):   # an argument (or a view of one): a copy
            if o._nparg is not None:
                raise Unfusable("returning a NumPy scalar argument")
            k = astype(o, o.dtype)._node
        nodes.append(k)
    if len({rec.shapes[k] for k in nodes}) != 1:
        raise Unfusable("outputs of different shapes")
    return rec.graph(tuple(nodes)), multi
