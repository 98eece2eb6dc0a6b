"""Grid and block of a launch, checked against the device's limits before launching."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

from .._core.errors import error, type_error, value_error

__all__ = ["Limits", "MAX_BLOCK_THREADS", "as_dims", "check_block_threads", "launch_config"]

#: Largest block xstride launches, whatever the device says (CUDA's limit since sm_20).
MAX_BLOCK_THREADS = 1024


@dataclass(frozen=True)
class Limits:
    """A device's launch limits (from ``cudaDeviceProp``)."""

    max_threads_per_block: int = 1024
    max_block_dims: tuple[int, int, int] = (1024, 1024, 64)
    max_grid_dims: tuple[int, int, int] = (2**31 - 1, 65535, 65535)
    max_shared_mem: int = 48 * 1024  # dynamic shared memory per block, bytes (opt-in max)


def as_dims(label: str, arg: str, value, *, allow_zero: bool) -> tuple[int, int, int]:
    """An int or a 1-3 tuple of ints -> (x, y, z), missing dimensions 1."""
    seq = value if isinstance(value, (tuple, list)) else (value,)
    if not 1 <= len(seq) <= 3:
        raise value_error(label, arg, f"must have 1 to 3 dimensions, got {len(seq)}")
    out = []
    for v in seq:
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise type_error(label, arg, value, "an int or a tuple of 1 to 3 ints")
        v = int(v)
        if v < 0 or (v == 0 and not allow_zero):
            raise value_error(label, arg, f"must be {'>= 0' if allow_zero else '>= 1'}, "
                              f"got {value!r}")
        out.append(v)
    return tuple(out + [1] * (3 - len(out)))


def check_block_threads(label: str, b: tuple, limits: Limits | None = None) -> None:
    """Refuse a block ``b`` (3 ints) of more than 1024 threads (or than ``limits``
    allow): ``ValueError`` naming ``block``."""
    threads = b[0] * b[1] * b[2]
    cap = MAX_BLOCK_THREADS if limits is None else min(MAX_BLOCK_THREADS,
                                                      limits.max_threads_per_block)
    if threads > cap:
        where = "" if limits is None else " on this device"
        raise value_error(label, "block", f"{b} has {threads} threads; at most {cap} per "
                          f"block{where}")


def launch_config(label: str, *, n_threads, grid, block, shared_mem, limits: Limits | None):
    """Return ``(grid, block, empty)`` as 3-tuples; ``empty`` means launch nothing.

    Exactly one of ``n_threads`` (threads wanted per dimension, x first; the grid is
    ``ceil(n / block)`` per dimension) and ``grid`` (blocks per dimension) is given.
    With ``limits=None`` only what holds on every device is checked (types, signs,
    at most 1024 threads per block): the check a launch makes before it asks CuPy
    for the device and its limits.

    Raises
    ------
    TypeError
        Both or neither of ``n_threads``/``grid``; a non-integer size.
    ValueError
        Negative sizes, a block of more than 1024 threads or more than the device takes,
        a grid or dynamic shared memory larger than the device allows.
    """
    if (n_threads is None) == (grid is None):
        raise error(TypeError, label, f"pass exactly one of n_threads= or grid= (got "
                             f"{'both' if grid is not None else 'neither'})")
    b = as_dims(label, "block", block, allow_zero=False)
    if isinstance(shared_mem, bool) or not isinstance(shared_mem, numbers.Integral):
        raise type_error(label, "shared_mem", shared_mem, "an int (bytes)")
    if shared_mem < 0:
        raise value_error(label, "shared_mem", f"must be >= 0, got {shared_mem}")
    check_block_threads(label, b, limits)
    for axis, (n, m) in enumerate(zip(b, limits.max_block_dims if limits else b)):
        if n > m:
            raise value_error(label, "block", f"{b}: dimension {'xyz'[axis]} is {n}, the "
                              f"device allows at most {m}")
    if grid is not None:
        g = as_dims(label, "grid", grid, allow_zero=True)
    else:
        n = as_dims(label, "n_threads", n_threads, allow_zero=True)
        g = tuple(-(-ni // bi) for ni, bi in zip(n, b))
    for axis, (k, m) in enumerate(zip(g, limits.max_grid_dims if limits else g)):
        if k > m:   # name what the caller passed: the grid, or the threads that make it
            arg, what = (("grid", f"{g}") if grid is not None else
                         ("n_threads", f"{n} with block {b} needs grid {g}"))
            raise value_error(label, arg, f"{what}: dimension {'xyz'[axis]} is {k} blocks, "
                              f"the device allows at most {m}; launch fewer blocks and "
                              "loop with XSTRIDE_GRID_STRIDE_LOOP")
    if limits is not None and shared_mem > limits.max_shared_mem:
        raise value_error(label, "shared_mem", f"{shared_mem} bytes exceeds the device's "
                          f"{limits.max_shared_mem} bytes per block")
    return g, b, 0 in g
