"""``sort_by_key`` of dask arrays (the sample sort of xstride/_chunked/sample_sort.py) on
dask's threads scheduler: equal to NumPy's stable argsort for chunkings with empty
chunks, negative and full-range keys, one repeated key; its graph is one layer of
plain tasks of a known size."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402
from xstride._chunked import sample_sort as ss  # noqa: E402


def _check(keys, chunks, *values):
    ref = np.argsort(keys, kind="stable")
    dk = da.from_array(keys, chunks=(chunks,))
    dv = [da.from_array(v, chunks=(chunks,) + v.shape[1:]) for v in values]
    sk, order, *sv = xp.algorithms.sort_by_key(dk, *dv)
    assert sk.dtype == keys.dtype and order.dtype == np.int64
    # at most one partition per input chunk with rows; none of no row (docs/dask.md)
    assert sk.numblocks[0] <= max(1, sum(1 for c in chunks if c))
    assert 0 not in sk.chunks[0] or sk.chunks[0] == (0,)
    assert order.chunks == sk.chunks
    np.testing.assert_array_equal(order.compute(), ref)
    np.testing.assert_array_equal(sk.compute(), keys[ref])
    for got, v in zip(sv, values):
        assert got.dtype == v.dtype
        np.testing.assert_array_equal(got.compute(), v[ref])


@pytest.mark.parametrize("chunks", [(0, 400, 0, 211, 389, 0), (1, 1, 998), (1000,)])
@pytest.mark.parametrize("dtype, low, high", [
    (np.int64, -2**63, 2**63 - 1),   # full range: the host's argsort route
    (np.int32, -40, 40),             # negative keys, many duplicates
    (np.uint64, 0, 2**64 - 1),
    (np.uint8, 0, 255),
])
def test_equals_numpy_stable_sort(chunks, dtype, low, high):
    rng = np.random.default_rng(len(chunks))
    keys = rng.integers(low, high, 1000, dtype=dtype, endpoint=True)
    _check(keys, chunks, rng.random((1000, 3)), np.arange(1000, dtype=np.int16))


def test_one_key_repeated_everywhere_and_already_sorted_keys():
    _check(np.full(500, 7, dtype=np.uint64), (100,) * 5, np.arange(500.0))
    _check(np.arange(500, dtype=np.uint64), (100,) * 5)
    _check(np.arange(500, dtype=np.uint64)[::-1].copy(), (33,) * 15 + (5,))


@pytest.mark.parametrize("chunks", [(3, 0, 4, 1), (8,), (1,) * 8])
def test_big_endian_keys_and_values_keep_their_dtype(chunks):
    """'>u8' keys and '>f8' values (as read from a FITS or HDF5 file): the computed
    chunks have the dtype the dask arrays declare, the NumPy backend's (the merge's
    concatenation made them native, so the declared and computed dtypes differed)."""
    keys = np.array([3, 1, 2, 1, 0, 7, 7, 2], dtype=">u8")
    vals = np.arange(16.0, dtype=">f8").reshape(8, 2)
    want = xp.algorithms.sort_by_key(keys, vals)
    got = xp.algorithms.sort_by_key(da.from_array(keys, chunks=(chunks,)),
                                    da.from_array(vals, chunks=(chunks, 1)))
    for g, w in zip(got, want):
        c = g.compute()
        assert g.dtype == c.dtype == w.dtype
        np.testing.assert_array_equal(c, w)


@pytest.fixture(params=[True, False])
def memory(request, monkeypatch):
    """The merges slicing the chunks in one memory, or one task per piece."""
    monkeypatch.setattr(ss, "one_memory", lambda collection: request.param)
    return request.param


@pytest.mark.parametrize("chunks", [(0, 400, 0, 211, 389, 0), (1, 1, 998), (1000,),
                                    (100,) * 10])
def test_splits_in_one_or_many_memories(memory, chunks):
    rng = np.random.default_rng(5)
    keys = rng.integers(-9, 9, 1000).astype(np.int64)
    keys[::13] = 2**40
    _check(keys, chunks, rng.random((1000, 2)))
    _check(np.sort(keys), chunks)
    _check(rng.integers(0, 2**64 - 1, 1000, dtype=np.uint64, endpoint=True), chunks)


def test_more_partitions_than_one_byte_numbers():
    keys = np.random.default_rng(6).integers(0, 10**6, 3000).astype(np.uint64)
    _check(keys, (10,) * 300)   # 299 splitters: two-byte partition numbers


def _layer_sizes(monkeypatch) -> dict:
    """``{step: tasks}`` of the sort's graph layers (``split``, ``merge``, ``length``),
    filled in when the sort persists its graph."""
    seen = {}
    real = ss.dask.persist

    def spy(*args, **kw):
        for a in args:
            for name, layer in a.__dask_graph__().layers.items():
                if isinstance(name, str) and name.startswith("sample-sort-"):
                    seen[name.split("-")[2]] = len(layer)
        return real(*args, **kw)

    monkeypatch.setattr(ss.dask, "persist", spy)
    return seen


@pytest.mark.parametrize("memory", [True, False])
def test_keys_in_one_chunk_sort_in_one_task_without_waiting(monkeypatch, memory):
    """One chunk: one task sorts it, the columns' lengths known at once,
    so the client waits for no result (the sample sort's splitters, split and merge were
    three steps and its lengths a round trip); equal to NumPy's stable argsort."""
    monkeypatch.setattr(ss, "one_memory", lambda collection: memory)
    keys_np = np.random.default_rng(12).integers(0, 9, 200).astype(np.int32)
    vals_np = np.arange(600.0).reshape(200, 3)
    keys = da.from_array(keys_np, chunks=200)
    vals = da.from_array(vals_np, chunks=(200, 3))
    seen = _layer_sizes(monkeypatch)
    monkeypatch.setattr(ss, "persist_reading", None)   # no value is read back
    sk, order, sv = ss.sample_sort(keys, [vals])
    assert seen == {"merge": 1, "column0": 1, "column1": 1, "column2": 1}
    assert sk.chunks == order.chunks == ((200,),) and sv.chunks == ((200,), (3,))
    ref = np.argsort(keys_np, kind="stable")
    np.testing.assert_array_equal(order.compute(), ref)
    np.testing.assert_array_equal(sk.compute(), keys_np[ref])
    np.testing.assert_array_equal(sv.compute(), vals_np[ref])


