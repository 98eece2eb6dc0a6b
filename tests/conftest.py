"""Shared test set-up: the ``gpu`` marker skips cleanly where no CUDA/HIP device answers;
the one stand-in CuPy of the tests (``fake_cupy``, :class:`FakeCupy`, :class:`FakeCupyArray`)."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import sys
import types
from pathlib import Path

import numpy as np
import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
if not SHARED.is_dir():  # CI lays shared/ beside the clone; allow an override
    SHARED = Path(os.environ.get("XSTRIDE_SHARED", str(SHARED)))


@functools.lru_cache(maxsize=None)
def gpu_reason() -> str | None:
    """``None`` when a CuPy device answers, else the reason it does not."""
    from xstride._backends.select import load_cupy

    try:
        load_cupy()
    except RuntimeError as exc:
        return str(exc)
    return None


def pytest_collection_modifyitems(config, items):
    reason = None
    for item in items:
        if item.get_closest_marker("gpu") is None:
            continue
        if reason is None:
            reason = gpu_reason() or ""
        if reason:
            item.add_marker(pytest.mark.skip(reason=f"needs a GPU: {reason}"))


@pytest.fixture
def cp():
    """The ``cupy`` module (only inside tests marked ``gpu``)."""
    from xstride._backends.select import load_cupy

    return load_cupy()


@pytest.fixture
def on_cupy(cp):
    """The CuPy backend active for the test (only inside tests marked ``gpu``)."""
    import xstride

    with xstride.use_backend("cupy"):
        yield cp


@pytest.fixture
def shared_dir() -> Path:
    """``../shared`` beside the checkout; skips with a reason when it is absent."""
    if not (SHARED / "data").is_dir():
        pytest.skip(f"reference data folder {SHARED}/data is absent (set XSTRIDE_SHARED)")
    return SHARED


@pytest.fixture
def poisoned_pool(cp):
    """Fill pooled device memory with 0xFF so that a result element the kernels forget
    to write shows up as NaN / -1 / max instead of a lucky zero."""
    junk = cp.full(1 << 25, 0xFF, dtype=cp.uint8)
    del junk
    yield


@pytest.fixture
def tuning():
    """Set launch-tuning knobs (``xstride._kernels._reduce_common.TUNING``) for one
    test: ``tuning(knob=value, ...)`` starts from the saved defaults each time; all are
    restored afterwards."""
    from xstride._kernels import _reduce_common as rc

    saved = dict(rc.TUNING)

    def set_(**kw):
        rc.TUNING.update(saved)
        rc.TUNING.update(kw)

    yield set_
    rc.TUNING.update(saved)


# ------------------------------------------------------------------------ the stand-in CuPy
# One NumPy-backed stand-in for the parts of CuPy that xstride's device path touches, for
# tests that check launches, caches and dispatch without a GPU. "Device memory" is host
# memory: ``a.data.ptr`` is the host address of the NumPy buffer behind ``a`` (so a
# recording kernel can read and write through it), unless a test gives another ``ptr``.
# It proves nothing about kernels: only what the host side hands to them.

_POISON = 0xA5


class FakeMemory:
    """``cupy.cuda.Memory``: one allocation (``ptr``, ``size`` in bytes)."""

    __slots__ = ("ptr", "size", "device_id")

    def __init__(self, ptr: int, size: int, device_id: int = 0):
        self.ptr, self.size, self.device_id = ptr, size, device_id


class FakeMemoryPointer:
    """``cupy.cuda.MemoryPointer``: ``ptr`` into allocation ``mem``. ``owner`` (not in
    CuPy) is the array the pointer was taken from, so a recording kernel can map a
    pointer argument back to its array."""

    __slots__ = ("ptr", "mem", "device_id", "owner")

    def __init__(self, ptr: int, mem: FakeMemory, owner=None):
        self.ptr, self.mem, self.device_id, self.owner = ptr, mem, mem.device_id, owner


class FakeDevice:
    """``cupy.cuda.Device``: compares by id."""

    __slots__ = ("id",)

    def __init__(self, id: int = 0):  # noqa: A002 - CuPy's name
        self.id = int(id)

    def __eq__(self, other):
        return isinstance(other, FakeDevice) and other.id == self.id

    def __hash__(self):
        return hash(("device", self.id))

    def __repr__(self):
        return f"<CUDA Device {self.id}>"

    def synchronize(self):
        pass

    def __enter__(self):   # ``with cupy.cuda.Device(i):`` (one device here)
        return self

    def __exit__(self, *exc):
        return False


class FakeCPointer:
    """``cupy.cuda.function.CPointer``: an argument passed as the bytes at ``ptr``."""

    def __init__(self, p=0):
        self.ptr = p


def _np_ptr(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def _host_view(shape, dtype, memptr, strides) -> np.ndarray:
    """The host array of ``cupy.ndarray(shape, dtype, memptr=memptr, strides=strides)``:
    ``memptr`` points into real host memory (a fake array made without ``ptr=``)."""
    dt = np.dtype(dtype)
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(n) for n in shape)
    if strides is None:
        strides = tuple(int(np.prod(shape[i + 1:], dtype=np.int64)) * dt.itemsize
                        for i in range(len(shape)))
    lo = sum(st * (n - 1) for n, st in zip(shape, strides) if st < 0 and n)
    hi = sum(st * (n - 1) for n, st in zip(shape, strides) if st > 0 and n) + dt.itemsize
    buf = (ctypes.c_char * (hi - lo)).from_address(memptr.ptr + lo)
    # the view's memory is the owner's: the buffer keeps it alive, as CuPy's
    # MemoryPointer keeps its allocation (without it the view reads freed memory)
    buf.owner = memptr.owner
    return np.ndarray(shape, dt, buffer=buf, offset=-lo, strides=tuple(strides))


def _allocate(shape, dtype, *, misalign: int = 0, poison: bool = True, device: int = 0):
    """A fresh C-order fake array, 512-byte aligned like CuPy's pool (plus ``misalign``
    bytes), every byte 0xA5 unless ``poison`` is off."""
    dt = np.dtype(dtype)
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(n) for n in shape)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dt.itemsize
    raw = np.zeros(nbytes + 512 + misalign + dt.itemsize, np.uint8)
    start = (-_np_ptr(raw)) % 512 + misalign
    buf = raw[start:start + nbytes]
    if poison:
        buf[...] = _POISON
    host = np.ndarray(shape, dt, buf.data if nbytes else raw.data, 0 if nbytes else start)
    mem = FakeMemory(_np_ptr(raw) + start, nbytes, device)
    return FakeCupyArray(host, mem=mem, device=device)


class FakeCupyArray:
    """``cupy.ndarray`` over host memory.

    ``FakeCupyArray(shape, dtype=float)`` allocates as ``cupy.ndarray(shape, dtype)``
    (bytes 0xA5 unless ``FakeCupyArray.poison`` is off); ``FakeCupyArray(host_array)``
    is a device array over ``host_array``'s memory, no copy, any strides. Keywords:
    ``mem`` (the allocation it lies in), ``ptr`` (a pretend address for
    ``data.ptr`` and ``__cuda_array_interface__``), ``device``, ``readonly``.
    ``FakeCupyArray(shape, dtype, memptr=p, strides=s)`` is CuPy's view of the memory at
    ``p`` (a pointer of a fake array over real host memory) with those byte strides.
    """

    poison = True

    def __init__(self, a, dtype=None, *, mem=None, ptr=None, device=0, readonly=False,
                 memptr=None, strides=None):
        if memptr is not None:
            a = _host_view(a, dtype, memptr, strides)
            mem, ptr, device = memptr.mem, memptr.ptr, memptr.mem.device_id
        if not isinstance(a, np.ndarray):
            cp = sys.modules.get("cupy")
            if isinstance(cp, FakeCupy) and self.poison:
                # cupy.ndarray(shape, dtype) is cupy.empty's allocation: the installed
                # stand-in's (recorded, misaligned on request, its current device)
                made = cp.empty(a, float if dtype is None else dtype)
                device = made.data.mem.device_id
            else:
                made = _allocate(a, float if dtype is None else dtype, poison=self.poison,
                                 device=device)
            a, mem = made.host, made.data.mem
        self.host = a
        self.shape, self.strides, self.dtype = a.shape, a.strides, a.dtype
        self.size, self.itemsize, self.ndim = a.size, a.itemsize, a.ndim
        self.device = FakeDevice(device)
        self.readonly = readonly
        p = _np_ptr(a) if ptr is None else ptr
        if mem is None:
            bounds = getattr(getattr(np.lib, "array_utils", np), "byte_bounds")
            lo, hi = bounds(a)
            mem = FakeMemory(lo if ptr is None else p, hi - lo, device)
        self.data = FakeMemoryPointer(p, mem, self)

    def _view(self, a):
        """A fake array over ``a`` (a view of, or a copy from, ``self.host``)."""
        if a.size and np.shares_memory(a, self.host):
            ptr = self.data.ptr + (_np_ptr(a) - _np_ptr(self.host))
            return FakeCupyArray(a, mem=self.data.mem, ptr=ptr, device=self.device.id,
                                 readonly=self.readonly)
        return FakeCupyArray(a, device=self.device.id)

    @property
    def __cuda_array_interface__(self):
        strides = None if self.host.flags.c_contiguous else self.strides
        return {"shape": self.shape, "typestr": self.dtype.str,
                "data": (self.data.ptr, self.readonly), "strides": strides, "version": 3}

    @property
    def T(self):
        return self._view(self.host.T)

    @property
    def real(self):
        return self._view(self.host.real)

    @property
    def imag(self):
        return self._view(self.host.imag)

    def __isub__(self, other):
        with np.errstate(all="ignore"):
            self.host -= other.host if isinstance(other, FakeCupyArray) else other
        return self

    def __setitem__(self, index, value):
        self.host[index] = value.host if isinstance(value, FakeCupyArray) else value

    def transpose(self, *axes):
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = axes[0]
        return self._view(self.host.transpose(*axes))

    def reshape(self, *shape):
        return self._view(self.host.reshape(*shape))

    def __getitem__(self, index):
        return self._view(np.asarray(self.host[index]))

    @property
    def flags(self):
        return self.host.flags

    def ravel(self):
        if not self.host.flags.c_contiguous:
            return FakeCupyArray(self.host.ravel(), device=self.device.id)
        return self._view(self.host.reshape(-1))

    def copy(self):
        out = _allocate(self.shape, self.dtype, device=self.device.id)
        out.host[...] = self.host
        installed = sys.modules.get("cupy")   # the stand-in records what it allocates
        if isinstance(installed, FakeCupy):
            installed.allocations.append(out)
        return out

    def astype(self, dtype, order="K", copy=True):
        return FakeCupyArray(self.host.astype(dtype, order=order, copy=copy),
                             device=self.device.id)

    def __truediv__(self, other):
        return FakeCupyArray(self.host / other, device=self.device.id)

    def get(self):
        return self.host.copy()

    def __repr__(self):
        return f"FakeCupyArray({self.host!r})"


class FakeKernel:
    """A function of a :class:`FakeRawModule`: records ``(kernel, grid, block, args)``."""

    def __init__(self, name, source, log):
        self.name, self.source, self.log = name, source, log

    def __call__(self, grid, block, args, shared_mem=0, stream=None, **kwargs):
        self.log.append((self, grid, block, args))


class FakeEvent:
    """``cupy.cuda.Event``: the stand-in runs everything at once, so it records nothing;
    as CUDA's, it belongs to the device current at its creation and records only
    there (``current``: the stand-in's state, :class:`FakeCupy`)."""

    def __init__(self, current, *args, **kwargs):
        self.current, self.device, self.recorded = current, current.device, False

    def record(self, stream=None):
        assert self.current.device == self.device, \
            f"an event of device {self.device} recorded on device {self.current.device}"
        self.recorded = True

    def synchronize(self):
        assert self.recorded, "synchronize() before record()"


class FakeCupy(types.ModuleType):
    """The ``cupy`` module as far as xstride's device path goes (see the ``fake_cupy``
    fixture, which installs one in ``sys.modules``).

    State a test reads or sets: ``current.device`` / ``current.stream`` (what
    ``cuda.runtime.getDevice()`` and ``cuda.get_current_stream()`` answer),
    ``allocations`` (every array ``empty``/``zeros``/``full`` made), ``launches`` (what
    the kernels of ``RawModule`` recorded), ``misalign``/``misalign_n`` (the next
    ``misalign_n`` allocations start ``misalign`` bytes past a 512-byte boundary),
    ``device_count``, ``multiprocessors``.
    """

    ndarray = FakeCupyArray
    float32, float64 = np.float32, np.float64
    int64, uint32, uint64 = np.int64, np.uint32, np.uint64

    def __init__(self, *, device_count: int = 2, multiprocessors: int = 132):
        super().__init__("cupy", "stand-in CuPy of the tests (tests/conftest.py)")
        self.device_count, self.multiprocessors = device_count, multiprocessors
        self.current = types.SimpleNamespace(device=0, stream=types.SimpleNamespace(ptr=0))
        self.allocations, self.launches = [], []
        self.misalign, self.misalign_n = 0, 0
        cur = self.current
        runtime = types.SimpleNamespace(
            getDevice=lambda: cur.device,
            getDeviceCount=lambda: self.device_count,
            getDeviceProperties=lambda d: {"multiProcessorCount": self.multiprocessors},
            memsetAsync=lambda ptr, value, size, stream: ctypes.memset(ptr, value, size),
            memcpyAsync=lambda dst, src, size, kind, stream: ctypes.memmove(dst, src, size),
            memcpyDeviceToHost=2, memcpyDeviceToDevice=3)
        self.cuda = types.SimpleNamespace(
            runtime=runtime, Device=FakeDevice, MemoryPointer=FakeMemoryPointer,
            alloc_pinned_memory=bytearray,
            Event=lambda *args, **kwargs: FakeEvent(cur, *args, **kwargs),
            driver=types.SimpleNamespace(),  # no launchKernel: a test sets one
            get_current_stream=lambda device_id=-1: cur.stream,
            function=types.SimpleNamespace(CPointer=FakeCPointer))

    # allocation
    def empty(self, shape, dtype=float):
        skew = 0
        if self.misalign_n:
            skew, self.misalign_n = self.misalign, self.misalign_n - 1
        a = _allocate(shape, dtype, misalign=skew, device=self.current.device)
        self.allocations.append(a)
        return a

    def zeros(self, shape, dtype=float):
        a = self.empty(shape, dtype)
        a.host[...] = 0
        return a

    def full(self, shape, fill_value, dtype=None):
        dtype = np.asarray(fill_value).dtype if dtype is None else dtype
        a = self.empty(shape, dtype)
        a.host[...] = fill_value
        return a

    def ascontiguousarray(self, a, dtype=None):
        if isinstance(a, FakeCupyArray) and a.host.flags.c_contiguous and (
                dtype is None or a.dtype == dtype):
            return a
        host = a.host if isinstance(a, FakeCupyArray) else a
        out = self.empty(np.shape(host), np.asarray(host).dtype if dtype is None else dtype)
        out.host[...] = host
        return out

    def asarray(self, a, dtype=None):
        if isinstance(a, FakeCupyArray):
            return a if dtype is None or a.dtype == dtype else a.astype(dtype)
        host = np.asarray(a, dtype=dtype)
        out = self.empty(host.shape, host.dtype)
        out.host[...] = host
        return out

    # the few elementwise functions xstride's executors call
    def squeeze(self, a, axis=None):
        return a._view(np.squeeze(a.host, axis=axis))

    def sqrt(self, a):
        return FakeCupyArray(np.sqrt(a.host), device=a.device.id)

    def add(self, a, b, out=None):
        return self._binary(np.add, a, b, out)

    def multiply(self, a, b, out=None):
        return self._binary(np.multiply, a, b, out)

    def bitwise_xor(self, a, b, out=None):
        return self._binary(np.bitwise_xor, a, b, out)

    @staticmethod
    def _binary(ufunc, a, b, out):
        host = [v.host if isinstance(v, FakeCupyArray) else v for v in (a, b)]
        with np.errstate(all="ignore"):
            if out is None:
                dev = next(v for v in (a, b) if isinstance(v, FakeCupyArray)).device.id
                # np.asarray: a NumPy ufunc gives a scalar for 0-d operands, CuPy an array
                return FakeCupyArray(np.asarray(ufunc(*host)), device=dev)
            ufunc(*host, out=out.host)
        return out

    # compiling: kernels record their launches in ``launches``
    def RawModule(self, code=None, options=(), name_expressions=None, **kwargs):  # noqa: N802
        log = self.launches
        return types.SimpleNamespace(
            code=code, options=options,
            get_function=lambda name: FakeKernel(name, code, log))


@contextlib.contextmanager
def installed_fake_cupy(fake: FakeCupy | None = None):
    """``fake`` (a new :class:`FakeCupy` by default) as ``sys.modules["cupy"]`` inside
    the block; what was there before comes back afterwards."""
    fake = FakeCupy() if fake is None else fake
    missing = object()
    saved = sys.modules.get("cupy", missing)
    sys.modules["cupy"] = fake
    try:
        yield fake
    finally:
        if saved is missing:
            sys.modules.pop("cupy", None)
        else:
            sys.modules["cupy"] = saved


@pytest.fixture
def fake_cupy():
    """A :class:`FakeCupy` installed as ``sys.modules["cupy"]`` for one test."""
    with installed_fake_cupy() as fake:
        yield fake


class CompatRecorder:
    """Stand-in ``array_api_compat.cupy``: every function records its call
    (``calls``: ``(name, args, kwargs)``) and returns its name."""

    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        def fn(*args, **kwargs):
            self.calls.append((name, args, kwargs))
            return name
        return fn


@pytest.fixture
def cupy_compat(fake_cupy, monkeypatch):
    """The CuPy backend active over the stand-in CuPy, its compat namespace a
    :class:`CompatRecorder`: ``.calls`` (what reached compat) and ``.cupy`` (the
    stand-in CuPy)."""
    from xstride._backends import dispatch, registry

    rec = CompatRecorder()
    monkeypatch.setattr(registry.get("cupy"), "_namespace", rec)
    # a function taken from the recorder is cached in the dispatch table: drop it after
    monkeypatch.setitem(dispatch._tables, "cupy", dict(dispatch._tables["cupy"]))
    import xstride as xp

    with xp.use_backend("cupy"):
        yield types.SimpleNamespace(calls=rec.calls, cupy=fake_cupy)


def race(work, args_list) -> None:
    """Run ``work(*args)`` for each ``args`` of ``args_list`` on threads of their own,
    with CPython switching threads as often as it allows; wait for all of them."""
    import sys
    import threading

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=a) for a in args_list]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)

