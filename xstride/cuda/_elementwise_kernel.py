"""``xp.cuda.ElementwiseKernel``: CuPy's user elementwise kernels on xstride's engine.

The parameter syntax is CuPy's (``"float32 x, T y"``, ``"T z"``): a type is a NumPy
dtype name (``float32``; ``f4``, ``>f8`` and C type names such as ``float`` are
refused, as CuPy refuses them) or a type placeholder of one letter, bound from the
arguments.
Inputs are read by value, outputs are assigned; ``i`` is the linear C-order index of
the element (a kernel that uses it keeps the C iteration order: no axis reordering,
no tiling). Broadcasting, the fast paths and the overlap rule are the engine's.

Not supported (``NotImplementedError``): ``raw`` parameters, ``reduce``-style options.
"""

from __future__ import annotations

import difflib
import hashlib
import numbers
import re
from pathlib import Path

import numpy as np

from .._core import dtypes as _dtypes
from .._core.csource import (CXX_KEYWORDS, code_only, is_c_identifier, non_ascii_note,
                             strip_comments)
from .._core.sizes import INT64_MAX
from .._plans.elementwise import broadcast_shapes
from .._core.errors import (argument_error, error, overflow_error, type_error,
                            unavailable_error, value_error)
from .._backends.select import load_cupy
from . import _executors, _hip_gate
from ._signature import Signature
from .._core.includes import IncludeGraph
from .kernel import _sequence_of, pin_pre_includes, scan_user_source, user_options
from .. import _backends
from ..elementwise import check_out

__all__ = ["ElementwiseKernel"]

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DTYPE_NAMES = frozenset(
    "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 float32 float64 "
    "complex64 complex128".split())
#: C type names that are no C++ keyword (a placeholder may not take them) -> the dtype
_C_TYPE_NAMES = {
    **{f"{p}int{b}_t": f"{p}int{b}" for p in ("", "u") for b in (8, 16, 32, 64)},
    "half": "float16", "__half": "float16", "size_t": "uint64", "ssize_t": "int64",
    "ptrdiff_t": "int64",
}
_USES_I = re.compile(r"(?<![A-Za-z0-9_.])i(?![A-Za-z0-9_])")


def _unsupported(engine, dt) -> bool:
    """A dtype user kernels cannot take: one the engine lacks, and float16 (the engine
    computes its ufunc loops in float; user kernels written for CuPy's float16 type
    are not run on that yet)."""
    return engine.ctype(dt) is None or np.dtype(dt) == np.float16


def _own_digest(graph: IncludeGraph) -> str:
    """The digest for the options of a preamble that includes a header outside the
    shipped folder (a user's, from an ``-I`` folder of the options), else ``""``.

    The options then carry ``-DXSTRIDE_HEADERS_SHA256=`` as a :class:`CudaKernel`'s
    do, so that an edited header changes CuPy's cache key; as the compiler layer adds
    no digest of its own to options that carry one, this digest covers every shipped
    header too (the engine's source includes them)."""
    shipped = Path(_executors.include_dir())
    if all(shipped in f.parents for f in graph.files):
        return ""
    both = f"{graph.digest}:{_executors.compiler().headers_digest()}"
    return hashlib.sha256(both.encode()).hexdigest()


