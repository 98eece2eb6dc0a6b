"""``result_type``'s arguments on every backend: arrays, dtypes and Python scalars, at
least one an array or a dtype (the standard). A new-user probe: NumPy's (compat's)
answered float64 for ``None`` (``numpy.dtype(None)``), read a list as a record's fields
("Field elements must be 2- or 3-tuples") and answered for Python scalars alone."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

BACKENDS = ["numpy", "dask"]


def _use(backend):
    if backend == "dask":
        pytest.importorskip("dask.array")
    return xp.use_backend(backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("args, at", [((None,), 0), ((xp.int8, None), 1), (([1],), 0),
                                      ((xp.float32, (1, 2)), 1), ((range(2),), 0)])
def test_none_or_a_sequence_is_a_type_error_naming_it(backend, args, at):
    with _use(backend):
        with pytest.raises(TypeError, match=rf"^result_type: argument "
                                            rf"'arrays_and_dtypes\[{at}\]' got .*; expected "
                                            "an array, a dtype or a Python scalar"):
            xp.result_type(*args)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("args", [(1,), (1, 2.0), (True, 1j)])
def test_python_scalars_alone_are_a_value_error(backend, args):
    with _use(backend):
        with pytest.raises(ValueError, match="^result_type: argument 'arrays_and_dtypes' "
                                             "holds Python scalars only"):
            xp.result_type(*args)


@pytest.mark.parametrize("backend", BACKENDS)
def test_arrays_dtypes_and_scalars_beside_them_are_numpy_s_answer(backend):
    with _use(backend):
        x = xp.ones(2, dtype=xp.float32)
        assert xp.result_type(x, 1.0) == np.float32     # a Python scalar is weak
        assert xp.result_type(xp.int8, 1) == np.int8
        assert xp.result_type(xp.int8, xp.uint8) == np.int16
        assert xp.result_type(x, xp.float64) == np.float64
        assert xp.result_type("float32", 2) == np.float32   # what numpy.dtype reads
        with pytest.raises(ValueError, match="^result_type: at least one array or dtype"):
            xp.result_type()
