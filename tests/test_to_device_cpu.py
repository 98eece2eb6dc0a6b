"""``xp.to_device(x, device)`` with the array API standard's device: ``"cpu"`` (NumPy's
device, and what ``x.device`` / ``array_api_compat.device(x)`` answer for a NumPy array
and a dask array of NumPy chunks) is the host, and the device an array is on keeps it
where it is. It was refused as an unknown backend name."""

from __future__ import annotations

import array_api_compat
import numpy as np
import pytest

import xstride as xp

da = pytest.importorskip("dask.array")


def test_cpu_keeps_a_numpy_array_itself():
    a = np.arange(5.0)
    assert xp.to_device(a, "cpu") is a
    assert xp.to_device(a, a.device) is a
    assert xp.to_device(a, array_api_compat.device(a)) is a
    got = xp.to_device([1, 2], "cpu")
    assert type(got) is np.ndarray and got.tolist() == [1, 2]
    m = np.ma.masked_array([1.0, 2.0], mask=[False, True])
    assert xp.to_device(m, "cpu") is m


def test_cpu_keeps_a_dask_array_of_numpy_chunks_uncomputed():
    d = da.from_array(np.arange(6), chunks=2)
    assert xp.to_device(d, "cpu") is d
    assert xp.to_device(d, array_api_compat.device(d)) is d
    m = da.ma.masked_array(d, mask=[False, True] * 3)
    assert xp.to_device(m, "cpu") is m
    with xp.use_backend("dask"):
        assert xp.to_device(d, "cpu") is d


def test_backend_names_still_move_arrays():
    a = np.arange(3)
    assert xp.to_device(a, "numpy") is a and xp.to_device(a, "NumPy") is a
    d = xp.to_device(a, "dask")
    assert isinstance(d, da.Array)
    assert type(xp.to_device(d, "numpy")) is np.ndarray


@pytest.mark.parametrize("bad", ["CPU", "gpu", " cpu"])
def test_other_strings_are_unknown_names_and_offer_cpu(bad):
    with pytest.raises(ValueError, match=r"^to_device: argument 'backend' names an unknown "
                                         r"backend .*; valid names are 'numpy', 'cupy', "
                                         r"'dask' \(or the device 'cpu'\)"):
        xp.to_device(np.zeros(2), bad)


@pytest.mark.parametrize("bad", [3, np.zeros(2), object()])
def test_an_object_that_is_not_the_array_s_device_is_a_type_error(bad):
    with pytest.raises(TypeError, match=r"^to_device: argument 'backend' got .*; expected "
                                        r"a backend name \('numpy', 'cupy', 'dask'\), the "
                                        r"device 'cpu', or the device a is on \('cpu'\)"):
        xp.to_device(np.zeros(2), bad)


def test_cupy_arrays_to_cpu_and_to_their_own_device(fake_cupy):
    """With the tests' stand-in CuPy: ``"cpu"`` copies to NumPy (array_api_compat's
    ``to_device(x, "cpu")`` is ``x.get()``); ``x.device`` keeps ``x``; another device
    is refused (moving between GPUs by device object is not offered)."""
    c = fake_cupy.asarray(np.arange(4.0))
    got = xp.to_device(c, "cpu")
    assert type(got) is np.ndarray and got.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert xp.to_device(c, c.device) is c
    with pytest.raises(TypeError, match=r"^to_device: argument 'backend' got .*; expected "
                                        r".*the device a is on \(<CUDA Device 0>\)"):
        xp.to_device(c, fake_cupy.cuda.Device(1))
    with pytest.raises(TypeError, match=r"^to_device: argument 'backend' got .*; expected "
                                        r".*the device a is on \('cpu'\)"):
        xp.to_device(np.arange(2), c.device)


def test_dask_arrays_of_cupy_chunks_to_cpu(fake_cupy):
    """A dask array of (stand-in) CuPy chunks: ``"cpu"`` gives one of NumPy chunks,
    lazily; the dask namespace's own device keeps it."""
    d = da.from_array(np.arange(6.0), chunks=2).map_blocks(
        fake_cupy.asarray, dtype=np.float64, meta=fake_cupy.empty((0,)))
    got = xp.to_device(d, "cpu")
    assert isinstance(got, da.Array) and type(got._meta) is np.ndarray
    assert got.chunks == d.chunks
    out = got.compute(scheduler="sync")
    assert type(out) is np.ndarray and out.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    own = array_api_compat.device(d)
    assert own != "cpu" and xp.to_device(d, own) is d


def test_a_device_s_errors_carry_no_name_error():
    """The errors of a device argument are raised outside the handling of the name's:
    no "During handling of the above exception" in the traceback."""
    with pytest.raises(TypeError) as info:
        xp.to_device(np.zeros(2), 3)
    assert info.value.__context__ is None
    with pytest.raises(TypeError, match="^to_device: argument 'a'") as info:
        xp.to_device(None, "cpu")
    assert info.value.__context__ is None
