"""What does not work on AMD (HIP) builds: one table, read by the HIP gate and by
:func:`xstride.cuda.capabilities`.

Each rule names a feature, the reason it is refused on HIP, and how a kernel is
recognised as using it. :class:`xstride.cuda.CudaKernel` refuses, on a HIP build, to
compile a kernel that uses any of them (``NotImplementedError``), instead of letting
it corrupt the device.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HipRule", "RULES", "feature_rows"]


@dataclass(frozen=True)
class HipRule:
    feature: str
    reason: str


RULES: tuple[HipRule, ...] = (
    HipRule(
        "warp_shuffle",
        "reduce.cuh and scan.cuh assume 32-lane warps and the CUDA *_sync shuffles; "
        "AMD wavefronts have 64 lanes",
    ),
    HipRule(
        "high_dim_cuda_views",
        "ArrayND/CArrayND views of 5 or more dimensions passed by value exceed what "
        "HIP kernels take reliably as arguments",
    ),
    HipRule(
        "bounds_check_views",
        "bounds-checked views (XSTRIDE_BOUNDS_CHECK) rely on device printf and trap, "
        "which HIP does not support the same way",
    ),
)


def feature_rows(is_hip: bool) -> dict[str, dict]:
    """One row per rule: ``{feature: {"available": bool, "reason": str}}``."""
    return {
        r.feature: {"available": not is_hip, "reason": r.reason if is_hip else ""}
        for r in RULES
    }
