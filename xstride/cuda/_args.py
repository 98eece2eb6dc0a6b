"""Check one kernel argument against its C type and pack it into the bytes the kernel
receives by value.

Works on anything with ``__cuda_array_interface__`` (CuPy arrays, and the stand-ins of
the CPU tests); never copies an array and never moves host memory to the device.
Checks run in the house order: type, dtype, device, shape/layout, then value range.

Packed layouts (little-endian, all fields 8 bytes except scalars):

- pointer: the device address, 8 bytes;
- ``ArrayND<T>``: address, ``shape[N]``, ``strides[N]`` in elements (``8*(1+2N)`` bytes);
- ``CArrayND<T>``: address, ``shape[N]`` (``8*(1+N)`` bytes);
- scalar: the value in the parameter's C type;
- struct: a :class:`~xstride.cuda._struct.CudaStructValue`'s bytes;
- a struct's array field (``float x[4]``): its elements one after the other, each
  packed as a value of the element type.
"""

from __future__ import annotations

import math
import struct as _pystruct
from dataclasses import dataclass

import numpy as np

from .._core.errors import argument_error, error, overflow_error, type_error, value_error
from ._signature import CType

__all__ = ["DeviceArray", "StructType", "device_array", "pack_value", "check_device", "c_contiguous",
           "check_aligned", "array_items"]


@dataclass(frozen=True)
class DeviceArray:
    """What ``__cuda_array_interface__`` says about an array; strides in elements."""

    ptr: int
    shape: tuple[int, ...]
    strides: tuple[int, ...] | None  # None: not a whole number of elements
    byte_strides: tuple[int, ...]
    dtype: np.dtype
    readonly: bool
    device: int | None

    @property
    def size(self) -> int:
        return math.prod(self.shape)


def _c_strides(shape, itemsize):
    out, acc = [], itemsize
    for n in reversed(shape):
        out.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(out))


def c_contiguous(shape, byte_strides, itemsize) -> bool:
    """NumPy's rule: axes of extent 1 may have any stride; empty arrays are contiguous."""
    if math.prod(shape) == 0:
        return True
    expected = itemsize
    for n, s in zip(reversed(shape), reversed(byte_strides)):
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


class MalformedInterface(TypeError):
    """An object's ``__cuda_array_interface__`` is not one (the reason is the text)."""


