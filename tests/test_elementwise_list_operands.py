"""A list, a tuple, a range, None or a str (any object that is neither an array nor a
scalar) given
for an operand of an elementwise function: a ``TypeError`` naming the function and the
argument, worded as the reductions' (``sum([1.0, 2.0])``), on every backend.

NumPy's ufuncs made an array of it; on the dask backend ``xp.exp([1.0, 2.0])`` and
``xp.add([1.0, 2.0], 1.0)`` returned NumPy arrays, not dask arrays; CuPy's ufuncs
refuse it. Python scalars stay operands, NumPy scalars and 0-D arrays run as before.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import xstride as xp
from xstride._core.names import ELEMENTWISE
from tests._two_backends import da, numpy_after  # noqa: F401 - an autouse fixture
from tests._two_backends import on_backend

#: The standard's elementwise functions of two arrays (``x1``, ``x2``); the others take
#: one (``x``; ``clip``'s bounds are checked by ``clip_checks.py``).
BINARY = ("add", "atan2", "bitwise_and", "bitwise_left_shift", "bitwise_or",
          "bitwise_right_shift", "bitwise_xor", "copysign", "divide", "equal",
          "floor_divide", "greater", "greater_equal", "hypot", "less", "less_equal",
          "logaddexp", "logical_and", "logical_or", "logical_xor", "maximum", "minimum",
          "multiply", "nextafter", "not_equal", "pow", "remainder", "subtract")
BACKENDS = ("numpy", "dask")
#: None and a str among them: NumPy's object loops took them in ``logical_and`` (an
#: object array of None) and ``atan2`` (an AttributeError of a float), a new-user probe
NOT_ARRAYS = ([1, 2], (1, 2), range(1, 3), None, "x")


def test_binary_names_are_the_standard_s():
    assert set(BINARY) < set(ELEMENTWISE)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", ELEMENTWISE)
def test_a_sequence_operand_is_a_named_type_error(backend, name):
    names = ("x1", "x2") if name in BINARY else ("x",)
    fn = getattr(xp, name)
    with xp.use_backend(backend):
        for i, arg in enumerate(names):
            for given in NOT_ARRAYS:
                args = [on_backend(backend, np.asarray([1, 2]))] * len(names)
                args[i] = given
                with pytest.raises(TypeError, match=(
                        rf"^{name}: argument '{arg}' got {type(given).__name__} .*; expected "
                        rf"an array of the {backend} backend \(xstride.asarray\(x\) makes one\)"
                        + (" or a Python scalar$" if len(names) == 2 else "$"))):
                    fn(*args)


@pytest.mark.parametrize("backend", BACKENDS)
def test_beside_a_python_scalar_and_with_out(backend):
    with xp.use_backend(backend):
        with pytest.raises(TypeError, match=rf"^add: argument 'x1' got list .* {backend} backend"):
            xp.add([1.0, 2.0], 1.0)
        with pytest.raises(TypeError, match=rf"^multiply: argument 'x2' got tuple .* {backend} "):
            xp.multiply(2, (1, 2))
    if backend == "numpy":   # (dask: out= is the immutable arrays' error)
        with pytest.raises(TypeError, match=r"^exp: argument 'x' got list"):
            xp.exp([1.0], out=np.empty(1))


def test_on_the_dask_backend_a_list_makes_no_numpy_array():
    """The defect: dask's ufuncs made a NumPy array of a list, so the dask backend's
    ``exp``/``add`` returned one."""
    with xp.use_backend("dask"):
        for call in (lambda: xp.exp([1.0, 2.0]), lambda: xp.add([1.0, 2.0], 1.0)):
            with pytest.raises(TypeError, match="expected an array of the dask backend"):
                call()
        x = xp.asarray([1.0, 2.0])
        for got in (xp.exp(x), xp.add(x, 1.0), xp.add(1.0, x)):
            assert isinstance(got, da.Array)


@pytest.mark.parametrize("backend", BACKENDS)
def test_scalars_and_arrays_run_as_before(backend):
    x = on_backend(backend, np.asarray([1.0, 2.0]))
    kind = da.Array if backend == "dask" else np.ndarray
    calls = {"add(x, 1.0)": (xp.add(x, 1.0), [2.0, 3.0]),
             "add(1, x)": (xp.add(1, x), [2.0, 3.0]),
             "multiply(x, True)": (xp.multiply(x, True), [1.0, 2.0]),
             "add(x, float32)": (xp.add(x, np.float32(1)), [2.0, 3.0]),
             "exp(x)": (xp.exp(x), np.exp([1.0, 2.0]).tolist())}
    if backend == "numpy":   # (a 0-D NumPy array beside a dask array: mixed backends)
        calls["add(x, 0-D)"] = (xp.add(x, np.asarray(1.0)), [2.0, 3.0])
    for what, (got, want) in calls.items():
        assert isinstance(got, kind), what
        np.testing.assert_allclose(np.asarray(got), want, err_msg=what)
    # NumPy scalars and 0-D arrays alone: NumPy's answers, as before
    assert type(xp.exp(np.float32(0))) is np.float32 and xp.exp(np.asarray(0.0)) == 1.0
    assert xp.add(1, 2) == 3 and xp.exp(0.0) == 1.0


def test_numpy_s_fast_path_refuses_them_too():
    """A program that has imported neither CuPy nor dask skips the look at its arguments'
    backend on the NumPy backend: there the operands' types are looked at."""
    code = """if True:
        import json, sys
        import numpy as np
        import xstride as xp
        a = np.ones(2)
        calls = [("exp", ([1.0, 2.0],)), ("add", ([1.0], 1.0)), ("add", (a, (1, 2))),
                 ("sin", (range(2),)), ("multiply", (2, [1])), ("clip", ([1, 2], 0, 1)),
                 ("round", ([1.5],)), ("real", ([1j],)), ("logical_and", (a, None)),
                 ("atan2", (a, None)), ("logical_xor", (a, "x"))]
        refused = []
        for name, args in calls:
            try:
                getattr(xp, name)(*args)
                refused.append("ran")
            except TypeError as exc:
                refused.append(str(exc))
        ran = [xp.add(a, 1.0).tolist(), xp.multiply(2, a).tolist(), float(xp.exp(0.0)),
               xp.add(a, np.float32(1)).dtype.name, xp.clip(a, None, 0.5).tolist()]
        print(json.dumps([refused, ran, [m for m in ("dask", "cupy") if m in sys.modules]]))
    """
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    refused, ran, imported = json.loads(r.stdout)
    assert imported == []   # the fast path was the one taken
    want = ["exp: argument 'x' got list", "add: argument 'x1' got list",
            "add: argument 'x2' got tuple", "sin: argument 'x' got range",
            "multiply: argument 'x2' got list", "clip: argument 'x' got list",
            "round: argument 'x' got list", "real: argument 'x' got list",
            "logical_and: argument 'x2' got NoneType", "atan2: argument 'x2' got NoneType",
            "logical_xor: argument 'x2' got str"]
    assert len(refused) == len(want)
    for text, start in zip(refused, want):
        assert text.startswith(start) and "expected an array of the numpy backend" in text
    assert ran == [[2.0, 2.0], [2.0, 2.0], 1.0, "float64", [0.5, 0.5]]


@pytest.mark.parametrize("name", ["atan2", "hypot"])
def test_an_object_dtype_operand_is_a_named_type_error(name):
    """NumPy's object loops call a method of each element: ``atan2(x, numpy.array([1,
    None], dtype=object))`` raised ``'float' object has no attribute 'arctan2'``."""
    x = np.asarray([1.0, 2.0])
    for args, arg in [((x, np.array([1, None], dtype=object)), "x2"),
                      ((np.array([1.0, 2.0], dtype=object), x), "x1")]:
        with pytest.raises(TypeError, match=rf"^{name}: argument '{arg}' has dtype object"):
            getattr(xp, name)(*args)
