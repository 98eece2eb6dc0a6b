"""xstride's extensions on dask arrays under dask's local threads (no cluster): Philox
draws and the generator for any chunking, Morton keys' checks when computed, and the
distributed sort_by_key, each equal to the NumPy backend (selection, the namespace and
conversions: test_dask_backend.py; a cluster: test_dask_cluster.py)."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402
from tests.test_dask_backend import _numpy_after  # noqa: E402,F401 (autouse)


def test_philox_on_the_threads_scheduler():
    ctr = np.arange(1000, dtype=np.uint64)
    ref = xp.rng.philox_uniform(1, 2, ctr)
    with xp.use_backend("dask", chunks=333):
        got = xp.rng.philox_uniform(1, 2, xp.asarray(ctr))
        scalar = xp.rng.philox_normal(1, 2, 3)
    np.testing.assert_array_equal(xp.to_numpy(got), ref)
    assert isinstance(scalar, da.Array) and scalar.shape == ()
    assert xp.to_numpy(scalar) == xp.rng.philox_normal(1, 2, 3)


@pytest.mark.parametrize("kind", ["uniform", "uniform2", "normal", "normal2"])
def test_philox_blocks_read_their_arguments_unbroadcast(kind):
    """A counter column (n, 1) beside a stream row (1, k): each block task reads the
    two blocks it broadcasts from (no ``broadcast_to`` task before it); arguments of
    other chunks than each other's are unified first. The NumPy backend's bits."""
    fn = getattr(xp.rng, f"philox_{kind}")
    counters = np.arange(5, 405, dtype=np.uint64)[:, None]
    streams = np.arange(3, dtype=np.uint64)[None, :]
    seeds = np.arange(400 * 3, dtype=np.uint64).reshape(400, 3) % 7
    for args, chunks in [((7, streams, counters), (96, 2)),
                         ((seeds, streams, counters), (64, 1))]:
        want = fn(*args)
        lazy = [da.from_array(a, chunks=chunks) if isinstance(a, np.ndarray) else a
                for a in args]
        lazy[-1] = lazy[-1].rechunk({0: 50})   # counters cut otherwise than seeds
        got = fn(*lazy)
        got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
        for g, w in zip(got, want):
            assert g.shape == w.shape
            assert not [n for n in g.dask.layers if n.startswith("broadcast_to")]
            blocks = [b.compute() for b in g.to_delayed().ravel()]
            assert [b.shape for b in blocks] == [
                tuple(c[i] for c, i in zip(g.chunks, idx))
                for idx in np.ndindex(*g.numblocks)]
            np.testing.assert_array_equal(xp.to_numpy(g), w)


def _tasks(a) -> list:
    """The tasks of ``a``'s optimized graph but dask's aliases (each still one task on
    a cluster) and the data it holds as it is."""
    import dask

    (opt,) = dask.optimize(a)
    return [k for k, v in dict(opt.__dask_graph__()).items()
            if type(v).__name__ not in ("Alias", "DataNode", "ndarray")]


@pytest.mark.parametrize("kind", ["uniform", "normal2"])
def test_philox_takes_a_small_stream_row_as_a_literal(kind):
    """The demo's positions: counters ``xp.arange(n)[:, None]`` beside a stream row
    ``xp.asarray(numpy row)``. The row goes into every block task as an argument, so
    dask fuses each block with its counters' ``arange`` and ``[:, None]``: one task a
    block (three dependent ones before). A row cut across the result's chunks, or one
    over 64 KiB, stays a dask input. Always the NumPy backend's bits."""
    fn = getattr(xp.rng, f"philox_{kind}")
    n = 1000
    want = fn(5, np.arange(3, dtype=np.uint64)[None, :], np.arange(n, dtype=np.uint64)[:, None])
    want = want if isinstance(want, tuple) else (want,)
    wide = np.arange(2**14, dtype=np.uint64)[None, :]   # 128 KiB
    want_wide = fn(5, wide, np.arange(4, dtype=np.uint64)[:, None])
    want_wide = want_wide if isinstance(want_wide, tuple) else (want_wide,)
    with xp.use_backend("dask", chunks=300):
        counters = xp.arange(n, dtype=xp.uint64)[:, None]
        row = xp.asarray(np.arange(3, dtype=np.uint64)[None, :])
        cut = da.from_array(np.arange(3, dtype=np.uint64)[None, :], chunks=(1, 2))
        for streams, fused in [(row, True), (cut, False)]:
            got = fn(5, streams, counters)
            got = got if isinstance(got, tuple) else (got,)
            for g, w in zip(got, want):
                tasks = [str(t) for t in _tasks(g)]
                one_a_block = len(tasks) == g.numblocks[0] and all(
                    "arange" in t and "real_block" in t for t in tasks)
                assert one_a_block == fused, tasks
                np.testing.assert_array_equal(xp.to_numpy(g), w)
        big = xp.asarray(wide)
        got = fn(5, big, xp.arange(4, dtype=xp.uint64)[:, None])
        got = got if isinstance(got, tuple) else (got,)
        for g, w in zip(got, want_wide):
            assert any(big.name in str(k) for k in dict(g.__dask_graph__()))
            np.testing.assert_array_equal(xp.to_numpy(g), w)


