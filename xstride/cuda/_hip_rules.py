"""What does not work on AMD (HIP) builds: one table, read by the HIP gate, by
:func:`xstride.cuda.capabilities` and by :mod:`xstride.kernel_testing`.

Each rule names a feature, the reason it is refused on HIP, the pytest marker that
skips tests needing it, and what in a kernel triggers it (data, not code: the gate in
``_hip_gate.py`` reads the trigger fields). :class:`xstride.cuda.CudaKernel` refuses,
on a HIP build, to compile a kernel that triggers any rule (``NotImplementedError``
naming the rule), instead of letting it corrupt the device.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HipRule", "RULES", "feature_rows", "rule"]


@dataclass(frozen=True)
class HipRule:
    """One refused feature.

    Attributes
    ----------
    feature : str
        Key of the row in ``capabilities()["features"]``.
    reason : str
        Why it is refused on HIP.
    trigger : str
        What in a kernel triggers the rule, in words (each row of
        ``capabilities()["features"]`` carries it).
    headers : tuple of str
        Shipped headers (``xstride/<name>``) whose inclusion, direct or through other
        headers, triggers the rule.
    min_view_ndim : int
        Views (``ArrayND``/``CArrayND``, as parameters or CudaStruct fields) of at least
        this many dimensions trigger the rule; 0: not a view rule.
    bounds_check : bool
        Compiling bounds-checked views (debug mode, ``-DXSTRIDE_BOUNDS_CHECK`` or a
        ``#define XSTRIDE_BOUNDS_CHECK``) triggers the rule.
    complex_fields : bool
        A struct parameter with a ``complex<float>``/``complex<double>`` field, at any
        depth, triggers the rule.
    """

    feature: str
    reason: str
    trigger: str
    headers: tuple[str, ...] = ()
    min_view_ndim: int = 0
    bounds_check: bool = False
    complex_fields: bool = False

    @property
    def marker(self) -> str:
        """Name of the pytest marker in :mod:`xstride.kernel_testing`."""
        return f"requires_{self.feature}"


RULES: tuple[HipRule, ...] = (
    HipRule(
        "warp_shuffle",
        "reduce.cuh and scan.cuh assume 32-lane warps and the CUDA *_sync shuffles; "
        "AMD wavefronts have 64 lanes",
        "the kernel includes xstride/reduce.cuh or xstride/scan.cuh (directly, through "
        "another header or a --pre-include option)",
        headers=("reduce.cuh", "scan.cuh"),
    ),
    HipRule(
        "high_dim_cuda_views",
        "ArrayND/CArrayND views of 5 or more dimensions passed by value exceed what "
        "HIP kernels take reliably as arguments",
        "a kernel parameter, or a field of a struct parameter, is a view of 5 or more "
        "dimensions (Array5D ... Array16D, CArray5D ... CArray16D; a struct field "
        "xstride_array<T, N> whose rank N is not an integer literal counts)",
        min_view_ndim=5,
    ),
    HipRule(
        "bounds_check_views",
        "bounds-checked views (XSTRIDE_BOUNDS_CHECK) rely on device printf and trap, "
        "which HIP does not support the same way",
        "the kernel is compiled with XSTRIDE_BOUNDS_CHECK (debug=True, "
        "XSTRIDE_CUDA_DEBUG=1, -DXSTRIDE_BOUNDS_CHECK or a #define in the source)",
        bounds_check=True,
    ),
    HipRule(
        "complex_struct_fields",
        "CudaStruct lays out complex<float>/complex<double> fields as CuPy's complex is "
        "aligned for CUDA (to twice the size of a part); CuPy's ROCm build declares it "
        "without that alignment, so a HIP kernel would read the fields at other offsets",
        "a kernel parameter is a struct with a complex<float> or complex<double> field "
        "(directly, in a nested struct or behind a typedef/using alias)",
        complex_fields=True,
    ),
)


def rule(feature: str) -> HipRule:
    """The rule of a feature (``KeyError`` if there is none)."""
    for r in RULES:
        if r.feature == feature:
            return r
    raise KeyError(feature)


def feature_rows(is_hip: bool) -> dict[str, dict]:
    """One row per rule: ``{feature: {"available": bool, "reason": str, "trigger":
    str}}`` (the reason empty where the feature is available)."""
    return {
        r.feature: {"available": not is_hip, "reason": r.reason if is_hip else "",
                    "trigger": r.trigger}
        for r in RULES
    }