@pytest.mark.parametrize("one_sort, threads", [(True, 1), (True, 2), (False, 1)])
def test_one_device_of_one_thread_sorts_every_row_in_one_task(monkeypatch, one_sort, threads):
    """Chunks in one memory of one thread whose sort executor sorts every row in one
    call (``ONE_SORT``: the device's, a dask-cuda worker) make one partition whatever
    the rows (the host's executor stands in here); with more threads, or the host's
    executor, partitions of at most ``_PARTITION_ROWS`` rows. NumPy's stable order
    either way."""
    from xstride._host import sort as host_sort

    monkeypatch.setattr(ss, "one_memory", lambda collection: True)
    monkeypatch.setattr(ss, "_local_threads", lambda collection: threads)
    monkeypatch.setattr(ss, "_PARTITION_ROWS", 10)   # else a partition per chunk
    monkeypatch.setattr(host_sort, "ONE_SORT", one_sort)
    keys_np = np.random.default_rng(14).integers(0, 7, 60).astype(np.int64)
    vals_np = np.arange(120.0).reshape(60, 2)
    keys = da.from_array(keys_np, chunks=10)
    vals = da.from_array(vals_np, chunks=(10, 2))
    seen = _layer_sizes(monkeypatch)
    sk, order, sv = ss.sample_sort(keys, [vals])
    one = one_sort and threads == 1
    assert (seen["merge"] == 1 and "split" not in seen) if one else seen["merge"] > 1
    assert (sk.numblocks[0] == 1) == one
    ref = np.argsort(keys_np, kind="stable")
    np.testing.assert_array_equal(order.compute(), ref)
    np.testing.assert_array_equal(sk.compute(), keys_np[ref])
    np.testing.assert_array_equal(sv.compute(), vals_np[ref])