@pytest.mark.parametrize("kind", ["uniform", "uniform2", "normal", "normal2"])
def test_philox_of_0d_dask_arguments(kind):
    """0-d dask arguments (``da.asarray(np.uint64(3))``): the NumPy backend's 0-d
    results; the two-output functions raised NumPy's "cannot reshape array of size 1
    into shape (0,)" (dask's meta of a 0-d array holds one element)."""
    fn = getattr(xp.rng, f"philox_{kind}")
    z = da.asarray(np.uint64(3))
    want = fn(3, 4, 3)
    got = fn(z, 4, z)
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        assert isinstance(g, da.Array) and g.shape == () and g.dtype == np.float64
        assert xp.to_numpy(g) == w


@pytest.mark.parametrize("method", ["uniform", "normal", "integers"])
def test_philox_draw_of_no_element_under_a_byte_size_option(method):
    """Shapes (0, k) whose row is wider than a byte-size chunks option: one empty chunk
    (dask's normalize_chunks raised ZeroDivisionError)."""
    with xp.use_backend("dask", chunks="1 KiB"):
        g = xp.rng.Philox(3)
        args = (0, 5) if method == "integers" else ()
        got = getattr(g, method)(*args, (0, 200))
    assert isinstance(got, da.Array) and got.shape == (0, 200)
    assert xp.to_numpy(got).shape == (0, 200) and g.counter == 0


@pytest.mark.parametrize("low, high", [(0, 10), (-5, 2**40), (0, 2**64),
                                       (0, 2**63 + 1)])  # the last rejects ~1/4 per counter
def test_philox_integers_equal_numpy_for_any_chunking(low, high):
    ref = xp.rng.Philox(5, 2, backend="numpy")
    want = ref.integers(low, high, (40, 7))
    for rows in (9, 100, 280):
        with xp.use_backend("dask", chunks=rows):
            g = xp.rng.Philox(5, 2)
            got = g.integers(low, high, (40, 7))
        assert isinstance(got, da.Array) and got.dtype == want.dtype
        np.testing.assert_array_equal(xp.to_numpy(got), want)
        assert g.counter == ref.counter


