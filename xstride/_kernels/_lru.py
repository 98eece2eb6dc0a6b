"""The one bounded cache of the CUDA executors.

Every cache in :mod:`xstride._kernels` (compiled kernels, launch entries, prepared
calls, per-device facts) is a :class:`Bounded`: a ``dict`` whose lookups are plain
``dict.get`` (no bookkeeping on a hit, so a repeated call pays one hash), and whose
:meth:`Bounded.put` drops the oldest entry once ``maxsize`` entries are held. Entries
are cheap to rebuild (a plan, or a kernel that CuPy's on-disk cache serves again), so
first-in-first-out eviction is enough.
"""

from __future__ import annotations

__all__ = ["Bounded"]


class Bounded(dict):
    """A ``dict`` of at most ``maxsize`` entries (oldest insertion dropped first).

    Parameters
    ----------
    maxsize : int
        Most entries held (at least 1).

    Notes
    -----
    Read with ``get``/``[]``/``in`` as a dict; write with :meth:`put` (a plain
    ``cache[key] = value`` is not bounded). Safe to share between threads as far as
    CPython's dict operations are: a concurrent eviction may drop one extra entry,
    never corrupt the cache.
    """

    __slots__ = ("maxsize",)

    def __init__(self, maxsize: int):
        super().__init__()
        self.maxsize = max(1, int(maxsize))

    def put(self, key, value):
        """Store ``value`` under ``key`` (evicting the oldest entries when full);
        returns ``value``."""
        while len(self) >= self.maxsize and key not in self:
            try:
                del self[next(iter(self))]
            except (KeyError, StopIteration, RuntimeError):  # another thread got there first
                break
        self[key] = value
        return value
