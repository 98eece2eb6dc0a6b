"""The docstrings of the elementwise namespace functions (``xstride/elementwise.py``).

Built when a name is first used (``dispatch.DOC_FACTORY``): numpydoc texts of the
engine's functions, ``where`` and ``astype``, their ``out=`` rules and the errors the
checks raise.
"""

from __future__ import annotations

import textwrap

from .ufuncs import ENGINE_UFUNCS, numpy_ufunc_name

__all__ = ["elementwise_doc"]


#: The engine's functions whose result is bool whatever the operands' dtypes.
_BOOL_RESULT = frozenset({"equal", "not_equal", "less", "less_equal", "greater",
                          "greater_equal", "logical_and", "logical_or", "logical_xor"})

_OUT_PARAM = (
    "xstride extension: an existing array to write the result into, of the inputs' "
    "backend (NumPy or CuPy; dask arrays cannot be written), of a bool or numeric dtype, "
    "of {shape}, to which the result dtype casts by the ``same_kind`` rule, writeable, "
    "and reaching each of its elements once (no stride 0 on an axis of more than one "
    "element; on CuPy no field of a structured array). It may be an input or overlap "
    "one: NumPy's answer, as if the inputs were read before any write. None (the "
    "default): a new array.")
_TYPE_OPERANDS = (
    "An operand that is neither an array of the backend nor a scalar, or an array of no "
    "bool or numeric dtype (on CuPy, or with ``out=``: without it NumPy's {0} answers "
    "for itself, taking lists, and strings or objects where it has a loop for them); ")
_TYPE_OUT = (
    "arrays of two backends; ``out`` is not an array of the inputs' backend (a NumPy "
    "scalar, a list, an array of another backend; any dask array), has no bool or numeric "
    "dtype, or the result dtype does not cast to its dtype (``same_kind``).")
_VALUE = (
    "{shapes}``out`` has another shape than {shape}, overlaps itself, is read-only or "
    "(CuPy) is a field of a structured array; a CuPy array is on another device than "
    "the current one (:class:`~xstride._core.errors.DeviceError`).")
_BROADCAST = dict(shapes="The shapes do not broadcast; ", shape="the broadcast shape")


def _entry(head: str, text: str) -> str:
    """A numpydoc entry: ``head``, then ``text`` indented by four spaces."""
    return head + "\n" + textwrap.fill(text, 88, initial_indent="    ",
                                       subsequent_indent="    ", break_on_hyphens=False,
                                       break_long_words=False)


def _sections(params, returns, raises) -> str:
    """Parameters, Returns and Raises from ``(head, text)`` pairs."""
    out = []
    for title, entries in (("Parameters", params), ("Returns", returns),
                           ("Raises", raises)):
        out.append(f"{title}\n{'-' * len(title)}\n"
                   + "\n".join(_entry(h, t) for h, t in entries))
    return "\n\n".join(out) + "\n"


