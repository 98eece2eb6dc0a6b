"""The one launcher (xstride/_kernels/_launch.py): what cuLaunchKernel would read,
checked on the host with a recording stand-in for the driver, and the
RawKernel.__call__ fallback with the same bytes."""

from __future__ import annotations

import ctypes
import struct as pystruct
import threading
import types
from functools import partial

import numpy as np
import pytest

from xstride._kernels import _launch
from xstride._kernels._launch import (Launch, i32, i64, slot32, slot64, slot_f64, struct, u32,
                                      u64)


class _Driver:
    """Records each launch and what its parameter array points to at that moment."""

    def __init__(self, sizes):
        self.sizes = sizes
        self.calls = []

    def launchKernel(self, f, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        arr = (ctypes.c_void_p * len(self.sizes)).from_address(params)
        seen = [ctypes.string_at(arr[i], n) for i, n in enumerate(self.sizes)]
        self.calls.append(((f, gx, gy, gz, bx, by, bz, smem, stream, extra), seen))


class _Kernel:
    """A RawKernel stand-in: ``kernel.ptr`` (or none), and a recording __call__."""

    def __init__(self, ptr=0x1234):
        self.kernel = types.SimpleNamespace() if ptr is None else types.SimpleNamespace(ptr=ptr)
        self.calls = []

    def __call__(self, grid, block, args, shared_mem=0):
        self.calls.append((grid, block, args, shared_mem))


@pytest.fixture
def fake_cupy(fake_cupy):
    """The shared stand-in CuPy (tests/conftest.py) with a recording driver; the
    current stream is 99."""
    fake_cupy.cuda.driver = _Driver([])
    fake_cupy.current.stream = types.SimpleNamespace(ptr=99)
    return fake_cupy


def test_parameters_point_at_the_values_of_each_call(fake_cupy):
    desc = pystruct.pack("<5q", 1, -2, 3, 4, 5)
    fake_cupy.cuda.driver.sizes = [8, 8, 40, 8, 4, 4]
    launch = Launch(_Kernel(), 33, (32, 8), [slot64(), slot64(), struct(desc), i64(-7),
                                             i32(-3), slot32()], shared_mem=4096)
    launch(2**64 - 16, 4096, 7)
    launch(32, 4096, 8, stream_ptr=5)
    (shape0, seen0), (shape1, seen1) = fake_cupy.cuda.driver.calls
    assert shape0 == (0x1234, 33, 1, 1, 32, 8, 1, 4096, 99, 0)   # the current stream
    assert shape1[8] == 5
    assert seen0 == [pystruct.pack("<Q", 2**64 - 16), pystruct.pack("<Q", 4096), desc,
                     pystruct.pack("<q", -7), pystruct.pack("<i", -3), pystruct.pack("<I", 7)]
    assert seen1 == [pystruct.pack("<Q", 32), pystruct.pack("<Q", 4096), desc,
                     pystruct.pack("<q", -7), pystruct.pack("<i", -3), pystruct.pack("<I", 8)]


def test_struct_is_aligned_and_exact():
    data = bytes(range(13))
    buf, size = struct(data)
    assert ctypes.addressof(buf) % 8 == 0 and size == 13
    assert ctypes.string_at(buf, 13) == data and ctypes.sizeof(buf) == 16
    assert ctypes.sizeof(struct(b"")[0]) == 8


def test_a_value_of_the_wrong_type_raises(fake_cupy):
    fake_cupy.cuda.driver.sizes = [4]
    launch = Launch(_Kernel(), 1, 1, [slot32()])
    with pytest.raises(TypeError):
        launch("7")


def test_fallback_passes_the_same_bytes_through_rawkernel_call(fake_cupy):
    """No function handle (or no driver launch): RawKernel.__call__ with NumPy values
    of the same bytes, the grid and block as given."""
    desc = pystruct.pack("<3q", 1, 2, 3)
    k = _Kernel(ptr=None)
    launch = Launch(k, (7,), (256,), [slot64(), struct(desc), i64(-1), u64(5), u32(6),
                                      slot32()], shared_mem=64)
    assert launch.fptr is None
    launch(2**63 + 8, 11)
    grid, block, args, smem = k.calls[0]
    assert (grid, block, smem) == ((7,), (256,), 64)
    assert [type(a) for a in args] == [np.uint64, np.ndarray, np.int64, np.uint64,
                                       np.uint32, np.uint32]
    assert [a.tobytes() for a in args] == [
        pystruct.pack("<Q", 2**63 + 8), desc, pystruct.pack("<q", -1),
        pystruct.pack("<Q", 5), pystruct.pack("<I", 6), pystruct.pack("<I", 11)]
    assert _launch.driver_entry(_Kernel(77)) == (77, fake_cupy.cuda.driver)
    fake_cupy.cuda.driver = types.SimpleNamespace()          # a CuPy without launchKernel
    assert _launch.driver_entry(_Kernel()) == (None, None)


@pytest.mark.parametrize("nslots", [2, 3, 5])
@pytest.mark.parametrize("bound", [False, True])
def test_concurrent_launches_do_not_mix_arguments(fake_cupy, bound, nslots):
    """Each launch sees the values its own call set, with threads racing (through
    the call and through the bound function, :meth:`Launch.bind`, whose Launch is
    not kept here)."""
    fake_cupy.cuda.driver.sizes = [8] * nslots
    launch = Launch(_Kernel(), 1, 1, [slot64() for _ in range(nslots)])
    go = launch.bind() if bound else partial(launch, stream_ptr=0)
    if bound:
        del launch

    def work(k):
        for i in range(200):
            v = k * 1000 + i
            go(*[v] * nslots)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    calls = fake_cupy.cuda.driver.calls
    assert len(calls) == 800
    assert all(len(set(seen)) == 1 for _, seen in calls)


def test_double_slots_pass_the_bits_of_each_value(fake_cupy):
    """slot_f64: the 8 bytes of the double, through the driver and the fallback."""
    fake_cupy.cuda.driver.sizes = [8, 4, 8]
    launch = Launch(_Kernel(), 1, 1, [slot_f64(), i32(3), slot_f64()])
    launch(-0.1, 2.0**-1074)
    seen = fake_cupy.cuda.driver.calls[-1][1]
    assert seen == [pystruct.pack("<d", -0.1), pystruct.pack("<i", 3),
                    pystruct.pack("<d", 2.0**-1074)]
    k = _Kernel(ptr=None)
    Launch(k, 1, 1, [slot_f64(), i32(3)])(1e300)
    args = k.calls[0][2]
    assert [type(a) for a in args] == [np.float64, np.int32]
    assert args[0].tobytes() == pystruct.pack("<d", 1e300)


@pytest.mark.parametrize("nslots", [0, 1, 2, 3, 4, 7])
def test_bound_call_launches_what_the_call_launches(fake_cupy, nslots):
    """Launch.bind(): the same driver call and parameter bytes as Launch.__call__, for
    each slot count (one generated function per count), on the current stream."""
    fake_cupy.cuda.driver.sizes = [8] * nslots + [8]
    launch = Launch(_Kernel(), (5, 2), (128,), [slot64() for _ in range(nslots)] + [i64(-9)],
                    shared_mem=256)
    values = [2**64 - 8 * (k + 1) for k in range(nslots)]
    launch(*values)
    fake_cupy.current.stream = types.SimpleNamespace(ptr=7)
    go = launch.bind()
    go(*values)
    go(*[v - 16 for v in values])
    (want, seen_want), (got, seen_got), (_, seen_next) = fake_cupy.cuda.driver.calls
    assert got == want[:8] + (7, 0)          # the stream current at the bound call
    assert want[8] == 99 and seen_got == seen_want
    assert seen_next == [pystruct.pack("<Q", v - 16) for v in values] + [pystruct.pack("<q", -9)]


def test_bound_call_without_a_function_handle_is_the_call(fake_cupy):
    k = _Kernel(ptr=None)
    launch = Launch(k, 1, 1, [slot64(), slot64()])
    go = launch.bind()
    go(16, 32)
    assert [a.tobytes() for a in k.calls[0][2]] == [pystruct.pack("<Q", 16),
                                                    pystruct.pack("<Q", 32)]


def test_bound_call_refuses_a_value_of_the_wrong_type(fake_cupy):
    fake_cupy.cuda.driver.sizes = [8, 8]
    go = Launch(_Kernel(), 1, 1, [slot64(), slot64()]).bind()
    with pytest.raises(TypeError):
        go(8, "16")
    assert fake_cupy.cuda.driver.calls == []


def test_bound_call_keeps_its_launch_alive(fake_cupy):
    """The bound function holds the parameter array its launches point at: the Launch
    it came from may be dropped."""
    import gc

    fake_cupy.cuda.driver.sizes = [8, 8]
    go = Launch(_Kernel(), 1, 1, [slot64(), slot64()]).bind()
    gc.collect()
    # objects of the freed ones' sizes, set to other values: they reuse freed memory
    reuse = [((ctypes.c_void_p * 2)(8, 8), slot64(), slot64()) for _ in range(2000)]
    for _, a, b in reuse:
        a.value, b.value = 8, 8
    go(24, 48)
    assert fake_cupy.cuda.driver.calls[0][1] == [pystruct.pack("<Q", 24),
                                                 pystruct.pack("<Q", 48)]


class _StatusError(RuntimeError):
    """What cupy_backends' CUDADriverError carries: the driver's status."""

    def __init__(self, status):
        super().__init__(f"status {status}")
        self.status = status


class _ContextlessDriver(_Driver):
    """Fails its first launch as a thread without a current context does."""

    def __init__(self, sizes, status=_launch.INVALID_CONTEXT):
        super().__init__(sizes)
        self.status, self.failed = status, 0

    def launchKernel(self, *args):
        if self.failed == 0:
            self.failed += 1
            raise _StatusError(self.status)
        super().launchKernel(*args)


@pytest.mark.parametrize("bound", [False, True])
def test_a_thread_without_a_context_binds_the_devices_and_launches_again(fake_cupy, bound):
    """CUDA_ERROR_INVALID_CONTEXT (a new thread whose first work is a launch): the
    current device is set (cudaSetDevice binds its primary context) and the launch runs
    once, with the same parameters."""
    set_to = []
    fake_cupy.current.device = 1
    fake_cupy.cuda.runtime.setDevice = set_to.append
    fake_cupy.cuda.driver = _ContextlessDriver([8])
    launch = Launch(_Kernel(), 1, 1, [slot64()])
    go = launch.bind() if bound else launch
    go(40)
    assert set_to == [1]
    assert [seen for _, seen in fake_cupy.cuda.driver.calls] == [[pystruct.pack("<Q", 40)]]


@pytest.mark.parametrize("bound", [False, True])
def test_other_launch_errors_are_raised_as_they_are(fake_cupy, bound):
    set_to = []
    fake_cupy.cuda.runtime.setDevice = set_to.append
    fake_cupy.cuda.driver = _ContextlessDriver([8], status=700)   # an illegal address
    launch = Launch(_Kernel(), 1, 1, [slot64()])
    go = launch.bind() if bound else launch
    with pytest.raises(_StatusError, match="status 700"):
        go(40)
    assert set_to == [] and fake_cupy.cuda.driver.calls == []