@pytest.mark.parametrize("memory", [True, False])
def test_the_graph_layers_have_known_sizes(monkeypatch, memory):
    monkeypatch.setattr(ss, "one_memory", lambda collection: memory)
    monkeypatch.setattr(ss, "_PARTITION_ROWS", 10)   # an output partition per chunk
    keys = da.from_array(np.arange(60, dtype=np.uint64)[::-1], chunks=10)
    seen = _layer_sizes(monkeypatch)
    ss.sample_sort(keys, [])
    p = 6
    # a split per chunk and the splitters; unless in one memory a sample per chunk and
    # P * P pieces; then the P merges (placed: their own layer) and, unless in one
    # memory, the P chunks' cuts (in one memory the sizes' task reads the splits)
    assert seen["split"] == p + 1 + (0 if memory else p + p * p)
    assert seen["merge"] == p and seen.get("length", 0) == (0 if memory else p)
    assert seen["sizes"] == 1


def test_one_memory_knows_the_local_schedulers():
    x = da.zeros(4, chunks=2)
    import dask

    with dask.config.set(scheduler="threads"):
        assert ss.one_memory(x)
    with dask.config.set(scheduler="sync"):
        assert ss.one_memory(x)
    with dask.config.set(scheduler="processes"):
        assert not ss.one_memory(x)


def test_unknown_chunk_lengths_are_refused_with_the_way_out():
    """After boolean indexing dask does not know the chunks' lengths, and the global row
    numbers of ``order`` need them: a ValueError naming the array (the order came out
    as garbage, and values failed a length check that compared NaN)."""
    rng = np.random.default_rng(2)
    k = rng.integers(0, 9, 200).astype(np.int32)
    v = rng.standard_normal((200, 3))
    keep = da.from_array(k > 6, chunks=17)

    def masked(a, chunks):
        return da.from_array(a, chunks=chunks)[keep]

    known = masked(k, 17).compute_chunk_sizes()     # (in place; returns the array)
    for args, name in (((masked(k, 17),), "keys"),
                       ((masked(k, 17), masked(v, (17, 3))), "keys"),
                       ((known, masked(v, (17, 3))), r"values\[0\]")):
        with pytest.raises(ValueError, match=f"sort_by_key: argument '{name}' has chunk "
                                             "lengths that dask does not know.*"
                                             "compute_chunk_sizes"):
            xp.algorithms.sort_by_key(*args)
    got = xp.algorithms.sort_by_key(known, masked(v, (17, 3)).compute_chunk_sizes())
    for g, w in zip(got, xp.algorithms.sort_by_key(k[k > 6], v[k > 6])):
        np.testing.assert_array_equal(xp.to_numpy(g), w)


def test_morton_encode_and_decode_of_unknown_chunk_lengths_name_the_way_out():
    ix = np.arange(50, dtype=np.uint32)
    keep = da.from_array(ix % 3 == 0, chunks=7)
    cells = da.from_array(ix, chunks=7)[keep]
    keys = da.from_array(ix.astype(np.uint64), chunks=7)[keep]
    for call, name in ((lambda: xp.algorithms.morton_encode(cells, cells), "ix"),
                       (lambda: xp.algorithms.morton_decode(keys, 3), "keys")):
        with pytest.raises(ValueError, match=f"argument '{name}' has chunk lengths that "
                                             "dask does not know.*compute_chunk_sizes"):
            call()
    cells.compute_chunk_sizes()
    want = xp.algorithms.morton_encode(ix[ix % 3 == 0], ix[ix % 3 == 0])
    np.testing.assert_array_equal(xp.to_numpy(xp.algorithms.morton_encode(cells, cells)), want)


@pytest.mark.parametrize("nparts, rows, workers, expected", [
    (32, 2**27, 16, 32),        # the benchmark's chunks of 2**22 rows: one per chunk
    (400, 35_947, 2, 2),        # the bunny in chunks of 90 rows: one per worker
    (400, 35_947, 0, 1),        # no worker known (a local process pool): one
    (8, 2**18, 2, 2),
    (3, 10, 16, 3),             # never more than the chunks
    (1000, 2**30, 4, 256),      # no more rows a partition than 2**22
])
def test_output_partitions_of_a_cluster_sort(nparts, rows, workers, expected):
    assert ss._output_parts(nparts, rows, workers) == expected


