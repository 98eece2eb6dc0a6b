"""Where ``benchmarks/shapes.py`` runs: CuPy on the GPU, or NumPy on the host for its
self-test (the operands' fill, the timers, the copy ceiling)."""

from __future__ import annotations

import math

import _common as C

MiB = 2 ** 20


class Device:
    """Where the sweep runs: CuPy on the GPU (CUDA events), or NumPy on the host for the
    self-test (same cases, checks and tables; host timers)."""

    def __init__(self, mod, gpu: bool, copy_reps: int):
        self.m = mod
        self.gpu = gpu
        self.copy_reps = copy_reps
        self._copy = {}          # buffer bytes -> GB/s (read + write)

    def time(self, fn, reps: int, warmup: int) -> float:
        if self.gpu:
            return C.time_gpu(fn, reps=reps, warmup=warmup)
        return C.time_cpu(fn, reps=reps, warmup=warmup)

    def sync(self) -> None:
        if self.gpu:
            self.m.cuda.get_current_stream().synchronize()

    def fill(self, shape, dtype: str, seed: int):
        m = self.m
        kind = m.dtype(dtype).kind
        if kind in "iu" and dtype != "int64" or dtype in ("float16", "complex64"):
            # small integers (no sum of 2**25 of them overflows int32 or wraps a uint8
            # row sum past what CuPy's gives too), halves, complex of two normals
            part = "float32" if dtype in ("float16", "complex64") else "int64"
            a = self.fill(shape, part, seed)
            if kind in "iu":
                a = m.remainder(a, 3)
            if dtype == "complex64":
                a = a + 1j * self.fill(shape, "float32", seed + 1000)
            return a.astype(dtype)
        if self.gpu:
            rs = m.random.RandomState(seed)
            if dtype == "int64":
                return rs.randint(-1000, 1000, size=shape, dtype=m.int64)
            if dtype == "bool":
                return rs.random_sample(shape, dtype=m.float32) < 0.9
            return rs.standard_normal(shape, dtype=getattr(m, dtype))
        g = m.random.default_rng(seed)
        if dtype == "int64":
            return g.integers(-1000, 1000, size=shape, dtype=m.int64)
        if dtype == "bool":
            return g.random(shape, dtype=m.float32) < 0.9
        return g.standard_normal(shape, dtype=getattr(m, dtype))

    def free(self) -> None:
        if self.gpu:
            self.m.get_default_memory_pool().free_all_blocks()

    def copy_gbs(self, moved: int) -> float:
        """Copy bandwidth (read + write) for a copy moving about ``moved`` bytes: buffers
        of ``moved / 2`` rounded to a power of two (at least 1 MiB), measured once."""
        size = max(MiB, 1 << round(math.log2(max(moved / 2, 1))))
        if size not in self._copy:
            if self.gpu:
                self._copy[size] = C.copy_ceiling(size, reps=self.copy_reps)
            else:
                a = self.m.ones(size // 4, dtype=self.m.float32)
                b = self.m.empty_like(a)
                t = C.time_cpu(lambda: self.m.copyto(b, a), reps=3)
                self._copy[size] = 2 * a.nbytes / t / 1e9
        return self._copy[size]
