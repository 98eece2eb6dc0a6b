"""The NumPy backend's creation functions return NumPy arrays: a 0-D dask array given
for a scalar argument is taken as the 0-D NumPy array it computes to, as NumPy's own
functions compute it (``int(x)``, ``float(x)``), in every creation function alike.
``linspace`` of a dask end returned a dask array (NumPy's handed the call to dask),
while ``full`` and ``arange`` computed theirs. Where a 0-D NumPy array is refused
(``linspace``'s ``num``, ``fft.fftfreq``'s ``n`` and ``d``) a 0-D dask array is too."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

da = pytest.importorskip("dask.array")

#: (name, call of ``s``: a maker of 0-D arrays from a NumPy scalar)
CALLS = [
    ("full fill_value", lambda s: xp.full(3, s(np.float64(2.5)))),
    ("full shape", lambda s: xp.full((s(np.int64(2)), 2), 1.0)),
    ("zeros shape", lambda s: xp.zeros(s(np.int64(3)))),
    ("ones shape", lambda s: xp.ones((2, s(np.int64(3))))),
    ("empty shape", lambda s: xp.empty((s(np.int64(3)),)).shape),
    ("arange stop", lambda s: xp.arange(s(np.int64(4)))),
    ("arange start", lambda s: xp.arange(s(np.int64(1)), 6)),
    ("arange step", lambda s: xp.arange(0, 8, s(np.int64(3)))),
    ("arange float", lambda s: xp.arange(s(np.float64(0.5)), 3, dtype=xp.float32)),
    ("linspace start", lambda s: xp.linspace(s(np.float64(2.0)), 5, 4)),
    ("linspace stop", lambda s: xp.linspace(0, s(np.float64(-1.5)), 5)),
    ("linspace both", lambda s: xp.linspace(s(np.float64(1.0)), s(np.float64(2.0)), 3,
                                            dtype=xp.float32, endpoint=False)),
    ("linspace complex", lambda s: xp.linspace(s(np.complex128(1j)), 2, 3)),
    ("eye n_rows", lambda s: xp.eye(s(np.int64(3)))),
    ("eye n_cols", lambda s: xp.eye(2, s(np.int64(3)))),
    ("eye k", lambda s: xp.eye(3, k=s(np.int64(1)))),
]


@pytest.mark.parametrize("name, call", CALLS, ids=[c[0] for c in CALLS])
def test_a_0d_dask_argument_is_computed_as_a_0d_numpy_one(name, call):
    want = call(np.asarray)
    got = call(da.asarray)
    if isinstance(want, tuple):   # empty's shape
        assert got == want
        return
    assert type(got) is np.ndarray, name
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


REFUSED = [
    ("linspace", "num", lambda s: xp.linspace(0, 1, s(np.int64(3)))),
    ("fftfreq", "n", lambda s: xp.fft.fftfreq(s(np.int64(4)))),
    ("fftfreq", "d", lambda s: xp.fft.fftfreq(4, d=s(np.float64(0.5)))),
    ("rfftfreq", "d", lambda s: xp.fft.rfftfreq(4, d=s(np.float64(0.5)))),
]


@pytest.mark.parametrize("func, arg, call", REFUSED, ids=[f"{c[0]}-{c[1]}" for c in REFUSED])
@pytest.mark.parametrize("make", [np.asarray, da.asarray], ids=["numpy", "dask"])
def test_where_a_0d_numpy_array_is_refused_a_0d_dask_one_is_too(func, arg, call, make):
    with pytest.raises(TypeError, match=rf"^{func}: argument '{arg}' got "):
        call(make)


def test_a_dask_end_of_more_dimensions_is_computed_too():
    """NumPy's ``linspace`` takes array ends (beyond the standard): a dask one is
    computed as a 0-D one is, the result a NumPy array."""
    got = xp.linspace(da.from_array(np.array([0.0, 10.0]), chunks=1), 1.0, 3)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, np.linspace(np.array([0.0, 10.0]), 1.0, 3))


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "full", "arange"])
def test_the_dask_backend_takes_a_0d_dask_length_as_its_int(name):
    """On the dask backend ``zeros(d0)`` (and ``ones``, ``empty``, ``full``, ``arange``)
    of a 0-D dask length failed with dask's two-line dispatch message ("Dask array input
    not supported"), while ``zeros((d0,))`` worked: the length is computed, as NumPy's
    own functions compute a 0-D array given for one."""
    with xp.use_backend("dask", chunks=2):
        d0 = xp.asarray(3)
        args = (d0, 1.5) if name == "full" else (d0,)
        got = getattr(xp, name)(*args)
        assert isinstance(got, da.Array) and got.shape == (3,)
        start = xp.arange(xp.asarray(1.5), 4)   # an end of arange, as NumPy's 0-D one
    assert xp.to_numpy(start).tolist() == np.arange(np.float64(1.5), 4).tolist()
