"""Host models of the kernels of ``reduce_finish.cu`` for the stand-in CuPy of the
reduction tests (``tests/test_reduction_host_path.py``): each records its launch (the
arguments as bytes) and then computes what the kernel computes, from those bytes."""

from __future__ import annotations

import ctypes
import re

import numpy as np

import xstride._kernels._reduce_common as _rc
from tests.conftest import FakeCupyArray, FakeMemoryPointer
from tests.test_reduction_plan import _offsets

_CT = {v: k for k, v in _rc.CTYPE.items()}


def arg_bytes(a):
    """The 8 bytes of one pointer or 64-bit argument as CuPy would pass it."""
    if isinstance(a, FakeCupyArray):
        return a.data.ptr.to_bytes(8, "little")
    if isinstance(a, FakeMemoryPointer):
        return a.ptr.to_bytes(8, "little")
    if isinstance(a, np.ndarray):
        assert a.size == 1
        return a.tobytes()
    if isinstance(a, (int, np.integer)):
        return int(a).to_bytes(8, "little", signed=int(a) < 0)
    raise TypeError(f"unexpected kernel argument {type(a).__name__}")


def gather(xptr: int, idx, dtype: np.dtype):
    """The elements of ``dtype`` at element offsets ``idx`` (any shape, negative ones
    too) from the host address ``xptr``."""
    lo, hi = int(idx.min()), int(idx.max())
    isz = dtype.itemsize
    raw = (ctypes.c_char * ((hi - lo + 1) * isz)).from_address(xptr + lo * isz)
    return np.frombuffer(raw, dtype)[idx - lo]


class _FakeVarKernel:
    """A kernel of reduce_finish.cu on the host: records each launch (its arguments as
    bytes), then stores ``ss / dof`` (its square root) in ``tout``."""

    root = False
    tout = np.dtype(np.float64)

    @property
    def kernel(self):
        return self

    def _raw(self, grid, block, args, sizes):
        raw = [a.tobytes() if isinstance(a, np.generic) else arg_bytes(a) for a in args]
        assert [len(b) for b in raw] == sizes, self.expr
        self.log.append((self.expr, tuple(grid), tuple(block), raw))
        return raw

    def _store(self, out_ptr, ss, dof):
        out = np.frombuffer((ctypes.c_char * (self.tout.itemsize * ss.shape[0])).from_address(
            out_ptr), self.tout)
        with np.errstate(divide="ignore", invalid="ignore"):
            v = ss / dof
            out[...] = (np.sqrt(v) if self.root else v).astype(self.tout)


def float_type(c_name: str) -> np.dtype:
    return np.dtype(np.float32 if c_name == "float" else np.float64)


class FakeFinish(_FakeVarKernel):
    """``xs_var_finish<T, ROOT>``: ``ss / dof`` (its square root) in T."""

    name = "xs_var_finish"

    def __init__(self, expr, log):
        m = re.fullmatch(self.name + r"<(float|double), (true|false)>", expr)
        assert m, expr
        self.expr, self.log = expr, log
        self.tout, self.root = float_type(m.group(1)), m.group(2) == "true"

    def __call__(self, grid, block, args, shared_mem=0, stream=None, **kwargs):
        raw = self._raw(grid, block, args, [8, 8, 8, 8])   # ss, out, n, dof
        ss_ptr, out_ptr = (int.from_bytes(b, "little") for b in raw[:2])
        n = int.from_bytes(raw[2], "little", signed=True)
        ss = np.frombuffer((ctypes.c_char * (8 * n)).from_address(ss_ptr), np.float64)
        self._store(out_ptr, ss, float(np.frombuffer(raw[3], np.float64)[0]))