@pytest.mark.parametrize("high", [10, 2**63 + 1])   # the last rejects ~1/4 per counter
def test_philox_integers_holds_no_computed_chunk(high):
    """Philox.integers on dask persisted round one: the draw held its whole result in
    memory at the call (a draw larger than memory failed there, where uniform and normal
    are lazy). Only the rejected indices are computed at the call now; the graph holds
    tasks, computed with the result, and the values and counter are NumPy's."""
    ref = xp.rng.Philox(5, backend="numpy")
    want = ref.integers(0, high, 10_000)
    with xp.use_backend("dask", chunks=1000):
        g = xp.rng.Philox(5)
        got = g.integers(0, high, 10_000)
    held = [k for k, v in dict(got.__dask_graph__()).items()
            if isinstance(v, np.ndarray) and v.size >= 1000]
    assert held == []
    np.testing.assert_array_equal(xp.to_numpy(got), want)
    assert g.counter == ref.counter


@pytest.mark.parametrize("chunks", [(500, 3), ((600, 401), 3), 1000, 7, "auto"])
def test_philox_generator_takes_the_creation_functions_chunks(chunks):
    """Philox(...).uniform/normal/integers with any form of the chunks option (per axis
    as docs/dask.md shows, or one int): the rows of xp.zeros of the same shape, and the
    NumPy backend's bits."""
    shapes = [(1001, 3), (10, 0), (), (12,)] if chunks != ((600, 401), 3) else [(1001, 3)]
    for shape in shapes:
        with xp.use_backend("dask", chunks=chunks):
            try:
                zeros = xp.zeros(shape)
            except ValueError:
                continue      # an option of another rank: creation refuses it too
            g = xp.rng.Philox(11, stream=2)
            got = [g.uniform(shape), g.normal(shape), g.integers(-3, 9, shape=shape)]
        for a in got:
            if a.size:    # an empty array has one empty chunk
                assert a.chunks[:1] == zeros.chunks[:1], (chunks, shape, a.chunks,
                                                          zeros.chunks)
        h = xp.rng.Philox(11, stream=2)
        want = [h.uniform(shape), h.normal(shape), h.integers(-3, 9, shape=shape)]
        for a, w in zip(got, want):
            np.testing.assert_array_equal(xp.to_numpy(a), w)


@pytest.mark.parametrize("method", ["uniform", "normal", "integers"])
def test_philox_chunks_option_of_another_rank_names_the_method(method):
    """The error named "Philox", not the method the user called."""
    draws = {"uniform": lambda g, s: g.uniform(s), "normal": lambda g, s: g.normal(s),
             "integers": lambda g, s: g.integers(5, shape=s)}
    with xp.use_backend("dask", chunks=(2, 2)):
        g = xp.rng.Philox(1)
        with pytest.raises(ValueError, match=rf"^Philox\.{method}: argument 'chunks' is "
                                             r"the dask backend's option \(2, 2\)"):
            draws[method](g, (2, 3, 4))
        assert g.counter == 0
        assert draws[method](g, (4, 3)).chunks[0] == (2, 2)    # the option's rank: taken
        assert draws[method](g, 5).chunks == ((2, 2, 1),)      # lower: its leading entry


def test_philox_integers_that_would_pass_the_last_counter_consume_nothing():
    with xp.use_backend("dask", chunks=4):
        g = xp.rng.Philox(1).advance(2**64 - 10)
        with pytest.raises(OverflowError, match=r"Philox.integers: the stream is exhausted"):
            g.integers(3, shape=11)
        assert g.counter == 2**64 - 10
        with pytest.raises(OverflowError, match=r"Philox.integers: the stream is exhausted"):
            g.integers(0, 2**63 + 1, shape=10)   # rejections need counters past the end
        assert g.counter == 2**64 - 10


def test_morton_keys_nonfinite_row_raises_when_computed():
    pts = np.random.default_rng(0).random((100, 3))
    pts[57, 1] = np.nan
    with xp.use_backend("dask", chunks=(25, 3)):
        keys = xp.algorithms.morton_keys(xp.asarray(pts), [0, 0, 0], [1, 1, 1], 8)
    with pytest.raises(ValueError, match=r"morton_keys: argument 'positions' has a NaN or "
                                         r"infinite coordinate in row 57 \("):
        xp.to_numpy(keys)