def test_small_chunks_on_a_cluster_make_a_partition_per_worker(monkeypatch):
    """400 chunks of 10 rows on two workers: 2 merges and 800 pieces, not 400 and
    160,000 (P * P; the bunny demo in 400 chunks took 324 s on 2 cores)."""
    monkeypatch.setattr(ss, "one_memory", lambda collection: False)
    monkeypatch.setattr(ss, "_client_of", lambda collection: object())
    monkeypatch.setattr(ss, "_workers", lambda client: ["tcp://a:1", "tcp://b:2"])
    keys_np = np.random.default_rng(10).integers(0, 50, 4000).astype(np.uint64)
    keys = da.from_array(keys_np, chunks=10)
    seen = _layer_sizes(monkeypatch)
    sk, order = ss.sample_sort(keys, [])
    assert seen["split"] == 2 * 400 + 1 + 400 * 2 and seen["merge"] == 2
    ref = np.argsort(keys_np, kind="stable")
    np.testing.assert_array_equal(order.compute(), ref)
    np.testing.assert_array_equal(sk.compute(), keys_np[ref])


def test_the_process_pool_sorts_into_a_partition_per_process():
    """dask's ``processes`` scheduler (no ``distributed`` client): as many output
    partitions as its processes where the chunks are small, not one."""
    import dask

    keys_np = np.random.default_rng(13).integers(0, 50, 400).astype(np.uint64)
    with dask.config.set(scheduler="processes", num_workers=3):
        sk, order = ss.sample_sort(da.from_array(keys_np, chunks=20), [])
        assert sk.numblocks[0] == 3
        ref = np.argsort(keys_np, kind="stable")
        np.testing.assert_array_equal(order.compute(), ref)


@pytest.mark.parametrize("scheduler, threads", [("sync", 1), ("threads", 2)])
def test_many_small_chunks_in_one_memory_make_a_partition_per_thread(monkeypatch, scheduler,
                                                                     threads):
    """1,000 chunks of 2 rows on dask's own schedulers: as many merges as threads, each
    naming every chunk, not 1,000 (P * P references to the chunks: 11 s and 0.8 GB for
    2,000 keys; 5,000 chunks of one row ran out of memory), and one task adding up the
    partitions' lengths (a result per chunk made dask cull the graph once per chunk).
    One thread: one partition, so one task sorts every chunk (no splitters, no split)."""
    import dask

    keys_np = np.random.default_rng(14).integers(0, 3, 2000)
    seen = _layer_sizes(monkeypatch)
    with dask.config.set(scheduler=scheduler, num_workers=threads):
        sk, order = xp.algorithms.sort_by_key(da.from_array(keys_np, chunks=2))
        if threads == 1:
            assert seen == {"merge": 1, "column0": 1, "column1": 1}
        else:
            assert seen["merge"] == threads and seen["sizes"] == 1 and "length" not in seen
            assert seen["split"] == 1000 + 1   # the splitters' task samples every chunk
        ref = np.argsort(keys_np, kind="stable")
        np.testing.assert_array_equal(order.compute(), ref)
        np.testing.assert_array_equal(sk.compute(), keys_np[ref])


