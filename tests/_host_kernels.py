"""The elementwise engine's generated CUDA kernels run on the host (no GPU): the real
planning and source generation (``_elementwise_exec.launch``), the source compiled by
g++ (C++20) against the shipped headers and the host stand-ins of ``host_cuda/``, each
block's 256 threads run as threads that meet at ``__syncthreads`` (a barrier), the
blocks one after another. The arrays are NumPy arrays in host memory behind a stand-in
of the CuPy array interface, so a test compares the kernel's result with NumPy's bit
for bit: the index arithmetic, the vector widths, the tables of a row's rotations, the
flat tail and the grid-stride loops as the device runs them (the device's arithmetic
aside: float16 converts through g++'s ``_Float16``). :func:`block_entry` and
:func:`build_source` do the same for a kernel file of ``xstride/_kernels`` itself (the
reduction kernels' tests), with ``host_cuda/builtins.h`` for the built-ins it names.
"""

from __future__ import annotations

import ctypes
import faulthandler
import hashlib
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np

from xstride._kernels import _elementwise_exec as ex
from xstride._kernels import _launch
from xstride._kernels._headers import include_dir

__all__ = ["CXX", "Host", "HostArray", "HostLaunches", "Launch", "aligned", "block_entry",
           "build_dir", "launch_table",
           "build_source", "install", "unusable"]

#: The host compiler, or None (the tests that need it skip).
CXX = shutil.which("g++")
_STANDINS = Path(__file__).resolve().parent / "host_cuda"
#: A ``__shared__`` array's declaration, and its name.
_SHARED = re.compile(r"(__shared__ [^;]*?(\w+)\[[^;]*\];)")


def unusable(build: Path) -> str | None:
    """Why the host compiler cannot build the kernels here (no g++, or one without
    C++20's ``<barrier>`` or the alignment sanitizer), or None."""
    if CXX is None:
        return "g++ is not on PATH"
    src = build / "probe.cpp"
    src.write_text("#include <barrier>\nint main() { std::barrier<> b(1); b.arrive_and_wait(); }\n")
    r = subprocess.run([CXX, "-std=c++20", "-fsanitize=alignment", str(src), "-o",
                        str(build / "probe"), "-lpthread"], capture_output=True, text=True)
    return None if r.returncode == 0 else f"{CXX} builds no C++20 <barrier> with the " \
        f"alignment sanitizer: {r.stderr.strip()[:200]}"


def build_dir(tmp_path_factory, name: str) -> Path:
    """A fresh folder for a module's host builds; the test skips (with the reason)
    where :func:`unusable` says g++ cannot build them."""
    import pytest

    path = tmp_path_factory.mktemp(name)
    why = unusable(path)
    if why:
        pytest.skip(why)
    return path


def block_entry(name: str, params: str, call: str) -> list:
    """C++ lines of ``extern "C" void name(params, int block, int grid)``: ``call`` (a
    kernel's call on ``params``) run by ``block`` threads meeting at ``__syncthreads``
    (and each warp's lanes at their own barrier, for builtins.h's shuffles and ballots),
    for each of ``grid`` blocks one after another (prelude.h's stand-ins)."""
    return [f'extern "C" void {name}({params}, int block, int grid) {{',
            "  gridDim.x = (unsigned)grid; blockDim.x = (unsigned)block;",
            "  gridDim.y = gridDim.z = blockDim.y = blockDim.z = 1;",
            "  std::barrier<> bar(block); xs_host_barrier = &bar;",
            "  std::vector<std::unique_ptr<std::barrier<>>> warps;",
            "  for (int w = 0; w < (block + 31) / 32; ++w)",
            "    warps.emplace_back(new std::barrier<>(block - 32 * w < 32 ? block - 32 * w : 32));",
            "  xs_host_warp_bars = warps.data();",
            "  std::vector<std::thread> threads;",
            "  for (int t = 0; t < block; ++t) threads.emplace_back([&, t] {",
            "    threadIdx.x = (unsigned)t;",
            "    for (int g = 0; g < grid; ++g) {",
            f"      blockIdx.x = (unsigned)g; {call};",
            "      bar.arrive_and_wait(); } });",
            "  for (auto& th : threads) th.join();", "}"]


