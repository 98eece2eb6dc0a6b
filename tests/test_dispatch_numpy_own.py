"""``dispatch.NUMPY_OWN``: the names the NumPy backend takes from NumPy instead of from
``array_api_compat``'s NumPy namespace, which must hand back NumPy's own function
for each of them (else the shortcut would skip a fix of that namespace)."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import numpy as np
import pytest

import xstride as xp
from xstride._backends import dispatch


@pytest.mark.parametrize("name", sorted(dispatch.NUMPY_OWN))
def test_compat_hands_back_numpys_own_function(name):
    import array_api_compat.numpy as compat

    assert getattr(compat, name) is getattr(np, name)
    assert dispatch.deferred("numpy", name) is getattr(np, name)


def test_a_first_min_max_and_sum_on_numpy_import_no_compat_namespace():
    code = ("import json, sys, numpy as np, xstride as xp\n"
            "x = np.arange(12.0).reshape(4, 3)\n"
            "r = [float(xp.min(x)), xp.max(x, axis=0).tolist(), float(xp.sum(x)),\n"
            "     bool(xp.all(x >= 0)), int(xp.argmax(x))]\n"
            "print(json.dumps([r, 'array_api_compat.numpy' in sys.modules]))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [[0.0, [9.0, 10.0, 11.0], 66.0, True, 11], False]


def test_a_first_engine_call_without_keywords_imports_no_compat_namespace():
    """The engine's ufuncs called without keywords are NumPy's own functions (an
    ``out=`` call is xstride's engine function): none imports array_api_compat."""
    code = ("import json, sys, numpy as np, xstride as xp\n"
            "x = np.arange(4.0)\n"
            "r = [xp.add(x, x).tolist(), xp.multiply(x, 2.0).tolist(),\n"
            "     xp.greater(x, 1.0).tolist(), xp.abs(-x).tolist(),\n"
            "     xp.square(x, out=np.empty(4)).tolist(), xp.where(x > 1, x, 0.5).tolist()]\n"
            "print(json.dumps([r, 'array_api_compat.numpy' in sys.modules]))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [[[0.0, 2.0, 4.0, 6.0], [0.0, 2.0, 4.0, 6.0],
                                        [False, False, True, True], [0.0, 1.0, 2.0, 3.0],
                                        [0.0, 1.0, 4.0, 9.0], [0.5, 0.5, 2.0, 3.0]], False]


def test_no_numpy_own_name_has_a_fix_of_xstride():
    """A name of NUMPY_OWN must not be one that xstride's own array-API fixes replace
    on NumPy (``_backends/fixes.py`` and its siblings): the shortcut would skip it."""
    for module in ("fixes", "complex_special", "linalg_fixes", "size_checks"):
        importlib.import_module(f"xstride._backends.{module}")   # each registers its fixes

    for name in dispatch.NUMPY_OWN:
        fn = dispatch._overrides["numpy"].get(name)
        assert fn is None or fn.__module__.startswith(("xstride.elementwise",
                                                       "xstride.reductions")), name
    from xstride._core.ufuncs import ENGINE_UFUNCS

    xp.add(np.ones(2), np.ones(2))   # the engine's functions registered
    for name in ENGINE_UFUNCS:
        assert dispatch._positional[name] is getattr(np, name), name


def test_the_checks_still_run_before_numpys_function():
    x = np.arange(6.0).reshape(2, 3)
    with pytest.raises(ValueError, match="axis"):
        xp.max(x, axis=2)
    with pytest.raises(TypeError):
        xp.sum([1, 2, 3])
    assert xp.max(x, axis=(-1,), keepdims=True).shape == (2, 1)


@pytest.mark.parametrize("name", sorted(dispatch.NUMPY_COMMON))
def test_compat_builds_these_creation_functions_from_its_common_aliases(name):
    """``dispatch.NUMPY_COMMON``: array_api_compat's NumPy namespace makes each of these
    as ``get_xp(numpy)(common._aliases.<name>)``; xstride builds the same function
    from the same parts (without the namespace's clone of NumPy)."""
    import inspect

    import array_api_compat.numpy as compat
    from array_api_compat.common import _aliases

    theirs, ours = getattr(compat, name), dispatch._numpy_common(name)
    assert theirs.__wrapped__ is getattr(_aliases, name) is ours.__wrapped__
    assert inspect.signature(ours) == inspect.signature(theirs)
    assert dispatch.compat_function("numpy", name) is ours   # one object per name


def test_first_creation_calls_import_no_compat_namespace():
    code = ("import json, sys, numpy as np, xstride as xp\n"
            "r = [xp.zeros(2).tolist(), xp.ones((1, 2), dtype=xp.float32).tolist(),\n"
            "     xp.arange(3).tolist(), xp.linspace(0, 1, 3).tolist(),\n"
            "     xp.full(2, -0.0).tolist(), xp.eye(2, k=1).tolist(),\n"
            "     xp.zeros_like(np.ones(2), dtype=xp.int8).dtype.name, str(xp.empty(2).shape)]\n"
            "try:\n    xp.zeros(2, device='gpu')\n"
            "except ValueError as exc:\n    r.append(str(exc))\n"
            "print(json.dumps([r, 'array_api_compat.numpy' in sys.modules]))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [
        [[0.0, 0.0], [[1.0, 1.0]], [0, 1, 2], [0.0, 0.5, 1.0], [-0.0, -0.0],
         [[0.0, 1.0], [0.0, 0.0]], "int8", "(2,)", "zeros: argument 'device' is 'gpu'; the numpy backend's devices are 'cpu'"],
        False]
