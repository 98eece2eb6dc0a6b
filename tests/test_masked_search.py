"""``searchsorted`` of ``numpy.ma`` masked arguments, NumPy backend and dask arrays of
masked chunks: a masked ``x1`` is a ``TypeError`` naming it (its data under the mask
was searched), a masked ``x2``'s indices keep its mask (they were given unmasked, of
the data under it)."""

import warnings

import dask.array as da
import numpy as np
import pytest

import xstride as xp

X1 = np.array([1.0, 3, 5, 7, 9])
X2 = np.ma.masked_array([[2.0, 6, 8], [0, 9, 4]], mask=[[0, 1, 0], [1, 0, 0]])


def _on(v, chunks):
    return v if chunks is None else da.from_array(v, chunks=chunks, asarray=False)


@pytest.mark.parametrize("chunks", [None, 1, 2])
@pytest.mark.parametrize("side", ["left", "right"])
def test_masked_x2_indices_keep_its_mask(chunks, side):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = xp.searchsorted(_on(X1, chunks), _on(X2, chunks), side=side)
        if chunks is not None:
            got = got.compute()
    assert isinstance(got, np.ma.MaskedArray)
    assert got.mask.tolist() == X2.mask.tolist()
    want = np.searchsorted(X1, X2.data, side=side)
    assert got.filled(-1).tolist() == np.where(X2.mask, -1, want).tolist()


@pytest.mark.parametrize("chunks", [None, 2])
@pytest.mark.parametrize("x2", [X2, X2.data, 4.0])
def test_masked_x1_refused_naming_it(chunks, x2):
    x1 = np.ma.masked_array(X1, mask=[0, 0, 1, 0, 0])
    remedy = r"x1\.compressed\(\)" if chunks is None else r"dask\.array\.ma\.filled\(x1, v\)"
    with pytest.raises(TypeError, match=rf"searchsorted: argument 'x1' .*without a mask.*{remedy}"):
        xp.searchsorted(_on(x1, chunks), x2 if np.isscalar(x2) else _on(x2, chunks))