class FakeVarRows(_FakeVarKernel):
    """``xs_var_rows<Tin, Tout, NK, R, V, ROOT, MINB, Q>``: each row's two-pass variance
    (its square root) from the descriptor's one reduced axis."""

    def __init__(self, expr, log):
        m = re.fullmatch(r"xs_var_rows<([\w ]+), (float|double), (\d+), (\d+), (\d+), "
                         r"(true|false), (\d+), (\d+)>", expr)
        assert m, expr
        self.expr, self.log = expr, log
        self.tin, self.tout = _CT[m.group(1)], float_type(m.group(2))
        self.nkc, self.rmax, self.vec = int(m.group(3)), int(m.group(4)), int(m.group(5))
        self.root = m.group(6) == "true"

    def __call__(self, grid, block, args, shared_mem=0, stream=None, **kwargs):
        ndesc = 8 * (2 * self.nkc + 2 + 2)
        # x, out, desc, nrows, rowlen, dof
        raw = self._raw(grid, block, args, [8, 8, ndesc, 8, 8, 8])
        xptr, optr = (int.from_bytes(b, "little") for b in raw[:2])
        desc = np.frombuffer(raw[2], np.int64)
        c = self.nkc
        nk, nr = int(desc[-2]), int(desc[-1])
        assert nr == 1
        nrows = int.from_bytes(raw[3], "little", signed=True)
        rowlen = int.from_bytes(raw[4], "little", signed=True)
        assert rowlen <= self.rmax and self.rmax % self.vec == 0
        kshape, kstride = desc[:nk], desc[c:c + nk]
        rshape, rstride = desc[2 * c:2 * c + 1], desc[2 * c + 1:2 * c + 2]
        assert nrows == int(np.prod(kshape)) and rowlen == int(rshape[0])
        idx = _offsets(kshape, kstride)[:, None] + _offsets(rshape, rstride)[None, :]
        if self.vec > 1:   # whole aligned vectors: contiguous rows
            assert int(rstride[0]) == 1 and xptr % 16 == 0
        vals = gather(xptr, idx, self.tin).astype(np.float64)
        mean = vals.sum(axis=1) / rowlen
        ss = ((vals - mean[:, None]) ** 2).sum(axis=1)
        self._store(optr, ss, float(np.frombuffer(raw[5], np.float64)[0]))


class FakeVarRowregs(_FakeVarKernel):
    """``xs_var_rowregs<Tin, Tout, L, Q, ROOT, MINB>``: the two-pass variance (its
    square root) of rows of L elements stored one after another, Q rows a thread of a
    256-thread block (the grid must cover the rows), x on a 16-byte boundary."""

    def __init__(self, expr, log):
        m = re.fullmatch(r"xs_var_rowregs<([\w ]+), (float|double), (\d+), (\d+), "
                         r"(true|false), (\d+)>", expr)
        assert m, expr
        self.expr, self.log = expr, log
        self.tin, self.tout = _CT[m.group(1)], float_type(m.group(2))
        self.rowlen, self.q = int(m.group(3)), int(m.group(4))
        self.root = m.group(5) == "true"
        assert (self.rowlen * self.q * self.tin.itemsize) % 16 == 0, expr   # whole words

    def __call__(self, grid, block, args, shared_mem=0, stream=None, **kwargs):
        raw = self._raw(grid, block, args, [8, 8, 8, 8])   # x, out, nrows, dof
        xptr, optr = (int.from_bytes(b, "little") for b in raw[:2])
        nrows = int.from_bytes(raw[2], "little", signed=True)
        assert xptr % 16 == 0 and tuple(block) == (256,)
        assert grid[0] * 256 * self.q >= nrows > (grid[0] - 1) * 256 * self.q
        assert optr % 16 == 0    # the outputs are stored as 16-byte words
        n = nrows * self.rowlen
        raw_x = (ctypes.c_char * (n * self.tin.itemsize)).from_address(xptr)
        vals = np.frombuffer(raw_x, self.tin).reshape(nrows, self.rowlen).astype(np.float64)
        mean = vals.sum(axis=1) / self.rowlen
        ss = ((vals - mean[:, None]) ** 2).sum(axis=1)
        self._store(optr, ss, float(np.frombuffer(raw[3], np.float64)[0]))


