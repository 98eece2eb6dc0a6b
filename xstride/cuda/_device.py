"""Device facts read through CuPy: HIP or CUDA, properties, the capability table."""

from __future__ import annotations

import operator

import numpy as np

from .._backends.select import load_cupy
from .._core.errors import type_error, unavailable_error, value_error
from . import _hip_rules

__all__ = ["is_hip", "device_count", "device_properties", "capabilities"]


def is_hip() -> bool:
    """``True`` when the CuPy in use is a ROCm/HIP build.

    Imports CuPy where nobody has, and checks that a device answers, as the CuPy
    backend does on first use (an installed CuPy is imported by this call), then reads
    its runtime's ``is_hip`` flag. The answer does not depend on who imported CuPy
    first: a ROCm build on a host without a device is ``False`` either way, as
    :func:`capabilities` reports it.

    Returns
    -------
    bool
        ``cupy.cuda.runtime.is_hip``; ``False`` where CuPy cannot be imported or no
        device answers (without a usable CuPy there is no HIP build to use). Never
        raises.
    """
    try:
        cupy = load_cupy()
    except RuntimeError:
        return False
    return bool(getattr(cupy.cuda.runtime, "is_hip", False))


def device_count() -> int:
    """Number of devices CuPy sees (``RuntimeError`` with the reason when none answers)."""
    return int(load_cupy().cuda.runtime.getDeviceCount())


def _decode(value):
    return value.decode(errors="replace") if isinstance(value, bytes) else value


def device_properties(device_id: int | None = None) -> dict:
    """Name, architecture, warp size and memory of a device (the current one by default).

    Parameters
    ----------
    device_id : int, optional
        CUDA/HIP device ordinal; the current device when omitted.

    Returns
    -------
    dict
        ``id``, ``name``, ``arch`` (``"sm_90"``, or the gfx name on HIP),
        ``compute_capability`` (``"9.0"``; ``None`` on HIP), ``warp_size`` (threads),
        ``multiprocessors``, ``total_memory_bytes`` (bytes), ``max_threads_per_block``,
        ``max_grid_size`` (3 ints) and ``is_hip``.

    Raises
    ------
    TypeError
        ``device_id`` is not an int (bool is refused).
    ValueError
        ``device_id`` is negative or not below the number of devices.
    RuntimeError
        CuPy or a device is unavailable (the message carries the reason).
    """
    func = "device_properties"
    if device_id is not None:
        if isinstance(device_id, (bool, np.bool_)):
            raise type_error(func, "device_id", device_id, "None or an int (a device ordinal)")
        try:
            device_id = operator.index(device_id)
        except TypeError:
            raise type_error(func, "device_id", device_id,
                             "None or an int (a device ordinal)") from None
        if device_id < 0:
            raise value_error(func, "device_id", f"must be >= 0; got {device_id}")
    try:
        cupy = load_cupy()
    except RuntimeError as exc:
        raise unavailable_error(func, exc) from None
    count = int(cupy.cuda.runtime.getDeviceCount())
    if device_id is not None and device_id >= count:
        raise value_error(func, "device_id", f"is {device_id} but there are {count} "
                                             "device(s)")
    return _properties(cupy, device_id)


def _properties(cupy, device_id: int | None) -> dict:
    runtime = cupy.cuda.runtime
    dev = runtime.getDevice() if device_id is None else device_id
    props = runtime.getDeviceProperties(dev)
    hip = bool(getattr(runtime, "is_hip", False))
    if hip:
        arch = _decode(props.get("gcnArchName", b"")) or "unknown gfx"
    else:
        arch = f"sm_{props['major']}{props['minor']}"
    return {
        "id": dev,
        "name": _decode(props.get("name", b"")),
        "arch": arch,
        "compute_capability": None if hip else f"{props['major']}.{props['minor']}",
        "warp_size": int(props.get("warpSize", 32)),
        "multiprocessors": int(props.get("multiProcessorCount", 0)),
        "total_memory_bytes": int(props.get("totalGlobalMem", 0)),
        "max_threads_per_block": int(props.get("maxThreadsPerBlock", 1024)),
        "max_grid_size": [int(v) for v in props.get("maxGridSize", (2**31 - 1, 65535, 65535))],
        "is_hip": hip,
    }


def capabilities() -> dict:
    """The capability table: backend facts and, per feature, whether it is available.

    Returns
    -------
    dict
        ``backend`` ("cuda", "hip" or "none"), ``device`` (``device_properties()`` or
        ``None``), ``is_hip``, ``reason`` (why there is no device, else ``""``) and
        ``features``: ``{feature: {"available": bool, "reason": str, "trigger": str}}``
        (``trigger``: what in a kernel makes the HIP gate refuse it, in words), one row
        per rule of the HIP table (``xstride/cuda/_hip_rules.py``):
        ``warp_shuffle`` (``reduce.cuh``/``scan.cuh``), ``high_dim_cuda_views``
        (views of 5 or more dimensions), ``bounds_check_views``
        (``XSTRIDE_BOUNDS_CHECK``) and ``complex_struct_fields`` (a struct parameter
        with a ``complex<float>``/``complex<double>`` field). Without a device every
        row is unavailable with the reason ``"no device"``.
    """
    try:
        props = device_properties()
    except RuntimeError as exc:
        rows = {
            r.feature: {"available": False, "reason": "no device", "trigger": r.trigger}
            for r in _hip_rules.RULES
        }
        return {"backend": "none", "device": None, "is_hip": False, "reason": str(exc),
                "features": rows}
    hip = props["is_hip"]
    return {
        "backend": "hip" if hip else "cuda",
        "device": props,
        "is_hip": hip,
        "reason": "",
        "features": _hip_rules.feature_rows(hip),
    }
