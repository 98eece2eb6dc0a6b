"""Chunks of no element on the dask backend: every namespace call merges them away
from its dask arguments (``dask_fixes.without_empty_chunks``), since dask computes wrong
answers over them (docs/dask.md, "Chunks of no element")."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402


@pytest.fixture(autouse=True)
def _numpy_after():
    yield
    xp.set_backend("dask")     # the dask backend's default options back (tests that follow
    xp.set_backend("numpy")    # make dask arrays under NumPy, Philox(backend="dask"), read them)


def _selected():
    """The new user's array: a boolean selection whose chunk sizes were computed."""
    xp.set_backend("dask", chunks=4)
    x = xp.arange(9)
    y = x[(x < 3) | (x > 7)]
    y.compute_chunk_sizes()
    return y


def test_the_reported_calls_give_numpy_s_answers():
    y = _selected()
    assert y.chunks == ((3, 0, 1),)
    a = np.array([0, 1, 2, 8])
    assert xp.to_numpy(xp.flip(y)).tolist() == [8, 2, 1, 0]
    assert xp.to_numpy(xp.expand_dims(y, axis=0)).tolist() == [a.tolist()]
    one = da.from_array(np.array([5]), chunks=((1, 0),))
    assert xp.to_numpy(xp.add(one, 1)).tolist() == [6]
    assert xp.to_numpy(xp.where(xp.greater(one, 1), one, 0)).tolist() == [5]
    assert xp.to_numpy(xp.clip(one, 1, 9)).tolist() == [5]


_CALLS = {
    "flip": lambda v: xp.flip(v),
    "add": lambda v: xp.add(v, 1),
    "multiply": lambda v: xp.multiply(v, v),
    "where": lambda v: xp.where(xp.greater(v, 1), v, 0),
    "clip": lambda v: xp.clip(v, 1, 5),
    "mean": lambda v: xp.mean(xp.astype(v, xp.float64), axis=0),
    "std": lambda v: xp.std(xp.astype(v, xp.float64)),
    "var": lambda v: xp.var(xp.astype(v, xp.float64)),
    "expand_dims": lambda v: xp.expand_dims(v, axis=0),
    "reshape": lambda v: xp.reshape(v, (-1, 1)),
    "nonzero": lambda v: xp.nonzero(v)[0],
    "matmul": lambda v: xp.matmul(v, v),
    "unique_values": lambda v: xp.unique_values(v),
    "repeat": lambda v: xp.repeat(v, 2),
    "concat": lambda v: xp.concat([v, v]),
    "stack": lambda v: xp.stack((v, v)),
    "cumulative_sum": lambda v: xp.cumulative_sum(v),
    "sort": lambda v: xp.sort(v),
}


