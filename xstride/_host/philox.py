"""Philox4x32-10 on the host: the executor of :mod:`xstride.rng` for NumPy arrays.

The generator is evaluated on chunks of the (broadcast) output, so the scratch memory
is bounded whatever the output size, and the chunks are spread over a few threads.
Each chunk runs the compiled C loops of :mod:`._philox_native` (``philox_host.c`` over
``random.cuh``, the device's header; ctypes releases the GIL) when a C compiler
works, else -- or with ``XSTRIDE_HOST_CC=none`` -- the NumPy ufuncs below, which are
the reference: both give the same bits (tests/test_rng_native.py). Arguments reaching this
module are already checked by :mod:`xstride.rng`: Python ints in ``[0, 2**64)`` or
``uint64`` arrays (``uint32`` for the raw counter words) that broadcast together.

One round of the algorithm works on two lanes at once: the state words ``(x0, x2)``
that are multiplied live in a ``(2, c)`` ``uint32`` array, their 64-bit products in a
``(2, c)`` ``uint64`` array whose ``uint32`` view gives the low and high halves
without any shift or mask (little-endian hosts; a shift/mask path is used otherwise).

Normals use a logarithm and a sine/cosine built only from IEEE-754 ``+ - * /`` and
``sqrt`` (each a separate NumPy ufunc, so nothing is fused), evaluated in exactly the
order of ``random.cuh``; host and device normals are therefore bit-identical
(:mod:`.philox_normals`, whose constants are shared with that header: a
test checks they agree).

Source: J. K. Salmon, M. A. Moraes, R. O. Dror, D. E. Shaw, "Parallel random numbers:
as easy as 1, 2, 3", SC'11 (Philox4x32-10: multipliers, Weyl key increments, round
structure). The log and sin/cos are Taylor series of atanh and sin/cos after exact
range reduction (see docs/rng.md).
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from .._core.errors import setting_error
from .._plans.philox import Affine
from . import philox_integers
from .philox_normals import CONSTANTS, angle as _angle, radius as _radius

__all__ = ["Affine", "words", "uniform", "uniform2", "normal", "normal2", "pairs", "CHUNK",
           "CONSTANTS"]

_U32 = np.uint32
_U64 = np.uint64
_M = np.array([[0xD2511F53], [0xCD9E8D57]], dtype=_U64)
_W = (0x9E3779B9, 0xBB67AE85)
_MASK32 = 0xFFFFFFFF

#: Elements per chunk: scratch is about 56 bytes per element, ~1 MiB per chunk.
CHUNK = 1 << 14
#: Elements per chunk of the compiled path (no scratch; broadcast views copy 8 B/element).
NATIVE_CHUNK = 1 << 16
_MASK64 = (1 << 64) - 1
_LITTLE = sys.byteorder == "little"

# ------------------------------------------------------------------ the rounds
@functools.lru_cache(maxsize=64)
def _scalar_keys(k0, k1):
    keys = []
    for i in range(10):
        k = np.array([[(k0 + i * _W[0]) & _MASK32], [(k1 + i * _W[1]) & _MASK32]], dtype=_U32)
        k.flags.writeable = False
        keys.append(k)
    return keys


def _round_keys(k0, k1):
    """Keys of rounds 0..9: ``(2, 1)`` for scalar keys, ``(2, c)`` for per-element keys."""
    if isinstance(k0, int) and isinstance(k1, int):
        return _scalar_keys(k0, k1)
    keys = []
    c = max(np.size(k0), np.size(k1))
    base = np.empty((2, c), dtype=_U32)
    base[0] = k0
    base[1] = k1
    for i in range(10):
        keys.append(base + np.array([[(i * _W[0]) & _MASK32], [(i * _W[1]) & _MASK32]], _U32))
    return keys


def _rounds(x0, x1, x2, x3, k0, k1, c, both=True):
    """Run the ten rounds on ``c`` counters.

    ``x0..x3``, ``k0``, ``k1``: Python ints below ``2**32`` or ``uint32`` arrays of
    length ``c``. Returns ``(P, Y, K)``: ``P`` (2, c) uint64 holds the last round's
    products ``[M0*x0, M1*x2]``, ``Y`` the pair ``(x1, x3)`` entering that round
    (uint32, (2, c)), ``K`` its key. The outputs are then
    ``w0 = hi(P[1]) ^ Y[0] ^ K[0]``, ``w1 = lo(P[1])``, ``w2 = hi(P[0]) ^ Y[1] ^ K[1]``,
    ``w3 = lo(P[0])``. With ``both=False`` the last round skips ``P[0]`` (w2, w3).
    """
    keys = _round_keys(k0, k1)
    X = np.empty((2, c), dtype=_U32)
    X[0] = x0
    X[1] = x2
    P = np.empty((2, c), dtype=_U64)
    Q = np.empty((2, c), dtype=_U64)
    Y = np.empty((2, c), dtype=_U32)
    Y[0] = x1
    Y[1] = x3
    np.multiply(X, _M, out=P)
    if _LITTLE:
        P32 = P.view(_U32).reshape(2, c, 2)
        Q32 = Q.view(_U32).reshape(2, c, 2)
        # rounds 0..8: x0' = hi(p1) ^ x1 ^ k0, x2' = hi(p0) ^ x3 ^ k1, x1' = lo(p1), x3' = lo(p0)
        np.bitwise_xor(P32[::-1, :, 1], Y, out=X)
        X ^= keys[0]
        for i in range(1, 9):
            np.multiply(X, _M, out=Q)
            np.bitwise_xor(Q32[::-1, :, 1], P32[::-1, :, 0], out=X)
            X ^= keys[i]
            P, Q, P32, Q32 = Q, P, Q32, P32
        Y[...] = P32[::-1, :, 0]
    else:  # pragma: no cover - big-endian hosts
        for i in range(9):
            if i:
                np.multiply(X, _M, out=P)
            Ynew = (P[::-1] & _MASK32).astype(_U32)
            np.bitwise_xor((P[::-1] >> 32).astype(_U32), Y, out=X)
            X ^= keys[i]
            Y = Ynew
    if both:
        np.multiply(X, _M, out=P)
    else:
        np.multiply(X[1], _M[1], out=P[1])
    return P, Y, keys[9]


def _joined(P, Y, K, lane):
    """``(w0 << 32) | w1`` (lane 1) or ``(w2 << 32) | w3`` (lane 0) as uint64, in place in ``P``."""
    src, key = (1, 0) if lane == 1 else (0, 1)
    out = P[src]
    hi = (Y[key] ^ K[key]).astype(_U64)
    hi <<= 32
    out ^= hi
    return out


def _to_uniform(a64, out):
    """``(a64 >> 11) * 2**-53`` into ``out`` (float64)."""
    a64 >>= 11
    np.multiply(a64, 2.0 ** -53, out=out, casting="unsafe")


# ------------------------------------------------------------------ chunk driver
class _Source:
    """One argument, broadcast to the output shape, read chunk by chunk."""

    def __init__(self, value, shape):
        self.start = None
        if isinstance(value, Affine):  # counters start + flat index
            self.scalar, self.flat, self.view, self.start = None, None, None, value.start
        elif isinstance(value, int):
            self.scalar, self.flat, self.view = value, None, None
        elif value.size == 1:
            self.scalar, self.flat, self.view = int(value.reshape(-1)[0]), None, None
        elif value.shape == shape and value.flags.c_contiguous:
            self.scalar, self.flat, self.view = None, value.reshape(-1), None
        else:  # broadcast view, never materialised in full
            self.scalar, self.flat, self.view = None, None, np.broadcast_to(value, shape)

    def chunk(self, s, e):
        if self.start is not None:
            return np.arange(s, e, dtype=_U64) + np.uint64(self.start)
        if self.scalar is not None:
            return self.scalar
        if self.flat is not None:
            return self.flat[s:e]
        return _flat_range(self.view, s, e)


def _flat_range(view, s, e):
    """Elements ``[s, e)`` of ``view`` in C order: a strided view for 1-D, else a copy of
    the rows that hold them (``reshape``'s C loop: ``view.flat[s:e]`` walks a flat
    iterator element by element, about ten times slower)."""
    if view.ndim <= 1:
        return view.reshape(-1)[s:e]
    inner = view.size // view.shape[0]
    r0, r1 = s // inner, -(-e // inner)
    rows = view[r0:r1].reshape(-1)
    return rows[s - r0 * inner:e - r0 * inner]


def _split64(v):
    """(low 32, high 32) of an int or a uint64 array."""
    if isinstance(v, int):
        return v & _MASK32, v >> 32
    return v.astype(_U32), (v >> np.uint64(32)).astype(_U32)


_pool = None


def _forget_pool():
    """In a forked child: the parent's worker threads do not exist there (a task sent
    to the inherited pool would wait forever), so the next :func:`_map` starts a pool."""
    global _pool
    _pool = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def _threads(nchunks):
    """Threads for ``nchunks`` chunks: ``XSTRIDE_NUM_THREADS`` (a positive int), else
    ``OMP_NUM_THREADS`` when it is a positive int (the variable dask's worker processes
    set to 1, so that a worker of one thread uses one core), else ``min(cpus, 16)``; at
    most one per two chunks. A set ``XSTRIDE_NUM_THREADS`` that is not a positive
    integer is an error (``ValueError`` naming it), not silently ignored."""
    env = os.environ.get("XSTRIDE_NUM_THREADS", "")
    if env == "":
        omp = os.environ.get("OMP_NUM_THREADS", "").strip()
        limit = int(omp) if omp.isdigit() and int(omp) > 0 else min(os.cpu_count() or 1, 16)
    else:
        try:
            limit = int(env)
        except ValueError:
            limit = 0
        if limit < 1:
            raise setting_error("XSTRIDE_NUM_THREADS", env,
                                "a positive integer (threads of the host Philox executor)")
    return max(1, min(limit, nchunks // 2))


def _map(fn, n, chunk=CHUNK):
    """Call ``fn(s, e)`` for every chunk of ``range(n)``, on a thread pool when large."""
    starts = range(0, n, chunk)
    nt = _threads(len(starts))
    if nt == 1:
        for s in starts:
            fn(s, min(s + chunk, n))
        return
    global _pool
    if _pool is None or _pool._max_workers < nt:
        _pool = ThreadPoolExecutor(max_workers=nt, thread_name_prefix="xstride-philox")
    step = -(-len(starts) // nt)
    stop = threading.Event()

    def run(j):
        for s in starts[j * step:(j + 1) * step]:
            if stop.is_set():
                return
            fn(s, min(s + chunk, n))

    futures = [_pool.submit(run, j) for j in range(nt)]
    try:
        for f in futures:
            f.result()
    except BaseException:
        # (Ctrl-C in this thread) the other threads end their chunk before the buffers
        # they write may be freed: leaving them running crashed the process (SIGSEGV)
        # as it unwound or exited
        stop.set()
        wait(futures)
        raise


# ------------------------------------------------------------------ compiled path
_check_lock = threading.Lock()


def _native():
    """The compiled loops (:mod:`._philox_native`), or ``None``: use the NumPy path.

    The first time a library is used it must reproduce the NumPy path bit for bit on a
    fixed set of inputs (uniforms, normals, raw words; counters, streams and seeds with
    high bits set); a compiler that contracts or reorders floating-point operations
    (fast-math defaults) or miscompiles fails the check, and the NumPy path is used
    with the reason recorded.
    """
    from . import _philox_native

    lib = _philox_native.get()
    if lib is None or lib.checked:
        return lib
    with _check_lock:
        if not lib.checked:
            why = _self_check(lib)
            if why:
                _philox_native.reject(lib, why)
                return None
            lib.checked = True
    return lib


def _self_check(lib) -> str:
    """``""`` when ``lib`` gives the NumPy path's bits on the check inputs, else why not."""
    m = 67
    j = np.arange(m, dtype=_U64)
    seed = (j * np.uint64(0x9E3779B97F4A7C15)) ^ np.uint64(0xFFFFFFFF00000000)
    stream = j * np.uint64(0xD1B54A32D192ED03) + np.uint64(1 << 63)
    counter = np.uint64(2**64 - 40) + j   # wraps past 2**64 - 1
    srcs = [_Source(v, (m,)) for v in (seed, stream, counter)]
    for kind in ("uniform", "uniform2", "normal", "normal2"):
        nout = 2 if kind.endswith("2") else 1
        want = _drive(kind, seed, stream, counter, (m,), native=False)
        got = [np.full(m, np.nan) for _ in range(nout)]
        if not _native_drive(lib, kind, srcs, m, got):
            return f"compiled {kind} refused the self-check's inputs"
        want = [want] if nout == 1 else list(want)
        if any(g.view(_U64).tolist() != w.view(_U64).tolist() for g, w in zip(got, want)):
            return f"compiled results differ from the reference ({kind}; {lib.compiler})"
    cw = (seed[:, None] >> np.arange(0, 64, 16, dtype=_U64)).astype(_U32)
    k0, k1 = stream.astype(_U32), (stream >> np.uint64(32)).astype(_U32)
    if words(cw, k0, k1, (m,), native=lib).tolist() != \
            words(cw, k0, k1, (m,), native=False).tolist():
        return f"compiled results differ from the reference (words; {lib.compiler})"
    return ""


