"""The normals of the host Philox from IEEE-754 ``+ - * /`` and ``sqrt`` only: the
radius ``sqrt(-2 log(1 - a*2**-53))`` (:func:`radius`, an atanh series after exact
range reduction) and the angle's cosine and sine (:func:`angle`, sine and cosine
series after exact reduction by quarter turns), each step a separate NumPy ufunc
evaluated in exactly the order of ``random.cuh``, so host and device normals are
bit-identical. The series' constants are :data:`CONSTANTS`, the header's hex literals
(a test checks they agree). See docs/rng.md.
"""

from __future__ import annotations

import numpy as np

__all__ = ["CONSTANTS", "radius", "angle", "poly"]

# Hex literals, identical to the ones in xstride/_kernels/include/xstride/random.cuh.
CONSTANTS = {
    "SQRT2": "0x1.6a09e667f3bcdp+0",
    "LN2_HI": "0x1.62e42fee00000p-1",  # ln 2 with 21 low mantissa bits cleared
    "LN2_LO": "0x1.a39ef35793c76p-33",  # ln 2 - LN2_HI
    "PIO2": "0x1.921fb54442d18p+0",
    # 1/(2k+1), k = 1..10 (atanh series)
    "L1": "0x1.5555555555555p-2", "L2": "0x1.999999999999ap-3",
    "L3": "0x1.2492492492492p-3", "L4": "0x1.c71c71c71c71cp-4",
    "L5": "0x1.745d1745d1746p-4", "L6": "0x1.3b13b13b13b14p-4",
    "L7": "0x1.1111111111111p-4", "L8": "0x1.e1e1e1e1e1e1ep-5",
    "L9": "0x1.af286bca1af28p-5", "L10": "0x1.8618618618618p-5",
    # (-1)^k/(2k+1)!, k = 1..8 (sine)
    "S1": "-0x1.5555555555555p-3", "S2": "0x1.1111111111111p-7",
    "S3": "-0x1.a01a01a01a01ap-13", "S4": "0x1.71de3a556c734p-19",
    "S5": "-0x1.ae64567f544e4p-26", "S6": "0x1.6124613a86d09p-33",
    "S7": "-0x1.ae7f3e733b81fp-41", "S8": "0x1.952c77030ad4ap-49",
    # (-1)^k/(2k)!, k = 1..8 (cosine)
    "C1": "-0x1.0000000000000p-1", "C2": "0x1.5555555555555p-5",
    "C3": "-0x1.6c16c16c16c17p-10", "C4": "0x1.a01a01a01a01ap-16",
    "C5": "-0x1.27e4fb7789f5cp-22", "C6": "0x1.1eed8eff8d898p-29",
    "C7": "-0x1.93974a8c07c9dp-37", "C8": "0x1.ae7f3e733b81fp-45",
}
_C = {k: float.fromhex(v) for k, v in CONSTANTS.items()}
_LOGC = [_C[f"L{k}"] for k in range(1, 11)]
_SINC = [_C[f"S{k}"] for k in range(1, 9)]
_COSC = [_C[f"C{k}"] for k in range(1, 9)]


def poly(z, coeffs):
    """Horner: ``c0 + z*(c1 + z*(... + z*c_last))``, one rounding per step."""
    acc = np.full_like(z, coeffs[-1])
    for c in coeffs[-2::-1]:
        acc *= z
        acc += c
    return acc


def radius(a):
    """``sqrt(-2 log(1 - a*2**-53))`` for uint64 ``a < 2**53``, IEEE ops only."""
    m = (np.uint64(1 << 53) - a).astype(np.float64)  # exact: 1 <= m <= 2**53
    f, e = np.frexp(m)  # f in [0.5, 1), exact
    f *= 2.0
    e = e.astype(np.float64) - 54.0  # f in [1, 2), x = f * 2**e
    big = f > _C["SQRT2"]
    f[big] *= 0.5
    e[big] += 1.0
    s = (f - 1.0) / (f + 1.0)
    z = s * s
    R = z * poly(z, _LOGC)
    t = s + s
    lf = t + t * R
    L = e * _C["LN2_HI"] + (lf + e * _C["LN2_LO"])
    L *= -2.0
    return np.sqrt(L, out=L)


def angle(b):
    """``(cos, sin)`` of ``2*pi*b*2**-53`` for uint64 ``b < 2**53``, IEEE ops only.

    Exact reduction: ``4*b*2**-53 = q + f`` with integer ``q`` and ``|f| <= 1/2``.
    """
    q = (b + np.uint64(1 << 50)) >> np.uint64(51)
    d = b.astype(np.int64) - (q << np.uint64(51)).astype(np.int64)
    f = d.astype(np.float64) * 2.0 ** -51
    alpha = f * _C["PIO2"]
    z = alpha * alpha
    sa = alpha + (alpha * z) * poly(z, _SINC)
    ca = 1.0 + z * poly(z, _COSC)
    q &= np.uint64(3)
    cos = np.where(q == 0, ca, np.where(q == 1, -sa, np.where(q == 2, -ca, sa)))
    sin = np.where(q == 0, sa, np.where(q == 1, ca, np.where(q == 2, -sa, -ca)))
    return cos, sin
