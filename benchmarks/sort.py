"""sort_by_key on the device: xstride's one-sweep radix sort against what a CuPy user
writes (``cupy.argsort`` + gathers of the keys and the payload) and the copy ceiling.

Run: ``python benchmarks/sort.py [--sweep] [--n N]``. Cases at 2**26 keys with an
int64 payload: Morton keys of 30 bits (3-D, levels 10; uint64) with ``key_bits=30`` and
with the bits found from the keys, Morton keys of 63 bits, random 64-bit keys, random
int32 keys. Each row checks the result against the CuPy composition (both are stable:
the orders must be equal) and says MISMATCH otherwise. ``--sweep`` adds the pass's
tuning (``xstride._plans.radix_sort.TUNING``: keys per thread, blocks per SM, narrowed
keys and permutation) on the 30- and 64-bit cases. :func:`sort_rows` is the row
generator other benchmarks (``benchmarks/particles.py``) call.
"""

from __future__ import annotations

import argparse
import sys

from _common import copy_ceiling, header, print_table, require_device, time_gpu, try_row

NEEDS_DEVICE = True  # python -m xstride bench skips it without CuPy and a GPU

from xstride import algorithms as alg
from xstride._kernels import sort as ksort
from xstride._plans import radix_sort as rp

HEADERS = ["case", "xstride", "cupy argsort + gathers", "speed-up", "xstride / copy"]


def _cases(cp, n: int) -> dict:
    """name -> (keys, key_bits passed or None)."""
    rng = cp.random.default_rng(1)
    pos = rng.random((n, 3), dtype=cp.float64)
    m30 = alg.morton_keys(pos, [0.0] * 3, [1.0] * 3, 10)
    m63 = alg.morton_keys(pos, [0.0] * 3, [1.0] * 3, 21)
    del pos
    r64 = rng.integers(0, 2**63, size=n, dtype=cp.int64).view(cp.uint64) * cp.uint64(2) \
        + (rng.random(n) < 0.5).astype(cp.uint64)
    r32 = rng.integers(-2**31, 2**31 - 1, size=n, dtype=cp.int64).astype(cp.int32)
    return {
        "Morton 3-D levels 10 (30 bits), key_bits=30": (m30, 30),
        "Morton 3-D levels 10 (30 bits), bits found": (m30, None),
        "Morton 3-D levels 21 (63 bits), key_bits=63": (m63, 63),
        "random uint64 (64 bits)": (r64, None),
        "random int32 (32 bits, signed)": (r32, None),
    }


def sort_rows(cp, n: int = 1 << 26, names=None) -> list:
    """Rows of :data:`HEADERS` for the cases of :func:`_cases` (all, or ``names``),
    each against ``cupy.argsort`` + gathers of keys and payload, and the copy ceiling
    (the time of copying the keys and the payload once)."""
    rows = []
    payload = cp.arange(n, dtype=cp.int64)[::-1].copy()
    ceiling = copy_ceiling(n * 16)
    t_copy = 2 * n * 16 / (ceiling * 1e9)   # keys + payload read and written once
    rows.append([f"copy ceiling: keys + payload once (2 x {n * 16 / 2**20:.0f} MiB)",
                 f"{t_copy * 1e3:.3f} ms", "", "", f"{ceiling:.0f} GB/s"])
    for name, (keys, bits) in _cases(cp, n).items():
        if names is not None and name not in names:
            continue

        def row(name=name, keys=keys, bits=bits):
            def ours():
                return alg.sort_by_key(keys, payload, key_bits=bits)

            def cupy_way():
                order = cp.argsort(keys)
                return keys[order], order, payload[order]

            got, want = ours(), cupy_way()
            ok = all(bool((g == w).all()) for g, w in zip(got, want))
            t_ours, t_cupy = (time_gpu(f, reps=10) for f in (ours, cupy_way))
            return [f"{name} + int64 payload, n = {n:,}" + ("" if ok else " MISMATCH"),
                    f"{t_ours * 1e3:.2f} ms", f"{t_cupy * 1e3:.2f} ms",
                    f"{t_cupy / t_ours:.2f}x", f"{t_ours / t_copy:.1f} copies"]

        try_row(rows, name, row)
    return rows


def stage_rows(cp, n: int = 1 << 26) -> list:
    """Where the time of the 30-bit case goes: the bits from the keys (one reduction
    and a read-back), the radix sort (keys + order), the payload's gather."""
    rows = []
    keys = _cases(cp, n)["Morton 3-D levels 10 (30 bits), key_bits=30"][0]
    payload = cp.arange(n, dtype=cp.int64)
    order = ksort.radix_sort(keys, 30)[1]
    scratch = cp.zeros(rp.SCRATCH_STATUS, dtype=cp.uint64)

    def bits():
        scratch[:1] = 0
        return ksort.key_bits_of(keys, False, scratch)

    for label, fn in [("bits from the keys (OR + 8-byte read-back)", bits),
                      ("radix sort, key_bits=30 (4 passes): keys + order",
                       lambda: ksort.radix_sort(keys, 30)),
                      ("radix sort, 64 bits (8 passes): keys + order",
                       lambda: ksort.radix_sort(keys, 64)),
                      ("gather of the int64 payload (cupy.take)", lambda: cp.take(payload, order))]:
        try_row(rows, f"stage: {label}",
                lambda fn=fn, label=label: [f"stage: {label}",
                                            f"{time_gpu(fn, reps=10) * 1e3:.3f} ms", "", "", ""])
    return rows


def sweep_rows(cp, n: int = 1 << 26) -> list:
    """The 30- and 64-bit cases at other tunings of the pass (the default first)."""
    rows = []
    saved = dict(rp.TUNING)
    names = ["Morton 3-D levels 10 (30 bits), key_bits=30", "random uint64 (64 bits)"]
    try:
        for items, minb, narrow, nidx in [
                (15, 3, True, True), (15, 3, False, True), (15, 3, True, False),
                (15, 3, False, False), (15, 2, True, True), (17, 3, True, True),
                (13, 3, True, True), (11, 4, True, True), (15, 4, True, True),
                (9, 4, True, True)]:
            rp.TUNING.update(items=items, min_blocks=minb, narrow=narrow, narrow_index=nidx)
            for r in sort_rows(cp, n, names)[1:]:
                rows.append([f"tuning items={items} min_blocks={minb} narrow={narrow} "
                             f"narrow_index={nidx}: {r[0]}"] + r[1:])
    finally:
        rp.TUNING.clear()
        rp.TUNING.update(saved)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 26)
    ap.add_argument("--sweep", action="store_true", help="also sweep the pass's tuning")
    a = ap.parse_args(argv)
    cp = require_device("sort")
    print(header("benchmarks/sort.py"))
    rows = sort_rows(cp, a.n) + stage_rows(cp, a.n)
    if a.sweep:
        rows += sweep_rows(cp, a.n)
    print_table(HEADERS, [r + [""] * (len(HEADERS) - len(r)) for r in rows])
    return 0


if __name__ == "__main__":
    sys.exit(main())
