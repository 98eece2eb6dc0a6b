"""``matmul``'s and ``vecdot``'s shape errors name the argument on the NumPy backend as
on the dask backend (one text, ``_backends/matmul_checks.py``); NumPy's gufunc said
"Input operand 1 has a mismatch in its core dimension 0", naming none."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

_CASES = [
    ("matmul", (), (2, 2), {}, r"^matmul: argument 'x1' is 0-D; matmul takes arrays of at "
                               r"least one dimension$"),
    ("matmul", (2, 2), (), {}, r"^matmul: argument 'x2' is 0-D"),
    ("matmul", (2, 3), (2, 2), {}, r"^matmul: argument 'x2' has shape \(2, 2\), whose "
                                   r"contracted dimension 2 differs from the last of x1 "
                                   r"\(2, 3\)$"),
    ("matmul", (2, 3, 4), (5, 4, 2), {}, r"^matmul: shapes \(2, 3, 4\) and \(5, 4, 2\) "
                                         r"cannot be broadcast together$"),
    ("vecdot", (3,), (4,), {}, r"^vecdot: argument 'x2' has shape \(4,\), whose length 4 "
                               r"along axis -1 differs from x1's 3 \(shape \(3,\)\)$"),
    ("vecdot", (3, 2), (4, 2), {"axis": 0}, r"^vecdot: argument 'x2' has shape \(4, 2\), "
                                            r"whose length 4 along axis 0 differs"),
    ("linalg.vecdot", (2, 3), (2, 5), {"axis": -1}, r"^vecdot: argument 'x2' has shape "
                                                    r"\(2, 5\), whose length 5"),
    # a 0-D operand: NumPy's "Input operand 0 does not have enough dimensions", dask's
    # AxisError of axis
    ("vecdot", (), (3,), {}, r"^vecdot: argument 'x1' is 0-D; vecdot takes arrays of at "
                             r"least one dimension$"),
    ("vecdot", (3,), (), {}, r"^vecdot: argument 'x2' is 0-D"),
    ("linalg.vecdot", (), (), {"axis": 0}, r"^vecdot: argument 'x1' is 0-D"),
    # stacks that do not broadcast: dask's "Chunks do not add up to shape", NumPy's
    # "operands could not be broadcast together with remapped shapes"
    ("vecdot", (2, 3), (4, 3), {}, r"^vecdot: shapes \(2, 3\) and \(4, 3\) cannot be "
                                   r"broadcast together$"),
    ("linalg.vecdot", (2, 1, 3), (4, 3, 3), {}, r"^vecdot: shapes \(2, 1, 3\) and "
                                                r"\(4, 3, 3\) cannot be broadcast"),
]


def _fn(name):
    return xp.linalg.vecdot if name == "linalg.vecdot" else getattr(xp, name)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name, s1, s2, kw, match", _CASES)
def test_shape_errors_name_the_argument_on_every_backend(backend, name, s1, s2, kw, match):
    if backend == "dask":
        pytest.importorskip("dask.array")
    with xp.use_backend(backend):
        x1, x2 = xp.ones(s1), xp.ones(s2)
    with pytest.raises(ValueError, match=match):
        _fn(name)(x1, x2, **kw)


def test_valid_calls_and_other_errors_are_unchanged():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(xp.matmul(xp.asarray(a), xp.asarray(b)), a @ b)
    np.testing.assert_array_equal(xp.vecdot(xp.asarray(a), xp.asarray(a)), (a * a).sum(-1))
    # an axis out of range stays the AxisError naming 'axis'
    with pytest.raises(np.exceptions.AxisError, match=r"^vecdot: argument 'axis'"):
        xp.vecdot(xp.ones((3, 2)), xp.ones((3, 2)), axis=5)
    # stack dimensions of vecdot that do not broadcast: NumPy's error, named
    with pytest.raises(ValueError, match=r"^vecdot: "):
        xp.vecdot(xp.ones((2, 3)), xp.ones((4, 3)))