def _native_ok(src, dtype):
    """Whether the compiled path can read ``src`` (native-order ``dtype`` arrays only)."""
    a = src.flat if src.flat is not None else src.view
    return a is None or a.dtype == dtype


def _native_arg(src, s, e, keep, itemsize=8):
    """``(address or None, element stride, base, step)`` of ``src`` over chunk ``[s, e)``."""
    if src.start is not None:
        return None, 0, (src.start + s) & _MASK64, 1
    if src.scalar is not None:
        return None, 0, src.scalar, 0
    a = src.flat[s:e] if src.flat is not None else _flat_range(src.view, s, e)
    if a.strides[0] % itemsize or not a.flags.aligned:   # C steps whole aligned items
        a = a.copy()   # (a packed struct field: 12-byte steps; -12 read out of bounds)
    keep.append(a)
    return a.ctypes.data, a.strides[0] // itemsize, 0, 0


def _by_columns(srcs, shape) -> bool:
    """Whether a 2-D output of a few columns is better evaluated column by column: an
    argument is a broadcast view (no generator counters, whose flat index spans rows)."""
    return (len(shape) == 2 and 1 < shape[1] <= 8 and shape[0] >= 2 * shape[1]
            and all(src.start is None for src in srcs)
            and any(src.view is not None for src in srcs))


