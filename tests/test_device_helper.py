"""``xp.device(x)``: the array API device of an array of any backend, as
``array_api_compat.device`` answers (dask arrays have no ``device`` attribute, and
xstride does not patch dask's class), and ``to_device(x, device(x))`` is ``x``."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp


def test_numpy_arrays_and_scalars_are_on_the_cpu():
    a = np.arange(3.0)
    assert xp.device(a) == a.device == "cpu"
    assert xp.device(np.float32(1.5)) == "cpu"
    assert xp.device(np.ma.array([1, 2], mask=[0, 1])) == "cpu"
    assert xp.to_device(a, xp.device(a)) is a


def test_dask_arrays_of_numpy_chunks_are_on_the_cpu_as_compat_says():
    """Before, ``xp.device`` did not exist and ``x.device`` of a dask array is an
    AttributeError: the same question had no answer on the dask backend."""
    pytest.importorskip("dask.array")
    import array_api_compat

    with xp.use_backend("dask"):
        x = xp.asarray([1.0, 2.0, 3.0], chunks=2)
    assert not hasattr(x, "device")
    assert xp.device(x) == array_api_compat.device(x) == "cpu"
    assert xp.to_device(x, xp.device(x)) is x
    assert xp.device(xp.sum(x)) == "cpu"   # a 0-D result too


@pytest.mark.parametrize("bad", [[1, 2], 1.0, None, "cpu"])
def test_what_is_no_array_is_a_type_error_naming_x(bad):
    with pytest.raises(TypeError, match=r"^device: argument 'x' got .*expected an array "
                                        r"of a backend"):
        xp.device(bad)
