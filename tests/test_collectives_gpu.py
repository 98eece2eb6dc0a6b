"""GPU tests of reduce.cuh and scan.cuh against NumPy: every block shape of CUB's sweep
(1, 7, 32, 33, 65, 1024 threads, 2-D and 3-D blocks), every collective type, full,
prefix and sparse lane masks, back-to-back reuse, NaN propagation, and the exactness
of exclusive scans formed by shifting."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

# One output slot per collective, per thread.
_SLOTS = ["bsum", "bmin", "bmax", "bincl", "bexcl", "btot", "bsum2", "wsum", "wmin", "wmax",
          "wincl", "wexcl", "wtot", "rank", "count"]
_K = len(_SLOTS)

_SRC = r"""
#include <xstride/reduce.cuh>
#include <xstride/scan.cuh>
template <typename T>
__global__ void coll(const T* in, T* out, T* atomic_out, unsigned mask)
{
    const unsigned r = xstride_block_thread_rank();
    const unsigned n = xstride_block_thread_count();
    const long long base = (long long)blockIdx.x * n;
    const T v = in[base + r];
    T* o = out + (base + r) * %(K)d;
    o[0] = xstride_block_sum(v);
    o[1] = xstride_block_min(v);
    o[2] = xstride_block_max(v);
    T tot;
    o[3] = xstride_block_inclusive_sum(v);
    o[4] = xstride_block_exclusive_sum(v, &tot);
    o[5] = tot;
    o[6] = xstride_block_sum((T)(v + v));           // back-to-back reuse of the storage
    xstride_block_sum_atomic(v, atomic_out);
    const unsigned m = mask & xstride_warp_valid_mask();
    if ((m >> (r & 31u)) & 1u) {
        T wt;
        o[7] = xstride_warp_sum(v, m);
        o[8] = xstride_warp_min(v, m);
        o[9] = xstride_warp_max(v, m);
        o[10] = xstride_warp_inclusive_sum(v, m);
        o[11] = xstride_warp_exclusive_sum(v, m, &wt);
        o[12] = wt;
    }
    o[13] = (T)r;
    o[14] = (T)n;
}
""" % {"K": _K}

_TYPES = {
    "int": np.int32, "unsigned": np.uint32, "long long": np.int64,
    "unsigned long long": np.uint64, "float": np.float32, "double": np.float64,
}

_BLOCKS = [(1, 1, 1), (7, 1, 1), (32, 1, 1), (33, 1, 1), (65, 1, 1), (1024, 1, 1),
           (7, 5, 1), (16, 8, 2), (3, 5, 7), (32, 32, 1), (10, 10, 10)]
_MASKS = [0xFFFFFFFF, 0x0000FFFF, 0x80000101, 0xAAAAAAAA, 0x00000001, 0x7FFFFFFE]


def _module():
    from xstride._kernels._compile import raw_module

    exprs = tuple(f"coll<{c}>" for c in _TYPES)
    return raw_module(_SRC, (), exprs)


def _reference(vals: np.ndarray, mask: int):
    """Expected slots for one block's values (by rank), computed in float64/int64."""
    n = vals.size
    wide = vals.astype(np.float64 if vals.dtype.kind == "f" else object)
    exp = {s: np.full(n, None, dtype=object) for s in _SLOTS}
    total = wide.sum()
    incl = np.cumsum(wide)
    for i in range(n):
        exp["bsum"][i] = total
        exp["bmin"][i] = vals.min()
        exp["bmax"][i] = vals.max()
        exp["bincl"][i] = incl[i]
        exp["bexcl"][i] = incl[i - 1] if i else 0
        exp["btot"][i] = total
        exp["bsum2"][i] = 2 * total
        exp["rank"][i] = i
        exp["count"][i] = n
    for w in range(0, n, 32):
        lanes = [l for l in range(min(32, n - w)) if (mask >> l) & 1]
        if not lanes:
            continue
        sel = np.array([w + l for l in lanes])
        wv = wide[sel]
        wi = np.cumsum(wv)
        for j, idx in enumerate(sel):
            exp["wsum"][idx] = wv.sum()
            exp["wmin"][idx] = vals[sel].min()
            exp["wmax"][idx] = vals[sel].max()
            exp["wincl"][idx] = wi[j]
            exp["wexcl"][idx] = wi[j - 1] if j else 0
            exp["wtot"][idx] = wv.sum()
    return exp


def _wrap(value, dtype):
    if value is None:
        return None
    if np.dtype(dtype).kind in "iu":
        bits = np.dtype(dtype).itemsize * 8
        v = int(value) % (1 << bits)
        if np.dtype(dtype).kind == "i" and v >= 1 << (bits - 1):
            v -= 1 << bits
        return v
    return float(value)


