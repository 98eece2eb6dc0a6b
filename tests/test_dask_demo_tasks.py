"""The dask demo's per-chunk tasks (xstride/_cli/dask_tasks.py) on dask's threads
scheduler: the bounding box, the cell occupancy and the sortedness check equal their
NumPy counterparts for chunkings with empty chunks and cells that span chunks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

da = pytest.importorskip("dask.array")

from xstride._chunked import sample_sort  # noqa: E402
from xstride._cli import dask_tasks  # noqa: E402

CHUNKINGS = [
    (1000,),
    (1, 999),
    (0, 300, 0, 0, 457, 243, 0),     # empty chunks before, between and after
    (7,) * 142 + (6,),
]


def _run_lengths(cells):
    starts = np.flatnonzero(np.concatenate([[True], cells[1:] != cells[:-1]]))
    return np.diff(np.concatenate([starts, [cells.size]]))


@pytest.fixture(params=["one memory", "several workers"])
def memory(request, monkeypatch):
    """The occupancy's two routes: summaries passed from task to task (one memory) or
    through the client (a cluster of several workers), both run on dask's threads."""
    if request.param == "several workers":
        monkeypatch.setattr(sample_sort, "one_memory", lambda collection: False)
    return request.param


@pytest.mark.parametrize("chunks", CHUNKINGS)
@pytest.mark.parametrize("shift", [0, 3, 9, 63])
def test_occupancy_equals_the_run_lengths(chunks, shift, memory):
    rng = np.random.default_rng(sum(chunks) + shift)
    keys = np.sort(rng.integers(0, 2**12, 1000).astype(np.uint64))
    keys[400:700] = keys[400]               # one cell over several chunks
    got = dask_tasks.occupancy(da.from_array(keys, chunks=(chunks,)), shift)
    want = _run_lengths(keys >> np.uint64(shift))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got.compute(), want)
    assert int(got.sum().compute()) == keys.size
    assert dask_tasks.length(got).compute() == want.size
    _check_lengths(got, memory == "several workers" and len(chunks) > 1)


def _check_lengths(got, known):
    """Each chunk's length as the client worked it out from the summaries (a cluster of
    several workers); in one memory and for keys in one chunk the lengths are not known
    (no task and no round trip for them)."""
    if not known:
        assert all(np.isnan(n) for n in got.chunks[0])
        return
    blocks = [b.compute() for b in got.to_delayed().ravel()]
    assert tuple(b.shape[0] for b in blocks) == got.chunks[0]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=40).filter(sum),
       st.integers(1, 6), st.integers(0, 2**32), st.integers(0, 2))
def test_occupancy_of_any_chunking(chunks, top, seed, shift):
    for route in (True, False):
        _occupancy_of_any_chunking(chunks, top, seed, shift, route)


def _occupancy_of_any_chunking(chunks, top, seed, shift, route):
    """Cells over many chunks, empty chunks anywhere: each chunk's key before it and
    first start after it are found in the summaries of the chunks around it."""
    rng = np.random.default_rng(seed)
    keys = np.sort(rng.integers(0, top * 4, sum(chunks))).astype(np.uint64)
    real = sample_sort.one_memory
    sample_sort.one_memory = lambda collection: route
    try:
        got = dask_tasks.occupancy(da.from_array(keys, chunks=(tuple(chunks),)), shift)
    finally:
        sample_sort.one_memory = real
    np.testing.assert_array_equal(got.compute(), _run_lengths(keys >> np.uint64(shift)))
    _check_lengths(got, not route and len(chunks) > 1)


@pytest.mark.parametrize("shift", [3, np.int64(3), np.int32(3), np.uint64(3)])
def test_occupancy_takes_a_numpy_integer_shift(shift, memory):
    keys = np.array([1, 2, 9, 2**63 + 5], np.uint64)
    got = dask_tasks.occupancy(da.from_array(keys, chunks=2), shift).compute()
    np.testing.assert_array_equal(got, [2, 1, 1])


def test_occupancy_of_one_key_and_of_one_row(memory):
    for keys in (np.full(50, 9, dtype=np.uint64), np.array([5], dtype=np.uint64)):
        got = dask_tasks.occupancy(da.from_array(keys, chunks=7), 0).compute()
        np.testing.assert_array_equal(got, [keys.size])