def test_docstrings_say_what_dask_arrays_do_in_the_morton_functions_and_the_sort():
    """A docs probe: ``morton_keys`` said its positions are "NumPy or CuPy" (dask ones
    are keyed lazily, and a NaN raises when the keys are computed), and ``morton_keys``,
    ``morton_encode`` and ``sort_by_key`` listed "NumPy and CuPy arrays mixed" as their
    ``TypeError`` where a dask array beside NumPy ones is one too; ``sort_by_key`` did
    not say that it sorts dask arrays at the call."""
    alg = xp.algorithms
    pos = da.from_array(np.array([[0.1, 0.2], [np.nan, 0.0]]), chunks=1)
    keys = alg.morton_keys(pos, [0, 0], [1, 1], 3)          # lazy: no error yet
    with pytest.raises(ValueError, match=r"NaN or infinite coordinate in row 1"):
        keys.compute()
    with pytest.raises(ValueError, match=r"NaN or infinite coordinate in row 1"):
        alg.sort_by_key(keys)                              # sorted at the call
    mixed = "arrays from different backends cannot be mixed"
    with pytest.raises(TypeError, match=mixed):
        alg.morton_keys(np.zeros((1, 2)), da.zeros(2), [1, 1], 3)
    with pytest.raises(TypeError, match=mixed):
        alg.morton_encode(da.from_array(np.array([1, 2])), np.array([1, 2]))
    with pytest.raises(TypeError, match=mixed):
        alg.sort_by_key(np.array([1, 2]), da.from_array(np.array([1, 2])))

    def section(fn, head, end):
        return " ".join(fn.__doc__.split(head, 1)[1].split(end, 1)[0].split())

    assert "dask" in section(alg.morton_keys, "positions :", "lower, upper")
    assert "when the keys are computed" in section(alg.morton_keys, "ValueError", "MemoryError")
    for fn in (alg.morton_keys, alg.morton_encode, alg.sort_by_key):
        text = section(fn, "TypeError", "ValueError")
        assert "NumPy and CuPy arrays mixed" not in text
        assert "arrays of different backends mixed (NumPy, CuPy, dask" in text
    assert "sorted at the call" in section(alg.sort_by_key, "Returns", "Raises")


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("axis", [-1, 0, None])
def test_argsort_of_masked_chunks_warns_nothing_and_equals_numpy(axis, descending):
    """compat's argsort cast the masked meta (fill value 1e20) to int64 at the call:
    "RuntimeWarning: invalid value encountered in cast"; the indices are a plain
    array, numpy.ma's order (masked elements last ascending)."""
    import warnings

    m = np.ma.masked_array([[3.0, 1, 2], [5, 1, 0]], mask=[[0, 1, 0], [0, 0, 1]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.argsort(da.from_array(m, chunks=1, asarray=False), axis=axis,
                         descending=descending)
        computed = got.compute()
    want = xp.argsort(m, axis=axis, descending=descending)
    assert type(computed) is type(want) is np.ndarray
    assert got.dtype == computed.dtype == want.dtype
    assert computed.tolist() == want.tolist()


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_argsort_of_complex_chunks_warns_nothing_and_equals_numpy(dtype):
    """compat's argsort cast the complex meta to int64 at the call: "ComplexWarning:
    Casting complex values to real discards the imaginary part"."""
    import warnings

    a = np.array([[1 + 1j, 1 - 1j, 0], [2j, np.nan, -1]], dtype)
    for axis in (-1, 0, None):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = xp.argsort(da.from_array(a, chunks=1), axis=axis, descending=True)
            computed = got.compute()
        want = xp.argsort(a, axis=axis, descending=True)
        assert got.dtype == computed.dtype == want.dtype
        assert computed.tolist() == want.tolist()


@pytest.mark.parametrize("chunks", [(1, 0, 299, 700), (250,) * 4, (1,) * 40 + (960,)])
def test_one_partition_of_several_chunks_is_one_task_equal_to_numpy(monkeypatch, chunks):
    """Few rows in one memory of one thread: one output partition, so one task joins
    the chunks in order and sorts them (stable: equal keys keep their global rows'
    order), with big-endian keys and (n, k) values keeping their dtypes."""
    import dask

    keys_np = np.random.default_rng(15).integers(0, 5, 1000).astype(">u8")
    vals_np = np.arange(3000, dtype=">f4").reshape(1000, 3)
    seen = _layer_sizes(monkeypatch)
    with dask.config.set(scheduler="sync"):
        sk, order, sv = xp.algorithms.sort_by_key(da.from_array(keys_np, chunks=(chunks,)),
                                                  da.from_array(vals_np, chunks=(chunks, 3)))
        assert seen == {"merge": 1, "column0": 1, "column1": 1, "column2": 1}
        ref = np.argsort(keys_np, kind="stable")
        np.testing.assert_array_equal(order.compute(), ref)
        got_k, got_v = sk.compute(), sv.compute()
    assert got_k.dtype == keys_np.dtype and got_v.dtype == vals_np.dtype
    np.testing.assert_array_equal(got_k, keys_np[ref])
    np.testing.assert_array_equal(got_v, vals_np[ref])
