"""Counter-based random numbers: Philox4x32-10, bit-identical on host and device.

``import xstride as xp``; ``xp.rng.philox_uniform(seed, stream, counter)`` is a pure
function of three 64-bit integers: the same arguments give the same bits on NumPy
and on CuPy, whatever the array shapes, chunking or launch configuration. The
arguments broadcast (NumPy rules). The result lives on the backend of the array
arguments (any CuPy array -> computed by xstride's CUDA kernel); when no argument is
an array (Python ints, NumPy scalars, lists) the active backend
(:func:`xstride.get_backend`) is used.

Mapping (DESIGN.md, "Philox"): counter words = (lo32(counter), hi32(counter),
lo32(stream), hi32(stream)), key = (lo32(seed), hi32(seed)); outputs ``w0..w3``.
``uniform = (((w0 << 32) | w1) >> 11) * 2**-53`` in [0, 1); the second uniform comes
from ``(w2, w3)``. Normals are Box–Muller, ``r = sqrt(-2 log(1 - u0))``,
``theta = 2 pi u1``, computed with a log and sin/cos of xstride's own that use only
IEEE ``+ - * / sqrt``, so normals are bit-identical host vs device too.

See docs/rng.md for the conventions, guarantees and measured accuracy.
"""

from ._functions import (
    philox4x32_10,
    philox_normal,
    philox_normal2,
    philox_uniform,
    philox_uniform2,
)
from ._generator import Philox

__all__ = [
    "philox4x32_10",
    "philox_uniform",
    "philox_uniform2",
    "philox_normal",
    "philox_normal2",
    "Philox",
]