def test_morton_keys_nonfinite_row_of_unknown_chunk_lengths_is_global():
    """After boolean indexing the blocks' offsets are unknown to dask: the message still
    names the global row, counted from the rows the blocks before it hold (it said "row
    nan", then "row 0 of row block 2" and how to get the global row)."""
    pts = np.random.default_rng(0).random((12, 2))
    pts[8, 1] = np.inf
    d = da.from_array(pts, chunks=(4, 2))
    masked = d[d[:, 0] > -1.0]   # keeps every row; dask no longer knows the lengths
    keys = xp.algorithms.morton_keys(masked, [0, 0], [1, 1], 8)
    with pytest.raises(ValueError, match=r"coordinate in row 8 \(\["):
        keys.compute()
    masked.compute_chunk_sizes()
    with pytest.raises(ValueError, match=r"coordinate in row 8 \("):
        xp.algorithms.morton_keys(masked, [0, 0], [1, 1], 8).compute()


def test_morton_keys_of_unknown_columns_say_how_to_know_them():
    """``x[:, mask]`` of a dask mask: the column count is NaN; the error says so and how
    to compute it, as the other unknown-length errors do (a new-user probe)."""
    pts = da.from_array(np.random.default_rng(0).random((5, 3)), chunks=2)
    cols = da.from_array(np.array([True, True, False]))
    with pytest.raises(ValueError, match=r"^morton_keys: argument 'positions' must have "
                       r"shape \(n, 2\) or \(n, 3\); got \(5, nan\); its columns are not "
                       r"known: call positions.compute_chunk_sizes\(\) first$"):
        xp.algorithms.morton_keys(pts[:, cols], [0, 0], [1, 1], 4)
    with pytest.raises(ValueError, match=r"got \(5, 4\)$"):   # known: no such advice
        xp.algorithms.morton_keys(da.zeros((5, 4)), [0] * 4, [1] * 4, 4)


@pytest.mark.parametrize("chunks, tasks", [(-1, 1), (10, 5)])
def test_morton_keys_of_one_block_are_one_task(chunks, tasks):
    """No chain link to make or wait for in one block (each task a step on a cluster);
    P blocks: a keys task and an output task each, and a link for all but the last."""
    from dask.callbacks import Callback

    pts = np.random.default_rng(1).random((20, 3))
    ran = []
    with Callback(pretask=lambda key, dsk, state: ran.append(key)):
        keys = xp.algorithms.morton_keys(da.from_array(pts, chunks=(chunks, 3)),
                                         [0] * 3, [1] * 3, 4).compute(optimize_graph=False)
    assert sum(str(k[0]).startswith("morton-keys-") for k in ran) == tasks, ran
    with xp.use_backend("numpy"):
        want = xp.algorithms.morton_keys(pts, [0] * 3, [1] * 3, 4)
    np.testing.assert_array_equal(keys, want)


@pytest.mark.parametrize("chunks", [(20,), (13, 7), (4,) * 5, (0, 5, 0, 8, 7, 0)])
def test_keys_in_a_box_the_graph_computes_equal_the_keys_of_host_bounds(chunks):
    """The dask Morton executor's ``keys_in_box``: the box ``(lower, scales)`` is a task
    of the graph (the dask demo's pipeline submitted as one graph), and the keys equal
    ``morton_keys`` of the same bounds on the NumPy backend for any chunking; a NaN row
    is named as ``morton_keys`` names it."""
    import dask
    from dask.delayed import delayed

    from xstride._chunked import morton

    pts = np.random.default_rng(1).random((20, 3))
    lower, upper = [0.0, -0.5, 0.25], [1.0, 1.5, 0.75]
    with xp.use_backend("numpy"):
        want = xp.algorithms.morton_keys(pts, lower, upper, 6)
    box = delayed(lambda: (np.array(lower), xp.algorithms.morton_scales(lower, upper, 6)))()
    d = da.from_array(pts, chunks=(chunks, 3))
    with dask.config.set(scheduler="sync"):
        np.testing.assert_array_equal(morton.keys_in_box(d, box, 6).compute(), want)
        pts[13, 1] = np.nan
        bad = morton.keys_in_box(da.from_array(pts, chunks=(chunks, 3)), box, 6)
        with pytest.raises(ValueError, match=r"NaN or infinite coordinate in row 13 "):
            bad.compute()


