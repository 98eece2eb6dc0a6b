"""The first round of ``Philox.integers`` on the host's compiled loops.

``Philox.integers`` (``xstride/rng/_generator.py``) draws by Lemire's multiply-and-reject
on each counter's two 64-bit candidates and gives the elements that rejected both fresh
counters after the block, in rounds; every backend runs those rounds with array
operations (``xstride._plans.philox.mul_hi_lo``). On NumPy arrays the first round --
every element, one counter each -- is a C loop over the block function of
``xstride/random.cuh`` (``xstride_host_integers`` in ``philox_host.c``), chunked over
the executor's threads; the few rejected elements go on through the array rounds. The
values are those of the array rounds bit for bit: the first use compares the two on
ranges that reject about half the candidates, and a library that differs is not used.
"""

from __future__ import annotations

import threading

import numpy as np

from .._plans.philox import mul_hi_lo

__all__ = ["first_round"]

_LIMIT = 1 << 64
_MASK32 = (1 << 32) - 1
_lock = threading.Lock()


def _reference(words, seed, stream, start, n, r, thresh):
    """The first round as the array rounds compute it (NumPy): ``(values, rejected)``;
    ``words`` is the executor's block function (its NumPy path)."""
    u = np.uint64
    ctr = np.arange(n, dtype=u) + u(start)
    cw = np.stack([ctr & u(_MASK32), ctr >> u(32), np.full_like(ctr, stream & _MASK32),
                   np.full_like(ctr, stream >> 32)], axis=1).astype(np.uint32)
    w = words(cw, seed & _MASK32, seed >> 32, (n,), native=False).astype(u)
    out = np.zeros(n, dtype=u)
    rejected = np.ones(n, dtype=bool)
    for a, b in ((0, 1), (2, 3)):
        x = (w[:, a] << u(32)) | w[:, b]
        if r == _LIMIT:
            val, ok = x, np.ones(n, dtype=bool)
        else:
            val, lo = mul_hi_lo(np, x, r)
            ok = lo >= u(thresh)
        take = rejected & ok
        out[take] = val[take]
        rejected &= ~ok
    return out, np.flatnonzero(rejected)


def _run(lib, chunked, seed, stream, start, n, r, thresh):
    out = np.empty(n, dtype=np.uint64)
    rejected = np.empty(n, dtype=np.int64)
    counts = {}
    op, rp = out.ctypes.data, rejected.ctypes.data

    def work(s, e):
        counts[s] = lib.integers(e - s, seed, stream, (start + s) & (_LIMIT - 1), r, thresh,
                                 op + 8 * s, rp + 8 * s)

    chunked(work, n)
    # each chunk's rejected indices, relative to it, at its start: in order, shifted
    kept = [rejected[s:s + c] + s for s, c in sorted(counts.items()) if c]
    return out, (np.concatenate(kept) if kept else np.empty(0, dtype=np.int64))


def _self_check(lib, chunked, words) -> bool:
    """Whether ``lib`` gives the array rounds' first round (values and rejections)."""
    start = (1 << 64) - 700      # counters with high bits set, up to the last one
    for seed, stream, r in ((0x0123456789ABCDEF, (1 << 64) - 3, 10),
                            (7, 1 << 63, (1 << 63) + 1),   # about half rejected
                            ((1 << 64) - 1, 5, (1 << 64) - 1),
                            (3, 9, _LIMIT)):
        thresh = (_LIMIT - r) % r if r < _LIMIT else 0
        want, want_rej = _reference(words, seed, stream, start, 700, r, thresh)
        got, got_rej = _run(lib, chunked, seed, stream, start, 700, r, thresh)
        keep = np.ones(700, dtype=bool)
        keep[want_rej] = False
        if (got_rej.tolist() != want_rej.tolist()
                or got[keep].tolist() != want[keep].tolist()):
            return False
    return True


def first_round(lib, chunked, words, seed, stream, start, n, r, thresh):
    """``(values uint64 (n,), rejected int64 indices in order)`` of the first round for
    counters ``start .. start + n - 1`` (the caller checked that they exist; ``r`` is
    ``high - low``, 2**64 for the full range, ``thresh`` Lemire's threshold) on the
    loaded library ``lib``, or ``None`` where it failed the check (the array rounds
    then run). ``chunked(work, n)`` runs ``work(s, e)`` over chunks of ``range(n)`` (the
    executor's threads); ``words`` is the executor's block function, the check's
    reference. A rejected element's value is left unwritten."""
    ok = getattr(lib, "integers_ok", None)   # the check's answer, once per library
    if ok is None:
        with _lock:
            ok = getattr(lib, "integers_ok", None)
            if ok is None:
                ok = lib.integers_ok = _self_check(lib, chunked, words)
    return _run(lib, chunked, seed, stream, start, n, r, thresh) if ok else None