def build_source(build: Path, source: str, lines: list) -> ctypes.CDLL:
    """The kernel file ``source`` (in ``xstride/_kernels``) and ``lines`` (its entries,
    :func:`block_entry`) compiled by g++ with the stand-ins of ``host_cuda/``
    (prelude.h, builtins.h), the alignment sanitizer on; the loaded library."""
    path = Path(include_dir()).parent / source
    text = "\n".join(['#include "prelude.h"', '#include "builtins.h"', f'#include "{path}"',
                      *lines]) + "\n"
    stem = build / Path(source).stem
    src, so = stem.with_suffix(".cpp"), stem.with_suffix(".so")
    src.write_text(text)
    r = subprocess.run([CXX, "-std=c++20", "-O1", "-w", "-fno-strict-aliasing",
                        "-fsanitize=alignment", "-fno-sanitize-recover=all", "-shared",
                        "-fPIC", f"-I{_STANDINS}", f"-I{include_dir()}", str(src), "-o",
                        str(so), "-lpthread"], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"g++ rejected {source}:\n{r.stderr[:4000]}")
    return ctypes.CDLL(str(so))


def launch_table(build: Path, source: str, names) -> dict:
    """Name expression -> a host entry ``fn(words, block, grid)`` that runs that kernel of
    ``source`` (one g++ build, in a folder of its own under ``build``) on 64-bit
    argument words: pointers as addresses, integers by value (``host_cuda/call.h``)."""
    names = list(names)
    lines = ['#include "call.h"']
    for i, name in enumerate(names):
        lines += block_entry(f"xs_host_k{i}", "const unsigned long long* a",
                             f"xs_host_call(&{name}, a)")
    folder = build / Path(source).stem
    folder.mkdir(exist_ok=True)
    lib = build_source(folder, source, lines)
    table = {}
    for i, name in enumerate(names):
        fn = getattr(lib, f"xs_host_k{i}")
        fn.restype = None
        table[name] = fn
    return table


#: the longest a host launch of :class:`HostLaunches` may run
LAUNCH_SECONDS = 60


class HostLaunches(list):
    """A stand-in CuPy's launch log (``fake_cupy.launches``) that runs each launch, as it
    is recorded, by the kernel's own source: the entry of ``table`` (:func:`launch_table`)
    for its name expression, on its arguments' words, grid and block."""

    def __init__(self, table: dict):
        super().__init__()
        self.table = table

    def append(self, item):
        super().append(item)
        kernel, grid, block, args = item
        grid = grid if isinstance(grid, tuple) else (grid,)
        block = block if isinstance(block, tuple) else (block,)
        assert len(grid) == len(block) == 1, (kernel.name, grid, block)
        words = [int(a.item()) & ((1 << 64) - 1) for a in args]
        # a broken kernel may loop or leave a barrier waiting for threads that left:
        # past LAUNCH_SECONDS the process prints every thread's stack and exits (the
        # test fails as a crashed worker instead of hanging the run)
        faulthandler.dump_traceback_later(LAUNCH_SECONDS, exit=True)
        try:
            self.table[kernel.name]((ctypes.c_ulonglong * max(len(words), 1))(*words),
                                    ctypes.c_int(block[0]), ctypes.c_int(grid[0]))
        finally:
            faulthandler.cancel_dump_traceback_later()


class _Data:
    def __init__(self, ptr):
        self.ptr, self.device_id = ptr, 0


