"""Views of NumPy record arrays keep the record dtype's scalar type (``numpy.record``)."""

import numpy as np

import xstride as xp


def test_views_of_a_record_array_keep_numpy_record():
    """A new-user probe: a ``numpy.rec`` array's dtype has the scalar type
    ``numpy.record``, which ``__array_interface__`` drops, so ``as_strided`` and
    ``sliding_window_view`` gave elements of ``numpy.void`` (``v[0].a`` an
    ``AttributeError``), where NumPy's functions of those names keep ``numpy.record``
    (the two dtypes compare equal, so the dtype check let it through)."""
    rec = np.rec.array([(1, 2.0), (3, 4.0), (5, 6.0)], dtype=[("a", "i4"), ("b", "f8")])
    for v in (xp.as_strided(rec, (2,), (2,)), xp.sliding_window_view(rec, 2),
              xp.sliding_window_view(rec, 2, writeable=True)):
        assert v.dtype.type is np.record
        assert np.shares_memory(v, rec)
    assert xp.as_strided(rec, (2,), (2,))[1].a == 5
    assert xp.sliding_window_view(rec, 2)[1, 1].b == 6.0
    plain = np.zeros(3, dtype=[("a", "i4"), ("b", "f8")])   # a plain one stays plain
    assert xp.as_strided(plain, (2,), (2,)).dtype.type is np.void
