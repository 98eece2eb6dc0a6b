"""The packed kernel launch (xstride/_kernels/_packed_launch.py): what cuLaunchKernel
would read, checked on the host with a recording stand-in for the driver."""

from __future__ import annotations

import ctypes
import struct
import threading
import types

import pytest

from xstride._kernels._packed_launch import PackedLaunch, i64, packed_launch, struct_bytes, u32, u64

from tests.conftest import FakeCupy


class _Driver:
    """Records each launch and what its parameter array points to at that moment."""

    def __init__(self, sizes):
        self.sizes = sizes
        self.calls = []

    def launchKernel(self, f, gx, gy, gz, bx, by, bz, smem, stream, params, extra):
        arr = (ctypes.c_void_p * len(self.sizes)).from_address(params)
        seen = [ctypes.string_at(arr[i], n) for i, n in enumerate(self.sizes)]
        self.calls.append(((f, gx, gy, gz, bx, by, bz, smem, stream, extra), seen))


def test_parameters_point_at_the_values_of_each_call():
    desc = struct.pack("<5q", 1, -2, 3, 4, 5)
    x, out, ep = u64(), u64(), u32()
    args = [x, out, struct_bytes(desc), i64(-7), ep]
    drv = _Driver([8, 8, 40, 8, 4])
    launch = PackedLaunch(0x1234, args, grid=33, block=256, shared_mem=4096, drv=drv)
    launch.launch(99, zip((x, out, ep), (2**64 - 16, 4096, 7)))
    launch.launch(5, [(x, 32), (ep, 8)])
    (shape0, seen0), (shape1, seen1) = drv.calls
    assert shape0 == (0x1234, 33, 1, 1, 256, 1, 1, 4096, 99, 0)
    assert shape1[8] == 5
    assert seen0 == [struct.pack("<Q", 2**64 - 16), struct.pack("<Q", 4096), desc,
                     struct.pack("<q", -7), struct.pack("<I", 7)]
    # the second call changed only what it set
    assert seen1 == [struct.pack("<Q", 32), struct.pack("<Q", 4096), desc,
                     struct.pack("<q", -7), struct.pack("<I", 8)]


def test_struct_bytes_is_aligned_and_exact():
    data = bytes(range(13))
    buf = struct_bytes(data)
    assert ctypes.addressof(buf) % 8 == 0
    assert ctypes.string_at(buf, 13) == data and ctypes.sizeof(buf) == 16
    assert ctypes.sizeof(struct_bytes(b"")) == 8


def test_a_value_of_the_wrong_type_raises():
    launch = PackedLaunch(1, [u32()], grid=1, block=1, shared_mem=0, drv=_Driver([4]))
    with pytest.raises(TypeError):
        launch.launch(0, [(launch.args[0], "7")])


def test_no_handle_or_no_driver_launch_gives_none():
    class NoPtr:
        kernel = types.SimpleNamespace()

    class WithPtr:
        kernel = types.SimpleNamespace(ptr=77)

    cp_ok, cp_old = FakeCupy(), FakeCupy()     # cp_old: a driver without launchKernel
    cp_ok.cuda.driver = _Driver([8])
    assert packed_launch(cp_ok, NoPtr(), [u64()], 1, 32, 0) is None
    assert packed_launch(cp_old, WithPtr(), [u64()], 1, 32, 0) is None
    got = packed_launch(cp_ok, WithPtr(), [u64(5)], 3, 32, 0)
    assert isinstance(got, PackedLaunch) and got.fptr == 77 and got.grid == 3


def test_concurrent_launches_do_not_mix_arguments():
    """Each launch sees the values its own call set, with threads racing."""
    a, b = u64(), u64()
    drv = _Driver([8, 8])
    launch = PackedLaunch(1, [a, b], grid=1, block=1, shared_mem=0, drv=drv)

    def work(k):
        for i in range(200):
            v = k * 1000 + i
            launch.launch(0, [(a, v), (b, v)])

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(drv.calls) == 800
    assert all(seen[0] == seen[1] for _, seen in drv.calls)