class HostArray:
    """A NumPy array seen through the parts of the CuPy array interface the engine reads."""

    def __init__(self, a: np.ndarray):
        self.a = a

    shape = property(lambda self: self.a.shape)
    strides = property(lambda self: self.a.strides)
    dtype = property(lambda self: self.a.dtype)
    itemsize = property(lambda self: self.a.itemsize)
    size = property(lambda self: self.a.size)
    ndim = property(lambda self: self.a.ndim)
    data = property(lambda self: _Data(self.a.__array_interface__["data"][0]))

    def copy(self):
        return HostArray(aligned(self.a))


def aligned(a: np.ndarray, shift: int = 0) -> np.ndarray:
    """A C-ordered copy of ``a`` that starts ``shift`` elements past a 64-byte boundary."""
    a = np.asarray(a)
    nbytes = (a.size + shift) * a.itemsize
    raw = np.zeros(nbytes + 64, np.uint8)
    off = (-raw.__array_interface__["data"][0]) % 64
    out = raw[off:off + nbytes].view(a.dtype)[shift:].reshape(a.shape)
    out[...] = a
    return out


class Launch:
    """One recorded launch: the kernel's source, its grid, the blocks it runs (the grid
    or the cap), and once run the ``__syncthreads`` each thread met."""

    def __init__(self, kernel, params, ptrs, keep, grid, blocks):
        self.kernel, self.params, self.ptrs, self.keep = kernel, params, ptrs, keep
        self.src, self.grid, self.blocks, self.syncs = kernel.src, grid, blocks, None


class _Kernel:
    def __init__(self, index, src, call):
        self.index, self.src, self.call = index, src, call


