"""``python -m xstride info``: what xstride runs on."""

from __future__ import annotations

import json
import platform

from .. import _backends

__all__ = ["collect", "run"]


def _versions() -> dict:
    import array_api_compat

    out = {
        "xstride": __import__("xstride").__version__,
        "python": platform.python_version(),
        "array_api_compat": array_api_compat.__version__,
    }
    for be in _backends.each():
        out[be.name] = be.version()
    for be in _backends.each():
        out.update(be.runtime_versions())
    return out


def collect() -> dict:
    """Everything ``info`` prints, as a dict.

    Keys: ``backend`` (active backend name; ``None`` where ``XSTRIDE_BACKEND`` names one
    that cannot load, ``backend_error`` then saying why, else ``""``), ``versions``
    (python, numpy,
    array_api_compat, xstride, cupy, cuda_runtime, cuda_driver, hip_runtime; ``None``
    where absent), ``gpu_available`` (bool), ``gpu_reason`` (why not, else ``""``),
    ``devices`` (list of device property dicts) and ``capabilities``
    (:func:`xstride.cuda.capabilities`, plus the feature row ``host_philox``:
    ``available`` whether the host Philox executor runs compiled C, ``reason`` why
    not, ``path`` e.g. ``"compiled C (gcc 12.2)"`` or ``"NumPy ufuncs (<reason>)"``,
    ``host_bin_offsets`` likewise for the compiled pass of ``bin_offsets``, and
    ``host_partition`` for the compiled grouping of the dask backend's sort of NumPy
    chunks).
    """
    from ..cuda._device import capabilities, device_count, device_properties

    caps = capabilities()
    caps = {**caps, "features": {**caps["features"], "host_philox": _host_philox(),
                                        "host_bin_offsets": _host_bin_offsets(),
                                        "host_partition": _host_partition()}}
    devices = []
    if caps["device"] is not None:
        devices = [device_properties(i) for i in range(device_count())]
    try:
        active, why = _backends.active().name, ""
    except RuntimeError as exc:  # XSTRIDE_BACKEND names a backend that cannot load
        active, why = None, str(exc)
    return {
        "backend": active,
        "backend_error": why,
        "versions": _versions(),
        "gpu_available": caps["device"] is not None,
        "gpu_reason": caps["reason"],
        "devices": devices,
        "capabilities": caps,
    }


def _host_philox() -> dict:
    """Capability row of the host Philox executor (compiles its C loops on first use)."""
    return _backends.default().executor("philox").native_status()


def _host_bin_offsets() -> dict:
    """Capability row of the host ``bin_offsets`` pass (compiles its C loop on first use)."""
    return _backends.default().executor("segments").native_status()


def _host_partition() -> dict:
    """Capability row of the compiled grouping of the dask sort's NumPy chunks (compiles
    its C loop on first use)."""
    return _backends.default().executor("sort").partition_status()


def _print_table(info: dict) -> None:
    active = info["backend"] or f"none ({info['backend_error']})"
    print(f"xstride {info['versions']['xstride']}  (active backend: {active})")
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
        if "path" in row:  # host_philox, host_bin_offsets, host_partition: which executor runs, e.g. "compiled C (gcc 12.2)"
            state = row["path"]
        print(f"  {feat:<22} {state}")


def run(json_output: bool = False) -> int:
    info = collect()
    if json_output:
        print(json.dumps(info, indent=2, sort_keys=True))
    else:
        _print_table(info)
    return 0
