"""Launches of one compiled kernel with its arguments packed once.

``cupy.RawKernel.__call__`` converts every argument on every call, which costs about as
much host time as the driver's launch itself (measured on the H200's host: 15 us
against 7 us for a look-back scan's 10 arguments). A :class:`PackedLaunch` keeps one
ctypes object per argument and the ``void*`` array that ``cuLaunchKernel`` reads
(CUDA Driver API, "Execution Control"); a call sets the arguments that change (device
addresses, an epoch) and launches through ``cupy.cuda.driver.launchKernel``. The
driver copies the arguments before the launch call returns, so the objects may be
changed again at once; a lock keeps two threads from interleaving set and launch.

Where CuPy does not expose what this needs (``RawKernel.kernel.ptr`` or
``driver.launchKernel``), :func:`packed_launch` returns ``None`` and the caller keeps
the plain ``RawKernel`` call.
"""

from __future__ import annotations

import ctypes
import threading

__all__ = ["PackedLaunch", "packed_launch", "u64", "i64", "u32", "struct_bytes"]


def u64(v: int = 0) -> ctypes.c_uint64:
    return ctypes.c_uint64(int(v))


def i64(v: int = 0) -> ctypes.c_int64:
    return ctypes.c_int64(int(v))


def u32(v: int = 0) -> ctypes.c_uint32:
    return ctypes.c_uint32(int(v))


def struct_bytes(data: bytes):
    """A struct passed by value: its bytes, 8-byte aligned."""
    n = -(-len(data) // 8)
    buf = (ctypes.c_uint64 * max(n, 1))()
    ctypes.memmove(buf, data, len(data))
    return buf


class PackedLaunch:
    """One kernel, its packed arguments and its launch shape.

    Parameters
    ----------
    function_ptr : int
        The ``CUfunction`` (``hipFunction_t``) handle, on the current device.
    args : list of ctypes objects
        One per kernel parameter, in order, of the parameter's size; the caller keeps
        references to the ones it changes between calls.
    grid, block : int
        One-dimensional grid and block.
    shared_mem : int
        Dynamic shared memory, bytes.
    """

    __slots__ = ("fptr", "args", "params", "pp", "grid", "block", "smem", "lock", "drv")

    def __init__(self, function_ptr: int, args, grid: int, block: int, shared_mem: int, drv):
        self.fptr = int(function_ptr)
        self.args = list(args)
        self.params = (ctypes.c_void_p * len(self.args))(
            *[ctypes.addressof(a) for a in self.args])
        self.pp = ctypes.addressof(self.params)
        self.grid, self.block, self.smem = int(grid), int(block), int(shared_mem)
        self.lock = threading.Lock()
        self.drv = drv

    def launch(self, stream_ptr: int, updates=()) -> None:
        """Set ``(ctypes object, value)`` pairs, then launch on ``stream_ptr``."""
        with self.lock:
            for obj, value in updates:
                obj.value = value
            self.drv.launchKernel(self.fptr, self.grid, 1, 1, self.block, 1, 1, self.smem,
                                  stream_ptr, self.pp, 0)


def packed_launch(cp, raw_kernel, args, grid: int, block: int, shared_mem: int):
    """A :class:`PackedLaunch` of ``raw_kernel`` (a ``cupy.RawKernel``) on the current
    device, or ``None`` where this CuPy does not expose the function handle or the
    driver's launch."""
    try:
        fptr = raw_kernel.kernel.ptr
        drv = cp.cuda.driver
        drv.launchKernel   # noqa: B018 - present in every supported CuPy; checked anyway
    except AttributeError:
        return None
    return PackedLaunch(fptr, args, grid, block, shared_mem, drv)
