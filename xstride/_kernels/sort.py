"""CuPy executor for ``sort_by_key``; everything stays on the device.

Shipped default (``method="argsort"``): CuPy's ``argsort`` (Thrust ``stable_sort_by_key``,
a CUB radix sort over all key bits) and gathers. Measured on an H200 (docs/morton.md):
2**26 uint64 keys + int64 payload in ~10 ms.

Opt-in (``method="radix"``): xstride's own stable LSD radix sort (``radix_sort.cu``).
Keys are sorted as their bit patterns zero-extended to uint64, with the sign bit of a
signed dtype flipped when the digit is taken (so they sort in signed order). Only the
low bits where the smallest and the largest key differ are sorted,
``bit_length(min ^ max)`` bits, 8 per pass: all keys share the bits above (the common
prefix of min and max). Each pass is the upsweep, CuPy's cumsum of the digit-major
histogram, and the stable downsweep scatter of (key, int32 index) pairs; values are
gathered once at the end. It is correct (tests/test_morton_gpu.py) but, as measured,
~3.5 ms per pass: slower than the default even at 4 passes, hence not the default.
Its only device-to-host traffic is the minimum and maximum key (16 bytes). It needs
``__match_any_sync`` (CUDA, not HIP) and fewer than 2**31 - 1 keys.
"""

from __future__ import annotations

import functools
from pathlib import Path

from .._backends.select import load_cupy
from ._compile import raw_module

__all__ = ["sort_by_key", "radix_passes"]

_SOURCE = Path(__file__).with_name("radix_sort.cu")
_RADIX_BITS = 8
_THREADS = 256
_TILE = 4096  # XSTRIDE_RS_TILE in radix_sort.cu


@functools.lru_cache(maxsize=None)
def _source() -> str:
    return _SOURCE.read_text()


def radix_passes(key_bits: int) -> int:
    """Number of 8-bit passes for keys that differ only in their low ``key_bits`` bits."""
    return -(-key_bits // _RADIX_BITS)


def _sign_bit(dtype) -> int:
    """The sign bit of a signed integer dtype (0 for unsigned)."""
    return (1 << (8 * dtype.itemsize - 1)) if dtype.kind == "i" else 0


def _as_u64(keys, cupy):
    """The keys' bit patterns zero-extended to uint64 (a view for 8-byte keys)."""
    unsigned = cupy.dtype(f"u{keys.dtype.itemsize}")
    u = keys.view(unsigned)
    if keys.dtype.itemsize != 8:
        u = u.astype(cupy.uint64)
    return cupy.ascontiguousarray(u)


def _from_u64(k, dtype, cupy):
    """Inverse of :func:`_as_u64` on the sorted bit patterns."""
    if dtype.itemsize == 8:
        return k.view(dtype)
    return k.astype(cupy.dtype(f"u{dtype.itemsize}")).view(dtype)


def _argsort_order(keys, cupy):
    return cupy.argsort(keys).astype(cupy.int64, copy=False)  # thrust stable sort


def _radix_order(keys, cupy):
    """(sorted keys, order int64) by the radix kernels."""
    import numpy as np

    n = keys.shape[0]
    flip = _sign_bit(keys.dtype)
    # key + sign bit (modulo the width) orders like the key, as (bits ^ flip) does.
    lo = int(keys.min()) + flip
    hi = int(keys.max()) + flip
    passes = radix_passes((lo ^ hi).bit_length())
    if passes == 0:
        return keys.copy(), cupy.arange(n, dtype=cupy.int64)
    u = _as_u64(keys, cupy)
    nblocks = (n + _TILE - 1) // _TILE
    mod = raw_module(_source())
    upsweep = mod.get_function("xstride_radix_upsweep")
    downsweep = mod.get_function("xstride_radix_downsweep")
    hist = cupy.empty((256, nblocks), dtype=cupy.int32)
    keys_out = [cupy.empty(n, dtype=cupy.uint64), cupy.empty(n, dtype=cupy.uint64)]
    idx_out = [cupy.empty(n, dtype=cupy.int32), cupy.empty(n, dtype=cupy.int32)]
    k_in, i_in = u, idx_out[1]  # i_in is not read in the first pass
    for p in range(passes):
        shift = np.int32(p * _RADIX_BITS)
        k_out, i_out = keys_out[p % 2], idx_out[p % 2]
        upsweep((nblocks,), (_THREADS,),
                (k_in, np.int64(n), shift, np.uint64(flip), hist, np.int32(nblocks)))
        scan = cupy.cumsum(hist.ravel(), dtype=cupy.int32)
        downsweep((nblocks,), (_THREADS,),
                  (k_in, i_in, np.int32(p == 0), k_out, i_out, np.int64(n), shift,
                   np.uint64(flip), hist, scan, np.int32(nblocks)))
        k_in, i_in = k_out, i_out
    return _from_u64(k_in, keys.dtype, cupy), i_in.astype(cupy.int64)


def _use_radix(n: int, cupy) -> bool:
    return 0 < n < 2**31 - 1 and not getattr(cupy.cuda.runtime, "is_hip", False)


def sort_by_key(keys, values, method: str = "argsort") -> tuple:
    """(sorted_keys, order int64, *sorted_values) of checked CuPy keys (n,) and values.

    ``method``: ``"argsort"`` (default, CuPy/Thrust) or ``"radix"`` (radix_sort.cu).
    """
    cupy = load_cupy()
    n = keys.shape[0]
    if method == "radix":
        if n and not _use_radix(n, cupy):
            raise ValueError("sort_by_key: method 'radix' needs CUDA (not HIP) and n < 2**31 - 1")
        if n:
            sorted_keys, order = _radix_order(keys, cupy)
        else:
            order = cupy.zeros(0, dtype=cupy.int64)
            sorted_keys = keys.copy()
    elif method == "argsort":
        order = _argsort_order(keys, cupy)
        sorted_keys = keys[order]
    else:
        raise ValueError(f"sort_by_key: unknown method {method!r}; use 'argsort' or 'radix'")
    out = [sorted_keys, order]
    out.extend(cupy.take(v, order, axis=0) for v in values)
    return tuple(out)