def _whole(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _read_interface(cai) -> DeviceArray:
    """The :class:`DeviceArray` a CUDA array interface describes;
    :class:`MalformedInterface` naming what is wrong with it."""
    if not isinstance(cai, dict):
        raise MalformedInterface(f"it is a {type(cai).__name__}, not a dict")
    missing = [k for k in ("shape", "typestr", "data") if k not in cai]
    if missing:
        raise MalformedInterface(f"it has no {', '.join(repr(k) for k in missing)}")
    shape = cai["shape"]
    if not isinstance(shape, (tuple, list)) or not all(_whole(n) and n >= 0 for n in shape):
        raise MalformedInterface(f"its shape {shape!r} is not a tuple of ints >= 0")
    shape = tuple(int(n) for n in shape)
    if any(n >= 2**63 for n in shape):   # a view's extents are int64 on the device
        raise MalformedInterface(f"its shape {shape!r} has an extent of 2**63 or more")
    try:
        dtype = np.dtype(cai["typestr"])
    except (TypeError, ValueError):
        raise MalformedInterface(f"its typestr {cai['typestr']!r} is not a dtype") from None
    data = cai["data"]
    if not (isinstance(data, (tuple, list)) and len(data) == 2
            and (data[0] is None or _whole(data[0]) and 0 <= data[0] < 2**64)):
        raise MalformedInterface(f"its data {data!r} is not (pointer, read-only flag) with "
                                 "a pointer in [0, 2**64)")
    ptr, readonly = data
    if not ptr and math.prod(shape) and dtype.itemsize:
        raise MalformedInterface(f"its data pointer is null for {math.prod(shape)} elements")
    if cai.get("mask") is not None:
        raise MalformedInterface("it has a mask; masked arrays are not supported")
    bstrides = cai.get("strides")
    if bstrides is None:
        bstrides = _c_strides(shape, dtype.itemsize)
    elif not (isinstance(bstrides, (tuple, list)) and len(bstrides) == len(shape)
              and all(_whole(st) for st in bstrides)):
        raise MalformedInterface(f"its strides {bstrides!r} are not one int per axis of "
                                 f"shape {shape}")
    bstrides = tuple(int(st) for st in bstrides)
    if any(not -2**63 <= st < 2**63 for st in bstrides):
        raise MalformedInterface(f"its strides {bstrides!r} do not fit in 64-bit ints")
    if dtype.itemsize and all(st % dtype.itemsize == 0 for st in bstrides):
        strides = tuple(st // dtype.itemsize for st in bstrides)
    else:
        strides = None
    return DeviceArray(int(ptr or 0), shape, strides, bstrides, dtype, bool(readonly), None)


def device_array(value) -> DeviceArray | None:
    """The device array behind ``value``, or ``None`` if it has no CUDA array interface.

    Raises
    ------
    MalformedInterface
        ``value.__cuda_array_interface__`` is not a valid interface (a ``TypeError``
        whose text says what is wrong: a missing key, a shape or strides that are not
        ints or do not fit in 64 bits, a typestr that is no dtype, a pointer out of range
        or null, a mask).
    """
    try:
        cai = value.__cuda_array_interface__
    except AttributeError:
        return None
    arr = _read_interface(cai)
    dev = getattr(getattr(value, "device", None), "id", None)
    if dev is None:
        return arr
    return DeviceArray(arr.ptr, arr.shape, arr.strides, arr.byte_strides, arr.dtype,
                       arr.readonly, int(dev))


def _short(value) -> str:
    """``repr(value)``, cut to 60 characters (a 400-digit int stays readable)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _pack_real(ct: CType, value, part, label: str, arg: str) -> bytes:
    """One real number (``part`` of ``value``) in the float type ``ct.dtype``;
    ``OverflowError`` when a finite number would become infinite."""
    dt = ct.dtype
    largest = float(np.finfo(dt).max)

    def too_big():
        return OverflowError(f"{label}: argument '{arg}' value {_short(value)} is out of "
                             f"range for C type '{ct.text}' (largest {largest!r})")

    if isinstance(part, (int, np.integer)):
        try:
            part = float(part)
        except OverflowError:  # an int too large for a Python float
            raise too_big() from None
    with np.errstate(over="ignore"):
        packed = np.array(part, dtype=dt)
    if np.isfinite(part) and not np.isfinite(packed):
        raise too_big()
    return packed.tobytes()


#: Scalars that are no numbers for a number parameter: a bool, and NumPy's
#: ``timedelta64`` (a subclass of ``np.signedinteger``, but a duration with a unit).
_NOT_NUMBERS = (bool, np.bool_, np.timedelta64)


def _check_scalar(ct: CType, value, label: str, arg: str) -> bytes:
    dt = ct.dtype
    allowed = f"a Python or NumPy scalar for C type '{ct.text}'"
    if hasattr(value, "__cuda_array_interface__"):
        raise type_error(label, arg, value, allowed + " (a device array was passed where "
                         "the kernel takes a value; read it on the device instead)")
    if isinstance(value, np.ndarray):
        raise type_error(label, arg, value, allowed)
    if dt.kind == "b":
        if not isinstance(value, (bool, np.bool_)):
            raise type_error(label, arg, value, "a bool")
        return np.array(bool(value), dtype=dt).tobytes()
    if dt.kind in "iu":
        if isinstance(value, (float, complex, np.floating, np.complexfloating)
                      + _NOT_NUMBERS) or not isinstance(value, (int, np.integer)):
            raise type_error(label, arg, value, f"an integer for C type '{ct.text}'")
        v = int(value)
        info = np.iinfo(dt)
        if not info.min <= v <= info.max:
            raise overflow_error(label, arg, f"value {_short(v)} is out of range "
                                 f"for C type '{ct.text}' [{info.min}, {info.max}]")
        return np.array(v, dtype=dt).tobytes()
    if dt.kind == "f":
        if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(
                value, _NOT_NUMBERS):
            raise type_error(label, arg, value, f"a real number for C type '{ct.text}'")
        return _pack_real(ct, value, value, label, arg)
    if dt.kind == "c":
        if not isinstance(value, (int, float, complex, np.number)) or isinstance(
                value, _NOT_NUMBERS):
            raise type_error(label, arg, value, f"a number for C type '{ct.text}'")
        parts = (value.real, value.imag) if isinstance(value, (complex, np.complexfloating)) \
            else (value, 0.0)
        part_ct = CType("scalar", ct.text, np.dtype(f"f{dt.itemsize // 2}"))
        return b"".join(_pack_real(part_ct, value, p, label, arg) for p in parts)
    raise type_error(label, arg, value, allowed)  # pragma: no cover - no other kinds


def _check_array(ct: CType, value, label: str, arg: str, device: int | None) -> DeviceArray:
    what = {"pointer": "a C-contiguous device array", "view": f"a {ct.ndim}-d device array",
            "cview": f"a C-contiguous {ct.ndim}-d device array"}[ct.kind]
    elem = "any dtype" if ct.dtype is None else f"dtype {ct.dtype.name}"
    allowed = f"{what} of {elem} for C type '{ct.text}'"
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        raise type_error(label, arg, value, allowed + "; a NumPy array lives in host memory "
                         "and is never copied implicitly (use xstride.to_device or "
                         "cupy.asarray first)")
    try:
        arr = device_array(value)
    except MalformedInterface as exc:
        raise type_error(label, arg, value, allowed + f"; its __cuda_array_interface__ "
                         f"is not valid: {exc}") from None
    if arr is None:
        raise type_error(label, arg, value, allowed + " (an object with "
                         "__cuda_array_interface__)")
    if ct.dtype is not None and arr.dtype != ct.dtype:
        got = arr.dtype.name
        if got == ct.dtype.name:   # float32 of the other byte order: say which
            got = f"{arr.dtype.str} (byte-swapped: the device's order is little-endian)"
        raise argument_error(TypeError, label, arg, f"has dtype {got}; the kernel "
                            f"takes '{ct.text}' (dtype {ct.dtype.name})")
    if device is not None:
        _check_array_device(arr, label, arg, device)
    if ct.kind in ("view", "cview") and len(arr.shape) != ct.ndim:
        raise argument_error(TypeError, label, arg, f"has {len(arr.shape)} dimensions "
                            f"(shape {arr.shape}); the kernel takes '{ct.text}' "
                            f"({ct.ndim} dimensions)")
    if ct.kind in ("pointer", "cview") and not c_contiguous(arr.shape, arr.byte_strides,
                                                            arr.dtype.itemsize):
        raise value_error(label, arg, f"is not C-contiguous (shape {arr.shape}, byte strides "
                          f"{arr.byte_strides}); '{ct.text}' needs a C-contiguous array: "
                          "pass cupy.ascontiguousarray(x), or declare the parameter as "
                          "an ArrayND<T> view")
    if ct.kind == "view" and arr.strides is None:
        raise value_error(label, arg, f"has byte strides {arr.byte_strides} that are not a "
                          f"multiple of the itemsize {arr.dtype.itemsize}")
    if ct.dtype is not None and arr.size:
        check_aligned(arr.ptr, CType("scalar", ct.text, ct.dtype).alignment, label, arg,
                      ct.text)
    if arr.readonly and not ct.const:
        raise value_error(label, arg, f"is read-only; the kernel takes '{ct.text}' (declare "
                          "it const to pass a read-only array)")
    return arr


def check_aligned(ptr: int, alignment: int, label: str, arg: str, ctext: str) -> None:
    """``ValueError`` when device address ``ptr`` is not a multiple of ``alignment``
    bytes, the C alignment of the elements of parameter type ``ctext``.

    A kernel reads such an array with loads the device refuses ("misaligned address",
    which leaves the CUDA context unusable): a view that starts inside an element, e.g.
    ``a[1:].view(cupy.float64)`` of a float32 ``a``. Pure arithmetic on ints, so the
    rule is tested without a device.
    """
    offset = ptr % alignment
    if offset:
        raise value_error(label, arg, f"starts at device address {ptr:#x}, {offset} "
                          f"byte{'s' if offset != 1 else ''} past a multiple of {alignment}; "
                          f"'{ctext}' needs its elements aligned to {alignment} bytes (the "
                          "device cannot load them from this address): pass an aligned "
                          "copy, x.copy()")


def _check_array_device(arr: DeviceArray, label: str, arg: str, device: int) -> None:
    if arr.device is not None and arr.device != device:
        raise value_error(label, arg, f"is on device {arr.device}; the kernel launches on "
                          f"device {device} (arrays are never moved between devices)")


def check_device(ct: CType, value, label: str, arg: str, device: int) -> None:
    """``ValueError`` when an array argument (or an array field of a struct value, at
    any depth) lives on a device other than ``device``.

    The device is the one thing :func:`pack_value` cannot check without CuPy, so a
    launch packs (and checks) every argument first and calls this once it knows the
    current device.
    """
    if ct.kind == "scalar":
        return
    if ct.kind == "struct":
        value.check_device(device, label, arg)
        return
    if ct.kind == "array":
        if ct.elem.kind == "scalar":
            # numbers live on no device: walking a float[8000] field's elements (labels
            # and all) cost milliseconds on every launch, for nothing to check
            return
        for where, item in array_items(ct, value, label, arg):
            check_device(ct.elem, item, label, where, device)
        return
    arr = device_array(value)
    if arr is not None:
        _check_array_device(arr, label, arg, device)


def _type_not_value(value) -> str:
    """The hint for a :class:`CudaStruct` (the struct type) given where a value of it is
    expected: call it with the fields to make a value."""
    if not isinstance(value, StructType):
        return ""
    fields = ", ".join(f"{f}=..." for f, _ in value.fields)
    return (f" (this is the struct type {value.name!r}, not a value of it: call it to make "
            f"one, {value.name}({fields}))")


def pack_value(ct: CType, value, label: str, arg: str, device: int | None = None) -> bytes:
    """Check ``value`` against ``ct`` and return the bytes passed by value.

    Raises
    ------
    TypeError
        Wrong kind of object, dtype, rank, a NumPy array for a device parameter, a
        CudaStruct of another struct type.
    ValueError
        Wrong device, a non-contiguous array for a pointer or ``CArrayND``, an array
        whose address is not aligned for its elements (:func:`check_aligned`), a
        read-only array for a non-const parameter.
    OverflowError
        An integer (or a finite float) outside the range of the C type.
    """
    if ct.kind == "scalar":
        return _check_scalar(ct, value, label, arg)
    if ct.kind == "array":
        return b"".join(pack_value(ct.elem, item, label, where, device)
                        for where, item in array_items(ct, value, label, arg))
    if ct.kind == "struct":
        if not isinstance(value, CudaStructValue):
            raise type_error(label, arg, value, f"a CudaStruct value of struct '{ct.struct}'"
                             f"{_type_not_value(value)}")
        value.struct._check_matches(ct, label, arg)
        if device is not None:
            value.check_device(device, label, arg)
        return value.tobytes()
    arr = _check_array(ct, value, label, arg, device)
    if ct.kind == "pointer":
        return _pystruct.pack("<Q", arr.ptr)
    fields = arr.shape if ct.kind == "cview" else arr.shape + arr.strides
    return _pystruct.pack("<Q", arr.ptr) + np.asarray(fields, dtype="<i8").tobytes()


def array_items(ct: CType, value, label: str, arg: str) -> list[tuple[str, object]]:
    """``[(f"{arg}[i][j]", element), ...]`` of a value for the array type ``ct``
    (``float m[3][3]``), in C's order (the last index fastest): nested lists or tuples
    of ``ct.shape``, or a NumPy array of that shape for scalar elements.

    Raises
    ------
    TypeError
        No sequence (a scalar, a str, a device array: an array field is passed by value,
        from the host), or a NumPy array for elements that are no scalars.
    ValueError
        A sequence of another shape than the field's.
    """
    allowed = (f"a sequence of shape {ct.shape} (nested lists, or a NumPy array) for "
               f"C type '{ct.text}'")
    if isinstance(value, np.ndarray) and ct.elem.kind == "scalar":
        if value.shape != ct.shape:
            raise value_error(label, arg, f"has shape {value.shape}; the field '{ct.text}' "
                              f"has shape {ct.shape}")
        return [(arg + "".join(f"[{i}]" for i in idx), value[idx])
                for idx in np.ndindex(*ct.shape)]
    out: list[tuple[str, object]] = []

    def walk(v, where: str, depth: int) -> None:
        if depth == len(ct.shape):
            out.append((where, v))
            return
        if not (isinstance(v, (list, tuple)) or isinstance(v, np.ndarray) and v.ndim
                and ct.elem.kind == "scalar"):
            extra = ("; an array field is passed by value: give its values from the host "
                     "(x.get() of a CuPy array)" if hasattr(v, "__cuda_array_interface__")
                     else "")
            raise type_error(label, where, v, allowed + extra)
        if len(v) != ct.shape[depth]:
            raise value_error(label, where, f"has {len(v)} element(s); the field "
                              f"'{ct.text}' has {ct.shape[depth]} along axis {depth} "
                              f"(shape {ct.shape})")
        for i, item in enumerate(v):
            walk(item, f"{where}[{i}]", depth + 1)

    walk(value, arg, 0)
    return out


class StructType:
    """The base of :class:`~xstride.cuda.CudaStruct`, known here (``_struct`` imports
    this module) to tell a struct type given for a value of it."""

    name: str
    fields: tuple


class CudaStructValue:
    """A packed value of a :class:`CudaStruct` (keeps its arrays alive)."""

    def __init__(self, struct: CudaStruct, data: bytes, keep: tuple):
        self.__dict__.update(struct=struct, _data=data, _keep=keep)

    def __setattr__(self, name, value):
        """A value is the bytes packed when it was made: ``v.n = 5`` set a Python
        attribute the kernel never saw. Refused (copies and pickles fill ``__dict__``)."""
        raise error(AttributeError, f"CudaStruct {self.struct.name!r}",
                    f"a value is read-only (its fields were packed when it was made): cannot "
                    f"set {name!r}; make a new value, "
                    f"{self.struct.name}({', '.join(f'{f}=...' for f, _ in self.struct.fields)})")

    def __delattr__(self, name):
        self.__setattr__(name, None)

    def tobytes(self) -> bytes:
        """The struct's bytes, as the kernel receives them."""
        return self._data

    def check_device(self, device: int, label: str, arg: str) -> None:
        """``ValueError`` if an array field (or a nested one) lives on another device."""
        for (fname, ct), v in zip(self.struct.fields, self._keep):
            if ct.kind == "array":
                check_device(ct, v, label, f"{arg}.{fname}", device)
                continue
            if isinstance(v, CudaStructValue):
                v.check_device(device, label, f"{arg}.{fname}")
                continue
            arr = device_array(v)
            if arr is not None and arr.device is not None and arr.device != device:
                raise value_error(label, f"{arg}.{fname}", f"is on device {arr.device}; "
                                  f"the kernel launches on device {device}")

    def __repr__(self) -> str:
        return f"<{self.struct.name} value, {len(self._data)} bytes>"

    def as_array(self) -> np.ndarray:
        """The bytes as a size-one NumPy array (how CuPy passes it by value)."""
        return np.frombuffer(self._data, dtype=np.dtype((np.void, len(self._data))))
