"""The stand-in arg-reduction kernels of the CPU tests: each kernel of
``argreductions.cu`` run on the host from the bytes it is launched with (elements of a
work item folded in a random order: the result must not depend on it), and the
``fake_args`` fixture that installs them on the stand-in CuPy of
``tests/test_reduction_host_path.py``. Used by ``tests/test_argreductions_host.py``,
``test_argreductions_paths.py``, ``test_argreductions_tile.py`` and others."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

import xstride._kernels._reduce_common as _rc
import xstride._kernels.argreductions as _arg
from xstride._kernels._lru import Bounded

from tests.test_reduction_plan import _offsets

_EXPR = re.compile(r"xs_arg_(thread|warp)<([01]), ([\w ]+), ([\w ]+), (\d+), (\d+), (\d+)>")
_INTER = re.compile(r"xs_arg_interleave<([01]), ([\w ]+), ([\w ]+), (\d+), (\d+)>")
_COMB = re.compile(r"xs_arg_combine<([01]), ([\w ]+), (32|256)>")
_REGS = re.compile(r"xs_arg_rowregs<([01]), ([\w ]+), ([\w ]+), (\d+), (\d+), (\d+)>")
_SIDE = re.compile(r"xs_arg_side<([01]), ([\w ]+), ([\w ]+), (\d+)>")
_TILE = re.compile(r"xs_arg_tile<([01]), ([\w ]+), ([\w ]+), (\d+), (\d+)>")
_CT = {v: k for k, v in _rc.CTYPE.items()}


def _better(mx, va, ia, vb, ib):
    """The order of xs_arg_better (argreductions.cu)."""
    na, nb = va != va, vb != vb
    if na != nb:
        return na
    if not na:
        if (va > vb) if mx else (va < vb):
            return True
        if (vb > va) if mx else (vb < va):
            return False
    return ia < ib


def _words(arg):
    return np.frombuffer(np.asarray(arg).tobytes(), np.int64)


def _mem(ptr, n, dtype):
    dt = np.dtype(dtype)
    return np.frombuffer((ctypes.c_char * (n * dt.itemsize)).from_address(ptr), dt)


class FakeArgKernel:
    """An arg-reduction kernel on the host, from its launch bytes; elements of a work
    item are folded in a random order (the result must not depend on it)."""

    def __init__(self, expr, log, rng):
        self.expr, self.log, self.rng = expr, log, rng
        m = _EXPR.fullmatch(expr)
        mi = _INTER.fullmatch(expr)
        mr = _REGS.fullmatch(expr)
        ms = _SIDE.fullmatch(expr)
        mt = _TILE.fullmatch(expr)
        if mt:
            self.name, self.mx = "tile", int(mt.group(1))
            self.tin, self.tacc = _CT[mt.group(2)], _CT[mt.group(3)]
            self.TB, self.minb = int(mt.group(4)), int(mt.group(5))
        elif ms:
            self.name, self.mx = "side", int(ms.group(1))
            self.tin, self.tacc = _CT[ms.group(2)], _CT[ms.group(3)]
            self.W = int(ms.group(4))
        elif mr:
            self.name, self.mx = "rowregs", int(mr.group(1))
            self.tin, self.tacc = _CT[mr.group(2)], _CT[mr.group(3)]
            self.L, self.Q = int(mr.group(4)), int(mr.group(5))
        elif m:
            self.name, self.mx = m.group(1), int(m.group(2))
            self.tin, self.tacc = _CT[m.group(3)], _CT[m.group(4)]
            self.nkc, self.nrc = int(m.group(5)), int(m.group(6))
            # the thread kernel's MINB; the warp kernel's V: 1, or whole 16-byte words
            self.vec = 1 if self.name == "thread" else int(m.group(7))
            assert self.vec == 1 or self.vec * self.tin.itemsize == 16, expr
        elif mi:
            self.name, self.mx = "interleave", int(mi.group(1))
            self.tin, self.tacc = _CT[mi.group(2)], _CT[mi.group(3)]
            # V: 1, or whole 16-byte words of 4- or 8-byte elements (4 words in flight)
            self.vec = int(mi.group(5))
            assert self.vec == 1 or (self.vec * self.tin.itemsize == 16
                                     and self.tin.itemsize in (4, 8)
                                     and int(mi.group(4)) == 4), expr
        else:
            m = _COMB.fullmatch(expr)
            assert m, expr
            self.name, self.mx, self.tacc = "combine", int(m.group(1)), _CT[m.group(2)]
            self.group = int(m.group(3))

    @property
    def kernel(self):
        return self   # no .ptr: the launcher calls us with NumPy values

    def __call__(self, grid, block, args, shared_mem=0, **kw):
        self.log.append((self.expr, grid, block))
        if self.name == "combine":
            self._check_combine_block(block)
            pv, pi, out, nrows, nchunks = (int(a) for a in args)
            # a warp a row, or a block a row past COMBINE_WARP_MOST chunks; every row
            # has its group unless the grid is capped (groups loop over the rows)
            assert self.group == (256 if nchunks > _arg.COMBINE_WARP_MOST else 32)
            groups = int(np.prod(grid)) * 256 // self.group
            assert groups >= nrows or int(np.prod(grid)) == 32 * 132, (grid, nrows)
            vals, idxs = _mem(pv, nrows * nchunks, self.tacc), _mem(pi, nrows * nchunks,
                                                                     np.int64)
            res = _mem(out, nrows, np.int64)
            for row in range(nrows):
                best = None
                for ch in self.rng.permutation(nchunks):
                    w = ch * nrows + row
                    if best is None or _better(self.mx, vals[w], idxs[w], *best):
                        best = (vals[w], idxs[w])
                res[row] = best[1]
            return
        if self.name == "interleave":
            self._interleave(grid, block, args)
            return
        if self.name == "rowregs":
            self._rowregs(grid, block, args)
            return
        if self.name == "side":
            self._side(grid, block, args)
            return
        if self.name == "tile":
            self._tile(grid, block, args)
            return
        x, out, pv, pi = (int(a) for a in args[:4])
        d = _words(args[4])
        nrows, rowlen, chunk, nchunks = (int(a) for a in args[5:])
        c, r = self.nkc, self.nrc
        assert len(d) == 2 * c + 3 * r + 3
        nk, nr, rbase = (int(v) for v in d[-3:])
        kshape, kstride = d[:nk], d[c:c + nk]
        rshape, rstride = d[2 * c:2 * c + nr], d[2 * c + r:2 * c + r + nr]
        rweight = d[2 * c + 2 * r:2 * c + 2 * r + nr]
        if self.vec > 1:    # words of one contiguous axis
            assert nr == 1 and rstride[0] == 1 and chunk % self.vec == 0, (nr, rstride, chunk)
        rows = _offsets(kshape, kstride) if nk else np.zeros(1, np.int64)
        assert len(rows) == nrows
        coords = np.array(np.unravel_index(np.arange(rowlen), tuple(rshape))).reshape(nr, -1)
        offs = (coords * rstride[:, None]).sum(0)
        idxs = rbase + (coords * rweight[:, None]).sum(0)
        isz = self.tin.itemsize
        lo = int((rows.min() + offs.min())) * isz
        hi = int((rows.max() + offs.max()) + 1) * isz
        raw = np.frombuffer((ctypes.c_char * (hi - lo)).from_address(x + lo), self.tin)
        for w in range(nrows * nchunks):
            ch, row = divmod(w, nrows)
            best = None
            for j in self.rng.permutation(np.arange(ch * chunk, min(ch * chunk + chunk,
                                                                     rowlen))):
                v = self.tacc.type(raw[rows[row] + offs[j] - lo // isz])
                if best is None or _better(self.mx, v, idxs[j], *best):
                    best = (v, int(idxs[j]))
            if nchunks == 1:
                _mem(out, nrows, np.int64)[row] = best[1]
            else:
                _mem(pv, nrows * nchunks, self.tacc)[w] = best[0]
                _mem(pi, nrows * nchunks, np.int64)[w] = best[1]


    def _rowregs(self, grid, block, args):
        """``xs_arg_rowregs``: thread g takes rows g * Q .. g * Q + Q - 1 of L elements
        stored one after another from ``x``, 16-byte words for a full group."""
        x, out, nrows = (int(a) for a in args)
        L, Q = self.L, self.Q
        assert (Q * L * self.tin.itemsize) % 16 == 0
        assert Q * L * self.tin.itemsize <= (48 if Q > 1 else _arg.ARG_ONE_ROW_MOST_BYTES)
        assert Q <= 4 and x % 16 == 0 and out % 16 == 0 and tuple(np.ravel(block)) == (256,)
        (nb,) = tuple(np.ravel(grid))
        assert nb * 256 * Q >= nrows > (nb - 1) * 256 * Q
        rows = _mem(x, nrows * L, self.tin).reshape(nrows, L)
        _mem(out, nrows, np.int64)[:] = self._fold_rows(rows, np.arange(L))

    def _fold_rows(self, rows, index):
        """The index (``index[j]`` for column j) of the best element of each row of
        ``rows`` by :func:`_better`, the columns met in a random order."""
        rows = rows.astype(self.tacc)
        bv = bi = None
        for j in self.rng.permutation(rows.shape[1]):      # _better over every row at once
            v, i = rows[:, j], np.full(rows.shape[0], index[j], np.int64)
            if bv is None:
                bv, bi = v, i
                continue
            na, nb = v != v, bv != bv
            wins = (v > bv) if self.mx else (v < bv)
            loses = (bv > v) if self.mx else (bv < v)
            take = np.where(na != nb, na, ~na & wins | (~na & ~loses | na) & (i < bi))
            bv, bi = np.where(take, v, bv), np.where(take, i, bi)
        return bi

    def _side(self, grid, block, args):
        """``xs_arg_side``: thread g takes rows g * W .. g * W + W - 1 (element u of
        step j at x + g * W + u + j * rs, logical index rbase + j * rw), every step one
        16-byte word, or for 1-byte elements 8 rows and 8 bytes a step; the W indices
        stored as words."""
        x, out, nrows, rowlen, rs, rbase, rw = (int(a) for a in args)
        W = self.W
        assert W == min(16 // self.tin.itemsize, 8) and x % 16 == 0 and out % 16 == 0
        assert nrows % W == 0 and rs % W == 0 and rs >= nrows and rowlen >= 2
        (nb,) = tuple(np.ravel(grid))
        assert tuple(np.ravel(block)) == (256,) and nb * 256 * W >= nrows > (nb - 1) * 256 * W
        flat = _mem(x, (rowlen - 1) * rs + nrows, self.tin)
        res = _mem(out, nrows, np.int64)
        for row in range(nrows):
            best = None
            for j in self.rng.permutation(rowlen):
                v = self.tacc.type(flat[j * rs + row])
                if best is None or _better(self.mx, v, rbase + j * rw, *best):
                    best = (v, rbase + j * rw)
            res[row] = best[1]

    def _tile(self, grid, block, args):
        """``xs_arg_tile`` as the kernel computes it: block b takes tiles b, b + G, ...
        of R rows (row r's elements at x + r * ks + j, walk position j, logical index
        rbase + j * rw); a tile's span is copied as the 16-byte words that hold it,
        from the word below its first byte, into a buffer of the kernel's capacity
        (4- and 8-byte elements: a pad word after every 8), and each row's elements
        are read back at the kernel's padded index, checked against memory, then
        folded in a random order."""
        x, out, nrows, rowlen, ks, R, rbase, rw = (int(a) for a in args)
        isz, tb = self.tin.itemsize, self.TB
        assert tuple(np.ravel(block)) == (256,) and ks != 0 and abs(rw) == 1 and rowlen >= 2
        assert tb % 16 == 0 and tb <= _arg.ARG_TILE_MOST_BYTES
        assert ((R - 1) * abs(ks) + rowlen) * isz <= tb and 1 <= R <= nrows
        assert R % 256 == 0 or R < 256 and (R >= _arg.ARG_TILE_MIN_ROWS or R == nrows)
        assert (abs(ks) - rowlen) * isz < 32, "a whole 32-byte sector between rows"
        ntiles = -(-nrows // R)
        (nb,) = tuple(np.ravel(grid))
        assert nb == min(ntiles, self.minb * _rc.sm_count()), (nb, nrows, R)
        pad = isz >= 4
        words = (tb + 30) // 16           # the kernel's WORDS and CAP
        cap = words + (words - 1) // 8 if pad else words
        lo_all = min(0, (nrows - 1) * ks)
        flat = _mem(x + lo_all * isz, (nrows - 1) * abs(ks) + rowlen, self.tin)
        res = _mem(out, nrows, np.int64)
        j = np.arange(rowlen)
        for b in range(nb):
            for tile in range(b, ntiles, nb):
                r0 = tile * R
                nt = min(nrows - r0, R)
                lo = r0 * ks if ks >= 0 else (r0 + nt - 1) * ks
                a = x + lo * isz
                nw = -(-((a & 15) + ((nt - 1) * abs(ks) + rowlen) * isz) // 16)
                slots = np.arange(nw) + (np.arange(nw) >> 3 if pad else 0)
                assert slots[-1] < cap, (nw, cap)
                stage = np.zeros((cap, 16), np.uint8)
                stage[slots] = np.frombuffer((ctypes.c_char * (16 * nw)).from_address(
                    a & ~15), np.uint8).reshape(nw, 16)
                e = (a & 15) // isz + (r0 + np.arange(nt))[:, None] * ks - lo + j
                at = e + ((e * isz) >> 7) * (16 // isz) if pad else e
                rows = stage.reshape(-1).view(self.tin)[at]
                mem = flat[(r0 + np.arange(nt))[:, None] * ks - lo_all + j]
                assert rows.tobytes() == mem.tobytes(), "an element read from another place"
                res[r0:r0 + nt] = self._fold_rows(rows, rbase + j * rw)

    def _check_combine_block(self, block):
        assert int(np.prod(block)) == 256, "the combine runs blocks of 256 threads"

    def _interleave(self, grid, block, args):
        """``xs_arg_interleave``: block b folds the flat elements of its chunk, each
        thread those of its column (in a random order here), walk position i // ncols;
        with V > 1 (16-byte words) the launch's alignment and run are checked."""
        x, out, pv, pi, ncols, nred, chunk, nchunks, rbase, rweight, rs = (int(a) for a in args)
        assert rs >= ncols
        nb, width = (int(np.prod(v)) for v in (grid, block))
        m = ncols // np.gcd(ncols, self.vec)      # the block's lanes: a multiple of ncols
        assert nb == nchunks and width == m * (256 // m) and chunk % (width * self.vec) == 0
        if self.vec > 1:   # words: one contiguous run, 16-byte aligned
            assert rs == ncols and x % 16 == 0
        assert chunk * (nchunks - 1) < ncols * nred <= chunk * nchunks
        rows = _mem(x, (nred - 1) * rs + ncols, self.tin)
        for b in range(nchunks):
            for c in range(ncols):
                best = None
                ids = np.arange(b * chunk + c, min(b * chunk + chunk, ncols * nred), ncols)
                for i in self.rng.permutation(ids):
                    v = self.tacc.type(rows[(i // ncols) * rs + i % ncols])
                    idx = rbase + (i // ncols) * rweight
                    if best is None or _better(self.mx, v, idx, *best):
                        best = (v, idx)
                if nchunks == 1:
                    _mem(out, ncols, np.int64)[c] = best[1]
                else:
                    _mem(pv, ncols * nchunks, self.tacc)[b * ncols + c] = best[0]
                    _mem(pi, ncols * nchunks, np.int64)[b * ncols + c] = best[1]


@pytest.fixture
def fake_args(fake_reductions, monkeypatch):
    """The stand-in CuPy with host-run reduction and arg-reduction kernels; yields
    (cupy, launch log of the arg kernels)."""
    cp, _ = fake_reductions
    log, kernels = [], {}
    rng = np.random.default_rng(5)
    other = _rc.kernel

    def kernel(src, expr, partner=None):
        if not expr.startswith("xs_arg_"):
            return other(src, expr)
        if expr not in kernels:
            kernels[expr] = FakeArgKernel(expr, log, rng)
        return kernels[expr]

    monkeypatch.setattr(_rc, "kernel", kernel)
    monkeypatch.setattr(_arg, "_RECIPES", Bounded(1024))
    monkeypatch.setattr(_arg, "_CALLS", _arg.Store(1024))
    yield cp, log