@pytest.mark.parametrize("scheduler", ["sync", "threads"])
@pytest.mark.parametrize("chunks", [(20,), (13, 7), (14, 6), (4,) * 5, (0, 5, 0, 8, 7, 0),
                                    (1,) * 20])
def test_morton_keys_names_the_first_nonfinite_row_for_any_chunking(scheduler, chunks):
    """The NumPy backend's row, whatever the chunking and the order the blocks run in
    (each block raised its own first bad row: row 17 in blocks of 14 and 6 rows, row 13
    in blocks of 13 and 7), also for a slice of the keys that holds the later row."""
    import dask

    pts = np.random.default_rng(0).random((20, 3))
    pts[13, 2] = np.inf
    pts[17, 0] = np.nan
    with pytest.raises(ValueError, match=r"in row 13 \("):
        xp.algorithms.morton_keys(pts, [0] * 3, [1] * 3, 4)
    d = da.from_array(pts, chunks=(chunks, 3))
    with dask.config.set(scheduler=scheduler):
        keys = xp.algorithms.morton_keys(d, [0] * 3, [1] * 3, 4)
        for part in (keys, keys[15:], keys[::-1]):
            with pytest.raises(ValueError, match=r"morton_keys: argument 'positions' has a "
                                                 r"NaN or infinite coordinate in row 13 "
                                                 r"\(\[0\.357"):
                part.compute()
        good = pts.copy()
        good[[13, 17]] = 0.5
        got = xp.algorithms.morton_keys(da.from_array(good, chunks=(chunks, 3)),
                                        [0] * 3, [1] * 3, 4)
        assert got.chunks[0] == tuple(c for c in chunks if c) or got.chunks[0] == chunks
        np.testing.assert_array_equal(got.compute(), xp.algorithms.morton_keys(
            good, [0] * 3, [1] * 3, 4))


def test_morton_keys_chain_is_one_step_a_block():
    """The last block's keys wait for one link per block before it, each reading its
    block where it lies: ``P`` steps after the first block's keys are made (each step of
    a chain costs a few milliseconds on a cluster of one worker)."""
    from dask.core import get_dependencies

    d = da.from_array(np.random.default_rng(0).random((40, 3)), chunks=(10, 3))
    keys = xp.algorithms.morton_keys(d, [0] * 3, [1] * 3, 4)
    dsk = dict(keys.__dask_graph__())
    memo = {}

    def depth(k):
        if k not in memo:
            memo[k] = 1 + max((depth(p) for p in get_dependencies(dsk, k)), default=0)
        return memo[k]

    last, first = keys.__dask_keys__()[-1], keys.__dask_keys__()[0]
    block0 = [p for p in get_dependencies(dsk, first) if "block" in p[0]][0]
    assert depth(last) - depth(block0) == 4   # 3 links (blocks 0-2), then the keys
    assert depth(first) - depth(block0) == 1


def test_sort_by_key_on_the_threads_scheduler():
    keys = np.random.default_rng(2).integers(0, 5, 500).astype(np.int32)
    with xp.use_backend("dask", chunks=90):
        sk, order = xp.algorithms.sort_by_key(xp.asarray(keys))
    assert sk.dtype == keys.dtype and order.dtype == np.int64
    np.testing.assert_array_equal(xp.to_numpy(order), np.argsort(keys, kind="stable"))