@pytest.mark.parametrize("ctype", list(_TYPES))
@pytest.mark.parametrize("block", _BLOCKS, ids=lambda b: "x".join(map(str, b)))
def test_block_and_warp_collectives(cp, ctype, block):
    dtype = _TYPES[ctype]
    fn = _module().get_function(f"coll<{ctype}>")
    nthreads = block[0] * block[1] * block[2]
    rng = np.random.default_rng(zlib.crc32(repr((ctype, block)).encode()))
    for mask in _MASKS[:3] if nthreads > 256 else _MASKS:
        nblocks = 3
        lo = 0 if np.dtype(dtype).kind == "u" else -50
        host = rng.integers(lo, 50, size=nblocks * nthreads).astype(dtype)
        x = cp.asarray(host)
        poison = 123 if np.dtype(dtype).kind in "iu" else np.nan
        out = cp.full(nblocks * nthreads * _K, poison, dtype=dtype)
        atom = cp.zeros(1, dtype=dtype)
        fn((nblocks,), block, (x, out, atom, np.uint32(mask)))
        got = cp.asnumpy(out).reshape(nblocks * nthreads, _K)
        for b in range(nblocks):
            exp = _reference(host[b * nthreads:(b + 1) * nthreads], mask)
            rows = got[b * nthreads:(b + 1) * nthreads]
            for k, slot in enumerate(_SLOTS):
                want = [_wrap(v, dtype) for v in exp[slot]]
                for i, w in enumerate(want):
                    if w is None:   # lane outside the mask: untouched
                        assert (rows[i, k] == poison) or (np.isnan(poison) and np.isnan(rows[i, k])), \
                            (slot, i, mask)
                    else:
                        assert rows[i, k] == w, (ctype, block, hex(mask), slot, b, i, rows[i, k], w)
        assert _wrap(cp.asnumpy(atom)[0], dtype) == _wrap(host.astype(object).sum(), dtype)


_NAN_SRC = r"""
#include <xstride/reduce.cuh>
#include <xstride/scan.cuh>
extern "C" __global__ void nanmm(const double* in, double* out)
{
    const unsigned r = xstride_block_thread_rank();
    double v = in[r];
    double a = xstride_block_min(v), b = xstride_block_max(v), s = xstride_block_sum(v);
    double wa = xstride_warp_min(v, xstride_warp_valid_mask());
    if (r == 0) { out[0] = a; out[1] = b; out[2] = s; }
    if ((r & 31u) == 0u && wa != wa) out[3] = wa;   // the warp holding the NaN
}
extern "C" __global__ void shift(const double* in, double* incl, double* excl, double* wincl, double* wexcl)
{
    const unsigned r = xstride_block_thread_rank();
    const double v = in[r];
    incl[r] = xstride_block_inclusive_sum(v);
    excl[r] = xstride_block_exclusive_sum(v);
    const unsigned m = xstride_warp_valid_mask();
    wincl[r] = xstride_warp_inclusive_sum(v, m);
    wexcl[r] = xstride_warp_exclusive_sum(v, m);
}
"""


def test_min_max_sum_propagate_nan(cp):
    from xstride._kernels._compile import raw_module

    fn = raw_module(_NAN_SRC).get_function("nanmm")
    for pos in (0, 5, 40, 99):
        host = np.arange(100, dtype=np.float64)
        host[pos] = np.nan
        out = cp.zeros(4)
        fn((1,), (100,), (cp.asarray(host), out))
        assert np.isnan(cp.asnumpy(out)).all(), pos


@pytest.mark.parametrize("nthreads", [7, 33, 100, 1024])
def test_exclusive_is_the_shift_of_inclusive(cp, nthreads):
    from xstride._kernels._compile import raw_module

    fn = raw_module(_NAN_SRC).get_function("shift")
    rng = np.random.default_rng(nthreads)
    host = rng.standard_normal(nthreads) * 10.0 ** rng.integers(-8, 8, nthreads)
    host[0], host[1] = 1.0, 1e20      # 1 next to 1e20
    if nthreads > 40:
        host[32], host[33] = 1.0, 1e20  # across a warp boundary
    bufs = [cp.full(nthreads, np.nan) for _ in range(4)]
    fn((1,), (nthreads,), (cp.asarray(host), *bufs))
    incl, excl, wincl, wexcl = (cp.asnumpy(b) for b in bufs)
    assert excl[0] == 0.0 and excl[1] == 1.0   # exact: formed by shifting
    np.testing.assert_array_equal(excl[1:], incl[:-1])   # bit for bit, across warps
    assert wexcl[1] == 1.0
    for w in range(0, nthreads, 32):
        seg = slice(w, min(w + 32, nthreads))
        assert wexcl[seg][0] == 0.0
        np.testing.assert_array_equal(wexcl[seg][1:], wincl[seg][:-1])
    if nthreads > 40:
        assert wexcl[33] == 1.0
    # and inclusive within the stated bound of the exact prefix sums
    exact = np.cumsum(host.astype(np.longdouble))
    bound = 12 * 2.0 ** -53 * np.cumsum(np.abs(host).astype(np.longdouble))
    assert np.all(np.abs(incl - exact) <= bound)
