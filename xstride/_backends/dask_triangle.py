"""``tril``/``triu`` of a dask array. dask's build their mask with ``tri(...,
like=x's meta)``, whose ``arange`` of a complex meta cast it to int64: "ComplexWarning:
Casting complex values to real discards the imaginary part" at every call of complex
input (the NumPy backend's warn nothing). Here the mask is made on the real part of
the meta, which only names the chunks' array type (NumPy, ``numpy.ma``, CuPy); the
elements are kept or zeroed by ``where`` as dask's are (of ``numpy.ma`` masked chunks by
``numpy.ma.where`` per block, masks kept, as the NumPy backend's). Nothing is
computed, and dask is imported only when called."""

from __future__ import annotations

import numpy as np

from .numpy_masked import masked_among, triangle_block

__all__ = ["triangle"]


def triangle(x, k: int, *, lower: bool):
    """``tril(x, k=k)`` (``lower``) or ``triu(x, k=k)`` of a dask array ``x`` of at
    least two dimensions of known lengths; ``k`` an int already checked."""
    import dask.array as da

    meta = x._meta
    masked = masked_among((meta,))
    like = np.ma.getdata(meta) if masked else meta   # the fill value cast warned too
    like = like.real if like.dtype.kind == "c" else like
    rows, cols = x.shape[-2:]
    mask = da.tri(rows, cols, k=k if lower else k - 1, dtype=bool,
                  chunks=x.chunks[-2:], like=like)
    if masked:   # where of masked blocks: their data alone
        return da.map_blocks(triangle_block, mask, x, lower=lower, dtype=x.dtype, meta=meta)
    zero = np.zeros_like(x, shape=(1,))
    return da.where(mask, x, zero) if lower else da.where(mask, zero, x)