@pytest.mark.parametrize("n, rows, top, dtype", [
    (3000, 250, 12, np.uint64),    # many duplicates, 12 chunks
    (3000, 3000, 5, np.int16),     # one chunk
    (10, 3, 2**40, np.int64),      # more chunks than distinct splitters matter
    (0, 5, 5, np.int64),           # nothing to sort
])
def test_sample_sort_of_device_chunks_equals_numpy_stable_sort(n, rows, top, dtype):
    """The sort CuPy chunks take (every step on the chunks' backend), run here on NumPy
    chunks: the same result as NumPy's stable sort, values of every shape carried."""
    from xstride._chunked.sample_sort import sample_sort

    rng = np.random.default_rng(n + rows)
    keys = rng.integers(0, top, n).astype(dtype)
    vals, labels, empty = rng.random((n, 3)), np.arange(n, dtype=np.int32), np.ones((n, 0))
    ref = np.argsort(keys, kind="stable")
    with xp.use_backend("dask", chunks=rows):
        sk, order, sv, sl, se = sample_sort(xp.asarray(keys), [xp.asarray(vals),
                                                               xp.asarray(labels),
                                                               xp.asarray(empty)])
    assert (sk.dtype, order.dtype, sv.dtype, sl.dtype) == (dtype, np.int64, np.float64, np.int32)
    np.testing.assert_array_equal(xp.to_numpy(order), ref)
    np.testing.assert_array_equal(xp.to_numpy(sk), keys[ref])
    np.testing.assert_array_equal(xp.to_numpy(sv), vals[ref])
    np.testing.assert_array_equal(xp.to_numpy(sl), labels[ref])
    assert xp.to_numpy(se).shape == (n, 0)
    if n > rows:   # the result is split: no partition got every row
        assert sk.numblocks[0] > 1 and max(sk.chunks[0]) < n


@pytest.mark.parametrize("bad", [da.zeros(()), da.asarray(np.array(1j))], ids=["0-d", "complex"])
def test_morton_keys_names_a_bad_dask_bound_as_passed(bad):
    """A user probe: a 0-d (or complex) dask array for a bound is refused, but the
    message described its computed host copy ("got numpy.ndarray(shape=(), ...)"), not
    the dask array the caller passed."""
    pos = da.from_array(np.random.default_rng(0).uniform(size=(20, 2)), chunks=7)
    with pytest.raises(TypeError, match=r"^morton_keys: argument 'lower' got "
                                        r"dask\.Array\(shape=\(\), dtype=(float64|complex128)\)"):
        xp.algorithms.morton_keys(pos, bad, np.ones(2), 5)


@pytest.mark.parametrize("kind", ["uniform", "uniform2", "normal", "normal2"])
@pytest.mark.parametrize("literal, chunked", [
    (np.array([[0], [7], [9]], np.uint64), np.arange(4, dtype=np.uint64)),
    (np.array([[[1]], [[2]]], np.uint64), np.arange(6, dtype=np.uint64).reshape(3, 2)),
])
@pytest.mark.parametrize("where", ["seed", "stream"])
def test_philox_literal_of_more_axes_than_the_chunked_argument(kind, literal, chunked, where):
    """A new-user probe: a small one-chunk stream column ``(R, 1)`` (a literal of the
    block tasks) beside counters ``(C,)`` in chunks: ``philox_uniform2`` and
    ``philox_normal2`` raised dask's "New_axis values do not fill in all dimensions"
    (the two values' axis was placed as if the counters had every axis of the result).
    docs/rng.md names this layout: per-particle streams against step counters."""
    fn = getattr(xp.rng, f"philox_{kind}")
    args = (literal, 1, chunked) if where == "seed" else (5, literal, chunked)
    want = fn(*args)
    want = want if isinstance(want, tuple) else (want,)
    small = da.from_array(literal, chunks=-1)
    parts = da.from_array(chunked, chunks=1)
    got = fn(small, 1, parts) if where == "seed" else fn(5, small, parts)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_array_equal(xp.to_numpy(g), w)
