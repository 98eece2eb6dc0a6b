"""The dask backend's per-block fixes on CuPy chunks, under dask's default scheduler (no
cluster): the signed zero of the set functions, ``xp.fuse``'s dtype probe (``x ** -1``
of integers), -1 in the ``s`` of the n-D FFTs, ``flip`` of unknown block lengths and
``searchsorted``'s ``sorter`` check, the creation functions' chunks made on the device;
each against the CuPy or NumPy backend."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

pytest.importorskip("dask")

import xstride as xp  # noqa: E402


@pytest.fixture(autouse=True)
def _numpy_after():
    yield
    xp.set_backend("numpy")


def _cupy_chunks(cp, a, chunks):
    with xp.use_backend("dask", chunks=chunks, chunk_backend="cupy"):
        x = xp.asarray(a)
    assert isinstance(x._meta, cp.ndarray)
    return x


@pytest.mark.parametrize("chunks", [1, 2, 5])
def test_unique_values_signs_zero_as_the_first_zero(cp, chunks):
    for a in (np.asarray([0.0, -0.0, 1.0, -0.0, 2.0]), np.asarray([-0.0, 0.0, 1.0, 0.0])):
        got = xp.to_numpy(xp.unique_values(_cupy_chunks(cp, a, chunks)))
        want = np.unique(a)
        np.testing.assert_array_equal(got, want)
        first = a[a == 0][0]
        assert np.signbit(got[got == 0][0]) == np.signbit(first)


def _inverse(x):
    return x ** -1


def test_fuse_of_a_call_the_blocks_take_runs_as_the_unfused_call(cp):
    ints = _cupy_chunks(cp, np.arange(1, 7, dtype=np.int32), 3)
    try:
        want = xp.to_numpy(_inverse(ints))
    except (TypeError, ValueError) as exc:     # refused unfused: refused fused alike
        with pytest.raises(type(exc)):
            xp.to_numpy(xp.fuse(_inverse)(ints))
    else:
        got = xp.to_numpy(xp.fuse(_inverse)(ints))
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    floats = _cupy_chunks(cp, np.arange(1.0, 7.0), 3)
    got = xp.fuse(_inverse)(floats)
    assert isinstance(got._meta, cp.ndarray)
    # CuPy's pow, as the unfused call on CuPy chunks (NumPy's x ** -1 is 1 / x: an ulp
    # apart for 3, 5 and 6)
    want = xp.to_numpy(_inverse(floats))
    np.testing.assert_array_equal(xp.to_numpy(got), want)
    np.testing.assert_allclose(want, np.arange(1.0, 7.0) ** -1, rtol=1e-15)


@pytest.mark.parametrize("name, s", [("fftn", (-1, 4)), ("ifftn", (-1, -1)),
                                     ("rfftn", (-1, -1)), ("irfftn", (3, -1))])
def test_fft_minus_one_in_s_on_cupy_and_cupy_chunks(cp, name, s):
    a = np.arange(6.0).reshape(3, 2) + (0 if name == "rfftn" else 1j)
    want = getattr(np.fft, name)(a, s=s, axes=(0, 1))
    got = getattr(xp.fft, name)(cp.asarray(a), s=s, axes=(0, 1))
    assert got.shape == want.shape
    np.testing.assert_allclose(cp.asnumpy(got), want, rtol=1e-12, atol=1e-9)
    for chunks in (1, 3):
        got = getattr(xp.fft, name)(_cupy_chunks(cp, a, chunks), s=s, axes=(0, 1))
        assert got.shape == want.shape
        np.testing.assert_allclose(xp.to_numpy(got), want, rtol=1e-12, atol=1e-9)


def test_flip_of_unknown_block_lengths(cp):
    a = np.arange(12.0)
    x = _cupy_chunks(cp, a, 12)
    y = x[x > 3]                                  # block length unknown (NaN), one block
    np.testing.assert_array_equal(xp.to_numpy(xp.flip(y)), a[a > 3][::-1])
    x = _cupy_chunks(cp, a, 5)
    y = x[x > 3]                                  # three blocks: their lengths reversed
    with pytest.raises(ValueError, match=r"compute_chunk_sizes"):
        xp.flip(y)


def test_searchsorted_sorter_checked_on_cupy_blocks(cp):
    a = np.asarray([3.0, 1.0, 2.0])
    x1, x2 = _cupy_chunks(cp, a, 2), _cupy_chunks(cp, np.asarray([1.5, 2.5]), 2)
    good = _cupy_chunks(cp, np.argsort(a), 2)
    np.testing.assert_array_equal(xp.to_numpy(xp.searchsorted(x1, x2, sorter=good)),
                                  np.searchsorted(a, [1.5, 2.5], sorter=np.argsort(a)))
    bad = _cupy_chunks(cp, np.asarray([0, 5, 1]), 2)
    with pytest.raises(ValueError, match="argument 'sorter' holds the index 5"):
        xp.to_numpy(xp.searchsorted(x1, x2, sorter=bad))


@pytest.mark.parametrize("args, dtype", [
    ((10,), "uint64"), ((3, 40, 7), None), ((50, -3, -4), "int32"), ((5, 200), "int8"),
    ((0,), "uint64"), ((2**40, 2**40 + 9), None)])
def test_integer_arange_chunks_are_made_on_the_device(cp, args, dtype):
    """``arange`` of ints into an integer dtype on CuPy chunks: each chunk made by
    CuPy's ``arange`` (dask's ``like``), no host chunk copied over (no ``asarray``
    layer in the graph); the NumPy backend's values, the narrow dtypes' included."""
    with xp.use_backend("dask", chunks=4, chunk_backend="cupy"):
        x = xp.arange(*args, dtype=dtype)
    assert isinstance(x._meta, cp.ndarray)
    assert not [name for name in x.dask.layers if name.startswith("asarray")], x.dask.layers
    with xp.use_backend("numpy"):   # (make test-gpu's default backend is CuPy)
        want = xp.arange(*args, dtype=dtype)
    got = x.compute()
    assert isinstance(got, cp.ndarray)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(cp.asnumpy(got), want)


def test_float_arange_on_cupy_chunks_keeps_numpys_values(cp):
    """A float result is made from NumPy's values on the host (``float_arange``) and
    copied: the same bits as the NumPy backend's."""
    with xp.use_backend("dask", chunks=7, chunk_backend="cupy"):
        x = xp.arange(0.1, 5.3, 0.1)
    assert isinstance(x._meta, cp.ndarray)
    got = cp.asnumpy(x.compute())
    with xp.use_backend("numpy"):   # (make test-gpu's default backend is CuPy)
        want = xp.arange(0.1, 5.3, 0.1)
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("name, args, kwargs", [
    ("zeros", ((7, 5),), {}), ("ones", ((7, 5),), {"dtype": "int8"}),
    ("full", ((7, 5), 2.5), {}), ("full", ((9,), 3), {"dtype": "uint16"}),
    ("empty", ((7, 5),), {"dtype": "float32"}), ("zeros", ((0, 3),), {})])