@pytest.mark.parametrize("data, chunks", [
    ([0, 1, 2, 8], ((3, 0, 1),)),
    ([5], ((1, 0),)),
    ([8], ((0, 0, 1),)),
    ([1, 2], ((2, 0, 0),)),
    ([3, 1, 2], ((0, 2, 0, 1),)),
])
@pytest.mark.parametrize("name", list(_CALLS))
def test_calls_over_chunks_of_no_element_match_numpy(name, data, chunks):
    a = np.array(data, dtype=np.int64)
    xp.set_backend("dask")
    x = da.from_array(a, chunks=chunks)
    got = xp.to_numpy(_CALLS[name](x))
    xp.set_backend("numpy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _CALLS[name](a)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want)


def test_the_merge_keeps_known_chunks_and_drops_only_empty_ones():
    from xstride._backends.dask_fixes import without_empty_chunks

    x = da.from_array(np.arange(12).reshape(3, 4), chunks=((2, 0, 1), (4,)))
    e = da.from_array(np.zeros((0, 2)), chunks=((0, 0), (2,)))
    plain = da.from_array(np.arange(4), chunks=2)
    args, kwargs = without_empty_chunks("concat", (x, [plain, e], 3), {"other": x})
    assert args[0].chunks == ((2, 1), (4,)) and kwargs["other"].chunks == ((2, 1), (4,))
    assert args[1][0] is plain                        # nothing to merge: the same array
    assert args[1][1].chunks == ((0,), (2,)) and args[2] == 3
    u = x[x[:, 0] > 0]                                # unknown chunk sizes stay as they are
    assert without_empty_chunks("sum", (u,), {})[0][0] is u
    with xp.use_backend("dask"):                      # asarray of a dask array merges too
        assert xp.asarray(x).chunks == ((2, 1), (4,))


# ---------------------------------------------------------------- xstride's extensions
_POS = np.random.default_rng(7).random((10, 3))
_KEYS = np.array([5, 3, 9, 1, 1, 7, 2, 8, 0, 4], dtype=np.uint64)
_EXTENSIONS = {
    "morton_keys": (lambda p: xp.algorithms.morton_keys(p, [0, 0, 0], [1, 1, 1], 5), _POS),
    "morton_encode": (lambda c: xp.algorithms.morton_encode(c, c[::-1], levels=5),
                      np.arange(10, dtype=np.uint32)),
    "morton_decode": (lambda k: xp.algorithms.morton_decode(k, 3), _KEYS * 12345),
    "sort_by_key": (lambda k: xp.algorithms.sort_by_key(k, xp.astype(k, xp.float64)),
                    _KEYS),
    "philox_uniform": (lambda c: xp.rng.philox_uniform(1, c, c), _KEYS),
    "philox_normal2": (lambda c: xp.rng.philox_normal2(1, 2, c), _KEYS),
    "philox4x32_10": (lambda c: xp.rng.philox4x32_10(
        xp.stack([xp.astype(c, xp.uint32)] * 4, axis=1), 1, xp.astype(c, xp.uint32)), _KEYS),
    "fuse": (lambda v: xp.fuse(lambda a, b: a * 2 + b)(v, v), np.arange(10.0)),
}


def _both(fn, data, chunks):
    xp.set_backend("dask")
    got = fn(da.from_array(data, chunks=chunks + tuple((n,) for n in data.shape[1:])))
    got = got if isinstance(got, tuple) else (got,)
    xp.set_backend("numpy")
    want = fn(data)
    want = want if isinstance(want, tuple) else (want,)
    return got, want


@pytest.mark.parametrize("chunks", [((3, 0, 7),), ((0, 10),), ((0, 0, 10, 0),),
                                    ((1, 0, 0, 9),)])
@pytest.mark.parametrize("name", list(_EXTENSIONS))
def test_extensions_over_chunks_of_no_element_match_numpy(name, chunks):
    fn, data = _EXTENSIONS[name]
    got, want = _both(fn, data, chunks)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert 0 not in g.chunks[0]                      # merged away, not passed on
        g = xp.to_numpy(g)
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("chunks", [((0, 0),), ((0, 0, 0),)])
@pytest.mark.parametrize("name", ["sort_by_key", "morton_keys", "philox_normal2",
                                  "morton_decode"])
def test_extensions_of_no_element_in_several_chunks(name, chunks):
    """sort_by_key's sample sort raised IndexError: one partition per chunk, but the
    splitters of no sample named one partition only."""
    fn, data = _EXTENSIONS[name]
    got, want = _both(fn, data[:0], chunks)
    for g, w in zip(got, want):
        g = xp.to_numpy(g)
        assert g.shape == w.shape == (0,) + w.shape[1:] and g.dtype == w.dtype


@pytest.mark.parametrize("shape, chunks", [((2, 0), ((1, 1), (0,))), ((0, 5), ((0,), (2, 3))),
                                           ((3, 0, 2), ((1, 2), (0,), (1, 1)))])
def test_morton_decode_of_no_element_in_several_chunks_of_another_axis(shape, chunks):
    """Keys of no element whose other axes have several chunks: the NumPy backend's
    empty cells (dask's reshape of them raised "reduce() of empty iterable")."""
    keys = np.zeros(shape, dtype=np.uint64)
    got = xp.algorithms.morton_decode(da.from_array(keys, chunks=chunks), 3)
    want = xp.algorithms.morton_decode(keys, 3)
    g = xp.to_numpy(got)
    assert got.shape == g.shape == want.shape == shape + (3,) and g.dtype == want.dtype


@pytest.mark.parametrize("chunks", [((2, 0, 3), (2, 0)), ((2, 3, 0), (1, 0, 1)),
                                    ((0, 5), (0, 2)), ((3, 2), (2, 0, 0))])
@pytest.mark.parametrize("dtype", [np.uint64, np.int64])
def test_morton_range_checks_over_chunks_of_no_element_on_two_axes(chunks, dtype):
    """morton_decode and morton_encode of (5, 2) arrays with chunks of no element on
    both axes: their range checks (dask's own ``max()``/``min()``) raised dask's
    "all the input array dimensions except for the concatenation axis must match",
    and a decode past them "cannot reshape array of size 2 into shape (1,)"."""
    keys = np.arange(10, dtype=dtype).reshape(5, 2)
    for nd in (2, 3):
        got = xp.to_numpy(xp.algorithms.morton_decode(da.from_array(keys, chunks=chunks), nd))
        np.testing.assert_array_equal(got, xp.algorithms.morton_decode(keys, nd))
    got = xp.algorithms.morton_encode(da.from_array(keys, chunks=chunks), 1,
                                      da.from_array(keys, chunks=chunks))
    np.testing.assert_array_equal(xp.to_numpy(got), xp.algorithms.morton_encode(keys, 1, keys))


def test_sort_by_key_after_a_selection_and_a_concatenation():
    xp.set_backend("dask", chunks=4)
    x = xp.arange(12, dtype=xp.uint64)
    y = x[(x < 3) | (x > 8)]
    y.compute_chunk_sizes()
    assert y.chunks == ((3, 0, 3),)
    c = da.concatenate([x[10:], y])                    # dask keeps y's chunk of none
    assert c.chunks == ((2, 3, 0, 3),)
    sk, order = xp.algorithms.sort_by_key(c)
    assert xp.to_numpy(sk).tolist() == [0, 1, 2, 9, 10, 10, 11, 11]
    assert xp.to_numpy(order).tolist() == [2, 3, 4, 5, 0, 6, 1, 7]
    u = xp.rng.philox_uniform(3, 4, y)
    assert 0 not in u.chunks[0]
    np.testing.assert_array_equal(xp.to_numpy(u), xp.rng.philox_uniform(
        3, 4, np.array([0, 1, 2, 9, 10, 11], dtype=np.uint64)))


def test_sort_of_one_key_value_has_no_empty_partitions():
    xp.set_backend("dask")
    k = da.from_array(np.ones(10, np.uint64), chunks=3)
    sk, order = xp.algorithms.sort_by_key(k)
    assert sk.chunks == order.chunks == ((10,),)
    assert xp.to_numpy(order).tolist() == list(range(10))


def test_merge_of_an_array_of_no_element_keeps_its_chunk_type():
    from xstride._chunked.chunks import without_empty_chunks

    a = da.from_array(np.zeros(0, np.uint64), chunks=((0, 0),))
    m = without_empty_chunks(a)
    assert m.chunks == ((0,),) and m.dtype == np.uint64
    assert type(m._meta) is np.ndarray and m.compute().shape == (0,)
    b = da.from_array(np.zeros((0, 2)), chunks=((0, 0), (1, 1)))
    assert without_empty_chunks(b).chunks == ((0,), (2,))      # no element: one block
    c = da.from_array(np.zeros((2, 0), np.float32), chunks=((1, 1), (0,)))
    m = without_empty_chunks(c)
    assert m.chunks == ((2,), (0,)) and m.dtype == np.float32 and type(m._meta) is np.ndarray
    one = da.from_array(np.zeros((2, 0)), chunks=-1)
    assert without_empty_chunks(one) is one


_NO_ELEMENT = {
    "reshape (0,)": lambda v: xp.reshape(v, (0,)),
    "reshape (0, 2)": lambda v: xp.reshape(v, (0, 2)),
    "reshape (-1,)": lambda v: xp.reshape(v, (-1,)),
    "unique_values": lambda v: xp.unique_values(v),
    "unique_counts": lambda v: xp.unique_counts(v),
    "unique_inverse": lambda v: xp.unique_inverse(v),
    "unique_all": lambda v: xp.unique_all(v),
    "nonzero": lambda v: xp.nonzero(v),
    "roll": lambda v: xp.roll(v, 1),
    "roll axis 0": lambda v: xp.roll(v, 1, axis=0),
    "repeat": lambda v: xp.repeat(v, 3),
    "repeat axis 0": lambda v: xp.repeat(v, 3, axis=0),
    "repeat axis 1": lambda v: xp.repeat(v, 3, axis=1),
    "concat axis None": lambda v: xp.concat([v, v], axis=None),
    "searchsorted": lambda v: xp.searchsorted(xp.reshape(v, (-1,)), xp.asarray([1.0, 2.0])),
    "cumulative_sum": lambda v: xp.cumulative_sum(xp.reshape(v, (-1,))),
    "linalg.outer": lambda v: xp.linalg.outer(xp.reshape(v, (-1,)), xp.reshape(v, (-1,))),
    "vector_norm": lambda v: xp.linalg.vector_norm(v),
    "meshgrid": lambda v: xp.meshgrid(xp.reshape(v, (-1,)), xp.reshape(v, (-1,))),
}


@pytest.mark.parametrize("shape, chunks", [((2, 0), ((1, 1), (0,))),
                                           ((0, 3), ((0,), (1, 2))),
                                           ((0, 3), ((0, 0), (3,)))])
@pytest.mark.parametrize("name", list(_NO_ELEMENT))
def test_arrays_of_no_element_in_several_blocks_match_numpy(name, shape, chunks):
    """An array of no element split into blocks along another axis: dask's reshape (also
    inside unique_*, nonzero, roll, repeat, concat(axis=None), vector_norm) raised
    "reduce() of empty iterable" or "only supports operations that merge or split
    existing dimensions evenly", and dask's repeat along an empty axis "Need array(s) to
    concatenate"; NumPy's answers are arrays of no element."""
    a = np.zeros(shape)
    xp.set_backend("dask")
    got = _NO_ELEMENT[name](da.from_array(a, chunks=chunks))
    xp.set_backend("numpy")
    want = _NO_ELEMENT[name](a)
    got, want = ((got, want) if isinstance(want, (tuple, list)) else ((got,), (want,)))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        w = np.asarray(w)
        g = xp.to_numpy(g)
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


_FUSED = {
    "elementwise": lambda a, b: a * 2 + b,
    "a view step": lambda a, b: (a + b)[1:],
    "a reduction": lambda a, b: xp.sum(a * b),
    "two outputs": lambda a, b: (a + b, a - b),
}


@pytest.mark.parametrize("name", list(_FUSED))
def test_fuse_merges_chunks_of_no_element_of_its_arguments(name):
    """A length-1 array chunked ``(1, 0)`` against one chunked ``(3, 2)``: dask's own
    ``x + y`` (the unfused run) raised "Chunks do not add up"; every path of ``xp.fuse``
    gets its arguments merged, as the namespace's calls do."""
    fn = _FUSED[name]
    one = np.array([1.5])
    five = np.arange(5.0)
    a = da.from_array(one, chunks=((1, 0),))
    b = da.from_array(five, chunks=((3, 2),))
    xp.set_backend("dask")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xp.FusionWarning)
        got = xp.fuse(fn)(a, b)
        kw = xp.fuse(lambda a, b=None: a + b)(a, b=b)    # a keyword: bound to its place
    got = got if isinstance(got, tuple) else (got,)
    xp.set_backend("numpy")
    want = fn(one, five)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(xp.to_numpy(g), w)
    np.testing.assert_array_equal(xp.to_numpy(kw), one + five)


