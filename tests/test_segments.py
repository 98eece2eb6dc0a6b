"""The segment primitives on the NumPy backend, against independent references (a
Python loop per segment); their bad inputs are tests/test_segments_bad_input.py's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import xstride as xp
from xstride.algorithms import (bin_offsets, compact, reduce_by_key, run_length_encode,
                                segment_reduce)

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
OPS = ["sum", "prod", "min", "max", "mean", "count"]


def reference(values, offsets, op):
    """A loop over segments and rows, in row order, in Python ints / float64."""
    values = np.asarray(values)
    kind = values.dtype.kind
    tail = values.shape[1:]
    out = []
    for s in range(len(offsets) - 1):
        rows = values[offsets[s]:offsets[s + 1]]
        m = rows.shape[0]
        cols = rows.reshape(m, int(np.prod(tail, dtype=np.int64)))
        res = []
        for c in range(cols.shape[1]):
            col = cols[:, c]
            if op == "count":
                res.append(m)
            elif op in ("sum", "mean"):
                total = sum(int(v) for v in col) if kind in "iu" else sum(float(v) for v in col)
                if op == "mean":   # integers: the exact sum rounded once, over m
                    res.append((float(total) / m if kind in "iu" else total / m) if m
                               else np.nan)
                else:
                    res.append(total)
            elif op == "prod":
                p = 1
                for v in col:
                    p = p * (int(v) if kind in "iu" else float(v))
                res.append(p)
            else:
                res.append((min if op == "min" else max)(col.tolist()) if m else np.nan)
        out.append(res)
    return out, tail


def check(values, offsets, op):
    got = segment_reduce(values, offsets, op)
    ref, tail = reference(values, offsets, op)
    n_seg = len(offsets) - 1
    assert got.shape == (n_seg,) + tail
    flat = got.reshape(n_seg, int(np.prod(tail, dtype=np.int64)))
    kind = np.asarray(values).dtype.kind
    for s in range(n_seg):
        m = offsets[s + 1] - offsets[s]
        absum = np.abs(np.asarray(values)[offsets[s]:offsets[s + 1]].astype(np.float64))
        for c, r in enumerate(ref[s]):
            g = flat[s, c]
            if kind in "iu" and op in ("sum", "prod"):
                assert int(g) % 2**64 == int(r) % 2**64, (s, c, g, r)
            elif op == "count" or (kind in "iu" and op in ("min", "max")):
                assert int(g) == int(r)
            elif kind in "iu" and op == "mean":   # bit for bit
                assert g.dtype == np.float64 and float(g) == r, (s, c, g, r)
            elif isinstance(r, float) and np.isnan(r):
                assert np.isnan(g)
            elif op in ("min", "max"):
                assert g == r
            else:
                eps = np.finfo(got.dtype).eps
                scale = absum.reshape(m, flat.shape[1])[:, c].sum() if m else 0.0
                if op == "mean":
                    scale /= max(m, 1)
                if op == "prod":
                    scale = abs(r)
                tol = 2 * max(m, 1) * 2**-53 * scale + eps * abs(r)
                assert abs(float(g) - float(r)) <= tol, (op, s, c, g, r, tol)
    return got


def layouts():
    """(n, offsets) of random segment layouts, empty segments included."""
    return st.lists(st.integers(0, 6), min_size=0, max_size=12).map(
        lambda lens: (sum(lens), np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)))


@settings(max_examples=60, deadline=None)
@given(layout=layouts(), dtype=st.sampled_from(INTS + FLOATS), op=st.sampled_from(OPS),
       k=st.sampled_from([None, 1, 3]), seed=st.integers(0, 2**32 - 1))
def test_segment_reduce_random_layouts(layout, dtype, op, k, seed):
    n, offsets = layout
    rng = np.random.default_rng(seed)
    shape = (n,) if k is None else (n, k)
    if dtype in FLOATS:
        values = rng.normal(size=shape).astype(dtype)
    else:
        info = np.iinfo(dtype)
        values = rng.integers(max(info.min, -100), min(info.max, 100), size=shape,
                              dtype=dtype, endpoint=True)
    empty = np.any(np.diff(offsets) == 0)
    if dtype in INTS and op in ("min", "max", "mean") and empty:
        with pytest.raises(ValueError, match="offsets.*no rows"):
            segment_reduce(values, offsets, op)
        return
    check(values, offsets, op)


@pytest.mark.parametrize("dtype", INTS + FLOATS)
@pytest.mark.parametrize("op", OPS)
def test_segment_reduce_every_dtype(dtype, op):
    rng = np.random.default_rng(7)
    offsets = np.array([0, 1, 5, 5 if dtype in FLOATS else 6, 40, 41])
    values = (rng.integers(1, 4, size=(41, 2)) if dtype in INTS else
              rng.uniform(-2, 2, size=(41, 2))).astype(dtype)
    got = check(values, offsets, op)
    want = {"count": "int64", "min": dtype, "max": dtype}.get(op)
    if want is None:
        if dtype in FLOATS:
            want = dtype
        elif op == "mean":
            want = "float64"
        else:
            want = "int64" if dtype.startswith("int") else "uint64"
    assert got.dtype == want


def test_segment_reduce_integer_sums_wrap_like_numpy():
    v = np.array([2**62, 2**62, 2**62], dtype=np.int64)
    got = segment_reduce(v, np.array([0, 3]))
    assert got[0] == v.sum()


@pytest.mark.parametrize("dtype, v", [(np.int64, 2**62), (np.uint64, 2**63),
                                      (np.int64, -(2**62) - 1)])
def test_segment_reduce_integer_mean_does_not_wrap(dtype, v):
    vals = np.array([v, v, v], dtype=dtype)
    got = segment_reduce(vals, np.array([0, 2, 3]), "mean")
    assert got.tolist() == [float(v), float(v)]     # the mean of equal values is the value
    assert got.tolist() == [np.mean(vals[:2]), np.mean(vals[2:])]   # it used to wrap
    _, red = reduce_by_key(np.array([7, 7, 7]), vals, "mean")
    assert red.tolist() == [float(v)]


def test_none_is_named_as_none():
    # None became a 0-d object array, and the messages said "got numpy.ndarray(shape=(),
    # dtype=object)" (or a shape error for compact's arrays)
    calls = [(lambda: segment_reduce(None, [0]), "values"),
             (lambda: reduce_by_key([1], None), "values"),
             (lambda: compact(None, np.arange(2)), "mask"),
             (lambda: compact(np.ones(2, bool), None), r"arrays\[0\]"),
             (lambda: xp.algorithms.sort_by_key([1, 2], None), r"values\[0\]"),
             (lambda: xp.algorithms.voxel_downsample(None, 1.0), "points"),
             (lambda: xp.algorithms.morton_keys(None, [0, 0], [1, 1], 3), "positions")]
    for call, name in calls:
        with pytest.raises(TypeError, match=f"argument '{name}' got NoneType None; expected an array"):
            call()


@pytest.mark.parametrize("call, said", [
    (lambda: compact([1, 0], np.arange(2)), "'mask' got list [1, 0]; expected an array of "
                                            "dtype bool (as an array it has dtype int64)"),
    (lambda: segment_reduce("abc", [0, 1]), "'values' got str 'abc'; expected an integer, "
                                            "float32 or float64 dtype"),
    (lambda: reduce_by_key([1, 1], [True, False]), "'values' got list [True, False]; "
                                                   "expected an integer"),
    (lambda: segment_reduce([1.0, 2.0], (0.0, 2.0)), "'offsets' got tuple (0.0, 2.0)"),
    (lambda: compact(np.array([1, 0]), np.arange(2)),
     "'mask' got numpy.ndarray(shape=(2,), dtype=int64); expected an array of dtype bool"),
])
def test_dtype_errors_name_what_was_passed(call, said):
    """A list or str is named as given, with the dtype it became (the message described
    the converted array: "got numpy.ndarray(shape=(2,), dtype=int64)" for a list)."""
    with pytest.raises(TypeError) as err:
        call()
    assert said in str(err.value)


def test_generator_is_named_as_generator():
    # a generator became a 0-d object array, as None did: "got numpy.ndarray(shape=(),
    # dtype=object)", or a shape error "got ()" for compact's and sort_by_key's arrays
    def gen():
        yield from (1.0, 2.0)

    calls = [(lambda: segment_reduce(gen(), [0, 2]), "values"),
             (lambda: reduce_by_key([1, 1], gen()), "values"),
             (lambda: compact(gen(), np.arange(2)), "mask"),
             (lambda: compact(np.ones(2, bool), gen()), r"arrays\[0\]"),
             (lambda: xp.algorithms.sort_by_key([1, 2], gen()), r"values\[0\]"),
             (lambda: xp.algorithms.voxel_downsample(gen(), 1.0), "points")]
    for call, name in calls:
        with pytest.raises(TypeError, match=f"argument '{name}' got generator .*; expected an "
                                            "array"):
            call()


def test_segment_reduce_float_identities_and_nan():
    v = np.array([1.0, np.nan, 3.0])
    o = np.array([0, 0, 2, 3])
    assert segment_reduce(v, o, "sum").tolist()[0] == 0.0
    assert segment_reduce(v, o, "prod").tolist()[0] == 1.0
    for op in ("min", "max", "mean"):
        r = segment_reduce(v, o, op)
        assert np.isnan(r[0]) and np.isnan(r[1]) and r[2] == 3.0


@pytest.mark.parametrize("shape", [(6,), (6, 1), (6, 3), (0,)])
def test_count_results_are_writeable_arrays(shape):
    # "count" of (n,) or (n, 1) values was a read-only broadcast view on NumPy
    v = np.ones(shape)
    o = [0, 2, shape[0]] if shape[0] else [0, 0]
    r = segment_reduce(v, o, "count")
    assert r.flags.writeable and r.flags.c_contiguous and r.dtype == np.int64
    r += 1
    k = np.repeat([1, 2], [2, shape[0] - 2]) if shape[0] else np.zeros(0, dtype=np.int64)
    _, c = reduce_by_key(k, v, "count")
    assert c.flags.writeable
    c[...] = 0


def test_segment_reduce_strided_values_and_lists():
    base = np.arange(40, dtype=np.float64).reshape(10, 4)
    view = base[::-2, 1::2]
    o = np.array([0, 2, 5])
    np.testing.assert_array_equal(segment_reduce(view, o, "max"),
                                  np.array([view[:2].max(0), view[2:].max(0)]))
    assert segment_reduce([1, 2, 3], [0, 1, 3]).tolist() == [1, 5]


def test_segment_reduce_is_deterministic():
    rng = np.random.default_rng(3)
    v = rng.normal(size=(5000, 3)).astype(np.float32)
    o = np.sort(rng.integers(0, 5000, size=50))
    o = np.concatenate([[0], o, [5000]])
    a = segment_reduce(v, o, "sum")
    b = segment_reduce(v.copy(), o.copy(), "sum")
    assert a.tobytes() == b.tobytes()


# ---------------------------------------------------------------- reduce_by_key, RLE
@settings(max_examples=40, deadline=None)
@given(keys=st.lists(st.integers(-5, 5), max_size=40), op=st.sampled_from(OPS),
       seed=st.integers(0, 1000))
def test_reduce_by_key_against_a_dict(keys, op, seed):
    keys = np.sort(np.array(keys, dtype=np.int64))
    vals = np.random.default_rng(seed).integers(-9, 9, size=keys.shape[0])
    uk, red = reduce_by_key(keys, vals, op)
    groups = {}
    for key, v in zip(keys.tolist(), vals.tolist()):
        groups.setdefault(key, []).append(v)
    assert uk.tolist() == sorted(groups)
    assert uk.dtype == keys.dtype
    fn = {"sum": sum, "prod": np.prod, "min": min, "max": max, "count": len,
          "mean": lambda g: sum(g) / len(g)}[op]
    assert red.tolist() == [fn(groups[key]) for key in sorted(groups)]


@settings(max_examples=40, deadline=None)
@given(keys=st.lists(st.integers(0, 3), max_size=40))
def test_run_length_encode_against_a_loop(keys):
    k = np.array(keys, dtype=np.uint16)
    uk, counts = run_length_encode(k)
    runs = []
    for key in keys:
        if runs and runs[-1][0] == key:
            runs[-1][1] += 1
        else:
            runs.append([key, 1])
    assert uk.tolist() == [r[0] for r in runs] and uk.dtype == np.uint16
    assert counts.tolist() == [r[1] for r in runs] and counts.dtype == np.int64


# ---------------------------------------------------------------- bin_offsets
@settings(max_examples=40, deadline=None)
@given(bins=st.lists(st.integers(0, 9), max_size=40), extra=st.integers(0, 3))
def test_bin_offsets_against_counts(bins, extra):
    b = np.sort(np.array(bins, dtype=np.int32))
    n_bins = 10 + extra
    got = bin_offsets(b, n_bins)
    want = [0]
    for i in range(n_bins):
        want.append(want[-1] + bins.count(i))
    assert got.tolist() == want and got.dtype == np.int64


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                   "int64", "uint64"])
@pytest.mark.parametrize("fraction", [0, 2, 1 << 40])
def test_bin_offsets_by_search_and_by_counts(dtype, fraction, monkeypatch):
    """The host's two ways (a binary search of every bin's start, ``bincount``'s running
    sum), each forced by ``SEARCH_FRACTION`` and by the default rule, give the counts'
    offsets for every integer dtype, also with the last bin at the dtype's largest value
    and with one bin past it (where only the counts can run)."""
    from xstride._host import segments as hs

    monkeypatch.setattr(hs, "SEARCH_FRACTION", fraction)
    rng = np.random.default_rng(7)
    top = int(np.iinfo(dtype).max)
    for n, n_bins in [(1 << 14, 3), (1 << 14, 100), (1 << 14, min(top, 1 << 20)),
                      (1 << 14, min(top, 1 << 20) + 1), (3, 1)]:
        b = np.sort(rng.integers(0, min(n_bins, top + 1), n)).astype(dtype)
        want = np.concatenate(([0], np.cumsum(np.bincount(b.astype(np.int64),
                                                          minlength=n_bins))))
        got = bin_offsets(b, n_bins)
        assert got.dtype == np.int64 and np.array_equal(got, want), (n, n_bins)


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "int64", "uint64"])
def test_bin_offsets_block_by_block(dtype, monkeypatch):
    """The check and search block by block (``_blocked_offsets``, forced with blocks of
    64 elements) gives the counts' offsets, with the first bins empty, the last block
    ragged, bins closed in one block and many blocks inside one bin; and with bins out
    of order (across a block's edge, inside a block) or beyond the last bin inside an
    unsorted array, the errors of the whole check, naming the same positions."""
    from xstride._host import segments as hs

    monkeypatch.setenv("XSTRIDE_HOST_CC", "none")            # not the compiled pass
    monkeypatch.setattr(hs, "_SORT_BLOCK", 64)
    monkeypatch.setattr(hs, "BLOCK_SEARCH_FRACTION", 1)
    monkeypatch.setattr(hs, "SEARCH_FRACTION", 1 << 40)       # never the whole search
    top = min(int(np.iinfo(dtype).max), 120)
    rng = np.random.default_rng(11)
    taken = []
    real = hs._blocked_offsets
    monkeypatch.setattr(hs, "_blocked_offsets", lambda b, nb: taken.append(nb) or real(b, nb))
    for n, lo, hi, n_bins in [(1000, 3, 40, 41), (1001, 0, top, top + 1), (999, 5, 6, 9),
                              (64, 0, 10, 11), (65, 2, 60, 64), (3000, 0, 2, 3)]:
        b = np.sort(rng.integers(lo, hi + 1, n)).astype(dtype)
        want = np.concatenate(([0], np.cumsum(np.bincount(b.astype(np.int64),
                                                          minlength=n_bins))))
        got = bin_offsets(b, n_bins)
        assert got.dtype == np.int64 and np.array_equal(got, want), (n, n_bins)
        assert taken[-1] == n_bins
    b = np.sort(rng.integers(0, 50, 500)).astype(dtype)
    for pos, value, message in [(128, 0, r"must be sorted.*position 128"),   # a block's edge
                                (100, 0, r"must be sorted.*position 100"),
                                (70, 120, r"must be sorted.*position 71")]:
        bad = b.copy()
        bad[pos] = value
        if value > 0:
            bad[:pos] = 0
        with pytest.raises(ValueError, match=message):
            bin_offsets(bad, 121)
    for pos in (200, 191):     # beyond 60 bins inside an unsorted array; 191 ends a block
        bad = b.copy()
        bad[pos] = 100
        with pytest.raises(ValueError, match=rf"holds bin 100 at position {pos}, outside "
                                             r"\[0, 60\)"):
            bin_offsets(bad, 60)
    assert len(taken) == 6 + 3 + 2


def test_bin_offsets_zero_bins():
    assert bin_offsets(np.array([], dtype=np.int64), 0).tolist() == [0]


# ---------------------------------------------------------------- compact
@settings(max_examples=40, deadline=None)
@given(mask=st.lists(st.booleans(), max_size=50))
def test_compact_keeps_order(mask):
    m = np.array(mask, dtype=bool)
    n = m.shape[0]
    a = np.arange(n) * 3
    b = np.arange(2 * n, dtype=np.float32).reshape(n, 2)
    c = np.array([complex(i, -i) for i in range(n)], dtype=np.complex128)
    ra, rb, rc = compact(m, a, b, c)
    sel = [i for i in range(n) if mask[i]]
    assert ra.tolist() == [3 * i for i in sel]
    assert rb.tolist() == [[2 * i, 2 * i + 1] for i in sel] and rb.dtype == np.float32
    assert rc.tolist() == [complex(i, -i) for i in sel]


@pytest.mark.parametrize("mask", [[], ()])
def test_compact_empty_list_mask(mask):
    # NumPy makes [] float64, and the mask was refused as "dtype=float64"
    got, = compact(mask, np.zeros((0, 2), dtype=np.float32))
    assert got.shape == (0, 2) and got.dtype == np.float32
    assert compact(mask, [])[0].shape == (0,)


def test_compact_without_arrays():
    assert compact(np.array([True])) == ()