def _parse(text: str, what: str):
    params = []
    if not text.strip():
        return params                 # no parameters
    for part in (p.strip() for p in text.split(",")):
        if not part:                  # "float32 x," or "x,, y" (CuPy: "Syntax error")
            raise error(ValueError, "ElementwiseKernel", f"empty {what} parameter in "
                                    f"{text!r}; expected 'TYPE NAME, TYPE NAME, ...'")
        words = part.split()
        if "raw" in words[:-2]:   # a keyword before the type, as CuPy reads it (a name may be raw)
            raise NotImplementedError(
                f"ElementwiseKernel: 'raw' parameters ({part!r}) are not supported by "
                "xstride's engine; use cupy.ElementwiseKernel for them")
        words = [w for w in words if w != "const"]
        if len(words) != 2 or not is_c_identifier(words[1]):
            raise error(ValueError, "ElementwiseKernel", f"cannot parse {what} parameter {part!r}; "
                                      "expected 'TYPE NAME'")
        if non_ascii_note(words[1]):
            raise error(ValueError, "ElementwiseKernel", f"{what} parameter name {words[1]!r} "
                                    f"is not a C identifier NVRTC compiles"
                                    f"{non_ascii_note(words[1])}")
        typ, name = words
        if name == "i" or name.startswith("_"):
            raise error(ValueError, "ElementwiseKernel", f"parameter name {name!r} is reserved")
        if typ in _DTYPE_NAMES:
            dt = np.dtype(typ)
        elif typ in CXX_KEYWORDS or typ in _C_TYPE_NAMES:
            # bound as a placeholder, it would become ``typedef float float;``: a compile
            # error on the device (CuPy refuses it too: "Wrong type float")
            hint = _dtypes.DTYPE_OF_C.get(typ) or _C_TYPE_NAMES.get(typ)
            raise error(ValueError, "ElementwiseKernel",
                        f"{what} parameter {part!r}: {typ!r} is a C type name, not a NumPy "
                        "dtype name or a type placeholder"
                        + (f"; write {hint!r}" if hint else ""))
        elif len(typ) == 1 and _IDENT.match(typ):
            dt = None  # a type placeholder (one letter, as in CuPy), bound from the arguments
        else:
            _refuse_type(typ, what, part)
        params.append((name, typ, dt))
    return params


def _refuse_type(typ: str, what: str, part: str):
    """A parameter's type of more than one character that is no dtype name the kernels
    take (only one letter is a placeholder, and CuPy takes a longer type only where
    ``numpy.dtype(typ).name == typ``: ``f4`` and ``>f8`` are refused). A misspelt name
    (``flaot32``) was a placeholder, bound from the argument: the kernel then computed
    in the argument's dtype without a word."""
    try:
        name = np.dtype(typ).name
    except TypeError:
        name = None
    if name in _DTYPE_NAMES:
        hint = name                     # f4, >f8: the dtype's name
    else:
        close = difflib.get_close_matches(typ, sorted(_DTYPE_NAMES), n=1)
        hint = close[0] if close else None
    said = ("not a dtype name the kernels take" if name is not None
            else "neither a NumPy dtype name nor a type placeholder (one letter, as in "
                 "CuPy: 'T x')")
    raise error(ValueError, "ElementwiseKernel", f"{what} parameter {part!r}: {typ!r} is "
                f"{said}" + (f"; did you mean {hint!r}?" if hint else ""))


#: The scalars an input takes, as CuPy's ElementwiseKernel: Python's bool, int, float and
#: complex (a complex was refused as "expected a cupy.ndarray or a scalar"), NumPy's.
_SCALARS = (bool, int, float, complex, np.generic)


def _scalar_value(label: str, pname: str, value, dt) -> np.generic:
    """A scalar argument in its parameter's dtype, stored as CuPy stores it (NumPy's
    assignment, ``numpy.array(value, dtype)``): a Python int outside ``dt``'s range is
    an ``OverflowError`` and a NaN or infinite float for an integer ``dt`` an error too,
    naming the parameter (a cast wrapped 300 into the int8 44 and -1 into the uint8
    255); a float is truncated and a NumPy scalar cast, as CuPy does."""
    try:
        return np.array(value, dtype=dt)[()]
    except OverflowError:
        raise overflow_error(label, pname, f"value {value!r} is out of range for its "
                             f"dtype {np.dtype(dt).name}") from None
    except (ValueError, TypeError) as exc:
        raise argument_error(type(exc), label, pname, f"value {value!r} cannot be "
                             f"converted to its dtype {np.dtype(dt).name}: {exc}") from None