def test_filled_chunks_are_made_on_the_device(cp, name, args, kwargs):
    """``zeros``/``ones``/``full``/``empty`` on CuPy chunks: each chunk one CuPy element
    broadcast (dask's ``meta``, as dask's CuPy backend makes them), no host chunk
    copied over; the NumPy backend's values and dtype, and a chunk's copy writable on
    its own."""
    with xp.use_backend("dask", chunks=3, chunk_backend="cupy"):
        x = getattr(xp, name)(*args, **kwargs)
    assert isinstance(x._meta, cp.ndarray)
    assert not [n for n in x.dask.layers if n.startswith("asarray")], x.dask.layers
    with xp.use_backend("numpy"):   # (make test-gpu's default backend is CuPy)
        want = getattr(xp, name)(*args, **kwargs)
    got = x.compute()
    assert isinstance(got, cp.ndarray) and got.dtype == want.dtype and got.shape == want.shape
    if name != "empty":
        np.testing.assert_array_equal(cp.asnumpy(got), want)
        if x.size:   # a chunk's copy is its own: the next compute gives the values again
            first = (0,) * x.ndim
            block = x.blocks[first].compute().copy()
            block[...] = 7
            again = cp.asnumpy(x.blocks[first].compute())
            np.testing.assert_array_equal(again, want[tuple(slice(0, n) for n in again.shape)])


def test_full_of_a_dask_fill_on_device_chunks(cp):
    with xp.use_backend("dask", chunks=3, chunk_backend="cupy"):
        fill = xp.sum(xp.ones(4))   # a 0-D dask array, 4.0
        x = xp.full((5, 4), fill)
    got = x.compute()
    assert isinstance(got, cp.ndarray)
    np.testing.assert_array_equal(cp.asnumpy(got), np.full((5, 4), 4.0))

