"""The one launcher of xstride's internal kernels: a prepared launch, packed once.

``cupy.RawKernel.__call__`` converts every argument on every call, which costs about as
much host time as the driver's launch itself (measured on the H200's host: 15 us
against 7 us for a look-back scan's 10 arguments). A :class:`Launch` is built once per
recipe (kernel, grid, block, dynamic shared memory, arguments): it keeps one ctypes
object per kernel parameter and the ``void*`` array that ``cuLaunchKernel`` reads (CUDA
Driver API, "Execution Control"). The parameters that change from call to call (device
addresses, an epoch, a double such as a Morton bound) are *slots*; a call sets them and launches on the current stream
through ``cupy.cuda.driver.launchKernel``. Device addresses are passed as 64-bit
values, so the caller keeps its arrays alive until the call returns (the launch is then
ordered on the stream, and CuPy's pool reuses freed memory on that stream only). The
driver copies the parameters before ``cuLaunchKernel`` returns, so a slot may be
changed again at once; a lock keeps two threads from interleaving set and launch.

Where CuPy does not expose what this needs (``RawKernel.kernel.ptr`` or
``driver.launchKernel``; HIP builds of some releases), the same :class:`Launch` calls
``RawKernel.__call__`` with NumPy values of the same bytes: this module is the only
place that knows.
"""

from __future__ import annotations

import ctypes
import threading

import numpy as np

from ._cupy import cupy as _cupy

__all__ = ["Launch", "driver_entry", "bind_context", "INVALID_CONTEXT", "u64", "i64", "u32",
           "i32", "struct", "slot64", "slot32", "slot_f64", "slot_scalar"]


class _Slot64(ctypes.c_uint64):
    """A 64-bit parameter set per call (a device address)."""


class _Slot32(ctypes.c_uint32):
    """A 32-bit unsigned parameter set per call (an epoch)."""


class _SlotF64(ctypes.c_double):
    """A ``double`` parameter set per call (a bound or scale of the Morton keys)."""


# By-value scalars of the elementwise engine, one slot type per C type (set per call:
# the scalar operands of a call, converted to their loop type).
_SCALAR_CTYPES = {
    "bool": ctypes.c_bool, "signed char": ctypes.c_int8, "short": ctypes.c_int16,
    "int": ctypes.c_int32, "long long": ctypes.c_int64, "unsigned char": ctypes.c_uint8,
    "unsigned short": ctypes.c_uint16, "unsigned int": ctypes.c_uint32,
    "unsigned long long": ctypes.c_uint64, "float": ctypes.c_float,
    "double": ctypes.c_double,
}
_SCALAR_SLOTS = {c: type(f"_Slot_{c.replace(' ', '_')}", (base,), {})
                 for c, base in _SCALAR_CTYPES.items()}
_SLOTS = (_Slot64, _Slot32, _SlotF64) + tuple(_SCALAR_SLOTS.values())


def u64(v: int = 0) -> ctypes.c_uint64:
    """A fixed ``unsigned long long`` parameter."""
    return ctypes.c_uint64(int(v))


def i64(v: int = 0) -> ctypes.c_int64:
    """A fixed ``long long`` parameter."""
    return ctypes.c_int64(int(v))


def u32(v: int = 0) -> ctypes.c_uint32:
    """A fixed ``unsigned int`` parameter."""
    return ctypes.c_uint32(int(v))


def i32(v: int = 0) -> ctypes.c_int32:
    """A fixed ``int`` parameter."""
    return ctypes.c_int32(int(v))


