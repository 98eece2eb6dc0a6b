"""``broadcast_to``'s ``shape`` is named on the NumPy backend as on the dask backend
(on NumPy's refusal: ``arg_checks.broadcast_to``). NumPy said "'float' object cannot
be interpreted as an integer", "an integer is required" and "all elements of broadcast
shape must be non-negative", naming no argument (found by a user probe)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xstride as xp

from tests._two_backends import numpy_after  # noqa: F401 - an autouse fixture
from tests._two_backends import on_backend as _wrap


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("shape, cls, match", [
    ((2.0, 3), TypeError, r"got tuple \(2.0, 3\); expected an int or a tuple of ints"),
    ((True, 3), TypeError, r"got tuple \(True, 3\); expected an int or a tuple of ints"),
    ("ab", TypeError, "got str 'ab'; expected an int or a tuple of ints"),
    ((-1, 3), ValueError, "has the negative length -1; lengths must be non-negative"),
])
def test_broadcast_to_names_a_bad_shape_on_both_backends(backend, shape, cls, match):
    x = _wrap(backend, np.arange(3.0))
    with xp.use_backend(backend):
        with pytest.raises(cls, match=f"broadcast_to: argument 'shape' {match}"):
            xp.broadcast_to(x, shape)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("shape", [(2, 3), 3, [1, 3], (np.int64(2), 3)])
def test_broadcast_to_still_takes_shapes(backend, shape):
    a = np.arange(3.0)
    with xp.use_backend(backend):
        got = xp.broadcast_to(_wrap(backend, a), shape)
    want = np.broadcast_to(a, shape)
    assert got.shape == want.shape
    np.testing.assert_array_equal(xp.to_numpy(got), want)


@pytest.mark.parametrize("shape", [(3, 3), 3, (2, 2, 1), (np.int64(4), 2)])
def test_a_shape_x_does_not_broadcast_into_is_one_error_on_both_backends(shape):
    """NumPy's said "operands could not be broadcast together with remapped shapes
    [original->remapped]: (2,3)  and requested shape (3,3)", dask's "cannot broadcast
    shape (2, 3) to shape (3, 3)": both now xstride's text (the ``xp.fuse`` tracer's)."""
    a = np.zeros((2, 3))
    target = tuple(int(n) for n in (shape if isinstance(shape, tuple) else (shape,)))
    msg = (rf"^broadcast_to: shapes \(2, 3\) and {re.escape(str(target))} cannot be "
           r"broadcast together \(into shape\)$")
    for backend in ("numpy", "dask"):
        with xp.use_backend(backend), pytest.raises(ValueError, match=msg):
            xp.broadcast_to(_wrap(backend, a), shape)
    masked = np.ma.masked_array(a, mask=True)   # masked_broadcast.py's wrapper: the same
    with pytest.raises(ValueError, match=msg):
        xp.broadcast_to(masked, shape)


@pytest.mark.parametrize("shapes", [[(2, 3), (2, 2)], [(2, 3), (2, 3), (2,)], [(4, 1), (3, 5)]])
def test_broadcast_arrays_of_shapes_that_do_not_broadcast_is_one_error(shapes):
    """NumPy's said "shape mismatch: objects cannot be broadcast to a single shape.
    Mismatch is between arg 0 with shape (2, 3) and arg 1 with shape (2, 2)."; the dask
    backend's (``dask_broadcast.py``) xstride's text, now the NumPy backend's too."""
    text = " and ".join(re.escape(str(s)) for s in shapes)
    msg = rf"^broadcast_arrays: shapes {text} cannot be broadcast together$"
    for backend in ("numpy", "dask"):
        arrays = [_wrap(backend, np.zeros(s)) for s in shapes]
        with xp.use_backend(backend), pytest.raises(ValueError, match=msg):
            xp.broadcast_arrays(*arrays)
