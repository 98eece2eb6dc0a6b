"""``python -m xstride info``: what xstride runs on."""

from __future__ import annotations

import json
import platform
import sys

import numpy as np

from .._backends import select as _backend

__all__ = ["collect", "run"]


def _versions() -> dict:
    import array_api_compat

    out = {
        "xstride": __import__("xstride").__version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "array_api_compat": array_api_compat.__version__,
        "cupy": None,
        "cuda_runtime": None,
        "cuda_driver": None,
        "hip_runtime": None,
    }
    try:
        cupy = _backend.load_cupy()
    except RuntimeError:
        cupy = sys.modules.get("cupy")
        if cupy is not None:
            out["cupy"] = getattr(cupy, "__version__", None)
        return out
    out["cupy"] = cupy.__version__
    rt = cupy.cuda.runtime
    key = "hip_runtime" if getattr(rt, "is_hip", False) else "cuda_runtime"
    out[key] = _format_cuda_version(rt.runtimeGetVersion(), hip=key == "hip_runtime")
    try:
        out["cuda_driver"] = _format_cuda_version(rt.driverGetVersion(), hip=key == "hip_runtime")
    except Exception:  # some HIP builds do not report a driver version
        out["cuda_driver"] = None
    return out


def _format_cuda_version(v: int, hip: bool) -> str:
    if hip:
        return f"{v // 10_000_000}.{(v // 100_000) % 100}.{v % 100_000}"
    return f"{v // 1000}.{(v % 1000) // 10}"


def collect() -> dict:
    """Everything ``info`` prints, as a dict.

    Keys: ``backend`` (active backend name), ``versions`` (python, numpy,
    array_api_compat, xstride, cupy, cuda_runtime, cuda_driver, hip_runtime; ``None``
    where absent), ``gpu_available`` (bool), ``gpu_reason`` (why not, else ``""``),
    ``devices`` (list of device property dicts) and ``capabilities``
    (:func:`xstride.cuda.capabilities`, plus the feature row ``host_philox``:
    ``available`` whether the host Philox executor runs compiled C, ``reason`` why
    not, ``path`` e.g. ``"compiled C (gcc 12.2)"`` or ``"NumPy ufuncs (<reason>)"``).
    """
    from ..cuda._device import capabilities, device_properties

    caps = capabilities()
    caps = {**caps, "features": {**caps["features"], "host_philox": _host_philox()}}
    devices = []
    if caps["device"] is not None:
        cupy = _backend.load_cupy()
        devices = [device_properties(i) for i in range(cupy.cuda.runtime.getDeviceCount())]
    return {
        "backend": _backend.get_backend(),
        "versions": _versions(),
        "gpu_available": caps["device"] is not None,
        "gpu_reason": caps["reason"],
        "devices": devices,
        "capabilities": caps,
    }


def _host_philox() -> dict:
    """Capability row of the host Philox executor (compiles its C loops on first use)."""
    from .._host import _philox_native

    ok, path = _philox_native.describe()
    return {"available": ok, "reason": _philox_native.reason(), "path": path}


def _print_table(info: dict) -> None:
    print(f"xstride {info['versions']['xstride']}  (active backend: {info['backend']})")
    print("versions:")
    for k, v in info["versions"].items():
        if k != "xstride":
            print(f"  {k:<18} {v if v is not None else '-'}")
    if not info["gpu_available"]:
        print(f"GPU: none ({info['gpu_reason']})")
    for d in info["devices"]:
        gib = d["total_memory_bytes"] / 2**30
        print(f"device {d['id']}: {d['name']}  arch {d['arch']}  warp {d['warp_size']}  "
              f"{d['multiprocessors']} SMs  {gib:.1f} GiB  hip={d['is_hip']}")
    print("capabilities:")
    for feat, row in info["capabilities"]["features"].items():
        state = "yes" if row["available"] else f"no ({row['reason']})"
        if "path" in row:  # host_philox: which executor runs, e.g. "compiled C (gcc 12.2)"
            state = row["path"]
        print(f"  {feat:<22} {state}")


def run(json_output: bool = False) -> int:
    info = collect()
    if json_output:
        print(json.dumps(info, indent=2, sort_keys=True))
    else:
        _print_table(info)
    return 0
