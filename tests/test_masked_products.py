"""``matmul``, ``vecdot`` and ``tensordot`` (and their ``linalg`` names) refuse a
``numpy.ma`` masked operand with a ``TypeError`` naming it, on the NumPy backend and
on dask arrays of masked chunks: none honoured the masks (NumPy's matmul failed in its
mask handling, its tensordot summed the masked data unmasked, dask's masks depended on
the chunks)."""

import dask.array as da
import numpy as np
import pytest

import xstride as xp

M = np.ma.masked_array(np.arange(12.0).reshape(3, 4), mask=np.arange(12).reshape(3, 4) == 5)
P = np.arange(12.0).reshape(4, 3)
V = np.arange(4.0)

CALLS = {
    "matmul": lambda a, b: xp.matmul(a, b),
    "linalg.matmul": lambda a, b: xp.linalg.matmul(a, b),
    "vecdot": lambda a, b: xp.vecdot(a, b),
    "linalg.vecdot": lambda a, b: xp.linalg.vecdot(a, b),
    "tensordot": lambda a, b: xp.tensordot(a, b, axes=1),
    "linalg.tensordot": lambda a, b: xp.linalg.tensordot(a, b, axes=1),
}


def _second(name):
    return V if "vecdot" in name else P


@pytest.mark.parametrize("chunks", [None, 1, 2])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_masked_x1_refused_naming_it(name, chunks):
    a, b = M, _second(name)
    if chunks is not None:
        a, b = da.from_array(a, chunks=chunks, asarray=False), da.from_array(b, chunks=chunks)
    remedy = r"x1\.filled\(0\)" if chunks is None else r"dask.array.ma.filled\(x1, 0\)"
    func = name.rsplit(".", 1)[-1]
    with pytest.raises(TypeError, match=rf"{func}: argument 'x1' .*without a mask.*{remedy}"):
        CALLS[name](a, b)


@pytest.mark.parametrize("chunks", [None, 2])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_masked_x2_refused_naming_it(name, chunks):
    a = np.ones((2, 4)) if "vecdot" not in name else np.ones((3, 4))
    b = M if "vecdot" in name else np.ma.masked_array(P, mask=P == 4)
    if chunks is not None:
        a, b = da.from_array(a, chunks=chunks), da.from_array(b, chunks=chunks, asarray=False)
    func = name.rsplit(".", 1)[-1]
    with pytest.raises(TypeError, match=rf"{func}: argument 'x2' .*without a mask"):
        CALLS[name](a, b)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_plain_and_filled_operands_still_multiply(name):
    b = _second(name)
    want = CALLS[name](M.filled(0), b)
    assert type(want) is np.ndarray
    got = CALLS[name](da.from_array(M.filled(0), chunks=2), da.from_array(b, chunks=2))
    np.testing.assert_array_equal(got.compute(), want)


def test_the_numpy_products_keep_the_standards_signatures():
    """The masked-operand wrappers took ``**kwargs``, and ``vecdot``'s ``axis`` went
    missing from its signature (the conformance suite's signature test failed)."""
    import inspect

    for f in (xp.vecdot, xp.linalg.vecdot):
        params = inspect.signature(f).parameters
        assert list(params) == ["x1", "x2", "axis"]
        assert params["axis"].kind is inspect.Parameter.KEYWORD_ONLY
        assert params["axis"].default == -1
    for f in (xp.matmul, xp.linalg.matmul):
        assert list(inspect.signature(f).parameters) == ["x1", "x2"]


@pytest.mark.parametrize("chunks", [None, 1, 2])
def test_a_masked_matrix_power_is_refused_naming_x(chunks):
    """A new-user probe: ``matrix_power`` of a masked matrix used the data under the
    mask and returned it unmasked (``[[1, --], [3, 4]]`` squared held 1 + 100 * 3), on
    both backends; a power is matrix products, refused as ``matmul`` refuses them."""
    m = np.ma.masked_array([[1.0, 100.0], [3.0, 4.0]], mask=[[0, 1], [0, 0]])
    a = m if chunks is None else da.from_array(m, chunks=chunks, asarray=False)
    remedy = r"x\.filled\(0\)" if chunks is None else r"dask.array.ma.filled\(x, 0\)"
    backend = "numpy" if chunks is None else "dask"
    with xp.use_backend(backend):
        with pytest.raises(TypeError, match=rf"^matrix_power: argument 'x' .*without a "
                                            rf"mask.*{remedy}"):
            xp.linalg.matrix_power(a, 2)
        filled = m.filled(0) if chunks is None else da.ma.filled(a, 0)
        got = xp.to_numpy(xp.linalg.matrix_power(filled, 2))
    np.testing.assert_array_equal(got, np.linalg.matrix_power(m.filled(0), 2))
