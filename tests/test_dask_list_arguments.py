"""Lists where the dask backend's functions take arrays: a ``TypeError`` naming the
argument, not the ``AttributeError`` of a list's missing ``.shape`` (a probe)."""

from __future__ import annotations

import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402


@pytest.mark.parametrize("call, arg", [
    (lambda: xp.roll([1, 2, 3], 1), "x"),
    (lambda: xp.linalg.vector_norm([3.0, 4.0]), "x"),
    (lambda: xp.permute_dims([[1, 2]], (1, 0)), "x"),
    (lambda: xp.sort([3, 1]), "x"),
    (lambda: xp.clip([1, 2], 0, 1), "x"),
    (lambda: xp.matmul([[1.0]], [[2.0]]), "x1"),
    (lambda: xp.take([1, 2], xp.asarray([0])), "x"),
    (lambda: xp.unique_values([1, 2]), "x"),
], ids=["roll", "vector_norm", "permute_dims", "sort", "clip", "matmul", "take",
        "unique_values"])
def test_a_list_on_the_dask_backend_is_a_named_type_error(call, arg):
    with xp.use_backend("dask"):
        with pytest.raises(TypeError, match=rf"^\w+: argument '{arg}' got list .*; expected "
                                            r"an array of the dask backend \(xstride.asarray"):
            call()
        # the same calls on dask arrays run
        assert isinstance(xp.roll(xp.asarray([1, 2, 3]), 1), da.Array)


def test_a_list_is_refused_on_numpy_too():
    """(NumPy's roll made an array of it, until every backend refused it:
    test_bad_input_no_array.py.)"""
    with pytest.raises(TypeError, match="^roll: argument 'x' got list"):
        xp.roll([1, 2, 3], 1)


def test_an_attribute_error_beside_a_dask_array_is_not_blamed_on_an_argument(monkeypatch):
    """A review: with a dask array where the array goes, an AttributeError from the
    library is its own (a shape tuple was named as the culprit)."""
    from xstride._backends import dispatch

    dispatch.implementation("dask", "reshape")

    def broken(*args, **kwargs):
        raise AttributeError("the library's own")

    monkeypatch.setitem(dispatch._tables["dask"], "reshape", broken)
    with xp.use_backend("dask"):
        with pytest.raises(AttributeError, match="the library's own"):
            xp.reshape(xp.asarray([1, 2, 3, 4]), (2, 2))
        with pytest.raises(TypeError, match=r"^reshape: argument '\w+' got range"):
            xp.reshape(range(4), (2, 2))


def test_an_unavailable_active_backend_is_refused_without_array_arguments():
    """A review: the look skipped while neither CuPy nor dask is imported must not
    send a call of Python scalars to NumPy when the active backend is another one."""
    import json
    import os
    import subprocess
    import sys

    code = ("import json, xstride as xp\n"
            "try:\n    xp.add(1, 2); print(json.dumps('ran'))\n"
            "except RuntimeError as exc:\n    print(json.dumps(str(exc)))\n")
    env = {**os.environ, "XSTRIDE_BACKEND": "cupy"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    msg = json.loads(r.stdout)
    if msg == "ran":
        pytest.skip("CuPy is importable here: the active backend is available")
    assert "backend 'cupy' is unavailable" in msg
