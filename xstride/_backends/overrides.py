"""The array-API fixes of the backends' ``array_api_compat`` namespaces.

Each module named here registers, when imported, the functions where
``array_api_compat`` differs from the standard (``fixes``: finfo, floor_divide,
remainder, -0.0 fills, and through it ``size_checks``; ``complex_special``;
``linalg_fixes``; ``dask_fixes``: the dask backend's creation functions and the
functions dask lacks; ``dask_standard``: where dask's functions differ from the
standard (``dask_take_along``: ``take_along_axis``, which dask lacks); ``dask_linalg``: the linear algebra of stacks of matrices on dask (``dask_norms``: its
``vector_norm`` and ``matrix_norm``);
``dask_unique``: the set functions of dask arrays with NaN; ``arg_checks``: ``take``,
``repeat``, ``roll`` arguments the libraries take and the standard refuses;
``diff_checks``: ``diff``'s arguments on NumPy and dask; ``count_nonzero_checks``:
``count_nonzero``'s on both, masked elements not counted; ``cupy_products``: ``vecdot``
and ``count_nonzero`` on the CuPy backend by xstride's own kernels (compat's were a
batched matmul and CuPy's long-axis reduction); ``cupy_sort_rows``: ``sort`` and
``argsort`` of rows of at most 16 elements on CuPy by xstride's rows kernel;
``fill_checks``: ``full``'s, ``full_like``'s and ``asarray``'s fills and Python ints;
``clip_checks``: ``clip``'s bounds (Python scalars, arrays) against ``x``'s dtype;
``fft_fixes``: the ``fft`` functions' axes, and on dask their gather into one chunk;
``axis_checks``: NumPy's ``flip`` and ``expand_dims`` axis checked as dask's,
``squeeze``'s on both, ``stack``, ``unstack``, ``moveaxis`` refusing a bool axis;
``reshape_checks``: ``reshape``'s ``shape`` on NumPy checked as on dask; ``numpy_unique``:
the NumPy backend's set functions of floating arrays, their zero and NaNs as dask's;
``numpy_masked``: the NumPy backend's ``concat`` (and ``stack``) of masked arrays;
``masked_products``: ``matmul`` and ``vecdot`` of masked NumPy arrays refused;
``masked_sign``: ``sign`` of complex masked arrays, masks kept; ``masked_domains``:
``sqrt``, the logarithms and the inverse functions of complex masked arrays without
``numpy.ma``'s real domain;
``dask_broadcast``: ``broadcast_to``, ``broadcast_arrays`` and ``meshgrid`` on dask (imported
here, with ``dask_fixes``); ``masked_broadcast``: ``broadcast_to`` of masked arrays keeping
the mask (imported here, after ``dask_broadcast``: it wraps the ``broadcast_to``s registered
at that import);
``tile_checks``: ``tile``'s ``repetitions`` on NumPy and dask; ``isin_checks``: ``isin``'s
``invert`` a bool, by keyword, on NumPy and dask; ``round_checks``: ``round``'s
``decimals`` on NumPy and dask). None of them imports CuPy at
import time. ``dask_fixes`` is
imported here, with ``import xstride``: it also sets the chunked executors' hook, which
every dask worker needs once it unpickles a task. The others are imported by the
dispatch on the first lookup of a function that xstride does not implement itself
(``dispatch.register_on_first_lookup``), before any name falls back to
``array_api_compat``; ``import xstride`` does not pay for them. xstride's own
implementations (the elementwise engine, the reductions and scans) are registered by
the public modules ``xstride.elementwise`` and ``xstride.reductions``.
"""

from . import dask_fixes  # noqa: F401  (it registers and sets the chunked executors' hook)
from . import dask_broadcast  # noqa: F401  (dask's broadcast_to, broadcast_arrays, meshgrid)
from . import masked_broadcast  # noqa: F401  (after dask_broadcast: it wraps its broadcast_to)
from .dispatch import register_on_first_lookup

register_on_first_lookup(f"{__package__}.fixes", f"{__package__}.complex_special",
                         f"{__package__}.linalg_fixes", f"{__package__}.dask_standard",
                         f"{__package__}.dask_searchsorted",
                         f"{__package__}.dask_take_along",
                         f"{__package__}.dask_linalg", f"{__package__}.dask_norms",
                         f"{__package__}.dask_unique",
                         f"{__package__}.arg_checks", f"{__package__}.diff_checks",
                         f"{__package__}.count_nonzero_checks",
                         f"{__package__}.cupy_products", f"{__package__}.cupy_sort_rows",
                         f"{__package__}.fill_checks",
                         f"{__package__}.clip_checks",
                         f"{__package__}.fft_fixes",
                         f"{__package__}.axis_checks", f"{__package__}.reshape_checks",
                         f"{__package__}.numpy_unique", f"{__package__}.numpy_masked",
                         f"{__package__}.masked_products", f"{__package__}.masked_sign",
                         f"{__package__}.masked_domains",
                         f"{__package__}.tile_checks",
                         f"{__package__}.isin_checks", f"{__package__}.round_checks")
