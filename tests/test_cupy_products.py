"""The arithmetic of the CuPy backend's ``vecdot`` (xstride/_backends/cupy_products.py's
``contracted``) on NumPy's functions: NumPy's ``vecdot`` for every axis, negative or not,
of operands of equal and of different ranks (a non-negative axis is read in each
operand's own dimensions, as NumPy's gufunc reads it), and its shape errors. The CuPy
calls themselves: tests/test_cupy_products_gpu.py."""

from __future__ import annotations

import types

import numpy as np
import pytest

from xstride._backends.cupy_products import contracted

NS = types.SimpleNamespace(moveaxis=np.moveaxis, conj=np.conj, multiply=np.multiply,
                           sum=np.sum)


@pytest.mark.parametrize("s1, s2, axis", [
    ((5, 3), (5, 3), -1), ((5, 3), (3,), -1), ((3, 3), (3,), 0), ((2, 3, 3), (3, 3), 1),
    ((3, 4), (3,), 0), ((4, 6), (4, 6), 0), ((4, 6), (4, 6), -2), ((2, 3, 4), (3, 4), -2),
    ((7, 1, 4), (5, 4), -1), ((2, 3, 4), (2, 1, 4), 0),
])
@pytest.mark.parametrize("dtype", ["float64", "complex128", "int32"])
def test_contracted_equals_numpys_vecdot(s1, s2, axis, dtype):
    rs = np.random.default_rng(len(s1) + 7 * len(s2) + axis)
    a = rs.integers(-5, 6, s1).astype(dtype)
    b = rs.integers(-5, 6, s2).astype(dtype)
    if dtype.startswith("complex"):
        a = a + 1j * rs.integers(-5, 6, s1)
        b = b - 2j * rs.integers(-5, 6, s2)
    want = np.vecdot(a, b, axis=axis)
    got = contracted(a, b, axis, NS)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("s1, s2, axis, match", [
    ((4, 3), (4, 2), -1, r"^vecdot: argument 'x2' has shape \(4, 2\)"),
    ((3, 4), (2, 4), 0, r"^vecdot: argument 'x2'"),
    ((3, 4), (3, 5), 0, r"^vecdot: "),
])
def test_contracted_shape_errors(s1, s2, axis, match):
    with pytest.raises(ValueError, match=match):
        contracted(np.ones(s1), np.ones(s2), axis, NS)
