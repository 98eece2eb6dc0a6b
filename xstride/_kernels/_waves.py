"""How many chunks a launch cuts its work into so that its blocks fill whole waves
(a wave: the blocks every SM holds at once), for the split reductions of
:mod:`._geometry`."""

from __future__ import annotations

__all__ = ["wave_chunks"]


def wave_chunks(units: int, wave: int, most: int) -> int:
    """Chunks to cut each of ``units`` work units into (at most ``most``) so that the
    ``units * c`` blocks fill whole waves of ``wave`` resident blocks: 1 where the units
    alone fill a wave, else the c of 1 ... 2 * ceil(wave / units) whose blocks use the
    waves they take best, ``units * c / (wave * ceil(units * c / wave))`` (the fewest
    chunks of equal use). The blocks of a few more than a wave run their last ones
    alone: on the H200 (2026-12-04) ``sum(x, axis=(0, 2))`` of (64, 64, 384, 64)
    float32 took the "cols" kernel's 416 blocks over a wave of 396 (13 chunks of 32
    tiles; 12 now).

    >>> wave_chunks(32, 396, 1000), wave_chunks(256, 396, 96), wave_chunks(500, 396, 9)
    (12, 3, 1)
    >>> wave_chunks(32, 396, 4), wave_chunks(1, 396, 1000)
    (4, 396)
    """
    units, wave = max(int(units), 1), max(int(wave), 1)
    if units >= wave or most <= 1:
        return 1
    best, use = 1, 0.0
    for c in range(1, min(int(most), 2 * -(-wave // units)) + 1):
        blocks = units * c
        u = blocks / (wave * -(-blocks // wave))
        if u > use + 1e-9:
            best, use = c, u
    return best
