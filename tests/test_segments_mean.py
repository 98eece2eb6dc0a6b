"""The mean of integer segments: the exact sum of the segment, rounded once to float64,
divided by the count (issue 17: the int64/uint64 sum used to wrap modulo 2**64).

The reference is written in Python ints: ``float(sum(ints)) / m`` (``float()`` of an
int rounds to nearest, ties to even; the division is IEEE). The host executor must
give its bits exactly; so must the device accumulator ``xs_seg_i128``
(``include/xstride/detail/segment_int128.cuh``), compiled here by the host C++
compiler with the few CUDA intrinsics it calls written as their host equivalents (the
device itself: tests/test_segments_gpu.py).
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib

import numpy as np
import pytest

from xstride._host import segments as hs
from xstride._kernels._compile import include_dir
from xstride.algorithms import reduce_by_key, segment_reduce

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
CXX = shutil.which("g++") or shutil.which("c++")


def exact_means(values, offsets) -> np.ndarray:
    """float64 means of each segment and column: the Python-int sum, rounded once, over
    the count."""
    values = np.asarray(values)
    cols = values.reshape(values.shape[0], -1)
    out = np.empty((len(offsets) - 1, cols.shape[1]))
    for s in range(len(offsets) - 1):
        rows = cols[offsets[s]:offsets[s + 1]]
        for c in range(cols.shape[1]):
            out[s, c] = float(sum(int(v) for v in rows[:, c])) / rows.shape[0]
    return out.reshape((len(offsets) - 1,) + values.shape[1:])


def same_bits(got, want):
    assert got.dtype == np.float64 and got.shape == want.shape
    assert got.tobytes() == want.tobytes(), np.flatnonzero(got.ravel() != want.ravel())[:5]


def extremes(dtype, rng, n):
    """Values at and near both ends of the dtype's range, and some at random."""
    info = np.iinfo(dtype)
    pool = np.array([info.min, info.min + 1, info.max, info.max - 1, 0, 1, -1 if info.min else 2,
                     info.max // 2, info.min // 2 if info.min else info.max // 3], dtype=object)
    pick = rng.integers(0, pool.size, size=n)
    vals = np.array([int(pool[i]) for i in pick], dtype=dtype)
    noise = rng.random(n) < 0.3
    vals[noise] = rng.integers(info.min, info.max, size=int(noise.sum()), dtype=dtype,
                               endpoint=True)
    return vals


# ---------------------------------------------------------------- the host executor
@pytest.mark.parametrize("dtype, v", [(np.int64, 2**62), (np.uint64, 2**63),
                                      (np.int64, -(2**62) - 1), (np.int64, 2**63 - 1),
                                      (np.int64, -(2**63)), (np.uint64, 2**64 - 1)])
def test_equal_values_whose_sum_leaves_64_bits_give_numpys_mean(dtype, v):
    vals = np.array([v, v, v], dtype=dtype)
    got = segment_reduce(vals, np.array([0, 2, 3]), "mean")
    assert got.tolist() == [np.mean(vals[:2]), np.mean(vals[2:])]
    same_bits(got, exact_means(vals, [0, 2, 3]))


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("k", [None, 3])
def test_extremes_of_every_integer_dtype_are_exact(dtype, k):
    rng = np.random.default_rng(zlib.crc32(repr((dtype, k)).encode()))
    lens = np.array([1, 2, 3, 7, 64, 200, 1, 33, 1000])
    offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    n = int(offs[-1])
    vals = extremes(dtype, rng, n * (k or 1)).reshape((n,) if k is None else (n, k))
    info = np.iinfo(dtype)
    vals[offs[5]:offs[6]] = info.max          # 200 rows at the top of the range
    vals[offs[8]:offs[9]] = info.min          # 1000 at the bottom
    got = segment_reduce(vals, offs, "mean")
    same_bits(got, exact_means(vals, offs))
    assert got[5].tolist() == (info.max if k is None else [info.max] * k) or dtype.endswith("64")
    _, red = reduce_by_key(np.repeat(np.arange(lens.size) * 3, lens), vals, "mean")
    same_bits(red, got)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint32"])
def test_short_integers_equal_numpys_mean(dtype):
    """Where NumPy's float64 sum is exact (every partial sum below 2**53: 32-bit values
    in segments of fewer than 2**21 rows) its mean is the exact sum over the count:
    equal to xstride's, bit for bit."""
    rng = np.random.default_rng(5)
    info = np.iinfo(dtype)
    lens = rng.integers(1, 3000, size=40)
    offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    vals = rng.integers(info.min, info.max, size=int(offs[-1]), dtype=dtype, endpoint=True)
    got = segment_reduce(vals, offs, "mean")
    want = np.array([np.mean(vals[a:b]) for a, b in zip(offs[:-1], offs[1:])])
    same_bits(got, want)


def test_64_bit_means_are_within_numpys_own_error():
    """Where NumPy's float64 sum rounds (64-bit values), xstride's mean is the exact sum
    rounded once; NumPy's differs by at most its own error: each value rounded to
    float64 and any order of summation, (2m - 1) 2**-53 sum|x| before the division,
    plus the two roundings of xstride's result."""
    rng = np.random.default_rng(9)
    lens = rng.integers(1, 500, size=60)
    vals = np.concatenate([[2**53, 1, 1], rng.integers(-(2**63), 2**63 - 1,
                                                       size=int(lens.sum()))]).astype(np.int64)
    offs = np.concatenate([[0, 3], 3 + np.cumsum(lens)]).astype(np.int64)
    got = segment_reduce(vals, offs, "mean")
    same_bits(got, exact_means(vals, offs))
    np_means = np.array([np.mean(vals[a:b]) for a, b in zip(offs[:-1], offs[1:])])
    m = np.diff(offs).astype(np.float64)
    absum = np.array([np.abs(vals[a:b].astype(np.float64)).sum()
                      for a, b in zip(offs[:-1], offs[1:])])
    bound = (2 * m - 1) * 2.0**-53 * absum * 1.001 / m + 2.0**-51 * np.abs(got)
    assert np.all(np.abs(got - np_means) <= bound)
    assert got[0] == (2**53 + 2) / 3 != np_means[0]   # the exact sum, not NumPy's


def exact_sums(values, offsets) -> np.ndarray:
    values = np.asarray(values)
    cols = values.reshape(values.shape[0], -1)
    out = [[float(sum(int(v) for v in cols[a:b, c])) for c in range(cols.shape[1])]
           for a, b in zip(offsets[:-1], offsets[1:])]
    return np.array(out, dtype=np.float64).reshape((len(offsets) - 1,) + values.shape[1:])


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "uint32", "int64", "uint64"])
def test_the_int64_sums_equal_the_limb_sums(dtype):
    """Where no sum can leave int64 (short values in short segments, or values whose
    extremes bound the sums) the int64 sums are taken; they give the bits of the
    32-bit limbs, which take every value (exact_sums)."""
    rng = np.random.default_rng(2)
    lens = rng.integers(1, 40, size=300)
    offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    info = np.iinfo(dtype)
    high = min(info.max, 2**58)    # 64-bit values: within int64 sums of 40 rows
    vals = rng.integers(max(info.min, -high), high, size=(int(offs[-1]), 2), dtype=dtype,
                        endpoint=True)
    limbs = hs.exact_sums(vals, offs)
    same_bits(limbs, exact_sums(vals, offs))
    same_bits(segment_reduce(vals, offs, "mean"), limbs / np.diff(offs)[:, None])