def test_keys_in_one_chunk_take_one_counts_task(memory):
    """One chunk needs nothing of another: no summary, no pass over the keys but the
    counts', and no task of their length (each task one step on a cluster, and the
    length's value a round trip of the client): the length is computed when asked."""
    from dask.callbacks import Callback

    keys = np.sort(np.random.default_rng(5).integers(0, 64, 300)).astype(np.uint64)
    ran = []
    with Callback(pretask=lambda key, dsk, state: ran.append(key)):
        got = dask_tasks.occupancy(da.from_array(keys, chunks=-1), 2)
    steps = sorted(k[0].split("-")[1] for k in ran if str(k[0]).startswith("occupancy-"))
    assert steps == ["counts"], ran
    want = _run_lengths(keys >> np.uint64(2))
    np.testing.assert_array_equal(got.compute(), want)
    assert np.isnan(got.shape[0]) and dask_tasks.length(got).compute() == want.size


@pytest.mark.parametrize("chunks", CHUNKINGS)
def test_sorted_across_sees_a_drop_at_a_chunk_boundary(chunks):
    keys = np.arange(10, 1010, dtype=np.uint64)
    assert dask_tasks.sorted_across(da.from_array(keys, chunks=(chunks,))).compute()
    # the first row of the second non-empty chunk (one chunk: a row inside it)
    cut = int([c for c in chunks if c][0]) if len(chunks) > 1 else 500
    bad = keys.copy()
    bad[cut] = 0
    assert not dask_tasks.sorted_across(da.from_array(bad, chunks=(chunks,))).compute()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("rows", [1, 255, 256, 257, 1000])
def test_bounding_box_equals_numpy_min_max(dtype, rows):
    pos = (np.random.default_rng(rows).random((1000, 3)) * 200 - 100).astype(dtype)
    lo, hi = dask_tasks.bounding_box(da.from_array(pos, chunks=(rows, 3)))
    assert lo.dtype == hi.dtype == np.float64
    np.testing.assert_array_equal(lo, pos.min(axis=0).astype(np.float64))
    np.testing.assert_array_equal(hi, pos.max(axis=0).astype(np.float64))


def test_bounding_box_propagates_nan_as_numpy():
    pos = np.random.default_rng(0).random((600, 2))
    pos[517, 1] = np.nan
    lo, hi = dask_tasks.bounding_box(da.from_array(pos, chunks=(300, 1)))
    np.testing.assert_array_equal(lo, pos.min(axis=0))
    np.testing.assert_array_equal(hi, pos.max(axis=0))
    assert np.isnan(lo[1]) and np.isnan(hi[1]) and not np.isnan(lo[0])


def test_the_pipeline_waits_for_device_work_and_not_for_host_chunks():
    """Kernels run asynchronously: the demo's last timed stage waits for the workers'
    devices (here, no client: the chunk backend of this process); host chunks skip it."""
    import types

    from xstride._cli import dask_demo

    calls = []
    device = types.SimpleNamespace(compiles_kernels=True, name="cupy",
                                   synchronize=lambda: calls.append("sync"))
    host = types.SimpleNamespace(compiles_kernels=False, name="numpy",
                                 synchronize=lambda: calls.append("host"))
    dask_demo._wait_for_devices(host)
    assert calls == []
    dask_demo._wait_for_devices(device)
    assert calls == ["sync"]


@pytest.mark.parametrize("chunks", [(300,), (100, 0, 200), (1,) * 30 + (270,)])
def test_occupancy_in_one_memory_ends_after_the_device_work(chunks, monkeypatch):
    """In one chunk or one memory each counts task synchronizes the chunks' backend at
    its end (a task ends when its kernels are queued), so the demo's wait for them is
    the wait for the device, with no round trip of its own to the workers; elsewhere
    the demo synchronizes them (``synchronized`` is False)."""
    import dask

    from xstride import _backends

    keys = np.sort(np.random.default_rng(7).integers(0, 64, 300)).astype(np.uint64)
    d = da.from_array(keys, chunks=(chunks,))
    assert dask_tasks.synchronized(d)
    events = []
    numpy_backend = type(_backends.of_array(keys))
    monkeypatch.setattr(numpy_backend, "synchronize", lambda self: events.append("sync"))
    real = dask_tasks._counts_block

    def counted(*args):
        out = real(*args)
        events.append("counts")
        return out

    monkeypatch.setattr(dask_tasks, "_counts_block", counted)
    with dask.config.set(scheduler="threads"):
        got = dask_tasks.occupancy(d, 2)
    # each counts task's sync after its counts (the tasks may run side by side)
    assert events.count("counts") == events.count("sync") == len(chunks), events
    assert all(events[:i].count("sync") <= events[:i].count("counts")
               for i in range(len(events) + 1)) and events[-1] == "sync", events
    np.testing.assert_array_equal(got.compute(), _run_lengths(keys >> np.uint64(2)))
    monkeypatch.setattr(sample_sort, "one_memory", lambda collection: False)
    assert dask_tasks.synchronized(d) == (len(chunks) == 1)