def _native_drive(lib, kind, srcs, n, flats):
    """Run ``kind`` with the compiled loops; ``False`` (nothing written) if it cannot."""
    if not all(_native_ok(src, np.dtype(_U64)) for src in srcs):
        return False
    outs = []
    for f in flats:
        if (f.dtype != np.float64 or f.ndim != 1 or f.strides[0] % 8
                or not f.flags.writeable):
            return False
        outs.append((f.ctypes.data, f.strides[0] // 8))

    def work(s, e):
        keep = []
        args = [_native_arg(src, s, e, keep) for src in srcs]
        lib.philox(kind, e - s, args, [(a + s * st * 8, st) for a, st in outs])

    _map(work, n, NATIVE_CHUNK)
    return True


# ------------------------------------------------------------------ NumPy path
def _drive(kind, seed, stream, counter, shape, into=None, native=True):
    """Evaluate ``kind`` over the broadcast ``shape`` of the three uint64 arguments.

    ``into``: optional 1-D float64 views (one per output) to write instead of new arrays.
    Runs the compiled loops of :mod:`._philox_native` when they are available, else
    (or with ``XSTRIDE_HOST_CC=none``) the NumPy ufuncs below.
    """
    srcs = [_Source(v, shape) for v in (seed, stream, counter)]
    n = int(np.prod(shape, dtype=np.int64))
    nout = 2 if kind in ("uniform2", "normal2") else 1
    if into is None:
        outs = [np.empty(shape, dtype=np.float64) for _ in range(nout)]
        flats = [o.reshape(-1) for o in outs]
    else:
        outs = flats = list(into)
    if n and native:
        lib = _native()
        if lib is not None and into is None and _by_columns(srcs, shape):
            # (n, k) from broadcast arguments, e.g. counters (n, 1) with streams (1, k):
            # each column is 1-D strided views (stride 0 where broadcast), which the C
            # loops read as they are; flat chunks of the 2-D views would be copies
            for j in range(shape[1]):
                cols = [v if isinstance(v, int) else np.broadcast_to(v, shape)[:, j]
                        for v in (seed, stream, counter)]
                _drive(kind, *cols, (shape[0],), into=[o[:, j] for o in outs])
            return outs[0] if nout == 1 else tuple(outs)
        if lib is not None and _native_drive(lib, kind, srcs, n, flats):
            return outs[0] if nout == 1 else tuple(outs)

    def work(s, e):
        c = e - s
        sd, st, ct = (src.chunk(s, e) for src in srcs)
        k0, k1 = _split64(sd)
        x2, x3 = _split64(st)
        x0, x1 = _split64(ct)
        both = kind != "uniform"
        P, Y, K = _rounds(x0, x1, x2, x3, k0, k1, c, both=both)
        a = _joined(P, Y, K, 1)
        if kind == "uniform":
            _to_uniform(a, flats[0][s:e])
            return
        b = _joined(P, Y, K, 0)
        if kind == "uniform2":
            _to_uniform(a, flats[0][s:e])
            _to_uniform(b, flats[1][s:e])
            return
        r = _radius(a >> np.uint64(11))
        cos, sin = _angle(b >> np.uint64(11))
        np.multiply(r, cos, out=flats[0][s:e])
        if kind == "normal2":
            np.multiply(r, sin, out=flats[1][s:e])

    if n:
        _map(work, n)
    return outs[0] if nout == 1 else tuple(outs)


def uniform(seed, stream, counter, shape):
    """Uniforms in [0, 1) from ``(w0, w1)``; arguments checked and broadcast by the caller."""
    return _drive("uniform", seed, stream, counter, shape)


def uniform2(seed, stream, counter, shape):
    """Two uniforms per counter, from ``(w0, w1)`` and ``(w2, w3)``."""
    return _drive("uniform2", seed, stream, counter, shape)


def normal(seed, stream, counter, shape):
    """Box–Muller ``z0 = r cos(theta)`` per counter."""
    return _drive("normal", seed, stream, counter, shape)


def normal2(seed, stream, counter, shape):
    """Box–Muller ``(z0, z1) = (r cos(theta), r sin(theta))`` per counter."""
    return _drive("normal2", seed, stream, counter, shape)


def pairs(kind, seed, stream, start, n):
    """The generator's stream: ``n`` values from counters ``start, start + 1, ...``.

    Counter ``start + j`` gives elements ``2j`` and ``2j + 1``: for ``kind="uniform"``
    the uniforms of ``(w0, w1)`` and ``(w2, w3)``, for ``kind="normal"`` the Box–Muller
    pair ``(z0, z1)``; an odd ``n`` drops the second value of the last counter.
    ``seed``/``stream`` are ints, ``start + ceil(n / 2) <= 2**64``. Returns float64 (n,).
    """
    m = (n + 1) // 2
    out = np.empty(2 * m, dtype=np.float64)
    two = out.reshape(m, 2)
    if m:
        _drive("uniform2" if kind == "uniform" else "normal2", seed, stream, Affine(start),
               (m,), into=(two[:, 0], two[:, 1]))
    return out[:n]


def words(counter_words, key0, key1, shape, native=True):
    """Raw Philox4x32-10: ``counter_words`` uint32 (..., 4) -> uint32 ``shape + (4,)``.

    ``native``: ``True`` (the compiled loops when available), ``False`` (NumPy), or a
    loaded library to use as it is (the self-check)."""
    cw = [_Source(counter_words[..., j], shape) for j in range(4)]
    ks = [_Source(k, shape) for k in (key0, key1)]
    n = int(np.prod(shape, dtype=np.int64))
    out = np.empty(shape + (4,), dtype=_U32)
    flat = out.reshape(-1, 4)
    lib = (_native() if native is True else (native or None)) if n else None
    if lib is not None and all(_native_ok(src, np.dtype(_U32)) for src in cw + ks):
        dense = (counter_words.shape == shape + (4,) and counter_words.flags.c_contiguous
                 and counter_words.flags.aligned and counter_words.dtype == np.dtype(_U32))
        base = flat.ctypes.data
        cbase = counter_words.ctypes.data if dense else 0

        def native_work(s, e):
            keep = []
            if dense:
                c = [(cbase + (4 * s + j) * 4, 4, 0) for j in range(4)]
            else:
                c = [_native_arg(src, s, e, keep, 4) for src in cw]
                c = [(a, st, b) for a, st, b, _ in c]
            k = [_native_arg(src, s, e, keep, 4)[:3] for src in ks]
            lib.words(e - s, c, k[0], k[1], base + 16 * s)

        _map(native_work, n, NATIVE_CHUNK)
        return out

    def work(s, e):
        x = [src.chunk(s, e) for src in cw]
        k = [src.chunk(s, e) for src in ks]
        P, Y, K = _rounds(x[0], x[1], x[2], x[3], k[0], k[1], e - s)
        flat[s:e, 0] = (P[1] >> np.uint64(32)).astype(_U32) ^ Y[0] ^ K[0]
        flat[s:e, 1] = P[1].astype(_U32)
        flat[s:e, 2] = (P[0] >> np.uint64(32)).astype(_U32) ^ Y[1] ^ K[1]
        flat[s:e, 3] = P[0].astype(_U32)

    if n:
        _map(work, n)
    return out


def native_status() -> dict:
    """Capability row of this executor: ``available`` (whether it runs compiled C),
    ``reason`` (why not, else ``""``) and ``path`` (``"compiled C (gcc 12.2)"`` or
    ``"NumPy ufuncs (<reason>)"``). May trigger the compile and runs the self-check
    (a library the first use would reject is not reported as compiled)."""
    from . import _philox_native

    _native()
    ok, path = _philox_native.describe()
    return {"available": ok, "reason": _philox_native.reason(), "path": path}

def integers_first(seed, stream, start, n, r, thresh):
    """``Philox.integers``' first round on the compiled loops
    (:func:`.philox_integers.first_round`), or ``None`` without them."""
    lib = _native() if n else None
    if lib is None:
        return None
    return philox_integers.first_round(lib, lambda fn, m: _map(fn, m, NATIVE_CHUNK), words,
                                       seed, stream, start, n, r, thresh)
