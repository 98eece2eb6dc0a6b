"""The xp namespace: standard names, dispatch, conversions, info."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import array_api_compat.numpy as cnp
import numpy as np
import pytest

import xstride as xp
from xstride._core import names as _names


def test_every_standard_name_resolves():
    missing = [n for n in _names.CONSTANTS + _names.DTYPES + _names.CREATION + _names.FUNCTIONS
               if not hasattr(xp, n)]
    assert missing == []
    assert [n for n in _names.LINALG if not hasattr(xp.linalg, n)] == []
    assert [n for n in _names.FFT if not hasattr(xp.fft, n)] == []


def test_dir_lists_standard_and_extensions():
    listed = set(dir(xp))
    for n in ("add", "sum", "linalg", "fft", "set_backend", "use_backend", "to_numpy",
              "to_device", "get_array_module", "array_namespace", "__array_api_version__",
              "__array_namespace_info__", "cuda", "as_strided"):
        assert n in listed
    assert set(xp.__all__) == listed


def test_version_and_info():
    assert xp.__array_api_version__ == "2025.12"
    info = xp.__array_namespace_info__()
    assert info.default_device() == "cpu"
    assert info.default_dtypes()["real floating"] == np.float64


KINDS = (None, "bool", "signed integer", "unsigned integer", "integral", "real floating",
         "complex floating", "numeric", ("bool", "complex floating"))


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_info_dtypes_are_dtype_objects_on_every_backend(backend):
    """The standard's ``dtypes()`` maps names to the namespace's data types, and
    ``default_dtypes()`` gives dtype objects: on dask ``dtypes(kind="bool")`` gave the
    class ``numpy.bool`` (compat's), on NumPy a dtype."""
    with xp.use_backend(backend):
        info = xp.__array_namespace_info__()
    with xp.use_backend("numpy"):
        reference = xp.__array_namespace_info__()
    for kind in KINDS:
        got = info.dtypes(kind=kind)
        assert got == reference.dtypes(kind=kind)
        assert all(type(v) is type(np.dtype(k)) and v == np.dtype(k) for k, v in got.items())
    assert all(isinstance(v, np.dtype) for v in info.default_dtypes().values())
    assert info.default_dtypes()["real floating"] in info.dtypes(kind="real floating").values()
    assert "bool" in type(info).dtypes.__doc__


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("call, message", [
    (lambda info: info.dtypes(kind="nope"), r"dtypes: unsupported kind: 'nope'"),
    (lambda info: info.dtypes(kind=("bool", 3)), r"dtypes: unsupported kind: 3"),
    (lambda info: info.dtypes(device="gpu"), r"dtypes: .*gpu"),
    (lambda info: info.default_dtypes(device="gpu"), r"default_dtypes: .*gpu"),
])
def test_info_errors_name_the_function(backend, call, message):
    """compat's "unsupported kind: 'nope'" named neither function nor namespace."""
    with xp.use_backend(backend):
        info = xp.__array_namespace_info__()
    with pytest.raises(ValueError, match=r"^__array_namespace_info__\(\)\." + message):
        call(info)


def test_info_dtypes_of_a_class_giving_a_scalar_type():
    """CuPy's compat info has the dask one's ``{"bool": bool}`` (no CuPy here: a stand-in
    class with that ``dtypes``)."""
    from xstride._backends._base import _dtype_info

    class Info:
        def dtypes(self, /, *, device=None, kind=None):
            return {"bool": np.bool_} if kind == "bool" else {"int8": np.dtype(np.int8)}

        def default_dtypes(self, /, *, device=None):
            return {"integral": np.dtype(np.int64)}

    sub = _dtype_info(Info)
    assert _dtype_info(Info) is sub and issubclass(sub, Info)
    assert sub().dtypes(kind="bool") == {"bool": np.dtype(bool)}
    assert type(sub().dtypes(kind="bool")["bool"]) is type(np.dtype(bool))


def test_results_are_plain_numpy_and_equal_compat():
    a = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
    assert type(a) is np.ndarray
    np.testing.assert_array_equal(xp.add(a, a), cnp.add(a, a))
    assert xp.sum(a) == 10.0
    np.testing.assert_array_equal(xp.linalg.matmul(a, a), a @ a)
    np.testing.assert_allclose(xp.fft.fft(xp.asarray([1.0, 0.0, 0.0, 0.0])), np.ones(4))


def test_signatures_follow_the_implementation():
    from xstride._backends.dispatch import implementation

    # argsort: xstride's check of axis in front of compat's, with compat's parameters
    assert inspect.signature(xp.argsort) == inspect.signature(implementation("numpy", "argsort"))
    assert (list(inspect.signature(xp.argsort).parameters)
            == list(inspect.signature(cnp.argsort).parameters))
    # xstride's sum carries the standard signature (NumPy-only keywords forwarded)

    sig = inspect.signature(xp.sum)
    assert sig == inspect.signature(implementation("numpy", "sum"))
    assert list(sig.parameters)[:4] == ["x", "axis", "dtype", "keepdims"]
    assert xp.sum.__module__ == "xstride" and xp.sum.__name__ == "sum"
    assert xp.linalg.solve.__module__ == "xstride.linalg"


def test_dtypes_and_constants_are_numpy_objects():
    assert xp.float32 is cnp.float32 and xp.bool is cnp.bool
    assert xp.pi == np.pi and xp.newaxis is None


def test_non_standard_compat_names_pass_through():
    np.testing.assert_array_equal(xp.nanmean(xp.asarray([1.0, np.nan, 3.0])), 2.0)
    with pytest.raises(AttributeError, match="no attribute 'random'"):
        xp.random  # a module of NumPy's, not a function: not passed through
    with pytest.raises(AttributeError, match="no attribute 'not_a_function'"):
        xp.not_a_function


def test_get_array_module_and_array_namespace():
    a = np.arange(3)
    assert xp.get_array_module(a) is np
    assert xp.get_array_module() is np  # active backend
    assert xp.get_array_module(a, 1.0, None) is np
    assert xp.array_namespace(a) is cnp
    with pytest.raises(TypeError, match=r"array_namespace: argument 'arrays\[1\]'"):
        xp.array_namespace(a, [1, 2])


def test_to_numpy_is_zero_copy_on_numpy():
    a = np.arange(5.0)
    assert xp.to_numpy(a) is a
    assert xp.to_device(a) is a
    np.testing.assert_array_equal(xp.to_numpy([1, 2]), np.array([1, 2]))


def test_to_device_bad_backend():
    with pytest.raises(ValueError, match="to_device: argument 'backend' names an unknown backend 'tpu'"):
        xp.to_device(np.zeros(1), "tpu")


def test_mixing_backends_raises_type_error_naming_arguments(fake_cupy):
    fake = fake_cupy
    d = fake.ndarray((3,))
    h = np.ones(3, dtype=np.float32)
    with pytest.raises(TypeError, match=r"add: .*x1 is numpy, x2 is cupy"):
        xp.add(h, d)
    with pytest.raises(TypeError, match=r"concat: .*arrays\[0\] is numpy, arrays\[1\] is cupy"):
        xp.concat([h, d])
    with pytest.raises(TypeError, match=r"get_array_module: .*numpy.*cupy"):
        xp.get_array_module(h, d)
    # with the stand-in loaded, NumPy-only calls still go to NumPy
    np.testing.assert_array_equal(xp.add(h, h), 2 * h)


def test_several_optional_libraries_always_take_the_look(fake_cupy, monkeypatch):
    """With more than two backends besides NumPy (no pair of libraries to test in
    sys.modules), a wrapper must look at its arguments on every call; a bug sent every
    call to NumPy then (found by following the new-backend recipe)."""
    from xstride._backends import dispatch

    monkeypatch.setattr(dispatch, "_OPTIONAL_PAIR", ("sys", "sys"))
    add = dispatch.follower("add")
    d, h = fake_cupy.ndarray((3,)), np.ones(3, dtype=np.float32)
    with pytest.raises(TypeError, match=r"add: .*x1 is numpy, x2 is cupy"):
        add(h, d)
    np.testing.assert_array_equal(add(h, h), 2 * h)


def test_the_two_optional_libraries_are_each_tested(monkeypatch):
    """CuPy and dask: while neither is imported a call goes to NumPy without a look; an
    array of either (here dask's, with CuPy absent) is found."""
    from xstride._backends import dispatch

    assert dispatch._OPTIONAL_PAIR == ("cupy", "dask.array")
    da = pytest.importorskip("dask.array")
    got = xp.add(da.ones(3, chunks=2), 1.0)
    assert isinstance(got, da.Array) and xp.to_numpy(got).tolist() == [2.0, 2.0, 2.0]


def test_info_json_is_valid_with_documented_keys():
    r = subprocess.run([sys.executable, "-m", "xstride", "info", "--json"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert set(info) == {"backend", "backend_error", "versions", "gpu_available",
                         "gpu_reason", "devices", "capabilities"}
    assert info["backend"] == "numpy" and info["backend_error"] == ""
    assert info["versions"]["numpy"] == np.__version__
    assert set(info["versions"]) >= {"python", "numpy", "array_api_compat", "cupy",
                                     "cuda_runtime", "cuda_driver", "hip_runtime"}
    caps = info["capabilities"]
    assert set(caps) == {"backend", "device", "is_hip", "reason", "features"}
    assert set(caps["features"]) >= {"warp_shuffle", "high_dim_cuda_views",
                                     "bounds_check_views"}
    if not info["gpu_available"]:
        assert info["devices"] == [] and info["gpu_reason"]


def test_info_text_without_gpu_says_so_and_exits_zero():
    r = subprocess.run([sys.executable, "-m", "xstride", "info"], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "numpy" in r.stdout and "capabilities:" in r.stdout
    from tests.conftest import gpu_reason

    if gpu_reason() is not None:
        assert "GPU: none (" in r.stdout


def test_positional_fast_path_and_keyword_path_agree():
    a = np.arange(6.0).reshape(2, 3)
    out = np.empty_like(a)
    np.testing.assert_array_equal(xp.add(a, 1.0), a + 1.0)
    assert xp.add(a, 1.0, out=out) is out
    np.testing.assert_array_equal(out, a + 1.0)
    np.testing.assert_array_equal(xp.where(a > 2, a, 0.0), np.where(a > 2, a, 0.0))
    assert xp.asarray([1, 2], dtype=xp.float32).dtype == np.float32
    assert xp.asarray([1, 2]).dtype == np.int64


def test_backend_by_exact_type(fake_cupy):
    from xstride._backends.dispatch import _backend_by_type

    fake = fake_cupy
    d, h = fake.ndarray((2,)), np.ones(2)
    assert _backend_by_type((h, 2.0, None)) == "numpy"
    assert _backend_by_type((d, 3)) == "cupy"
    assert _backend_by_type((1, 2.0)) is None  # no array: the active backend decides
    assert _backend_by_type((h, d)) is None  # mixed: the full check raises
    assert _backend_by_type(([h],)) is None  # a sequence: the full check looks inside
    assert _backend_by_type((np.float64(1.0), h)) is None  # NumPy scalar: full check
    np.testing.assert_array_equal(xp.add(np.float64(1.0), h), 2 * h)
    np.testing.assert_array_equal(xp.add(h, h), 2 * h)


def test_to_numpy_refuses_what_is_not_array_like():
    for bad in (None, {}, object()):
        with pytest.raises(TypeError, match="to_numpy: argument 'a'"):
            xp.to_numpy(bad)
    np.testing.assert_array_equal(xp.to_numpy(3.5), np.asarray(3.5))


@pytest.mark.parametrize("func", ["to_numpy", "to_device"])
@pytest.mark.parametrize("bad, said", [(2**64, 2**64), ([1, -2**63 - 1], -2**63 - 1),
                                       ([[0], [2**70]], 2**70)])
def test_to_numpy_names_a_python_int_past_every_integer_dtype(func, bad, said):
    """A new-user probe: ``to_numpy(2**64)`` said "expected an array, a number or a
    sequence of numbers" of a number. It is asarray's OverflowError, naming the int."""
    call = (lambda a: xp.to_numpy(a)) if func == "to_numpy" else (
        lambda a: xp.to_device(a, "cpu"))
    with pytest.raises(OverflowError, match=rf"{func}: argument 'a' holds the Python int "
                                            rf"{said}, which no integer dtype holds"):
        call(bad)
    assert xp.to_numpy(2**64 - 1) == np.uint64(2**64 - 1)


def test_backend_by_type_with_keyword_values(fake_cupy):
    from xstride._backends.dispatch import _backend_by_type

    fake = fake_cupy
    d, h = fake.ndarray((2,)), np.ones((2, 2))
    assert _backend_by_type((d, (0, 1), np.dtype("float32"), np.float64, "C", None)) == "cupy"
    assert _backend_by_type((h, (0,), True)) == "numpy"
    assert _backend_by_type((h, (0, 1.5))) is None  # not a tuple of ints: full check
    assert _backend_by_type((h, d)) is None
    np.testing.assert_array_equal(xp.sum(h, axis=(0, 1), dtype=np.float32), np.float32(4.0))
    np.testing.assert_array_equal(xp.sum(h, axis=0, keepdims=True), [[2.0, 2.0]])
    with pytest.raises(TypeError, match=r"add: .*x1 is numpy, x2 is numpy, out is cupy"):
        xp.add(h, h, out=d)


def test_numpy_scalars_are_weak(fake_cupy):
    from xstride._backends import select as _backend

    fake = fake_cupy
    d = fake.ndarray((2,))
    assert _backend.backend_of("f", [("x1", d), ("x2", np.float32(2.0))]) == "cupy"
    assert _backend.backend_of("f", [("x", np.float64(1.0))]) == "numpy"
    assert _backend.backend_of("f", [("x", [np.int64(1), d])]) == "cupy"
    with pytest.raises(TypeError, match="x1 is numpy, x2 is cupy"):
        _backend.backend_of("f", [("x1", np.ones(2)), ("x2", d), ("x3", np.float32(1))])


@pytest.mark.parametrize("name", ["add", "divide", "negative", "where", "astype", "sum",
                                  "cumulative_sum"])
def test_engine_docstrings_say_what_xstride_takes(name):
    """Issue 15 item 15: help(xp.add) showed NumPy's ufunc docstring, advertising
    where=, casting=, order=, dtype= and tuple out, which xstride refuses."""
    fn = getattr(xp, name)
    doc = fn.__doc__ or ""
    assert doc and "array API standard" in doc
    assert "casting : " not in doc and "order : " not in doc   # NumPy's ufunc parameters
    params = inspect.signature(fn).parameters
    assert "casting" not in params and "order" not in params and "where" not in params
    if name in ("add", "divide", "negative", "where"):
        assert "out=" in doc and "out" in params


@pytest.mark.parametrize("module", ["algorithms", "views", "elementwise", "reductions",
                                    "layout", "fusion", "cuda", "rng", "kernel_testing"])
def test_extension_modules_show_only_their_all(module):
    """A new-user probe: ``xp.algorithms.np``, ``.operator``, ``.type_error``,
    ``xp.views.value_error``... were public attributes; the helpers are imported under
    private names, so the public names are ``__all__`` (and the package's submodules).
    ``xp.elementwise``, ``xp.reductions``, ``xp.layout``, ``xp.fusion`` and ``xp.cuda``
    keep the helpers xstride's own modules import from them, and list only ``__all__``
    in ``dir()`` (their ``__dir__``; ``xp.cuda``'s ``annotations`` was listed too)."""
    import types

    mod = getattr(xp, module)
    for name in mod.__all__:   # made (xp.cuda's names import their submodules) ...
        getattr(mod, name)     # ... before dir() is read
    public = {n for n in dir(mod) if not n.startswith("_")}
    submodules = {n for n in public if isinstance(getattr(mod, n), types.ModuleType)
                  and getattr(mod, n).__name__.startswith(mod.__name__ + ".")}
    assert public - submodules == set(mod.__all__)
    assert all(hasattr(mod, n) for n in mod.__all__)
    assert "annotations" not in public and "np" not in public


def test_helpers_left_out_of_dir_stay_importable():
    """xstride's modules import these from the public modules (``__dir__`` hides them,
    nothing renames them)."""
    from xstride.elementwise import classify, copy_into_checked  # noqa: F401
    from xstride.layout import checked_size  # noqa: F401
    from xstride.reductions import normalize_axis  # noqa: F401

    assert "classify" not in dir(xp.elementwise) and callable(xp.elementwise.classify)
    assert "normalize_axis" not in dir(xp.reductions)
    assert "Traced" not in dir(xp.fusion) and xp.fusion.Traced is not None
    assert "__name__" in dir(xp.layout) and "_register" in dir(xp.elementwise)