@pytest.mark.parametrize("chunks", CHUNKINGS)
def test_runs_give_the_first_row_and_key_of_every_run(chunks):
    rng = np.random.default_rng(len(chunks))
    keys = np.sort(rng.integers(0, 300, 1000).astype(np.uint64))
    keys[100:600] = keys[100]               # one run over several chunks
    starts, heads = dask_tasks.runs(da.from_array(keys, chunks=(chunks,)))
    import dask

    got_rows, got_keys = dask.compute(starts, heads)
    want = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    np.testing.assert_array_equal(got_rows, want)
    np.testing.assert_array_equal(got_keys, keys[want])
    assert got_rows.dtype == np.int64 and got_keys.dtype == np.uint64


def test_sorted_across_signed_keys():
    keys = np.arange(-500, 500, dtype=np.int64)
    assert dask_tasks.sorted_across(da.from_array(keys, chunks=(300, 0, 700))).compute()
    keys[300] = -1000
    assert not dask_tasks.sorted_across(da.from_array(keys, chunks=(300, 0, 700))).compute()


def test_no_task_reads_another_chunk(memory):
    """What a chunk needs of the others comes as the chunks' summaries (a few ints): no
    chunk travels between workers. In one memory the summaries and the counts go in one
    submission and the client reads nothing back (it read the summaries itself and
    then submitted the counts, two round trips, as on a cluster of several workers
    still; then one submission and a round trip for the counts' lengths)."""
    keys = np.sort(np.random.default_rng(3).integers(0, 99, 600).astype(np.uint64))
    x = da.from_array(keys, chunks=100)
    seen = {}
    real = {"persist": dask_tasks.dask.persist, "compute": dask_tasks.dask.compute}

    def spy(how):
        def call(*args, **kw):
            calls = seen.setdefault(how, [])
            calls.append(set())
            for a in args:
                # (a persisted collection's graph is a plain dict of its results)
                for name, layer in getattr(a.__dask_graph__(), "layers", {}).items():
                    if not (isinstance(name, str) and name.startswith("occupancy-")):
                        continue
                    for key, task in layer.items():
                        calls[-1].add(key[0].split("-")[1])
                        chunks = [r[1] for r in task[1:]
                                  if isinstance(r, tuple) and r[0] == x.name]
                        # a task a chunk reads its own chunk
                        assert chunks == [key[1]]
            return real[how](*args, **kw)
        return call

    dask_tasks.dask.persist, dask_tasks.dask.compute = spy("persist"), spy("compute")
    try:
        got = dask_tasks.occupancy(x, 2)
    finally:
        dask_tasks.dask.persist, dask_tasks.dask.compute = real["persist"], real["compute"]
    if memory == "one memory":   # one submission, nothing read back
        assert seen == {"persist": [{"summary", "counts"}]}
    else:   # the summaries through the client, then the counts with constants
        assert seen == {"compute": [{"summary"}], "persist": [{"counts"}]}
    want = _run_lengths(keys >> np.uint64(2))
    assert dask_tasks.length(got).compute() == want.size
    np.testing.assert_array_equal(got.compute(), want)


def test_each_check_of_the_demo_reports_its_own_result(monkeypatch):
    """The reductions stage computes arrays and the sortedness check together: with the
    check a ``Delayed``, dask's ``compute`` returned it after the arrays (dask 2026.7.1
    and 2026.8.0 group the results by kind), so a failed sortedness check was reported
    as the carried positions' and the other way round. Here the sortedness check is
    made to fail (the keys read backwards): only its own check says so."""
    from xstride._cli import dask_demo

    want = dask_demo.pipeline("dask", n=3000, chunks=700, tree=False)
    real = dask_tasks.sorted_across
    monkeypatch.setattr(dask_tasks, "sorted_across", lambda keys: real(keys[::-1]))
    got = dask_demo.pipeline("dask", n=3000, chunks=700, tree=False)
    assert got["checks"] == {"keys_sorted": False, "counts_sum_to_points": True,
                             "values_follow_keys": True}
    assert want["checks"] == {"keys_sorted": True, "counts_sum_to_points": True,
                              "values_follow_keys": True}
    assert got["occupied_cells"] == want["occupied_cells"] > 1
    assert got["occupancy"] == want["occupancy"]


