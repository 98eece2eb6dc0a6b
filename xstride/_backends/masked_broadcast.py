"""``broadcast_to``, ``broadcast_arrays`` and ``meshgrid`` of ``numpy.ma`` masked
arrays keep the masks (NumPy and dask).

NumPy's ``broadcast_to`` (``subok=False``) returns a view of the data alone: of a
masked array the mask was dropped and the elements under it shown as values; dask's
calls it per block, the same. Here a masked ``x`` (on dask, an array of masked chunks)
has its data and its mask broadcast alike, by the backend's own ``broadcast_to`` (its
checks of ``shape`` first), and joined into a masked array (on dask per block, by
``dask.array.ma``), as ``numpy.ma`` broadcasts both in its arithmetic. So do
``broadcast_arrays``' (:func:`masked_broadcast_arrays`: the backend's own on the data,
then on the masks; a plain array stays plain), and ``meshgrid``'s grids, made alike.
"""

from __future__ import annotations

import sys

from .arg_checks import broadcast_to as _numpy_broadcast_to, meshgrid as _numpy_meshgrid
from .dask_broadcast import broadcast_arrays as _dask_broadcast_arrays, meshgrid as _dask_meshgrid
from .dask_broadcast import broadcast_to as _dask_broadcast_to
from .dispatch import compat_function, register

__all__ = ["masked_broadcast_to", "masked_broadcast_arrays"]


def masked_broadcast_to(plain, x, shape):
    """``plain(x, shape)`` (a backend's ``broadcast_to``), the mask of a masked ``x``
    broadcast beside its data."""
    ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
    if ma is not None and isinstance(x, ma.MaskedArray):
        return ma.masked_array(plain(ma.getdata(x), shape),
                               mask=plain(ma.getmaskarray(x), shape))
    if ma is not None and isinstance(getattr(x, "_meta", None), ma.MaskedArray):
        import dask.array as da

        return da.ma.masked_array(plain(da.ma.getdata(x), shape),
                                  mask=plain(da.ma.getmaskarray(x), shape))
    return plain(x, shape)


def _of(plain):
    def broadcast_to(x, /, shape):
        return masked_broadcast_to(plain, x, shape)

    broadcast_to.__doc__ = (plain.__doc__ or "") + "\n\n    A masked ``x`` keeps its mask."
    return broadcast_to


def _masked(ma, v) -> bool:
    return isinstance(v, ma.MaskedArray) or isinstance(getattr(v, "_meta", None),
                                                        ma.MaskedArray)


def masked_broadcast_arrays(plain, arrays, **kwargs):
    """``plain(*arrays)`` (a backend's ``broadcast_arrays``), each masked array's mask
    broadcast beside its data."""
    ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
    if ma is None or not any(_masked(ma, a) for a in arrays):
        return plain(*arrays, **kwargs)
    lib = ma
    if not any(isinstance(a, ma.MaskedArray) for a in arrays):
        import dask.array as da

        lib = da.ma
    data = plain(*(lib.getdata(a) if _masked(ma, a) else a for a in arrays), **kwargs)
    masks = plain(*(lib.getmaskarray(a) for a in arrays), **kwargs)
    return type(data)(lib.masked_array(d, mask=m) if _masked(ma, a) else d
                      for a, d, m in zip(arrays, data, masks))   # the backend's sequence


def _arrays_of(backend: str):
    library = []   # the backend's broadcast_arrays, looked up on first call

    def broadcast_arrays(*args):   # *args: the name the libraries' errors use
        """``broadcast_arrays`` of the standard; masked arrays keep their masks."""
        if not library:
            library.append(_dask_broadcast_arrays if backend == "dask"
                           else compat_function(backend, "broadcast_arrays"))
        return masked_broadcast_arrays(library[0], args)
    return broadcast_arrays


def _meshgrid_of(plain):
    def meshgrid(*arrays, indexing="xy"):
        """``meshgrid`` of the standard; masked arrays' grids keep their masks."""
        return masked_broadcast_arrays(plain, arrays, indexing=indexing)
    return meshgrid


register("meshgrid", "numpy")(_meshgrid_of(_numpy_meshgrid))
register("meshgrid", "dask")(_meshgrid_of(_dask_meshgrid))
register("broadcast_arrays", "numpy")(_arrays_of("numpy"))
register("broadcast_arrays", "dask")(_arrays_of("dask"))
register("broadcast_to", "numpy")(_of(_numpy_broadcast_to))
register("broadcast_to", "dask")(_of(_dask_broadcast_to))