@pytest.mark.parametrize("limb_rows", [1, 2, 3, 7])
@pytest.mark.parametrize("dtype", ["int64", "uint64", "int32", "uint8"])
def test_segments_longer_than_a_limb_piece_are_joined_exactly(monkeypatch, limb_rows, dtype):
    """Segments of more than LIMB_ROWS rows (2**31 - 1 in use: too long for a test) are
    cut into pieces whose limb sums are joined as Python ints; with a short piece every
    segment but the shortest takes that path."""
    monkeypatch.setattr(hs, "LIMB_ROWS", limb_rows)
    rng = np.random.default_rng(limb_rows)
    lens = np.array([1, 2, 3, 8, 1, 30, 7, 64])
    offs = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    info = np.iinfo(dtype)
    vals = extremes(dtype, rng, int(offs[-1]) * 2).reshape(-1, 2)
    vals[offs[5]:offs[6]] = info.max
    same_bits(hs.exact_sums(vals, offs), exact_sums(vals, offs))
    same_bits(hs.exact_sums(vals[:, 0], offs), exact_sums(vals[:, 0], offs))
    if dtype.endswith("64"):   # extremes: integer_mean takes the limbs
        same_bits(hs.integer_mean(vals, offs), exact_means(vals, offs))


def test_shapes_without_rows_or_columns():
    assert segment_reduce(np.zeros((0, 2), np.int64), np.array([0]), "mean").shape == (0, 2)
    got = segment_reduce(np.zeros((4, 0), np.uint64), np.array([0, 1, 4]), "mean")
    assert got.shape == (2, 0) and got.dtype == np.float64


