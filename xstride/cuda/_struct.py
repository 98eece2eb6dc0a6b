"""``CudaStruct``: a C struct type whose values are passed to kernels by value."""

from __future__ import annotations

import re

import numpy as np

from .._core.csource import is_c_identifier, non_ascii_note
from .._core.errors import argument_error, error, type_error, value_error
from ._args import CudaStructValue, StructType, pack_value
from ._signature import (CType, array_type, declarator, parse_type, rank_value,
                         struct_layout, type_key)

__all__ = ["CudaStruct", "CudaStructValue"]

_LABEL = "CudaStruct"

#: The most bytes a kernel's parameters may hold together: 32,764 since CUDA 12.1 on
#: Volta and later (CUDA C++ Programming Guide, "Function Parameters"); a struct
#: larger than that cannot be passed by value at all.
PARAM_BYTES = 32764


class CudaStruct(StructType):
    """A C struct type, built from named fields, passed to kernels by value.

    Parameters
    ----------
    name : str
        The C name of the struct; the kernel's parameter must have this type.
    fields : sequence of (str, str or CudaStruct) or (str, str or CudaStruct, shape)
        Field names and C types, in declaration order. Types are those a kernel
        parameter may have: scalars (``"float"``, ``"long long"``, ...), pointers
        (``"const float*"``), views (``"Array2D<double>"``, ``"CArray3D<int>"``), or
        another ``CudaStruct`` (nested by value). An array field (C's ``float x[4]``,
        ``float m[3][3]``) is spelled ``("x", "float[4]")``, or with NumPy's
        ``(name, type, shape)``: ``("m", "float", (3, 3))``, ``("pts", Inner, 4)``; its
        value is a sequence of that shape (nested lists, or a NumPy array for scalars).

    Raises
    ------
    TypeError
        ``name`` or a field is not a str / (str, type) pair.
    ValueError
        Invalid or repeated names, an unknown C type, no fields, a nested struct of
        this struct's name (or holding one), an array size that is no positive integer,
        a struct of more bytes than a kernel's parameters may hold (:data:`PARAM_BYTES`).

    Notes
    -----
    Fields are laid out with the C rules (each field aligned to its own alignment, the
    size rounded up to the largest alignment), the same layout NVRTC gives the
    :meth:`declaration`. Call the struct with one keyword per field to get a value:

    >>> P = CudaStruct("Params", [("n", "long long"), ("scale", "float")])
    >>> P.itemsize
    16
    >>> print(P.declaration())
    struct Params {
        long long n;
        float scale;
    };
    >>> len(P(n=3, scale=0.5).tobytes())
    16
    """

    def __init__(self, name: str, fields):
        if not isinstance(name, str):
            raise type_error(_LABEL, "name", name, "a str (the C struct name)")
        if not is_c_identifier(name) or non_ascii_note(name):
            raise value_error(_LABEL, "name", f"{name!r} is not a valid C identifier"
                              f"{non_ascii_note(name)}")
        label = f"CudaStruct {name!r}"
        items = None
        if not isinstance(fields, (str, bytes)):   # list() would make its characters fields
            try:
                items = list(fields.items()) if isinstance(fields, dict) else list(fields)
            except TypeError:
                pass
        if items is None:
            raise type_error(label, "fields", fields, "a sequence of (name, C type) pairs")
        if not items:
            raise value_error(label, "fields", "is empty; a struct needs at least one field")
        parsed: list[tuple[str, CType]] = []
        self._nested: dict[str, CudaStruct] = {}
        for item in items:
            if not (isinstance(item, tuple) and len(item) in (2, 3)
                    and isinstance(item[0], str)):
                raise type_error(label, "fields", item, "(name, C type) pairs, or (name, "
                                 "C type, shape) for an array field")
            fname, ftype = item[:2]
            if not is_c_identifier(fname) or non_ascii_note(fname):
                raise value_error(label, "fields", f"field name {fname!r} is not a valid C "
                                  f"identifier{non_ascii_note(fname)}")
            if any(fname == f for f, _ in parsed):
                raise value_error(label, "fields", f"repeats the field name {fname!r}")
            if isinstance(ftype, CudaStruct):
                if name in ftype._struct_names():   # struct P { P p; }: no C type
                    raise value_error(label, "fields", f"field {fname!r} is a struct "
                                      f"{ftype.name!r} that is or holds a struct named "
                                      f"{name!r}; a struct cannot contain itself (give the "
                                      "structs different names)")
                ct = ftype.ctype
                self._nested[fname] = ftype
            elif isinstance(ftype, str):
                ftype, shape = _bounds(ftype, label, fname)
                ct = parse_type(ftype, where=f"{label}: field {fname!r}")
                ct = array_type(ct, shape) if shape else ct
            else:
                raise type_error(label, f"fields[{fname!r}]", ftype,
                                 "a C type string or a CudaStruct")
            if len(item) == 3:
                if ct.kind == "array":
                    raise value_error(label, "fields", f"field {fname!r} gives its array "
                                      f"bounds twice ({ct.text!r} and shape {item[2]!r}); "
                                      "give them once")
                ct = array_type(ct, _shape(item[2], label, fname))
            parsed.append((fname, ct))
        self.name = name
        self.fields: tuple[tuple[str, CType], ...] = tuple(parsed)
        self.offsets, self.itemsize = struct_layout(self.fields)
        if self.itemsize > PARAM_BYTES:
            raise value_error(label, "fields", f"lays out a struct of {self.itemsize:,} bytes, "
                              f"more than a kernel's parameters may hold ({PARAM_BYTES:,} "
                              "bytes since CUDA 12.1, 4,096 before); pass a pointer to "
                              "device memory instead")
        self.ctype = CType("struct", name, None, struct=name, fields=self.fields)

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}: {ct.text}" for n, ct in self.fields)
        return f"CudaStruct({self.name!r}, {{{inner}}}, itemsize={self.itemsize})"

    def declaration(self) -> str:
        """The C definition of the struct (nested structs are not repeated)."""
        lines = [f"struct {self.name} {{"]
        lines += [f"    {declarator(ct, fname)};" for fname, ct in self.fields]
        lines.append("};")
        return "\n".join(lines)

    def _struct_names(self) -> set:
        """The names of this struct and of every struct nested in it."""
        names = {self.name}
        for inner in self._nested.values():
            names |= inner._struct_names()
        return names

    @property
    def max_view_ndim(self) -> int:
        """Largest view rank among the fields, nested structs included (0 if none)."""
        def rank(ct):
            if ct.kind in ("view", "cview"):
                return ct.ndim
            if ct.kind == "array":
                return rank(ct.elem)
            return max((rank(c) for _, c in ct.fields or ()), default=0)
        return rank(self.ctype)

    def __call__(self, *positional, **values) -> "CudaStructValue":
        """Pack one value per field (keyword arguments) into a struct value.

        Raises
        ------
        TypeError
            A field is missing or unknown, or a value does not fit its field's type
            (the message names the field).
        ValueError, OverflowError
            As for kernel arguments (layout, device, range), naming the field.
        """
        label = f"CudaStruct {self.name!r}"
        names = [f for f, _ in self.fields]
        if positional:
            raise error(TypeError, label, f"takes one keyword argument per field "
                        f"({', '.join(names)}); got {len(positional)} positional argument(s)",
                        subject=True)
        unknown = sorted(set(values) - set(names))
        if unknown:
            raise error(TypeError, label, f"unknown field(s) {', '.join(unknown)}; the fields are "
                                 f"{', '.join(names)}")
        missing = [f for f in names if f not in values]
        if missing:
            raise error(TypeError, label, f"missing value(s) for field(s) {', '.join(missing)}")
        buf = bytearray(self.itemsize)
        keep = []
        for (fname, ct), off in zip(self.fields, self.offsets):
            v = values[fname]
            packed = pack_value(ct, v, label, f"field {fname}")
            buf[off:off + len(packed)] = packed
            keep.append(v)
        return CudaStructValue(self, bytes(buf), tuple(keep))

    def _check_matches(self, ct: CType, label: str, arg: str) -> None:
        """``TypeError`` unless this struct is the kernel parameter's struct type."""
        if ct.struct != self.name:
            raise argument_error(TypeError, label, arg, f"is a value of CudaStruct "
                                f"{self.name!r}; the kernel takes struct '{ct.struct}'")
        if ct.fields is None:
            return  # the source's definition is not a plain field list: names suffice
        if [(f, type_key(c)) for f, c in self.fields] != \
                [(f, type_key(c)) for f, c in ct.fields] or self.itemsize != ct.nbytes:
            raise argument_error(
                TypeError, label, arg, f"is a value of CudaStruct {self.name!r}, which has fields "
                f"({_spelled(self.fields)}), but the kernel's struct '{ct.struct}' declares "
                f"({_spelled(ct.fields)})")


