"""``sort_by_key`` of dask arrays: a distributed stable sort on dask's task shuffle.

One sort for every chunk backend: the sample sort of :mod:`.sample_sort`, whose tasks
call the chunk backend's own ``sort_by_key`` executor (NumPy on CPU workers, CuPy on
the device), cut each locally sorted chunk at splitters drawn from a sample of the
keys, and move only the pieces between workers. No worker ever holds all rows; the
result equals NumPy's ``argsort(kind="stable")`` whatever the chunking.

(An earlier version sorted NumPy chunks with ``dask.dataframe``'s ``sort_values``:
dask computed the keys' quantiles in a pass of its own, shuffled pandas frames and
sorted every partition by two columns; at 2**22 rows it took 40 times NumPy's own
sort. See ``docs/dask.md``.)
"""

from __future__ import annotations

from .chunks import without_empty_chunks
from .sample_sort import sample_sort

__all__ = ["sort_by_key"]


def sort_by_key(keys, values, key_bits=None) -> tuple:
    """(sorted_keys, order int64, *sorted_values) of checked 1-D dask keys and (n,) or
    (n, k) dask values; all dask arrays with the chunks' backend of ``keys``.
    ``key_bits`` (checked by the caller) is not used: the sample sort compares whole
    keys, and the keys are not checked against it (that would compute them)."""
    return sample_sort(without_empty_chunks(keys), [without_empty_chunks(v) for v in values])