class ElementwiseKernel:
    """A user elementwise kernel in CuPy's syntax, run on xstride's engine.

    Parameters
    ----------
    in_params : str
        Comma-separated ``"TYPE NAME"`` inputs (``TYPE`` a dtype name or a placeholder).
    out_params : str
        Outputs, same syntax.
    operation : str
        C++ statements over the names (and ``i``, the linear C-order index).
    name : str
        Kernel name (for messages and the compiled kernel's name).
    preamble : str, optional
        C++ code placed before the kernel (helper functions).
    **kwargs
        CuPy's options ``reduce_dims``, ``options``, ``no_return`` and
        ``return_tuple`` are accepted; ``options`` (a sequence of str: NVRTC options
        such as ``-I<dir>``, ``-DNAME=1``) is handed to the compiler, and a preamble
        that includes a header outside the shipped folder adds the digest of the
        headers it reaches (``-DXSTRIDE_HEADERS_SHA256=``, as :class:`CudaKernel`), so
        an edited header is compiled again; ``reduce_dims`` and ``no_return`` change
        nothing (the engine plans dimensions itself); any other keyword is a
        ``TypeError``.

    Raises
    ------
    TypeError
        A non-string parameter, ``options`` that is no sequence of str, or an
        unsupported keyword.
    ValueError
        A parameter that does not parse, a name that is not a C identifier, a
        reserved name (``i``, ``_*``), or a C type name as a type (``float x``: write
        ``float32 x``).
    NotImplementedError
        ``raw`` parameters.

    Examples
    --------
    >>> k = ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y)", "sqdiff")  # doctest: +SKIP
    >>> k(x, y)  # doctest: +SKIP

    Notes
    -----
    Calling with inputs only allocates the outputs (broadcast shape, the inputs' axis
    order); calling with inputs and outputs writes into them (outputs are read before
    the operation runs, so ``z += x`` works). Inputs that overlap an output are copied
    first (NumPy's answer for in-place updates). Array inputs of a concrete type that
    differs from their dtype are converted on load.
    """

    def __init__(self, in_params, out_params, operation, name="kernel", *, preamble="",
                 **kwargs):
        unknown = set(kwargs) - {"reduce_dims", "options", "no_return", "return_tuple"}
        if unknown:
            raise error(TypeError, "ElementwiseKernel", f"unsupported options {sorted(unknown)}")
        for arg, value in (("in_params", in_params), ("out_params", out_params),
                           ("operation", operation), ("name", name), ("preamble", preamble)):
            if not isinstance(value, str):
                raise type_error("ElementwiseKernel", arg, value, "a str")
        if not is_c_identifier(name) or non_ascii_note(name):
            raise error(ValueError, "ElementwiseKernel", f"name {name!r} is not a C identifier"
                                                         f"{non_ascii_note(name)}")
        self.in_params = _parse(in_params, "input")
        self.out_params = _parse(out_params, "output")
        if not self.out_params:
            raise error(ValueError, "ElementwiseKernel", "at least one output parameter is needed")
        names = [p[0] for p in self.in_params + self.out_params]
        if len(set(names)) != len(names):
            raise error(ValueError, "ElementwiseKernel", f"duplicate parameter names in {names}")
        self.operation = operation
        self.name = name
        self.preamble = preamble
        self._uses_i = bool(_USES_I.search(code_only(operation)))
        self._return_tuple = bool(kwargs.get("return_tuple", False))
        self.options = pin_pre_includes(_sequence_of(
            f"ElementwiseKernel {name!r}", "options", kwargs.get("options", ()), (str,),
            "a sequence of str", blank=False))
        # the preamble's includes and defines, read as a CudaKernel's source is: what
        # breaks a HIP rule is refused at the call on a HIP build (host work, done once)
        self._hip_graph = None
        self._options = self.options
        if "#" in preamble or "%:" in preamble or self.options:   # %: is a digraph of #
            graph = scan_user_source(preamble, self.options)
            self._options = user_options(self.options, digest=_own_digest(graph))
            if graph.unresolved or _hip_gate.violations(Signature(name, ()), graph,
                                                        self._options, preamble, {}):
                self._hip_graph = graph

    def __call__(self, *args, size=None, stream=None):
        """Run on CuPy arrays (inputs, then optionally outputs); returns the output(s).

        Parameters
        ----------
        *args : cupy.ndarray or Python scalars
            The inputs in ``in_params`` order, then optionally the outputs.
        size : int, optional
            Number of elements when no argument is an array (CuPy's meaning);
            otherwise the broadcast shape of the arguments decides.
        stream : cupy.cuda.Stream, optional
            Stream to launch on (the current stream by default).

        Returns
        -------
        cupy.ndarray or tuple of cupy.ndarray
            The output (several outputs, or ``return_tuple=True``: a tuple).

        Raises
        ------
        TypeError
            Wrong number of arguments, a non-CuPy array, a ``size`` that is not an int,
            a ``stream`` that is not a CuPy stream, or conflicting dtypes for one
            type placeholder. The count and the kind of each argument are checked
            before CuPy is imported.
        ValueError
            A negative ``size`` or one past int64 (before CuPy is imported), shapes
            that do not broadcast, an output of the wrong shape, or an array on
            another device than the current one (nothing is launched).
        RuntimeError
            CuPy or a device is unavailable (after the checks above).
        NotImplementedError
            On a HIP (ROCm) build, the preamble breaks a rule of the HIP gate (it
            includes ``xstride/reduce.cuh`` or ``xstride/scan.cuh``, or defines
            ``XSTRIDE_BOUNDS_CHECK``), as :class:`CudaKernel` refuses such a source.
        """
        nin, nout = len(self.in_params), len(self.out_params)
        if len(args) not in (nin, nin + nout):
            raise error(TypeError, self.name, f"takes {nin} inputs (and optionally {nout} "
                                 f"outputs), got {len(args)} arguments")
        ins, outs = list(args[:nin]), list(args[nin:])
        # Checks that need no device run before CuPy is loaded.
        for (pname, _, _), a in zip(self.in_params, ins):
            if isinstance(a, np.ndarray):   # host memory: say where the kernel runs
                raise type_error(self.name, pname, a, "a cupy.ndarray or a scalar (a user "
                                 "kernel runs on a GPU: move a NumPy array there with "
                                 "xstride.to_device or cupy.asarray)")
            if not (isinstance(a, _SCALARS) or hasattr(a, "__cuda_array_interface__")):
                raise type_error(self.name, pname, a, "a cupy.ndarray or a scalar")
        for (pname, _, _), o in zip(self.out_params, outs):
            if not hasattr(o, "__cuda_array_interface__"):
                raise type_error(self.name, pname, o, "a cupy.ndarray")
        if size is not None and (isinstance(size, bool)
                                 or not isinstance(size, numbers.Integral)):
            raise type_error(self.name, "size", size, "None or an int >= 0")
        if size is not None and not 0 <= size <= INT64_MAX:   # np.empty(-1): a ValueError
            raise value_error(self.name, "size", f"must be >= 0 (a number of elements); "
                                                 f"got {int(size)}" if size < 0 else
                              f"is {int(size)}, which overflows int64 (at most 2**63 - 1)")
        if stream is not None and not (isinstance(getattr(stream, "ptr", None), numbers.Integral)
                                       and hasattr(stream, "__enter__")):
            raise type_error(self.name, "stream", stream, "a cupy.cuda.Stream or None")
        try:
            cupy = load_cupy()
        except RuntimeError as exc:
            raise unavailable_error(self.name, exc) from None
        if self._hip_graph is not None:
            _hip_gate.check(f"ElementwiseKernel {self.name!r}", Signature(self.name, ()),
                            self._hip_graph, self._options, self.preamble, {})
        bound: dict[str, np.dtype] = {}

        def bind(typ, dt, argname):
            have = bound.get(typ)
            if have is None:
                bound[typ] = np.dtype(dt)
            elif have != dt:
                raise error(TypeError, self.name, f"type placeholder {typ} is {have} from an "
                                     f"earlier argument but {argname} has dtype {dt}")

        for (pname, typ, dt), a in zip(self.in_params, ins):
            if isinstance(a, cupy.ndarray):
                if dt is None:
                    bind(typ, a.dtype, pname)
            elif isinstance(a, np.ndarray) or not isinstance(a, _SCALARS):
                raise type_error(self.name, pname, a, "a cupy.ndarray or a scalar")
        for (pname, typ, dt), o in zip(self.out_params, outs):
            if not isinstance(o, cupy.ndarray):
                raise type_error(self.name, pname, o, "a cupy.ndarray")
            if dt is None:
                bind(typ, o.dtype, pname)
        for (pname, typ, dt), a in zip(self.in_params, ins):
            if dt is None and typ not in bound:
                bound[typ] = np.asarray(a).dtype if isinstance(a, np.generic) else \
                    np.result_type(a)
        arrays = [a for a in ins if isinstance(a, cupy.ndarray)]
        shapes = [a.shape for a in arrays]
        if size is not None and not arrays and not outs:
            shapes.append((int(size),))
        shape = broadcast_shapes(*shapes, func=self.name) if shapes else ()
        if outs:
            shape = broadcast_shapes(shape, *(o.shape for o in outs), func=self.name)
        _ex = _executors.engine()
        # every array on the current device (the launch's), before anything is allocated
        _ex.check_devices(self.name, [(p[0], a) for p, a in zip(self.in_params, ins)]
                          + [(p[0], o) for p, o in zip(self.out_params, outs)], cupy)
        specs, kins = [], []
        if not outs:
            for pname, typ, dt in self.out_params:
                odt = dt if dt is not None else bound.get(typ)
                if odt is None:
                    raise error(TypeError, self.name, f"cannot infer the type {typ} of output "
                                         f"{pname}; pass the output array")
                outs.append(_ex.alloc_like_inputs(cupy, shape, odt, arrays))
            preload = False
        else:
            for (pname, _, _), o in zip(self.out_params, outs):
                check_out(self.name, o, shape, o.dtype, _backends.kernel_backend(),
                          whole_elements=True)
            preload = True
        for (pname, typ, dt), o in zip(self.out_params, outs):
            if _unsupported(_ex, o.dtype):
                raise error(TypeError, self.name, f"output {pname} has dtype {o.dtype}, which "
                                     "xstride's engine does not support")
            specs.append(_ex.operand(pname, o.dtype, kind="out", preload=preload))
        for (pname, typ, dt), a in zip(self.in_params, ins):
            ldt = dt if dt is not None else bound[typ]
            if _unsupported(_ex, ldt):
                raise error(TypeError, self.name, f"input {pname} has type {ldt}, which "
                                     "xstride's engine does not support")
            if isinstance(a, cupy.ndarray):
                if _unsupported(_ex, a.dtype):
                    raise error(TypeError, self.name, f"input {pname} has dtype {a.dtype}, "
                                         "which xstride's engine does not support")
                specs.append(_ex.operand(pname, a.dtype, ldt))
                kins.append(a)
            else:
                specs.append(_ex.operand(pname, ldt, ldt, kind="scalar"))
                kins.append(_scalar_value(self.name, pname, a, ldt))
        typedefs = "".join(f"typedef {_ex.ctype(d)} {t};\n" for t, d in sorted(bound.items()))
        # CuPy accepts it without ';'. Comments are dropped: the engine writes the body
        # on a line with code after it, which a trailing '//' comment would swallow.
        body = strip_comments(self.operation).rstrip().rstrip(";") + ";"
        if stream is None:
            _ex.launch(self.name, body, specs, outs, kins, keep_order=self._uses_i,
                       preamble=typedefs + self.preamble, index_var=self._uses_i,
                       options=self._options)
        else:
            with stream:  # a cupy.cuda.Stream is current inside its with-block
                _ex.launch(self.name, body, specs, outs, kins, keep_order=self._uses_i,
                           preamble=typedefs + self.preamble, index_var=self._uses_i,
                           options=self._options)
        if len(outs) == 1 and not self._return_tuple:
            return outs[0]
        return tuple(outs)
