"""``xp.kernel_testing``: pytest markers and checks for kernel features that HIP lacks.

Each rule of the HIP table (``xstride.cuda.capabilities()["features"]``) has

- a function ``<feature>_available() -> bool``: the feature works on the current
  device (``False`` without a device, or on a HIP build);
- a pytest marker ``requires_<feature>`` that skips a test, with the reason, where the
  feature is unavailable.

============================  ==============================  ==============================
feature                       function                        marker
============================  ==============================  ==============================
warp shuffles                 ``warp_shuffle_available``      ``requires_warp_shuffle``
views of 5+ dimensions        ``high_dim_cuda_views_available`` ``requires_high_dim_cuda_views``
bounds-checked views          ``bounds_check_views_available`` ``requires_bounds_check_views``
complex fields of structs     ``complex_struct_fields_available`` ``requires_complex_struct_fields``
============================  ==============================  ==============================

pytest is imported when a marker's name is first taken from this module (``from
xstride.kernel_testing import requires_warp_shuffle``); importing the module (or
xstride) never imports it.

Examples
--------
>>> from xstride.kernel_testing import requires_warp_shuffle
>>> @requires_warp_shuffle
... def test_block_sum(): ...
"""

from __future__ import annotations

from ._core.errors import argument_error, type_error
from .cuda._hip_rules import RULES

__all__ = [
    "feature_available",
    "warp_shuffle_available",
    "high_dim_cuda_views_available",
    "bounds_check_views_available",
    "complex_struct_fields_available",
    "requires_warp_shuffle",
    "requires_high_dim_cuda_views",
    "requires_bounds_check_views",
    "requires_complex_struct_fields",
]

_MARKERS = {r.marker: r.feature for r in RULES}


def _row(feature: str) -> dict:
    from .cuda._device import capabilities

    caps = capabilities()
    row = caps["features"][feature]
    if caps["backend"] == "none":
        return {"available": False, "reason": f"no device ({caps['reason']})"}
    return row


def feature_available(feature: str) -> bool:
    """Whether a feature of the HIP table works on the current device.

    Imports CuPy (through :func:`xstride.cuda.capabilities`) to look at the device.

    Parameters
    ----------
    feature : str
        A row of the table: ``"warp_shuffle"``, ``"high_dim_cuda_views"``,
        ``"bounds_check_views"`` or ``"complex_struct_fields"``
        (``xstride/cuda/_hip_rules.py``).

    Returns
    -------
    bool
        True where the feature works: CuPy imports, a device answers and the build is
        CUDA's; False without CuPy or a device, and on a ROCm/HIP build (the table lists
        what HIP lacks). Never raises for a device that is missing.

    Raises
    ------
    TypeError
        ``feature`` is not a str.
    KeyError
        ``feature`` is not a row of the table.
    """
    known = ", ".join(_MARKERS.values())
    if not isinstance(feature, str):
        raise type_error("feature_available", "feature", feature, f"a str, one of: {known}")
    if feature not in _MARKERS.values():
        raise argument_error(KeyError, "feature_available", "feature",
                             f"is an unknown feature {feature!r}; known: {known}")
    return bool(_row(feature)["available"])


def warp_shuffle_available() -> bool:
    """``reduce.cuh``/``scan.cuh`` (32-lane ``*_sync`` shuffles) work here."""
    return feature_available("warp_shuffle")


def high_dim_cuda_views_available() -> bool:
    """Views of 5 to 16 dimensions can be passed to kernels here."""
    return feature_available("high_dim_cuda_views")


def bounds_check_views_available() -> bool:
    """Bounds-checked views (debug mode) work here."""
    return feature_available("bounds_check_views")


def complex_struct_fields_available() -> bool:
    """Structs with ``complex<float>``/``complex<double>`` fields can be passed to
    kernels here (CudaStruct's layout is CUDA's)."""
    return feature_available("complex_struct_fields")


def __getattr__(name: str):
    feature = _MARKERS.get(name)
    if feature is None:
        raise AttributeError(f"module 'xstride.kernel_testing' has no attribute {name!r}")
    import pytest

    row = _row(feature)
    return pytest.mark.skipif(not row["available"],
                              reason=f"needs {feature}: {row['reason'] or 'unavailable'}")


def __dir__():
    return __all__