def test_the_pipeline_without_the_tree_has_every_other_result():
    """benchmarks/dask.py leaves the tree stage out (``tree=False``): no "tree" and no
    such stage, the other results as with it (dask's threads here)."""
    from xstride._cli import dask_demo
    from xstride._cli.dask_demo import NOT_RESULTS

    full = dask_demo.pipeline("dask", n=3000, chunks=700)
    lean = dask_demo.pipeline("dask", n=3000, chunks=700, tree=False)
    assert "tree" in full and "tree" not in lean
    assert "morton tree" not in [s["name"] for s in lean["stages"]]
    assert {k: v for k, v in lean.items() if k not in NOT_RESULTS} == \
        {k: v for k, v in full.items() if k not in NOT_RESULTS + ("tree",)}
    assert all(lean["checks"].values())


@pytest.mark.parametrize("chunks", [64, 20])
def test_the_demo_persists_its_positions_without_alias_tasks(chunks):
    """dask's linear fusion runs ``arange``, ``astype``, ``[:, None]`` and the Philox
    block as one task under a new name, with an alias task under the output key (a
    dependent step on a cluster); the demo's persist puts the fused task under the
    output key instead, with the same values."""
    import dask
    from dask._task_spec import Alias

    import xstride as xp
    from xstride._cli import dask_demo

    with xp.use_backend("dask", chunks=chunks):
        pos = xp.rng.philox_uniform(3, xp.asarray(np.arange(3, dtype=np.uint64)[None, :]),
                                    xp.arange(64, dtype=xp.uint64)[:, None])
    opt, = dask.optimize(pos)
    graph = dict(opt.__dask_graph__())
    outputs = [k[0] if isinstance(k, list) else k for k in opt.__dask_keys__()]
    assert all(isinstance(graph[k], Alias) for k in outputs)   # what dask makes
    lean = dask_demo._without_aliases(opt)
    lean_graph = dict(lean.__dask_graph__())
    assert len(lean_graph) == -(-64 // chunks)   # a task a block, no other
    assert not any(isinstance(node, Alias) for node in lean_graph.values())
    np.testing.assert_array_equal(dask.compute(lean, optimize_graph=False)[0],
                                  pos.compute())
    held, = dask_demo._persist(pos)
    np.testing.assert_array_equal(held.compute(), pos.compute())


def test_a_stream_row_under_the_chunk_backends_asarray_is_a_literal_too():
    """On device chunks ``xp.asarray(host row)`` is the host data and a task of the chunk
    backend's ``asarray`` over it (two graph nodes): the row was an input task of the
    Philox blocks, and the counters' ``arange`` and ``[:, None]`` a fused task and an
    alias before them (three dependent steps on a cluster). The host data now goes into
    each block task, converted there. Here the same graph on NumPy chunks, ``asarray``
    NumPy's (the backend's library's, as on CuPy chunks)."""
    import dask

    import xstride as xp
    from xstride._chunked import _config
    from xstride._cli import dask_demo

    host = np.arange(3, dtype=np.uint64)[None, :]
    with xp.use_backend("dask", chunks=20):
        row = da.from_array(host, chunks=host.shape, asarray=False).map_blocks(
            np.asarray, dtype=host.dtype, meta=np.empty((0, 0), dtype=host.dtype))
        assert len(dict(row.__dask_graph__())) == 2
        got = _config.host_literal(row)
        assert type(got) is np.ndarray
        np.testing.assert_array_equal(got, host)
        other = row.map_blocks(np.negative, dtype=host.dtype)   # a task, not asarray
        assert _config.host_literal(other) is None
        pos = xp.rng.philox_uniform(3, row, xp.arange(64, dtype=xp.uint64)[:, None])
        ref = xp.rng.philox_uniform(3, xp.asarray(host),
                                    xp.arange(64, dtype=xp.uint64)[:, None])
    opt, = dask.optimize(pos)
    lean_graph = dict(dask_demo._without_aliases(opt).__dask_graph__())
    assert len(lean_graph) == 4   # a task a block, no other
    np.testing.assert_array_equal(pos.compute(), ref.compute())


def test_an_alias_whose_task_another_reads_stays():
    """A fused task that another task of the graph reads too keeps its name and the
    output its alias."""
    import dask
    from dask._task_spec import Alias, Task

    from xstride._cli import dask_demo

    base = da.ones(4, chunks=4)
    graph = {("a", 0): Task(("a", 0), np.add, np.ones(4), 1.0),
             ("out", 0): Alias(("out", 0), ("a", 0)),
             ("other", 0): Task(("other", 0), np.negative, Alias(("a", 0)))}
    arr = da.Array(graph, "out", ((4,),), meta=base._meta)
    assert dask_demo._without_aliases(arr) is arr
    np.testing.assert_array_equal(dask.compute(arr, optimize_graph=False)[0], [2.0] * 4)
