"""``xs_arg_interleave`` (argreductions.cu) run on the host: the kernel's own source,
compiled by g++ (C++20) with the host stand-ins of ``host_cuda/`` (a block's threads as
threads meeting at ``__syncthreads``, the blocks one after another), launched through
the real recipe (``argreductions._build``: plan, geometry, template arguments, launch
arguments) on NumPy memory, its chunks' pairs combined by the model of
``xs_arg_combine`` (tests/_fake_arg_kernels.py); argmin/argmax against NumPy: the
16-byte word walk (V > 1) and the element walk, ties, NaNs, reversed and offset runs,
misaligned starts, a chunk's partial last word."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

import xstride as xp
import xstride._kernels._reduce_common as _rc
import xstride._kernels.argreductions as _arg

from tests._fake_arg_kernels import fake_args  # noqa: F401 - a fixture
from tests.test_reduction_host_path import fake_reductions  # noqa: F401 - a fixture
from tests._host_kernels import CXX, aligned, block_entry, build_dir, build_source
from tests.conftest import FakeCupyArray

pytestmark = pytest.mark.skipif(CXX is None, reason="g++ (C++20) is not on PATH")

_EXPR = re.compile(r"xs_arg_interleave<([01]), ([\w ]+), ([\w ]+), (\d+), (\d+)>")
#: (Tin, B, V) of every instantiation the recipes below name (the word walk's batch and
#: the element walk's, argreductions.INTERLEAVE_WORDS_B / interleave_tuning).
_INSTANCES = [("float", 4, 4), ("float", 16, 1), ("int", 4, 4), ("int", 16, 1), ("double", 4, 2),
              ("double", 8, 1), ("long long", 4, 2), ("long long", 8, 1)]


def _entry(mx, tin, b, v) -> str:
    return f"xs_host_{mx}_{tin.replace(' ', '_')}_{b}_{v}"


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    build = build_dir(tmp_path_factory, "arg_interleave")
    lines = []
    for mx in (0, 1):
        for tin, b, v in _INSTANCES:
            lines += block_entry(
                _entry(mx, tin, b, v),
                f"const {tin}* x, long long* out, {tin}* pval, long long* pidx, "
                "long long ncols, long long nred, long long chunk, long long nchunks, "
                "long long rbase, long long rweight, long long rs",
                f"xs_arg_interleave<{mx}, {tin}, {tin}, {b}, {v}>(x, out, pval, pidx, ncols, "
                "nred, chunk, nchunks, rbase, rweight, rs)")
    return build_source(build, "argreductions.cu", lines)


class _HostInterleave:
    """``xs_arg_interleave`` of one template instance, launched as the recipe launches
    it, run by the g++ build of the source."""

    def __init__(self, lib, expr, log):
        m = _EXPR.fullmatch(expr)
        assert m and m.group(2) == m.group(3), expr
        self.expr, self.log = expr, log
        mx, tin, b, v = int(m.group(1)), m.group(2), int(m.group(4)), int(m.group(5))
        assert (tin, b, v) in _INSTANCES, expr
        self.fn = getattr(lib, _entry(mx, tin, b, v))
        self.fn.restype = None

    @property
    def kernel(self):
        return self

    def __call__(self, grid, block, args, shared_mem=0, **kw):
        vals = [int(a) for a in args]
        self.log.append((self.expr, grid, block, vals))
        ptrs = [ctypes.c_void_p(a) for a in vals[:4]]
        longs = [ctypes.c_longlong(a) for a in vals[4:]]
        self.fn(*ptrs, *longs, ctypes.c_int(int(np.prod(block))),
                ctypes.c_int(int(np.prod(grid))))


@pytest.fixture
def host_interleave(fake_args, library, monkeypatch):  # noqa: F811
    cp, _ = fake_args
    log, other = [], _rc.kernel
    sm = [1]

    def kernel(src, expr, partner=None):
        if expr.startswith("xs_arg_interleave<"):
            return _HostInterleave(library, expr, log)
        return other(src, expr)

    monkeypatch.setattr(_rc, "kernel", kernel)
    monkeypatch.setattr(_rc, "sm_count", lambda: sm[0])
    return log, sm


def _views(rng, dtype, n, k):
    dt = np.dtype(dtype)
    h = rng.integers(-6, 7, size=(n, k)).astype(dt)         # many ties
    if dt.kind == "f":
        h.ravel()[rng.choice(h.size, 4, replace=False)] = np.nan
        h[:, 0] = np.nan if k > 1 else h[:, 0]               # a column of NaNs
    for shift in (0, 1):
        base = aligned(h, shift)
        yield base, f"shift {shift}"
        yield base[::-1], f"reversed, shift {shift}"
        yield base[3:], f"from row 3, shift {shift}"


@pytest.mark.parametrize("dtype, ks", [("float32", (3, 4, 5, 6, 16)), ("int32", (3, 8)),
                                       ("float64", (2, 3, 12)), ("int64", (3,))])
def test_arg_interleave_kernel_matches_numpy(host_interleave, dtype, ks):
    log, sm = host_interleave
    rng = np.random.default_rng(11)
    words = elements = 0
    for k in ks:
        for n in (1500, 7777):
            for h, label in _views(rng, dtype, n, k):
                for s in (1, 3):      # one block a chunk of the run, or several
                    sm[0] = s
                    _arg._RECIPES.clear()
                    _arg._CALLS.clear()
                    x = FakeCupyArray(h)
                    for f in ("argmin", "argmax"):
                        before = len(log)
                        got = getattr(xp, f)(x, axis=0).get()
                        np.testing.assert_array_equal(got, getattr(np, f)(h, axis=0),
                                                      err_msg=f"{f} {h.shape} {label} sm {s}")
                        assert len(log) == before + 1, "not the interleave kernel"
                        v = int(_EXPR.fullmatch(log[-1][0]).group(5))
                        words += v > 1
                        elements += v == 1
    # aligned contiguous runs take the words, misaligned ones the element walk
    assert words > 20 and elements > 20, (words, elements)
