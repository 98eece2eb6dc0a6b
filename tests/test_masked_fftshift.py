"""``fft.fftshift`` and ``fft.ifftshift`` of ``numpy.ma`` masked arrays keep the mask,
shifted with the data, on the NumPy backend as on dask (NumPy's rolled the data alone)."""

import dask.array as da
import numpy as np
import pytest

import xstride as xp

X = np.ma.masked_array(np.arange(15.0).reshape(3, 5),
                       mask=np.arange(15).reshape(3, 5) % 4 == 1)


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("axes", [None, 0, 1, -1, (0, 1), (1,)])
def test_shift_of_masked_keeps_the_mask_as_on_dask(name, axes):
    f = getattr(xp.fft, name)
    got = f(X, axes=axes)
    want = f(da.from_array(X, chunks=2, asarray=False), axes=axes).compute()
    assert isinstance(got, np.ma.MaskedArray)
    assert got.mask.tolist() == want.mask.tolist()
    assert got.data.tolist() == want.data.tolist()
    plain = f(X.data, axes=axes)   # the data shifted as a plain array's
    assert got.data.tolist() == plain.tolist()
    assert got.mask.tolist() == f(X.mask, axes=axes).tolist()


def test_shift_of_masked_0d_keeps_the_mask():
    x = np.ma.masked_array(3.0, mask=True)
    got = xp.fft.fftshift(x)
    assert isinstance(got, np.ma.MaskedArray) and got.mask and got is not x
