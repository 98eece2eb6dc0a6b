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


def test_a_list_still_runs_on_numpy():
    assert xp.roll([1, 2, 3], 1).tolist() == [3, 1, 2]