_BYTE_SIZED = {
    "zeros": lambda s, **kw: xp.zeros(s, **kw),
    "ones": lambda s, **kw: xp.ones(s, dtype=xp.int32, **kw),
    "empty": lambda s, **kw: xp.empty(s, **kw),
    "full": lambda s, **kw: xp.full(s, 2.5, **kw),
    "asarray": lambda s, **kw: xp.asarray(np.zeros(s), **kw),
    "eye": lambda s, **kw: xp.eye(*s, **kw) if len(s) == 2 else xp.zeros(s, **kw),
    "zeros_like": lambda s, **kw: xp.zeros_like(da.zeros(s, chunks=-1), **kw),
    "ones_like": lambda s, **kw: xp.ones_like(da.zeros(s, chunks=-1), **kw),
    "empty_like": lambda s, **kw: xp.empty_like(da.zeros(s, chunks=-1), dtype=xp.uint8, **kw),
    "full_like": lambda s, **kw: xp.full_like(da.zeros(s, chunks=-1), 3, **kw),
}


@pytest.mark.parametrize("shape", [(0, 200), (200, 0), (3, 0, 500), (0, 0)])
@pytest.mark.parametrize("given", ["call", "option", "per axis", "auto"])
@pytest.mark.parametrize("name", list(_BYTE_SIZED))
def test_creation_of_no_element_with_byte_size_chunks(name, given, shape):
    """dask's auto chunking of a byte size divided by the empty axis' block length:
    ``zeros((0, 200), chunks="1 KiB")`` raised ``ZeroDivisionError``; NumPy's answer is an
    empty array, and the other axes are chunked by the byte size."""
    fn = _BYTE_SIZED[name]
    if given == "option":
        xp.set_backend("dask", chunks="1 KiB")
        got = fn(shape)                # (*_like follow their array unless given chunks=)
    elif given == "auto":              # dask's "auto" failed too for (3, 0, 500)
        xp.set_backend("dask")
        got = fn(shape) if not name.endswith("_like") else fn(shape, chunks="auto")
    else:
        xp.set_backend("dask")
        got = fn(shape, chunks="1 KiB" if given == "call" else ("1 KiB",) * len(shape))
    assert got.shape == shape and got.numblocks[shape.index(0)] == 1
    g = xp.to_numpy(got)
    xp.set_backend("numpy")
    want = np.asarray(fn(shape))
    assert g.shape == want.shape == shape and g.dtype == want.dtype
    if shape == (3, 0, 500) and given != "auto" and not (given == "option" and "_like" in name):
        assert max(got.chunks[2]) < 500                     # the byte size still applies