@pytest.mark.parametrize("dtype", INTS)
def test_empty_segments_of_integer_means_stay_an_error(dtype):
    with pytest.raises(ValueError, match=r"'offsets' gives segment 1 no rows; the mean"):
        segment_reduce(np.ones(4, dtype=dtype), np.array([0, 2, 2, 4]), "mean")


# ---------------------------------------------------------------- the device accumulator
_PRELUDE = r"""
#include <cstdio>
#include <cstring>
#define __device__
#define __forceinline__ inline
static inline int __clzll(long long x) { return __builtin_clzll((unsigned long long)x); }
static inline double __ull2double_rn(unsigned long long x) { return (double)x; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __longlong_as_double(long long x)
{
    double d;
    std::memcpy(&d, &x, sizeof d);
    return d;
}
template <typename T> static inline T __shfl_down_sync(unsigned, T x, unsigned) { return x; }
#include <xstride/detail/segment_int128.cuh>

static void show(double d)
{
    unsigned long long b;
    std::memcpy(&b, &d, sizeof b);
    std::printf("%016llx\n", b);
}
"""


def _bits(x: float) -> str:
    return struct.pack(">d", x).hex()


def _word(v: int) -> str:
    return f"{v & (2**64 - 1)}ull"


@pytest.fixture(scope="module")
def header_program(tmp_path_factory):
    """One C++ program: sums of sequences folded with xs_seg_i128 (forward and in a
    tree), their means, and 128-bit patterns converted to double; the expected bits."""
    if CXX is None:
        pytest.skip("no host C++ compiler (g++) on PATH")
    rng = np.random.default_rng(128)
    body, want = [], []
    ctypes = {"int64": "long long", "uint64": "unsigned long long", "int8": "signed char",
              "int32": "int", "uint32": "unsigned int"}
    for case in range(120):
        dtype = list(ctypes)[case % len(ctypes)]
        n = int(rng.integers(1, 60))
        vals = [int(v) for v in extremes(dtype, rng, n)]
        t = ctypes[dtype]
        lit = ", ".join(f"{v}ull" if dtype == "uint64" else f"({t}){v}" if v >= 0 or
                        dtype != "int64" else f"({v + 1}LL - 1LL)" for v in vals)
        body.append(f"""    {{
        const {t} v[{n}] = {{{lit}}};
        xs_seg_i128 f = 0, parts[{n}];
        for (int i = 0; i < {n}; ++i) {{ f = f + (xs_seg_i128)v[i]; parts[i] = v[i]; }}
        for (int h = 1; h < {n}; h <<= 1)
            for (int g = 0; g + h < {n}; g += 2 * h) parts[g] = parts[g] + parts[g + h];
        show((double)f); show((double)parts[0]); show((double)f / (double){n});
    }}""")
        total = sum(vals)
        want += [_bits(float(total))] * 2 + [_bits(float(total) / n)]
    # patterns: ties at 2**64 (ulp 2**12) and beyond, negatives, the extremes of 128 bits
    pats = [2**64 + 2**11, 2**64 + 2**11 + 1, 2**64 + 3 * 2**11, 2**64 - 1, 2**65 - 2**11,
            2**127 - 1, -(2**127), -(2**64) - 2**11, -(2**64) - 2**11 - 1, 2**63, -(2**63),
            2**64, -(2**64), 2**100 + 2**47, 2**100 + 2**47 + 2**46, 0, -1, 1]
    pats += [int(rng.integers(-(2**63), 2**63)) << int(rng.integers(0, 65))
             | int(rng.integers(0, 2**63)) for _ in range(200)]
    pats = [((p + 2**127) % 2**128) - 2**127 for p in pats]
    for p in pats:
        body.append(f"    {{ xs_seg_i128 x; x.lo = {_word(p)}; "
                    f"x.hi = (long long){_word(p >> 64)}; show((double)x); }}")
        want.append(_bits(float(p)))
    src = _PRELUDE + "int main()\n{\n" + "\n".join(body) + "\n    return 0;\n}\n"
    d = tmp_path_factory.mktemp("int128")
    (d / "t.cpp").write_text(src)
    cmd = [CXX, "-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror", "-ffp-contract=off",
           f"-I{include_dir()}", str(d / "t.cpp"), "-o", str(d / "t")]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(cmd)} failed:\n{res.stderr[-6000:]}"
    run = subprocess.run([str(d / "t")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout.split(), want


def test_header_accumulator_sums_and_rounds_like_python_ints(header_program):
    got, want = header_program
    assert len(want) > 500 and len(got) == len(want)
    wrong = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not wrong, f"{len(wrong)} mismatches, first: {wrong[:5]}"
