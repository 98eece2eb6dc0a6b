"""An ``out=`` of the wrong shape given to an elementwise function the library runs
(``sqrt``, ``atan2``, ``pow``, ...: not the engine's) is named: xstride's broadcast
error, built from the operands' shapes alone, said "atan2: shapes (6,) and (6,) cannot
be broadcast together" of operands that do broadcast (a new-user probe)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xstride as xp

A = np.arange(6.0)


@pytest.mark.parametrize("call, func, shape", [
    (lambda out: xp.atan2(A, A, out=out), "atan2", (5,)),
    (lambda out: xp.pow(A, 2.0, out=out), "pow", (4,)),
    (lambda out: xp.sqrt(A, out=out), "sqrt", (5,)),
    (lambda out: xp.hypot(A[:, None], A, out=out), "hypot", (6, 5)),
])
def test_an_out_of_the_wrong_shape_is_named(call, func, shape):
    want = np.broadcast_shapes(*(
        [(6, 1), (6,)] if func == "hypot" else [(6,)]))
    with pytest.raises(ValueError, match=re.escape(
            f"{func}: argument 'out' has shape {shape}; the operands' broadcast shape "
            f"{want} does not broadcast into it")):
        call(np.zeros(shape))


def test_operands_that_do_not_broadcast_are_still_named_with_an_out():
    with pytest.raises(ValueError, match=re.escape(
            "atan2: shapes (6,) and (5,) cannot be broadcast together")):
        xp.atan2(A, np.zeros(5), out=np.zeros(6))


def test_an_out_the_operands_broadcast_into_is_taken():
    """NumPy's rule for its ufuncs' ``out``: the operands broadcast into its shape."""
    out = np.zeros((2, 6))
    assert xp.atan2(A, A, out=out) is out
    np.testing.assert_array_equal(out, np.broadcast_to(np.arctan2(A, A), (2, 6)))
