"""``xs_reduce_interleave`` (reductions.cu) of float32 var/std's shifted moments run on
the host: the kernel's own source compiled by g++ (C++20) with the host stand-ins of
``host_cuda/`` (a block's threads as threads, the blocks one after another, the split
call's last block found by the atomic counter), launched through the real recipe on
NumPy memory. Op 9 (``"moments0"``) reads each column's shift K from the row of
logical index 0 itself; the test reads the kernel's sums of ``d = x - K`` and ``d * d``
and checks them against NumPy's with K = that row: the 16-byte word walk and the
element walk, one block and several, reversed, offset and strided rows."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

import xstride as xp
import xstride._kernels._reduce_common as _rc
import xstride._kernels.reductions as _red
import xstride._kernels.variance as _variance

from tests._host_kernels import CXX, aligned, block_entry, build_dir, build_source
from tests.conftest import FakeCupyArray
from tests.test_reduction_host_path import fake_reductions  # noqa: F401 - a fixture

pytestmark = pytest.mark.skipif(CXX is None, reason="g++ (C++20) is not on PATH")

_EXPR = re.compile(r"xs_reduce_interleave<9, float, xs_complex128, xs_complex128, "
                   r"(\d+), (\d+), (\d+), (\d+), (\d+)>")


def _instances():
    """(NK, NR, V, MINB, B) of the float32 moments' interleave kernels at the tuning of
    now: the word walk (V = 4) and the element walk."""
    c16 = np.dtype(np.complex128)
    nk, nr = _rc.capacity(1), _rc.reduced_capacity(1)
    return [(nk, nr, 4, *_rc.words_tuning(4, c16)),
            (nk, nr, 1, *_rc.row_tuning("interleave", 4))]


def _entry(inst) -> str:
    return "xs_host_" + "_".join(map(str, inst))


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    build = build_dir(tmp_path_factory, "reduce_interleave")
    lines = []
    for nk, nr, v, minb, b in _instances():
        lines += block_entry(
            _entry((nk, nr, v, minb, b)),
            "const float* x, void* out, const void* center, void* partials, "
            "unsigned* counters, const void* desc, long long ncols, long long nred, "
            "long long chunk, long long nchunks",
            f"xs_reduce_interleave<9, float, xs_complex128, xs_complex128, {nk}, {nr}, {v}, "
            f"{minb}, {b}>(x, (xs_complex128*)out, (const xs_complex128*)center, "
            f"(xs_complex128*)partials, counters, *(const xs_red_desc<{nk}, {nr}>*)desc, "
            "ncols, nred, chunk, nchunks)")
    return build_source(build, "reductions.cu", lines)


class _HostInterleave:
    """One instance of the moments' interleave kernel, launched as the recipe launches
    it (x, out, center, partials, counters, descriptor, ncols, nred, chunk, nchunks),
    run by the g++ build of the source."""

    def __init__(self, lib, expr, log):
        m = _EXPR.fullmatch(expr)
        assert m, expr
        inst = tuple(int(g) for g in m.groups())
        assert inst in _instances(), expr
        self.expr, self.log, self.fn = expr, log, getattr(lib, _entry(inst))
        self.fn.restype = None

    @property
    def kernel(self):
        return self

    def __call__(self, grid, block, args, shared_mem=0, **kw):
        desc = np.ascontiguousarray(args[5]).view(np.uint8)
        vals = [int(a) for a in args[:5]] + [int(a) for a in args[6:]]
        self.log.append((self.expr, grid, block))
        self.fn(*[ctypes.c_void_p(a) for a in vals[:5]], ctypes.c_void_p(desc.ctypes.data),
                *[ctypes.c_longlong(a) for a in vals[5:]], ctypes.c_int(int(np.prod(block))),
                ctypes.c_int(int(np.prod(grid))))


@pytest.fixture
def host_moments(fake_reductions, library, monkeypatch):  # noqa: F811
    cp, _ = fake_reductions
    log, other, sm = [], _rc.kernel, [1]

    def kernel(src, expr, partner=None):
        if expr.startswith("xs_reduce_interleave<9,"):
            return _HostInterleave(library, expr, log)
        return other(src, expr, partner)

    monkeypatch.setattr(_rc, "kernel", kernel)
    monkeypatch.setattr(_rc, "sm_count", lambda: sm[0])
    monkeypatch.setattr(_rc, "kernel_resident", lambda src, expr, threads: 2)
    sums = []
    launch = _variance._launch

    def spy(x, rec, out_dtype, acc, center=None):   # the kernel's sums of d and d * d
        m = launch(x, rec, out_dtype, acc, center=center)
        sums.append(m.get().copy())
        return m

    monkeypatch.setattr(_variance, "_launch", spy)
    return log, sm, sums


def _views(rng):
    for n, k in ((3001, 3), (1500, 8), (777, 5)):
        h = (rng.standard_normal((n, k)) * 3 + 40).astype(np.float32)
        for shift in (0, 1):
            base = aligned(h, shift)
            yield base, f"({n}, {k}) shift {shift}"
            yield base[::-1], f"reversed ({n}, {k}) shift {shift}"
            yield base[5:], f"from row 5 ({n}, {k}) shift {shift}"
    wide = aligned((rng.standard_normal((2000, 7)) * 2 - 9).astype(np.float32))
    yield wide[::2, 1:4], "every other row, 3 of 7 columns"
    yield wide[::-3, 4:], "every third row reversed, 3 of 7 columns"


def test_moments_kernel_shifts_by_each_columns_first_element(host_moments):
    log, sm, sums = host_moments
    rng = np.random.default_rng(17)
    kinds = set()
    for h, label in _views(rng):
        for s in (1, 3):                       # one block a column chunk, or several
            sm[0] = s
            _red._RECIPES.clear()
            _variance._CALLS.clear()
            x = FakeCupyArray(h)
            before = len(log)
            got = xp.var(x, axis=0, correction=1)
            assert len(log) == before + 1, f"not the kernel of op 9: {label}"
            v = int(_EXPR.fullmatch(log[-1][0]).group(3))
            kinds.add((v, log[-1][1] > 1 if isinstance(log[-1][1], int) else
                       int(np.prod(log[-1][1])) > 1))
            m = sums.pop()
            d = h.astype(np.float64) - h[0].astype(np.float64)   # K: the logical row 0
            scale = np.abs(d).sum(axis=0) + 1.0
            np.testing.assert_allclose(m.real, d.sum(axis=0), rtol=0, atol=1e-12 * scale.max(),
                                       err_msg=label)
            np.testing.assert_allclose(m.imag, (d * d).sum(axis=0), rtol=1e-12, err_msg=label)
            np.testing.assert_allclose(got.get(), h.astype(np.float64).var(axis=0, ddof=1),
                                       rtol=2e-6, err_msg=label)
    # the word walk and the element walk, each in one block and in several
    assert kinds == {(4, False), (4, True), (1, False), (1, True)}, kinds
