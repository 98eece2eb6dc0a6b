"""``broadcast_to``'s ``shape`` is named on the NumPy backend as on the dask backend
(on NumPy's refusal: ``arg_checks.broadcast_to``). NumPy said "'float' object cannot
be interpreted as an integer", "an integer is required" and "all elements of broadcast
shape must be non-negative", naming no argument (found by a user probe)."""

from __future__ import annotations

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
