"""The dask backend with CuPy chunks on a ``dask_cuda.LocalCUDACluster`` (one worker per
GPU): the CuPy backend's bits, keys and sort, and the demo equal to the NumPy backend.

Skipped without a device (the ``gpu`` marker) or without dask-cuda (the wheels of
``.whl/``, see docs/dask.md).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.xdist_group("dask-gpu")]

distributed = pytest.importorskip("distributed")
dask_cuda = pytest.importorskip("dask_cuda")

import xstride as xp  # noqa: E402
from xstride._cli import dask_demo  # noqa: E402
from xstride._cli.dask_demo import NOT_RESULTS  # noqa: E402
from xstride.__main__ import main  # noqa: E402


@pytest.fixture(scope="module")
def cuda_client():
    cluster = dask_cuda.LocalCUDACluster(n_workers=1, threads_per_worker=1,
                                         dashboard_address=":0")
    try:
        with distributed.Client(cluster) as c:
            yield c
    finally:
        cluster.close()


@pytest.fixture(autouse=True)
def _numpy_after():
    yield
    xp.set_backend("numpy")


def test_cupy_chunks_give_the_cupy_backends_philox_bits(cuda_client, cp):
    counters = np.arange(5, 5 + 3000, dtype=np.uint64)[:, None]
    streams = np.arange(3, dtype=np.uint64)[None, :]
    with xp.use_backend("cupy"):
        ref = xp.rng.philox_uniform(9, cp.asarray(streams), cp.asarray(counters)).get()
        gen_ref = xp.rng.Philox(4, 1).normal(2001).get()
        # draws of two axes: the rows of the draw's chunks (_chunked/philox._as_rows)
        gen_2d = xp.rng.Philox(4, 1).uniform((2001, 3)).get()
    for rows in (256, 1000, 3000):
        with xp.use_backend("dask", chunks=(rows, 3), chunk_backend="cupy"):
            got = xp.rng.philox_uniform(9, xp.asarray(streams), xp.asarray(counters))
            assert isinstance(got._meta, cp.ndarray)
            np.testing.assert_array_equal(xp.to_numpy(got), ref)
            got = xp.rng.Philox(4, 1).uniform((2001, 3))
            assert isinstance(got._meta, cp.ndarray)
            np.testing.assert_array_equal(xp.to_numpy(got), gen_2d)
        with xp.use_backend("dask", chunks=rows, chunk_backend="cupy"):
            np.testing.assert_array_equal(xp.to_numpy(xp.rng.Philox(4, 1).normal(2001)), gen_ref)
    # a one-chunk stream column (a literal of the block tasks) beside chunked counters
    column = np.array([[0], [7], [9]], dtype=np.uint64)
    with xp.use_backend("cupy"):
        pair_ref = [v.get() for v in xp.rng.philox_normal2(5, cp.asarray(column),
                                                           cp.arange(4, dtype=cp.uint64))]
    with xp.use_backend("dask", chunks=2, chunk_backend="cupy"):
        pair = xp.rng.philox_normal2(5, xp.asarray(column, chunks=-1),
                                     xp.arange(4, dtype=xp.uint64))
        for got, want in zip(pair, pair_ref):
            np.testing.assert_array_equal(xp.to_numpy(got), want)
    with xp.use_backend("dask", chunks=((2, 0, 1999), (3,)), chunk_backend="cupy"):
        got = xp.rng.Philox(4, 1).uniform((2001, 3))   # a row block of no row kept
        assert got.chunks == ((2, 0, 1999), (3,))
        np.testing.assert_array_equal(xp.to_numpy(got), gen_2d)


def test_cupy_chunks_positions_are_one_task_a_block(cuda_client, cp):
    """The demo's positions on CuPy chunks: the stream row ``xp.asarray(host row)`` goes
    into each Philox block task (the chunk backend's ``asarray`` of it there), so the
    optimized graph without aliases is one task a block (it was the row's task, the
    counters' fused task and alias, then the blocks); the CuPy backend's bits."""
    import dask

    streams = np.arange(3, dtype=np.uint64)[None, :]
    with xp.use_backend("cupy"):
        ref = xp.rng.philox_uniform(2, cp.asarray(streams),
                                    cp.arange(1000, dtype=cp.uint64)[:, None]).get()
    for rows in (1000, 300):
        with xp.use_backend("dask", chunks=rows, chunk_backend="cupy"):
            pos = xp.rng.philox_uniform(2, xp.asarray(streams),
                                        xp.arange(1000, dtype=xp.uint64)[:, None])
        opt, = dask.optimize(pos)
        lean = dask_demo._without_aliases(opt)
        assert len(dict(lean.__dask_graph__())) == -(-1000 // rows)
        held, = dask_demo._persist(pos)
        np.testing.assert_array_equal(xp.to_numpy(held), ref)


def test_cupy_chunks_keys_and_sort_equal_numpy(cuda_client, cp):
    rng = np.random.default_rng(5)
    pts = rng.random((5000, 3))
    ref_keys = xp.algorithms.morton_keys(pts, [0, 0, 0], [1, 1, 1], 4)   # many duplicates
    order_ref = np.argsort(ref_keys, kind="stable")
    with xp.use_backend("dask", chunks=(900, 3), chunk_backend="cupy"):
        pos = xp.asarray(pts)
        keys = xp.algorithms.morton_keys(pos, [0, 0, 0], [1, 1, 1], 4)
        sk, order, sp = xp.algorithms.sort_by_key(keys, pos)
    assert isinstance(keys._meta, cp.ndarray) and isinstance(sk._meta, cp.ndarray)
    np.testing.assert_array_equal(xp.to_numpy(keys), ref_keys)
    np.testing.assert_array_equal(xp.to_numpy(order), order_ref)
    np.testing.assert_array_equal(xp.to_numpy(sp), pts[order_ref])


@pytest.mark.parametrize("memory", [True, False])
def test_cupy_chunks_sort_both_graphs_signed_keys_and_empty_chunks(cuda_client, cp,
                                                                    monkeypatch, memory):
    """CuPy chunks split by partition (a search per key, a stable sort of one-byte
    partition numbers); merges slicing the chunks in place (one worker) or one task per
    piece, as on a cluster of several GPUs: NumPy's stable sort, every column on the device. (One
    GPU worker of one thread sorts every row in one task, ``ONE_SORT``: turned off here
    to build the sample sort's graph.)"""
    from xstride._chunked import sample_sort as ss
    from xstride._kernels import sort as device_sort

    monkeypatch.setattr(device_sort, "ONE_SORT", False)
    monkeypatch.setattr(ss, "one_memory", lambda collection: memory)
    monkeypatch.setattr(ss, "_PARTITION_ROWS", 10)   # an output partition per chunk
    rng = np.random.default_rng(8)
    keys = rng.integers(-20, 20, 4000).astype(np.int64)
    keys[::11] = 2**62
    vals = rng.random((4000, 3))
    order_ref = np.argsort(keys, kind="stable")
    for chunks in ((0, 1500, 0, 1000, 1500), (400,) * 10):
        with xp.use_backend("dask", chunks=(chunks,), chunk_backend="cupy"):
            dk, dv = xp.asarray(keys), xp.asarray(vals, chunks=(chunks, 3))
        sk, order, sv = xp.algorithms.sort_by_key(dk, dv)
        assert all(isinstance(a._meta, cp.ndarray) for a in (sk, order, sv))
        assert sv.numblocks[0] > 1, sv.chunks
        assert all(isinstance(sv.blocks[i].compute(), cp.ndarray)
                   for i in range(sv.numblocks[0]))
        np.testing.assert_array_equal(xp.to_numpy(order), order_ref)
        np.testing.assert_array_equal(xp.to_numpy(sk), keys[order_ref])
        np.testing.assert_array_equal(xp.to_numpy(sv), vals[order_ref])
    if memory:   # 300 chunks: two-byte partition numbers
        with xp.use_backend("dask", chunks=10, chunk_backend="cupy"):
            sk, order = xp.algorithms.sort_by_key(xp.asarray(keys[:3000]))
        np.testing.assert_array_equal(xp.to_numpy(order),
                                      np.argsort(keys[:3000], kind="stable"))


def test_one_gpu_worker_sorts_every_row_in_one_task(cuda_client, cp, monkeypatch):
    """A dask-cuda worker of one thread (the cluster of these tests): the chunks in its
    device's memory sort in one task whatever their rows (``ONE_SORT``), one output
    chunk on the device, NumPy's stable order."""
    from xstride._chunked import sample_sort as ss
    from xstride._kernels import sort as device_sort

    assert device_sort.ONE_SORT
    monkeypatch.setattr(ss, "_PARTITION_ROWS", 300)   # the host's rule: a partition a chunk
    assert ss._output_parts(10, 3000, 1) == 10
    rng = np.random.default_rng(9)
    keys = rng.integers(0, 50, 3000).astype(np.uint64)
    vals = rng.random((3000, 2))
    with xp.use_backend("dask", chunks=300, chunk_backend="cupy"):
        dk, dv = xp.asarray(keys), xp.asarray(vals, chunks=(300, 2))
    assert ss.one_memory(dk) and ss._local_threads(dk) == 1
    sk, order, sv = xp.algorithms.sort_by_key(dk, dv)
    assert sk.numblocks[0] == sv.numblocks[0] == 1 and isinstance(sv._meta, cp.ndarray)
    ref = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(xp.to_numpy(order), ref)
    np.testing.assert_array_equal(xp.to_numpy(sk), keys[ref])
    np.testing.assert_array_equal(xp.to_numpy(sv), vals[ref])


def test_demo_with_cupy_chunks_equals_the_numpy_backend(cuda_client, shared_dir, capsys):
    path = str(shared_dir / "data" / "bunny.ply")
    assert main(["demo", "--json", "--points", path]) == 0
    ref = json.loads(capsys.readouterr().out)
    drop = NOT_RESULTS
    want = {k: v for k, v in ref.items() if k not in drop}
    got = dask_demo.pipeline("dask", points=path, chunks=8000, chunk_backend="cupy")
    assert {k: v for k, v in got.items() if k not in drop} == want
    # submitted as one graph (benchmarks/dask.py's row without waits): the box on the
    # worker, each occupancy task synchronizing the device; in 5 chunks and in one
    for chunks in (8000, 40000):
        lean = dask_demo.pipeline("dask", points=path, chunks=chunks, chunk_backend="cupy",
                                  staged=False)
        assert {k: v for k, v in lean.items() if k not in drop} == want, chunks


def test_demo_command_line_on_a_local_cuda_cluster(capsys):
    assert main(["demo", "--backend", "dask", "--chunk-backend", "cupy", "--n", "100000",
                 "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["points"] == 100000 and all(res["checks"].values())


def test_cupy_chunks_reductions_scans_and_fuse_equal_numpy(cuda_client, cp):
    """Every reduction and scan of CuPy chunks (xstride's kernels per chunk, dask's tree)
    equals the NumPy backend: integers, bools and indices exactly, floating results (the
    mean of integers too) within 1e-12; a fused function runs per CuPy block."""
    rng = np.random.default_rng(11)
    ints = rng.integers(-3, 4, (300, 7)).astype(np.int32)
    floats = rng.standard_normal((300, 7))
    floats[[5, 140, 141], [0, 3, 3]] = np.nan
    for chunks in ((64, 7), ((100, 0, 200), (3, 4))):
        for a in (ints, floats):
            with xp.use_backend("dask", chunks=chunks, chunk_backend="cupy"):
                x = xp.asarray(a)
            assert isinstance(x._meta, cp.ndarray)
            for name in ("sum", "all", "any", "mean", "var", "std", "argmin", "argmax",
                         "cumulative_sum"):
                for axis in (None, 0, 1):
                    if name == "cumulative_sum" and axis is None:
                        continue
                    got = getattr(xp, name)(x, axis=axis)
                    assert isinstance(got._meta, cp.ndarray)
                    want = getattr(xp, name)(a, axis=axis)
                    out = xp.to_numpy(got)
                    assert out.dtype == want.dtype
                    # floating results (sums, means, var/std of ints and floats alike)
                    # round per partial sum in another order than NumPy's: within a
                    # bound; integers, bools and indices exactly (docs/dask.md)
                    if np.issubdtype(out.dtype, np.floating):
                        np.testing.assert_allclose(out, want, rtol=1e-12, atol=1e-12)
                    else:
                        np.testing.assert_array_equal(out, want)

    def step(x, v, dt):
        return x + v * dt

    fused = xp.fuse(step)
    with xp.use_backend("dask", chunks=(64, 7), chunk_backend="cupy"):
        x, v = xp.asarray(floats), xp.asarray(ints)
    got = fused(x, v, 0.5)
    assert got.name.startswith("xstride-fuse-step") and isinstance(got._meta, cp.ndarray)
    np.testing.assert_array_equal(xp.to_numpy(got), step(floats, ints, 0.5))


def test_cupy_chunks_linalg_per_matrix_and_the_standard_fixes(cuda_client, cp):
    """The conformance fixes of the dask backend with CuPy chunks: per-matrix linear
    algebra runs CuPy's function on each CuPy block (results stay CuPy chunks), the
    creation and indexing fixes keep the chunk backend."""
    rng = np.random.default_rng(11)
    a = rng.standard_normal((3, 4, 4))
    spd = a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4)
    b = rng.standard_normal((3, 4, 2))
    with xp.use_backend("dask", chunks=(1, -1, -1), chunk_backend="cupy"):
        x, xb = xp.asarray(spd), xp.asarray(b)
        eye = xp.eye(3, 5, k=1, chunks=2)
        lin = xp.linspace(0.1, 0.7, 13, chunks=4)
    for name, got, want in [
        ("cholesky", xp.linalg.cholesky(x), np.linalg.cholesky(spd)),
        ("inv", xp.linalg.inv(x), np.linalg.inv(spd)),
        ("det", xp.linalg.det(x), np.linalg.det(spd)),
        ("eigvalsh", xp.linalg.eigvalsh(x), np.linalg.eigvalsh(spd)),
        ("svdvals", xp.linalg.svdvals(x), np.linalg.svd(spd, compute_uv=False)),
        ("solve", xp.linalg.solve(x, xb), np.linalg.solve(spd, b)),
        ("qr-r", abs(xp.linalg.qr(x, mode="complete").R), abs(np.linalg.qr(spd).R)),
    ]:
        assert isinstance(got._meta, cp.ndarray), name
        np.testing.assert_allclose(xp.to_numpy(got), want, rtol=1e-9, atol=1e-9,
                                   err_msg=name)
    assert isinstance(eye._meta, cp.ndarray) and isinstance(lin._meta, cp.ndarray)
    np.testing.assert_array_equal(xp.to_numpy(eye), np.eye(3, 5, k=1))
    assert xp.to_numpy(lin)[-1] == 0.7
    idx = xp.argsort(xb, axis=1)
    got = xp.take_along_axis(xb, idx, axis=1)
    assert isinstance(got._meta, cp.ndarray)
    np.testing.assert_array_equal(xp.to_numpy(got), np.sort(b, axis=1))
