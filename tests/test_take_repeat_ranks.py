"""``take``'s ranks (a 1-D ``indices``, an ``x`` of at least one dimension) and
``repeat``'s ``axis`` of a 0-D array, the same error on the NumPy and dask backends
(``xstride/_backends/arg_checks.py``)."""

import numpy as np
import pytest

import xstride as xp


def _on(backend, a):
    if backend == "numpy":
        return np.asarray(a)
    with xp.use_backend("dask", chunks=1):
        return xp.asarray(a)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("indices", [[[0, 1], [2, 0]], 1], ids=["2-D", "0-D"])
def test_take_refuses_indices_of_other_than_one_dimension(backend, indices):
    """NumPy took them (a result of another rank), dask's 2-D was a bare AssertionError."""
    x = _on(backend, np.arange(12.0).reshape(3, 4))
    with pytest.raises(ValueError, match=r"^take: argument 'indices' has shape \(.*\); "
                                         "expected a one-dimensional array"):
        xp.to_numpy(xp.take(x, _on(backend, indices), axis=0))


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("axis", [None, 0])
def test_take_of_a_0d_array_names_x(backend, axis):
    """NumPy's took a 0-D x without axis as 1-D; dask's said "Axis 0 is out of bounds"."""
    with pytest.raises(np.exceptions.AxisError, match=r"^take: argument 'x' has 0 dimensions"):
        xp.take(_on(backend, 3.0), _on(backend, [0]), axis=axis)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("axis", [0, -1])
def test_repeat_of_a_0d_array_has_no_axis(backend, axis):
    """NumPy's repeated a 0-D array along axis 0 (the dask backend's refused it)."""
    with pytest.raises(np.exceptions.AxisError, match=rf"^repeat: argument 'axis' {axis} is "
                                                      "out of range for an array of 0"):
        xp.repeat(_on(backend, 2.0), 3, axis=axis)
    assert xp.to_numpy(xp.repeat(_on(backend, 2.0), 3)).tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_take_of_one_dimensional_indices_still_takes(backend):
    x = _on(backend, np.arange(12.0).reshape(3, 4))
    got = xp.to_numpy(xp.take(x, _on(backend, [3, 0, -1]), axis=1))
    np.testing.assert_array_equal(got, np.arange(12.0).reshape(3, 4)[:, [3, 0, -1]])


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("repeats", [-1, np.int8(-2)], ids=["int", "numpy-int"])
def test_repeat_refuses_a_negative_count_naming_it(backend, repeats):
    """A negative int ``repeats`` was NumPy's "negative dimensions are not allowed" and
    dask's "Number of samples, -1, must be non-negative", neither naming the argument."""
    x = _on(backend, np.arange(3))
    with pytest.raises(ValueError, match=rf"^repeat: argument 'repeats' is {int(repeats)}; "
                                         "a count must be at least 0"):
        xp.repeat(x, repeats)
    assert xp.to_numpy(xp.repeat(x, 0)).shape == (0,)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("axis", [None, 0])
def test_repeat_past_an_array_size_names_the_count(backend, axis):
    """A new-user probe: ``repeat(arange(2), 2**62)`` was NumPy's "negative dimensions
    are not allowed" (its product of 2 and 2**62 wrapped) and dask's "array is too big";
    the count is named with the size it would give."""
    x = _on(backend, np.arange(2))
    with pytest.raises(ValueError, match=r"^repeat: argument 'repeats' is 4611686018427387904;"
                                         r" the result would hold 9,223,372,036,854,775,808 "
                                         "elements, more than an array can hold"):
        xp.repeat(x, 2**62, axis=axis)
    assert xp.to_numpy(xp.repeat(x, 3, axis=axis)).tolist() == [0, 0, 0, 1, 1, 1]
    # NumPy takes an array of one count too (a review: it was not checked)
    if backend == "numpy":
        for one in (np.array(2**62), np.array([2**62])):
            with pytest.raises(ValueError, match=r"^repeat: argument 'repeats' is "
                                                 "4611686018427387904; the result"):
                xp.repeat(x, one, axis=axis)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_repeat_checks_the_axis_before_the_size(backend):
    """A review: on dask the size of ``repeat(asarray(5), 2**63, axis=0)`` was named
    before the axis, where the NumPy backend names the axis."""
    with pytest.raises(np.exceptions.AxisError, match="repeat: argument 'axis' 0"):
        xp.repeat(_on(backend, 5), 2**63, axis=0)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("func", ["take", "take_along_axis"])
@pytest.mark.parametrize("big", [2**64 - 1, 2**63 + 1])
def test_uint64_indices_past_intp_are_out_of_range(backend, func, big):
    """NumPy casts uint64 indices to intp unchecked: 2**64 - 1 was the index -1 and took
    the last element (take on NumPy, take_along_axis on both backends), 2**63 + 1 was
    refused as the index -9223372036854775807."""
    x = _on(backend, np.arange(10.0, 40.0, 10.0))
    indices = _on(backend, np.array([1, big, 0], dtype=np.uint64))
    kwargs = {"axis": 0} if func == "take_along_axis" else {}
    with pytest.raises(IndexError, match=rf"^{func}: index {big} is out of bounds for axis 0 "
                                         "with size 3$"):
        xp.to_numpy(getattr(xp, func)(x, indices, **kwargs))
    ok = _on(backend, np.array([2, 0], dtype=np.uint64))
    assert xp.to_numpy(getattr(xp, func)(x, ok, **kwargs)).tolist() == [30.0, 10.0]