def elementwise_doc(name: str) -> str:
    """The docstring (numpydoc) of the namespace function ``name`` of
    ``xstride/elementwise.py``: an engine function, ``where`` or ``astype``."""
    if name == "where":
        return textwrap.fill(
            "``where(condition, x1, x2, /, *, out=None)`` of the array API standard: "
            "``x1`` where ``condition`` is true, else ``x2``, broadcast together; NumPy's "
            "result dtype (Python scalars are weak, NEP 50). ``out=`` (xstride extension): "
            "an existing array of the broadcast shape. On CuPy arrays: xstride's "
            "elementwise engine; on NumPy arrays: NumPy's ``where``.", 88,
            break_on_hyphens=False) + "\n\n" + _sections(
            [("condition : array or scalar", "True where nonzero: an array of a bool or "
              "numeric dtype, a NumPy scalar or a Python scalar."),
             ("x1, x2 : array or scalar", "The values: arrays of a bool or numeric dtype, "
              "NumPy scalars (their dtype counts) or Python scalars (weak: a Python int "
              "takes the other operand's integer dtype, as in ``add``). All three "
              "broadcast together."),
             ("out : array, optional", _OUT_PARAM.format(shape="the broadcast shape"))],
            [("array", "The broadcast shape of the three; the dtype of NumPy's ``where`` "
              "for ``x1`` and ``x2`` (weak Python scalars). ``out`` itself when given.")],
            [("TypeError", _TYPE_OPERANDS.format("``where``") + _TYPE_OUT),
             ("ValueError", _VALUE.format(**_BROADCAST)),
             ("OverflowError", "``x1`` or ``x2`` is a Python int outside the range of the "
              "other operand's integer dtype (checked on every backend: NumPy's "
              "``where`` would wrap it).")])
    if name == "astype":
        return textwrap.fill(
            "``astype(x, dtype, /, *, copy=True, device=None)`` of the array API standard: "
            "a cast copy (in the input's axis order on the engine); ``copy=False`` returns "
            "``x`` when the dtype already matches. On CuPy arrays: xstride's elementwise "
            "engine, for the dtypes it generates code for; on NumPy arrays: "
            "``array_api_compat``'s ``astype``.", 88, break_on_hyphens=False
            ) + "\n\n" + _sections(
            [("x : array", "A NumPy, CuPy or dask array (on NumPy a NumPy scalar counts)."),
             ("dtype : dtype", "A bool or numeric dtype of the namespace."),
             ("copy : bool, optional", "True (the default): always a new array; False: "
              "``x`` itself where its dtype is ``dtype`` already."),
             ("device : device, optional", "Where the result lives: None (the default) or "
              "``x.device``, ``x``'s device; another device: the backend's "
              "``array_api_compat`` ``astype`` makes the copy there.")],
            [("array", "``x``'s shape, dtype ``dtype`` (the values converted as NumPy's "
              "``astype`` converts them); ``x`` itself for ``copy=False`` and a matching "
              "dtype.")],
            [("TypeError", "``x`` is not an array of the backend; ``dtype`` is not a "
              "dtype, or not a bool or numeric one."),
             ("ValueError", "A device the backend does not have (the library's message); "
              "a CuPy ``x`` on another device than the current one "
              "(:class:`~xstride._core.errors.DeviceError`).")])
    nin = ENGINE_UFUNCS[name][0]
    ufunc = numpy_ufunc_name(name)
    shape = "the broadcast shape" if nin == 2 else "``x``'s shape"
    summary = textwrap.fill(
        f"``{name}({'x1, x2, /' if nin == 2 else 'x, /'}, *, out=None)`` of the array API "
        "standard (\"Element-wise functions\")"
        + (", broadcast by the standard's rules" if nin == 2 else "") + "; result dtype "
        f"by NumPy's ``{ufunc}`` with Python scalars weak (NEP 50). xstride takes only "
        "``out=`` besides (no ``where=``, ``casting=``, ``order=``, ``dtype=`` or tuple "
        f"``out``): an existing array of the inputs' backend and of {shape}, to which "
        "the result dtype casts (same_kind), reaching each element once; it may be an "
        "input. On CuPy arrays: xstride's elementwise engine; on NumPy arrays: NumPy's "
        "ufunc.", 88, break_on_hyphens=False)
    result = ("bool" if name in _BOOL_RESULT else f"the one NumPy's ``{ufunc}`` gives for "
              "the operands (``ufunc.resolve_dtypes``, Python scalars weak)")
    raises = [("TypeError", _TYPE_OPERANDS.format("ufunc") + "NumPy has no loop for the "
               "operands' dtypes; " + _TYPE_OUT),
              ("ValueError", _VALUE.format(**_BROADCAST) if nin == 2 else
               _VALUE.format(shapes="", shape=shape))]
    if nin == 2:
        raises.append(("OverflowError", "A Python int outside the range of the integer "
                       "dtype it takes (``add(int8_array, 1000)``), as NumPy raises."))
    return summary + "\n\n" + _sections(
        [("x1, x2 : array or scalar" if nin == 2 else "x : array or scalar",
          ("Arrays of a bool or numeric dtype (NumPy, CuPy or dask), NumPy scalars (their "
           "dtype counts) or Python bool, int, float or complex (weak, NEP 50: a Python "
           "int takes an integer array's dtype and must fit it). They broadcast together."
           if nin == 2 else "An array of a bool or numeric dtype (NumPy, CuPy or dask), a "
           "NumPy scalar or a Python bool, int, float or complex.")),
         ("out : array, optional", _OUT_PARAM.format(shape=shape))],
        [("array", f"{shape[0].upper()}{shape[1:]}; dtype {result}. ``out`` itself when "
          "given. On NumPy a NumPy scalar where NumPy's ufunc returns one (every operand "
          "0-D or a scalar); with Python scalars alone, the active backend's answer.")],
        raises)