class Host:
    """The engine's kernels on the host for one test: ``function`` (the engine's compile)
    records each generated source and returns a launcher that records each launch;
    :meth:`run` compiles every new source in one g++ run (one translation unit, each
    kernel in a namespace of its own, the headers parsed once) and runs the recorded
    launches in order, 256 threads a block, the blocks one after another. ``cap``: at
    most this many blocks (None: the engine's grid), so that grid-stride loops run."""

    def __init__(self, build: Path):
        self.build, self.cap = build, None
        self.kernels: dict = {}
        self.pending: list = []
        self._libs: dict = {}

    def function(self, name, code=None, **_):
        kernel = self.kernels.get(code)
        if kernel is None:
            cap, nops = map(int, re.search(r"xstride_ew_params<(\d+), (\d+)>", code).groups())
            sig = re.search(r"void __launch_bounds__\([^)]*\) (\w+)\((.*)\)\n", code)
            args = []
            for i, (typ, kind) in enumerate(re.findall(
                    r"(const [\w ]+?\*|[\w ]+?\*|const [\w ]+?) __xs_([ps])_\w+", sig.group(2))):
                args.append(f"({typ})ptrs[{i}]" if kind == "p"
                            else f"*(const {typ.replace('const ', '')}*)ptrs[{i}]")
            call = (f"{sig.group(1)}(*(const xstride_ew_params<{cap}, {nops}>*)params, "
                    f"{', '.join(args)})")
            kernel = self.kernels[code] = _Kernel(len(self.kernels), code, call)

        def launch(grid, block, args):
            if tuple(block) != (256,) or len(grid) != 1:
                raise NotImplementedError(f"{name}: blocks {block} over a grid {grid} are not "
                                          "emulated (one dimension of 256 threads only)")
            params, rest = args[0], args[1:]
            keep, ptrs = [params], (ctypes.c_void_p * len(rest))()
            for i, a in enumerate(rest):
                if isinstance(a, HostArray):
                    keep.append(a)
                    ptrs[i] = a.data.ptr
                else:
                    b = np.array(a)
                    keep.append(b)
                    ptrs[i] = b.__array_interface__["data"][0]
            blocks = grid[0] if self.cap is None else min(grid[0], self.cap)
            self.pending.append(Launch(kernel, params, ptrs, keep, grid[0], blocks))
        return launch

    def _library(self, kernels):
        parts = ['#include "prelude.h"', "#include <xstride/elementwise.cuh>",
                 "#include <xstride/detail/half.cuh>"]
        for k in kernels:
            body = "\n".join(line for line in k.src.splitlines()
                             if not line.startswith("#include"))
            body = _SHARED.sub(r"\1 xs_host_poison(\2);", body)
            parts += [f"namespace xs_host_k{k.index} {{", body.replace('extern "C" ', ""),
                      "}", f'extern "C" int xs_host_launch_{k.index}(const void* params, '
                      "void** ptrs, int grid) {",
                      "  gridDim.x = (unsigned)grid; blockDim.x = 256;",
                      "  std::barrier<> bar(256); xs_host_barrier = &bar;",
                      "  std::vector<std::thread> threads; int syncs[256];",
                      "  for (int t = 0; t < 256; ++t) threads.emplace_back([&, t] {",
                      "    threadIdx.x = (unsigned)t; xs_host_syncs = 0;",
                      "    for (int b = 0; b < grid; ++b) {",
                      f"      blockIdx.x = (unsigned)b; xs_host_k{k.index}::{k.call};",
                      "      bar.arrive_and_wait(); }",
                      "    syncs[t] = xs_host_syncs; });",
                      "  for (auto& th : threads) th.join();",
                      "  for (int t = 1; t < 256; ++t) if (syncs[t] != syncs[0]) return -1;",
                      "  return syncs[0];", "}"]
        text = "\n".join(parts) + "\n"
        so = self.build / (hashlib.sha1(text.encode()).hexdigest()[:20] + ".so")
        if not so.exists():
            src = so.with_suffix(".cpp")
            src.write_text(text)
            # misaligned vector loads and stores stop the run, as they fault on the device
            r = subprocess.run([CXX, "-std=c++20", "-O0", "-w", "-fno-strict-aliasing",
                                "-fsanitize=alignment", "-fno-sanitize-recover=all",
                                "-shared", "-fPIC", f"-I{_STANDINS}", f"-I{include_dir()}",
                                str(src), "-o", str(so), "-lpthread"],
                               capture_output=True, text=True)
            if r.returncode:
                raise RuntimeError(f"g++ rejected the kernels:\n{r.stderr[:4000]}")
        return ctypes.CDLL(str(so))

    def run(self) -> list:
        """Compile what is new, run every recorded launch; returns the launches."""
        new = [k for k in self.kernels.values() if k.index not in self._libs]
        if new:
            lib = self._library(new)
            for k in new:
                f = getattr(lib, f"xs_host_launch_{k.index}")
                f.restype, f.argtypes = ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p,
                                                       ctypes.c_int]
                self._libs[k.index] = f
        done, self.pending = self.pending, []
        for launch in done:
            launch.syncs = self._libs[launch.kernel.index](
                launch.params.__array_interface__["data"][0], launch.ptrs, launch.blocks)
            assert launch.syncs >= 0, \
                "the block's threads met different numbers of __syncthreads"
        return done


def _scalars_typed(fn, grid, block, pre, specs):
    """The engine's launch entry (``_Packed``'s place): each by-value scalar converted to
    its operand's C type, as the real launcher's slots do, before ``fn`` sees it."""
    types_ = [None if o.kind != "scalar" else _launch._NUMPY[type(_launch.slot_scalar(o.ctype))]
              for o in specs]
    npre = len(pre)

    def call(grid, block, args):
        ops = [a if t is None else np.array(a).astype(t) for a, t in zip(args[npre:], types_)]
        fn(grid, block, (*args[:npre], *ops))
    return call


def install(monkeypatch, build: Path) -> Host:
    """Route the engine's compiles and launches to a :class:`Host` for one test
    (``monkeypatch``; libraries in ``build``)."""
    cupy = types.ModuleType("cupy")
    cupy.ndarray = HostArray
    cupy.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDevice=lambda: 0))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    host = Host(build)
    monkeypatch.setattr(ex, "function", host.function)
    monkeypatch.setattr(ex, "CACHE", False)
    monkeypatch.setattr(ex, "_Packed", _scalars_typed)
    return host
