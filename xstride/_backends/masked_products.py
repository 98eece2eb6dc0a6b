"""``matmul``, ``vecdot``, ``tensordot`` and ``linalg.matrix_power`` refuse ``numpy.ma``
masked operands.

No matrix product honoured the masks: NumPy's ``matmul`` and ``vecdot`` of masked
arrays failed in NumPy's mask handling ("could not broadcast where mask from shape
(3,4) into shape (3,)") or returned a mask of their own, NumPy's ``tensordot``
summed the data under the masks into an unmasked result, and dask's per block gave
masks that depended on the chunks, or failed when computed. What a masked element
should count as in a sum of products is the caller's choice (``numpy.ma.dot`` counts
it as 0, or masks the whole row with ``strict=True``), so a masked ``x1`` or ``x2``
(a dask array of masked chunks) is a ``TypeError`` naming it, on the NumPy and dask
backends alike (:func:`refuse_masked`), saying to fill it first.

``linalg.outer`` sums nothing: each element is one product, masked where either
factor is, as ``numpy.ma``'s arithmetic masks it. NumPy's ``outer`` (and dask's, per
block) returned the products of the data alone, the masked factors' values in them;
:func:`masked_outer` multiplies the vectors broadcast against each other instead.
``linalg.cross`` is such products too (``a1 b2 - a2 b1``, ...): NumPy's ``cross`` of
masked arrays returned the data's alone, where the dask backend's (``numpy.ma``'s
arithmetic per block) masks each component where a factor of it is masked;
:func:`masked_cross` computes the NumPy backend's so, by ``numpy.ma``.
"""

from __future__ import annotations

from .._core.errors import type_error
from .dispatch import compat_function, register
from .registry import get

__all__ = ["refuse_masked", "refuse_masked_power", "masked_outer", "masked_cross"]

#: What to pass instead of a masked operand ``{0}``, by backend.
_FILLED = {"numpy": "{0}.filled(0)", "dask": "dask.array.ma.filled({0}, 0)"}


def refuse_masked(func: str, backend: str, x1, x2) -> None:
    """A ``TypeError`` naming ``x1`` or ``x2`` of ``func`` where it carries a mask."""
    be = get(backend)
    for name, v in (("x1", x1), ("x2", x2)):
        if be.mask_remedy(v) is not None:
            raise type_error(func, name, v, "an array without a mask (matrix products do "
                                            "not honour masks: pass "
                                            f"{_FILLED[backend].format(name)} to count the "
                                            "masked elements as 0, as numpy.ma.dot does)")


def refuse_masked_power(backend: str, x) -> None:
    """``linalg.matrix_power``'s masked ``x`` refused as :func:`refuse_masked` refuses a
    product's (a power is matrix products: NumPy's and dask's computed with the data
    under the masks and returned it unmasked)."""
    if get(backend).mask_remedy(x) is not None:
        raise type_error("matrix_power", "x", x,
                         "an array without a mask (matrix products do not honour masks: "
                         f"pass {_FILLED[backend].format('x')} to count the masked "
                         "elements as 0, as numpy.ma.dot does)")


def masked_outer(backend: str, x1, x2):
    """``outer(x1, x2)`` of 1-D vectors (checked) as ``x1[:, None] * x2[None, :]`` where
    one is masked (the masks kept); None where neither is."""
    be = get(backend)
    if be.mask_remedy(x1) is None and be.mask_remedy(x2) is None:
        return None
    return be.namespace().multiply(x1[:, None], x2[None, :])


def masked_cross(x1, x2, shape, ax: int):
    """``cross`` of NumPy arrays (checked: ``shape`` their broadcast shape, ``ax`` the
    axis of length 3) where one is a ``numpy.ma`` array, each component masked where a
    factor of it is; None where neither is masked."""
    be = get("numpy")
    if be.mask_remedy(x1) is None and be.mask_remedy(x2) is None:
        return None
    import numpy as np

    ma = np.ma
    dt = np.result_type(x1.dtype, x2.dtype)
    a, b = (ma.masked_array(np.broadcast_to(ma.getdata(v), shape),
                            mask=np.broadcast_to(ma.getmaskarray(v), shape)).astype(dt)
            for v in (x1, x2))
    (a0, a1, a2), (b0, b1, b2) = ([v.take(i, axis=ax) for i in range(3)] for v in (a, b))
    return ma.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=ax)


def _numpy_product(qualname: str):
    func = qualname.rsplit(".", 1)[-1]
    library = []   # compat's function, looked up on first call

    def call(x1, x2, **kwargs):
        refuse_masked(func, "numpy", x1, x2)
        if not library:
            library.append(compat_function("numpy", qualname))
        return library[0](x1, x2, **kwargs)

    # the standard's signatures (the dispatch's wrapper copies them, and the
    # conformance suite reads them)
    if func == "vecdot":
        def product(x1, x2, /, *, axis=-1):
            return call(x1, x2, axis=axis)
    else:
        def product(x1, x2, /):
            return call(x1, x2)

    product.__name__ = product.__qualname__ = func
    product.__doc__ = (f"``{func}`` of the standard on NumPy arrays; a masked operand "
                       "refused (masked_products.py).")
    return product


for _q in ("matmul", "linalg.matmul", "vecdot", "linalg.vecdot"):
    register(_q, "numpy")(_numpy_product(_q))
del _q