class FakeVarSide(_FakeVarKernel):
    """``xs_var_side<Tin, Tout, R, ROOT, MINB>``: the two-pass variance (its square
    root) of rows that lie side by side (element j of row r at ``x[r + j * s]``), W =
    16 / itemsize rows a thread by 16-byte loads: x on a 16-byte boundary, nrows and s
    multiples of W, rowlen at most R."""

    def __init__(self, expr, log):
        m = re.fullmatch(r"xs_var_side<([\w ]+), (float|double), (\d+), (true|false), (\d+)>",
                         expr)
        assert m, expr
        self.expr, self.log = expr, log
        self.tin, self.tout = _CT[m.group(1)], float_type(m.group(2))
        self.rmax, self.root = int(m.group(3)), m.group(4) == "true"

    def __call__(self, grid, block, args, shared_mem=0, stream=None, **kwargs):
        raw = self._raw(grid, block, args, [8] * 6)   # x, out, s, nrows, rowlen, dof
        xptr, optr = (int.from_bytes(b, "little") for b in raw[:2])
        s, nrows, rowlen = (int.from_bytes(b, "little", signed=True) for b in raw[2:5])
        w = 16 // self.tin.itemsize
        assert xptr % 16 == 0 and optr % 16 == 0 and nrows % w == 0 and s % w == 0 and s >= 0
        assert 2 <= rowlen <= self.rmax and tuple(block) == (256,) and grid[0] >= 1
        n = (rowlen - 1) * s + nrows
        raw_x = (ctypes.c_char * (n * self.tin.itemsize)).from_address(xptr)
        flat = np.frombuffer(raw_x, self.tin)
        idx = np.arange(nrows)[:, None] + s * np.arange(rowlen)[None, :]
        vals = flat[idx].astype(np.float64)
        mean = vals.sum(axis=1) / rowlen
        ss = ((vals - mean[:, None]) ** 2).sum(axis=1)
        self._store(optr, ss, float(np.frombuffer(raw[5], np.float64)[0]))


class FakeMoments(FakeFinish):
    """``xs_var_moments<T, ROOT>``: ``(S2 - S1**2 / count) / dof`` (its square root) in
    T from the complex128 moments (S1 the real part, S2 the imaginary)."""

    name = "xs_var_moments"

    def __call__(self, grid, block, args, shared_mem=0, stream=None, **kwargs):
        raw = self._raw(grid, block, args, [8, 8, 8, 8, 8])   # m, out, n, count, dof
        m_ptr, out_ptr = (int.from_bytes(b, "little") for b in raw[:2])
        n = int.from_bytes(raw[2], "little", signed=True)
        count = float(np.frombuffer(raw[3], np.float64)[0])
        m = np.frombuffer((ctypes.c_char * (16 * n)).from_address(m_ptr), np.complex128)
        ss = np.maximum(m.imag - m.real * m.real / count, 0.0)
        ss = np.where(np.isnan(m.imag - m.real * m.real / count), np.nan, ss)
        self._store(out_ptr, ss, float(np.frombuffer(raw[4], np.float64)[0]))


class FakeCenter(_FakeVarKernel):
    """``xs_var_center<Tin, NK, NR>``: ``c[i] = complex(x[offset(i)], 0)`` over the kept
    axes of the descriptor, i in the kernels' row order."""

    def __init__(self, expr, log):
        m = re.fullmatch(r"xs_var_center<([\w ]+), (\d+), (\d+)>", expr)
        assert m, expr
        self.expr, self.log = expr, log
        self.tin, self.nkc, self.nrc = _CT[m.group(1)], int(m.group(2)), int(m.group(3))

    def __call__(self, grid, block, args, shared_mem=0, stream=None, **kwargs):
        ndesc = 8 * (2 * self.nkc + 2 * self.nrc + 2)
        raw = self._raw(grid, block, args, [8, 8, ndesc, 8])   # x, c, desc, nrows
        xptr, cptr = (int.from_bytes(b, "little") for b in raw[:2])
        desc = np.frombuffer(raw[2], np.int64)
        nk = int(desc[-2])
        kshape, kstride = desc[:nk], desc[self.nkc:self.nkc + nk]
        nrows = int.from_bytes(raw[3], "little", signed=True)
        assert nrows == int(np.prod(kshape)) and tuple(block) == (256,)
        idx = _offsets(kshape, kstride)
        vals = gather(xptr, idx, self.tin)
        c = np.frombuffer((ctypes.c_char * (16 * nrows)).from_address(cptr), np.complex128)
        c[...] = vals.astype(np.float64)


def finish_model(expr):
    """The host model class of a ``reduce_finish.cu`` instantiation."""
    for prefix, model in (("xs_var_rows<", FakeVarRows), ("xs_var_rowregs<", FakeVarRowregs),
                          ("xs_var_side<", FakeVarSide),
                          ("xs_var_moments", FakeMoments), ("xs_var_center<", FakeCenter),
                          ("xs_var_finish", FakeFinish)):
        if expr.startswith(prefix):
            return model
    raise AssertionError(expr)