_BOUNDS = re.compile(r"((?:\[[^\[\]]*\]\s*)+)$")


def _bounds(ftype: str, label: str, fname: str) -> tuple[str, tuple[int, ...]]:
    """``("float", (3, 3))`` of a field type spelled ``"float[3][3]"``; each bound a
    positive integer literal, else ``ValueError`` naming the field."""
    m = _BOUNDS.search(ftype)
    if m is None:
        return ftype, ()
    shape = []
    for text in re.findall(r"\[([^\[\]]*)\]", m.group(1)):
        n = rank_value(text) if text.strip() else None
        if not n:
            raise value_error(label, "fields", f"field {fname!r} has type {ftype!r}, whose "
                              f"array size {text.strip()!r} is not a positive integer "
                              "literal (write it as one, e.g. 'float[4]')")
        shape.append(n)
    return ftype[:m.start()], tuple(shape)


def _shape(shape, label: str, fname: str) -> tuple[int, ...]:
    """An array field's shape: an int or a tuple of ints, each at least 1."""
    dims = shape if isinstance(shape, tuple) else (shape,)
    if not dims or not all(isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_))
                           for n in dims):
        raise type_error(label, f"fields[{fname!r}]", shape, "an array shape: an int or a "
                         "non-empty tuple of ints")
    if not all(n >= 1 for n in dims):
        raise value_error(label, "fields", f"field {fname!r} has shape {shape!r}; an array "
                          "field's extents are at least 1")
    return tuple(int(n) for n in dims)


def _spelled(fields) -> str:
    """``"int n; In {float a; float* p} i"``: the fields as declared, a nested struct's
    with its own fields (where two structs differ only inside a nested one, the names
    alone, ``In i`` and ``In i``, showed no difference)."""
    def one(c, n):
        if c.kind == "array":
            return one(c.elem, n + "".join(f"[{k}]" for k in c.shape))
        if c.kind == "struct" and c.fields:
            return f"{c.text} {{{_spelled(c.fields)}}} {n}"
        return f"{c.text} {n}"
    return "; ".join(one(c, n) for n, c in fields)
