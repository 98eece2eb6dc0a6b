"""A ufunc behind a namespace function takes positional arguments past its inputs as
``out``: ``xp.sin(x, y)`` wrote ``sin(x)`` into ``y`` and ``xp.atan(y, x)`` (``atan2``
meant) overwrote ``x``, skipping every check of ``out=``, on NumPy arrays and in the
chunks of dask arrays. They are refused with Python's ``TypeError`` of a call with
too many positional arguments, named (found by a new-user probe)."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

da = pytest.importorskip("dask.array")


@pytest.fixture(autouse=True)
def _numpy_after():
    yield
    xp.set_backend("numpy")


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name, nin", [("sin", 1), ("atan", 1), ("exp", 1), ("isnan", 1),
                                       ("sqrt", 1), ("logical_not", 1), ("atan2", 2),
                                       ("pow", 2), ("hypot", 2), ("trunc", 1), ("ceil", 1)])
def test_a_ufunc_s_extra_positional_argument_is_refused_not_written(backend, name, nin):
    x = np.array([0.5, 1.0, 2.0])
    y = np.zeros(3)
    args = [x] * nin + [y]
    if backend == "dask":
        args = [da.from_array(a, chunks=2) for a in args]
    with xp.use_backend(backend):
        with pytest.raises(TypeError, match=f"^{name}: {name}\\(\\) takes {nin} positional "
                                            f"arguments? but {nin + 1} were given; the "
                                            "standard's arguments after those go by keyword"):
            xp.__getattribute__(name)(*args)
    assert y.tolist() == [0.0, 0.0, 0.0]
    assert x.tolist() == [0.5, 1.0, 2.0]


def test_vecdot_s_third_positional_argument_is_refused():
    a = np.eye(2)
    z = np.full(2, 7.0)
    with pytest.raises(TypeError, match="vecdot: vecdot\\(\\) takes 2 positional"):
        xp.vecdot(a, a, z)
    assert z.tolist() == [7.0, 7.0]


def test_out_by_keyword_still_works_and_calls_of_the_inputs_run():
    x = np.array([0.5, 1.0])
    y = np.zeros(2)
    assert xp.sin(x, out=y) is y and y.tolist() == np.sin(x).tolist()
    assert xp.atan2(x, x).tolist() == np.arctan2(x, x).tolist()
    with xp.use_backend("dask"):
        got = xp.atan2(da.from_array(x), da.from_array(x))
        assert xp.to_numpy(got).tolist() == np.arctan2(x, x).tolist()


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("call, name, most, given", [
    (lambda a: xp.zeros((2,), xp.float32), "zeros", 1, 2),
    (lambda a: xp.ones_like(a, xp.float32), "ones_like", 1, 2),
    (lambda a: xp.matmul(a, a, a), "matmul", 2, 3),
    (lambda a: xp.sign(a, a), "sign", 1, 2),
    (lambda a: xp.permute_dims(a, (1, 0), 1), "permute_dims", 2, 3),
])
def test_too_many_positional_arguments_are_named_not_an_xp_clash(backend, call, name, most,
                                                                  given):
    # array_api_compat binds ``xp`` by keyword: the message was "zeros() got multiple
    # values for argument 'xp'", which names no argument the caller passed
    with xp.use_backend(backend):
        a = xp.ones((2, 2))
        with pytest.raises(TypeError, match=f"^{name}: {name}\\(\\) takes {most} positional "
                                            f"arguments? but {given} were given"):
            call(a)


@pytest.mark.parametrize("call, name, most", [
    (lambda x: xp.real(x, x), "real", 1),
    (lambda x: xp.imag(x, 1), "imag", 1),
    (lambda x: xp.clip(xp.real(x), 0, 1, 2), "clip", "(from 1 to )?3"),
])
def test_dask_takes_no_more_positional_arguments_than_numpy(call, name, most):
    # dask's real/imag take *args: xp.real(x, y) returned NotImplemented
    x = np.array([1 + 2j, 3j])
    with pytest.raises(TypeError, match=f"^{name}: {name}\\(\\) takes {most} positional"):
        call(x)
    with xp.use_backend("dask"):
        with pytest.raises(TypeError, match=f"^{name}: {name}\\(\\) takes {most} positional"):
            call(xp.asarray(x))
        assert xp.to_numpy(xp.real(xp.asarray(x))).tolist() == [1.0, 0.0]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_round_s_third_positional_argument_is_not_written_as_out(backend):
    """NumPy's round(a, decimals, out) wrote into a third positional argument."""
    if backend == "dask":
        pytest.importorskip("dask.array")
    x = np.array([1.26, -2.71])
    y = np.zeros(2)
    with xp.use_backend(backend):
        a = xp.asarray(x)
        out = y if backend == "numpy" else xp.asarray(y)   # an array of the same backend
        with pytest.raises(TypeError, match=r"^round: round\(\) takes 2 positional arguments "
                                            r"but 3 were given"):
            xp.round(a, 1, out)
        assert xp.to_numpy(xp.round(a, 1)).tolist() == [1.3, -2.7]
        assert xp.to_numpy(xp.round(a)).tolist() == [1.0, -3.0]
    assert y.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name, given, missing", [
    ("hypot", 1, "1 required positional argument: 'x2'"),
    ("atan2", 1, "1 required positional argument: 'x2'"),
    ("logaddexp", 0, "2 required positional arguments: 'x1' and 'x2'"),
    ("copysign", 1, "1 required positional argument: 'x2'"),
    ("add", 1, "1 required positional argument: 'x2'"),
])
def test_a_call_with_too_few_arguments_says_which_are_missing(backend, name, given, missing):
    """NumPy's ufunc said "hypot() takes from 2 to 3 positional arguments but 1 was
    given" (its out counted) with xstride's hint that the rest go by keyword; dask's
    "Parameters of such types are not supported by hypot"."""
    with xp.use_backend(backend):
        x = xp.asarray(np.array([0.5, 2.0], np.float32))
        with pytest.raises(TypeError, match=rf"^{name}: {name}\(\) missing {missing}$"):
            getattr(xp, name)(*[x] * given)
        assert xp.to_numpy(getattr(xp, name)(x, x)).dtype == np.float32