def struct(data: bytes):
    """A struct passed by value: its bytes, in an 8-byte aligned buffer."""
    n = -(-len(data) // 8)
    buf = (ctypes.c_uint64 * max(n, 1))()
    ctypes.memmove(buf, data, len(data))
    return buf, len(data)


def slot64() -> _Slot64:
    """A 64-bit parameter (device address) that each call sets."""
    return _Slot64()


def slot32() -> _Slot32:
    """A 32-bit unsigned parameter that each call sets."""
    return _Slot32()


def slot_f64() -> _SlotF64:
    """A ``double`` parameter that each call sets."""
    return _SlotF64()


def slot_scalar(ctype: str):
    """A by-value scalar parameter of C type ``ctype`` (``"float"``, ``"long long"``,
    ... the C types of ``xstride._core.dtypes``) that each call sets."""
    return _SCALAR_SLOTS[ctype]()


_NUMPY = {ctypes.c_uint64: np.uint64, ctypes.c_int64: np.int64, ctypes.c_uint32: np.uint32,
          ctypes.c_int32: np.int32, _Slot64: np.uint64, _Slot32: np.uint32,
          _SlotF64: np.float64}
_NUMPY.update({_SCALAR_SLOTS[c]: np.dtype(n).type for n, c in (
    ("bool", "bool"), ("int8", "signed char"), ("int16", "short"), ("int32", "int"),
    ("int64", "long long"), ("uint8", "unsigned char"), ("uint16", "unsigned short"),
    ("uint32", "unsigned int"), ("uint64", "unsigned long long"), ("float32", "float"),
    ("float64", "double"))})


def driver_entry(kernel):
    """``(CUfunction handle on the current device, cupy.cuda.driver)`` of a
    ``cupy.RawKernel``, or ``(None, None)`` where this CuPy does not expose them (the
    launch then goes through ``RawKernel.__call__``)."""
    try:
        fptr = int(kernel.kernel.ptr)
        drv = _cupy().cuda.driver
        drv.launchKernel  # noqa: B018 - present in every supported CuPy; checked anyway
    except AttributeError:
        return None, None
    return fptr, drv


#: ``CUDA_ERROR_INVALID_CONTEXT``: the calling thread has no current CUDA context.
INVALID_CONTEXT = 201


def bind_context(exc: BaseException) -> bool:
    """After a driver launch failed with ``exc``: when the failure is
    ``CUDA_ERROR_INVALID_CONTEXT``, make the current device's primary context current
    on this thread and return ``True`` (the caller launches again); else ``False``.

    The launches go through the driver API, which needs a context current on the
    calling thread; the runtime API, which CuPy uses, binds one on a thread's first
    runtime call that needs it. A thread that has made none (a new thread whose first
    work is a reduction of arrays made elsewhere, its buffers from CuPy's memory pool)
    has none: ``cudaSetDevice`` binds the device's primary context, the one CuPy's
    kernels live in (CUDA Runtime API, "Initialization").
    """
    if getattr(exc, "status", None) != INVALID_CONTEXT:
        return False
    rt = _cupy().cuda.runtime
    rt.setDevice(rt.getDevice())
    return True


def _dims(v) -> tuple:
    v = (int(v),) if isinstance(v, int) else tuple(int(e) for e in v)
    return v + (1,) * (3 - len(v))


class Launch:
    """One kernel with its grid, block, dynamic shared memory and packed parameters.

    Parameters
    ----------
    kernel : cupy.RawKernel
        The compiled kernel (:func:`xstride._kernels._compile.function`); the launch
        uses its function on the device current now, so build a :class:`Launch` per
        device.
    grid, block : int or tuple of int
        Up to three dimensions each.
    args : sequence
        One entry per kernel parameter, in order: :func:`u64`, :func:`i64`,
        :func:`u32`, :func:`i32`, :func:`struct` (fixed), or
        :func:`slot64`, :func:`slot32`, :func:`slot_f64` (set per call, in the order
        they appear here).
    shared_mem : int
        Dynamic shared memory, bytes.
    """

    __slots__ = ("kernel", "fptr", "grid", "block", "smem", "objs", "slots", "params", "pp",
                 "lock", "drv", "_np", "_dims", "stream")

    def __init__(self, kernel, grid, block, args, shared_mem: int = 0):
        self.kernel = kernel
        self.grid, self.block, self.smem = _dims(grid), _dims(block), int(shared_mem)
        self._dims = (grid, block)   # as given, for RawKernel.__call__
        objs, self._np = [], []
        for a in args:
            if isinstance(a, tuple):            # struct(): (buffer, size in bytes)
                buf, size = a
                objs.append(buf)
                self._np.append(np.frombuffer(bytes(buf)[:size],
                                              dtype=np.dtype((np.void, size))).copy())
            else:
                objs.append(a)
                self._np.append(None)
        self.objs = objs
        self.slots = tuple(o for o in objs if isinstance(o, _SLOTS))
        self.params = (ctypes.c_void_p * max(len(objs), 1))(
            *[ctypes.addressof(o) for o in objs])
        self.pp = ctypes.addressof(self.params)
        self.lock = threading.Lock()
        self.fptr, self.drv = driver_entry(kernel)
        self.stream = _cupy().cuda.get_current_stream

    def __call__(self, *values, stream_ptr=None, structs=()) -> None:
        """Set the slots to ``values`` (in order) and launch on the current stream (or
        on ``stream_ptr``). ``structs``: ``(parameter index, bytes)`` pairs that replace
        the bytes of :func:`struct` parameters (of the same size) for this launch."""
        if stream_ptr is None:
            stream_ptr = self.stream().ptr
        with self.lock:
            for obj, v in zip(self.slots, values):
                obj.value = v
            for i, data in structs:
                ctypes.memmove(self.objs[i], data, len(data))
                if self.fptr is None:   # the RawKernel path passes the NumPy copies
                    self._np[i] = np.frombuffer(data, dtype=np.dtype((np.void, len(data)))).copy()
            if self.fptr is not None:
                g, b = self.grid, self.block
                try:
                    self.drv.launchKernel(self.fptr, g[0], g[1], g[2], b[0], b[1], b[2],
                                          self.smem, stream_ptr, self.pp, 0)
                except Exception as exc:
                    if not bind_context(exc):
                        raise
                    self.drv.launchKernel(self.fptr, g[0], g[1], g[2], b[0], b[1], b[2],
                                          self.smem, stream_ptr, self.pp, 0)
                return
            args = tuple(n if n is not None else _NUMPY[type(o)](o.value)
                         for o, n in zip(self.objs, self._np))
        self.kernel(self._dims[0], self._dims[1], args, shared_mem=self.smem)

    def bind(self):
        """The call of this launch as a plain function of its slot values, ``go(*values)``
        on the current stream: what ``launch(*values)`` does, with the launch's facts
        bound as the function's locals and one statement per slot (no loop; a
        prepared call's repeat runs it: on the H200's host it saves about 1 us of the
        8-12 us a small elementwise call costs, and about 2 us of a fused call's seven
        slots). The fallback launch (no function handle) is :meth:`__call__` itself.
        The driver's ``launchKernel`` is looked up here, once: a wrapper put around it
        later (a profiler's) sees the launches of :meth:`__call__`, not these."""
        if self.fptr is None:
            return self.__call__
        (g0, g1, g2), (b0, b1, b2) = self.grid, self.block
        go = _bound_maker(len(self.slots))(
            self.lock, self.drv.launchKernel, bind_context, self.stream, self.fptr, g0, g1,
            g2, b0, b1, b2, self.smem, self.pp, *self.slots)
        # ``pp`` is the address of this launch's parameter array: the function keeps the
        # launch (and so the array and the values it points to) alive
        go.launch = self
        return go


_BOUND_MAKERS: dict = {}


def _bound_maker(nslots: int):
    """``make(lock, launch, rebind, stream, fptr, g0, g1, g2, b0, b1, b2, smem, pp, s0,
    ...)``, which returns ``go(v0, ..., v<nslots-1>)``: under ``lock``, ``s<i>.value =
    v<i>`` for each slot, then the driver's launch on the current stream (once more
    after ``rebind(error)``, :func:`bind_context`, says it bound the thread's context).
    Generated once per slot count (as :func:`collections.namedtuple` generates its
    class): a loop over the slots cost about 0.25 us a slot on the H200's host."""
    make = _BOUND_MAKERS.get(nslots)
    if make is None:
        slots = "".join(f", s{i}" for i in range(nslots))
        values = ", ".join(f"v{i}" for i in range(nslots))
        sets = "".join(f"            s{i}.value = v{i}\n" for i in range(nslots))
        call = "launch(fptr, g0, g1, g2, b0, b1, b2, smem, stream().ptr, pp, 0)"
        src = (f"def make(lock, launch, rebind, stream, fptr, g0, g1, g2, b0, b1, b2, smem, "
               f"pp{slots}):\n"
               f"    def go({values}):\n"
               f"        with lock:\n{sets}"
               f"            try:\n"
               f"                {call}\n"
               f"            except Exception as exc:\n"
               f"                if not rebind(exc):\n"
               f"                    raise\n"
               f"                {call}\n"
               f"    return go\n")
        space: dict = {}
        exec(compile(src, f"<xstride bound launch, {nslots} slots>", "exec"), space)
        make = _BOUND_MAKERS[nslots] = space["make"]
    return make