def test_to_device_of_no_element_under_a_byte_size_option():
    xp.set_backend("dask", chunks="1 KiB")
    got = xp.to_device(np.zeros((0, 200)), "dask")
    assert got.shape == (0, 200) and xp.to_numpy(got).shape == (0, 200)


@pytest.mark.parametrize("shape", [0, (0, 3)])
def test_philox_integers_of_no_element_at_the_last_counter(shape):
    """A draw of no element from a generator whose 2**64 counters are all used is an
    empty array, as on NumPy (its chunk made the counter 2**64 as a uint64 and raised
    "Python int too large to convert to C long")."""
    want = xp.rng.Philox(1, backend="numpy").advance(2**64).integers(5, shape=shape)
    with xp.use_backend("dask", chunks=2):
        g = xp.rng.Philox(1).advance(2**64)
        got = g.integers(5, shape=shape)
    assert isinstance(got, da.Array) and got.dtype == want.dtype
    np.testing.assert_array_equal(xp.to_numpy(got), want)
    assert g.counter == 2**64


_HUGE_EMPTY = {
    "zeros": lambda **kw: xp.zeros((0, 2**61, 3), dtype=xp.int8, **kw),
    "ones": lambda **kw: xp.ones((2**60 - 1, 0), **kw),
    "empty": lambda **kw: xp.empty((0, 2**61, 3), dtype=xp.int8, **kw),
    "full": lambda **kw: xp.full((3, 0, 2**40), 7, dtype=xp.int16, **kw),
    "eye": lambda **kw: xp.eye(0, (2**63 - 1) // 8, **kw),
    "eye rows": lambda **kw: xp.eye((2**63 - 1) // 8, 0, dtype=xp.float32, **kw),
}


@pytest.mark.parametrize("given", [None, "auto", 2, "1 KiB", (2, "auto", -1)])
@pytest.mark.parametrize("name", list(_HUGE_EMPTY))
def test_creation_of_no_element_with_a_huge_extent_is_made(name, given):
    """An empty array whose non-zero extents fit NumPy's rule (``checked_extents``):
    dask's block lengths of ``zeros((0, 2**61, 3), dtype=int8)`` and ``eye(0, (2**63 -
    1) // 8)`` (a tuple of 2**34 lengths and more) raised a bare ``MemoryError``; NumPy
    makes them. They are one block on every axis, as NumPy's in shape, dtype and values."""
    fn = _HUGE_EMPTY[name]
    if isinstance(given, tuple) and (name.startswith("eye") or name == "ones"):
        given = given[:2]
    xp.set_backend("dask")
    got = fn() if given is None else fn(chunks=given)
    with xp.use_backend("dask", chunks=given or "auto"):
        opt = fn()
    xp.set_backend("numpy")
    want = fn()
    for a in (got, opt):
        assert isinstance(a, da.Array) and a.shape == want.shape and a.dtype == want.dtype
        assert a.numblocks == (1,) * a.ndim
        g = xp.to_numpy(a)
        assert g.shape == want.shape and g.dtype == want.dtype
        np.testing.assert_array_equal(g, want)


_LIKE_EMPTY = {
    "zeros_like": lambda x, **kw: xp.zeros_like(x, **kw),
    "ones_like": lambda x, **kw: xp.ones_like(x, dtype=xp.int32, **kw),
    "empty_like": lambda x, **kw: xp.empty_like(x, dtype=xp.uint8, **kw),
    "full_like": lambda x, **kw: xp.full_like(x, 3, **kw),
}


@pytest.mark.parametrize("shape", [(0, 2**40), (0, 200), (3, 0, 500), (0, 2**59, 3)])
@pytest.mark.parametrize("option", ["auto", 2, "1 KiB"])
@pytest.mark.parametrize("name", list(_LIKE_EMPTY))
def test_like_of_another_shape_of_no_element_is_made(name, option, shape):
    """dask's ``*_like`` with a ``shape=`` of no element (``zeros_like(x, shape=(0,
    2**40))``) chunked it by ``"auto"`` and raised ``ZeroDivisionError``: the chunks of
    no element fix of ``zeros`` was not applied on that path. As NumPy's in shape, dtype
    and values, the empty axis one block."""
    fn = _LIKE_EMPTY[name]
    with xp.use_backend("dask", chunks=option):
        x = xp.ones((2, 3), dtype=xp.float32)
        got = fn(x, shape=shape)
    want = fn(np.ones((2, 3), dtype=np.float32), shape=shape)
    assert isinstance(got, da.Array) and got.shape == want.shape and got.dtype == want.dtype
    assert got.numblocks[shape.index(0)] == 1
    g = xp.to_numpy(got)
    assert g.shape == want.shape and g.dtype == want.dtype
    np.testing.assert_array_equal(g, want)


@pytest.mark.parametrize("kind", ["uniform", "normal2"])
def test_philox_signed_arguments_with_chunks_of_no_element(kind):
    """Signed dask arguments whose chunks include ones of no element (``from_array``
    with a 0 in its chunks): their range check sees their values (dask's ``(a < 0)``
    over such chunks said True for ``[5]``: "has negative values"), and the draw is the
    NumPy backend's."""
    fn = getattr(xp.rng, f"philox_{kind}")
    one = da.from_array(np.array([5], np.int64), chunks=((0, 1),))
    many = da.from_array(np.arange(7, dtype=np.int64).reshape(7, 1, 1),
                         chunks=((2, 0, 5), (1,), (0, 1, 0)))
    for arg, ref in ((one, np.array([5], np.uint64)),
                     (many, np.arange(7, dtype=np.uint64).reshape(7, 1, 1))):
        with xp.use_backend("dask"):
            got = fn(0, arg, 3)
        want = fn(0, ref, 3)
        got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
        for g, w in zip(got, want):
            np.testing.assert_array_equal(xp.to_numpy(g), w)
    negative = da.from_array(np.array([5, -1], np.int64), chunks=((0, 2),))
    with pytest.raises(ValueError, match="argument 'stream' has negative values"):
        with xp.use_backend("dask"):
            fn(0, negative, 3)


@pytest.mark.parametrize("option, shape", [
    (((2, 0, 5), (3,)), (7, 3)),
    (((0, 7, 0), (3,)), (7, 3)),
    (((1, 0, 1), (2,), (2,)), (2, 2, 2)),
    (3, (7, 3)),
])
@pytest.mark.parametrize("draw", ["uniform", "normal", "integers"])
def test_philox_draws_have_the_rows_of_zeros_also_of_no_element(option, shape, draw):
    """The generator's draws of 2 or more axes had their blocks of no row merged away by
    dask's ``reshape`` of the stream (``((2, 5), (3,))`` under ``((2, 0, 5), (3,))``),
    where 1-D draws kept them: docs/dask.md gives them the rows of ``xp.zeros``."""
    def call(g):
        return g.integers(5, shape=shape) if draw == "integers" else getattr(g, draw)(shape)

    want = call(xp.rng.Philox(1, backend="numpy"))
    with xp.use_backend("dask", chunks=option):
        got = call(xp.rng.Philox(1))
        assert got.chunks == xp.zeros(shape).chunks
    np.testing.assert_array_equal(xp.to_numpy(got), want)
