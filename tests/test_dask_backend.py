"""The dask backend without a cluster (dask's local threads): selection and options,
creation functions, what dask cannot do, conversions, and the errors of each."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402
from tests.conftest import gpu_reason  # noqa: E402


@pytest.fixture(autouse=True)
def _numpy_after():
    yield
    xp.set_backend("dask")     # the dask backend's default options back (tests that follow
    xp.set_backend("numpy")    # make dask arrays under NumPy, Philox(backend="dask"), read them)


# --------------------------------------------------------------------- selection
def test_set_backend_dask_gives_dask_arrays_with_numpy_chunks():
    xp.set_backend("dask")
    assert xp.get_backend() == "dask"
    z = xp.zeros((10, 3))
    assert isinstance(z, da.Array) and isinstance(z._meta, np.ndarray)
    assert xp.to_numpy(xp.sum(z + 1)) == 30.0
    a = xp.asarray([1.0, 2.0, 3.0])
    assert isinstance(a, da.Array) and xp.to_numpy(a).tolist() == [1.0, 2.0, 3.0]


def test_unknown_chunk_lengths_give_the_compute_chunk_sizes_advice():
    """After boolean indexing dask does not know the chunk lengths: a philox counter and
    a scan say so and what to call (dask's own cumsum failed when computed); after
    compute_chunk_sizes() both run and equal NumPy's."""
    with xp.use_backend("dask", chunks=4):
        c = xp.arange(10, dtype=xp.uint64)
        m = c[xp.arange(10) > 3]
        with pytest.raises(ValueError, match=r"philox_uniform: argument 'counter' .*"
                                             r"counter.compute_chunk_sizes\(\) first"):
            xp.rng.philox_uniform(1, 0, m)
        with pytest.raises(ValueError, match=r"cumulative_sum: argument 'x' .*"
                                             r"x.compute_chunk_sizes\(\) first"):
            xp.cumulative_sum(m)
        m.compute_chunk_sizes()
        np.testing.assert_array_equal(xp.to_numpy(xp.cumulative_sum(m)),
                                      np.cumsum(np.arange(4, 10, dtype=np.uint64)))
        np.testing.assert_array_equal(
            xp.to_numpy(xp.rng.philox_uniform(1, 0, m)),
            xp.rng.philox_uniform(1, 0, np.arange(4, 10, dtype=np.uint64)))


def test_philox4x32_10_of_unknown_chunk_lengths_names_counter_words():
    """The advice names the array to call it on (it named the slice
    ``counter_words[..., 0]``, whose compute_chunk_sizes() leaves the argument as it was)."""
    cw = da.from_array(np.zeros((6, 4), np.uint32), chunks=2)
    cw = cw[cw[:, 0] == 0]
    with pytest.raises(ValueError, match=r"philox4x32_10: argument 'counter_words' has chunk "
                                         r"lengths .* call counter_words\.compute_chunk_sizes"):
        xp.rng.philox4x32_10(cw, 0, 0)
    cw.compute_chunk_sizes()
    np.testing.assert_array_equal(xp.to_numpy(xp.rng.philox4x32_10(cw, 0, 0)),
                                  xp.rng.philox4x32_10(np.zeros((6, 4), np.uint32), 0, 0))


def test_use_backend_restores_the_options():
    xp.set_backend("dask", chunks=3)
    with xp.use_backend("dask", chunks=7):
        assert xp.zeros(10).chunks == ((7, 3),)
    assert xp.get_backend() == "dask" and xp.zeros(10).chunks == ((3, 3, 3, 1),)
    with pytest.raises(KeyError):
        with xp.use_backend("dask", chunks=5):
            raise KeyError("boom")
    assert xp.zeros(10).chunks == ((3, 3, 3, 1),)

def test_use_backend_restores_options_set_inside_the_block():
    """A ``set_backend`` inside a ``use_backend`` block is undone whole on exit: the
    selection and every backend's options (dask's options set under
    ``use_backend("numpy")`` outlived the block, so the restored dask selection ran with
    the inner call's chunks)."""
    xp.set_backend("dask", chunks=3)
    with xp.use_backend("numpy"):
        xp.set_backend("dask", chunks=2)
        assert xp.zeros(5).chunks == ((2, 2, 1),)
    assert xp.get_backend() == "dask" and xp.zeros(10).chunks == ((3, 3, 3, 1),)
    with pytest.raises(KeyError):
        with xp.use_backend("numpy"):
            xp.set_backend("dask", chunks=4)
            raise KeyError("boom")
    assert xp.get_backend() == "dask" and xp.zeros(10).chunks == ((3, 3, 3, 1),)


def test_names_are_case_insensitive_for_the_chunk_backend_too():
    with xp.use_backend("DASK", chunk_backend="NumPy"):
        assert isinstance(xp.ones(2)._meta, np.ndarray)


@pytest.mark.parametrize("options, cls, match", [
    ({"chunk_backend": "torch"}, ValueError,
     r"set_backend: argument 'chunk_backend' names 'torch', which cannot hold dask chunks; "
     r"valid names are 'numpy', 'cupy'"),
    ({"chunk_backend": "dask"}, ValueError, "names 'dask', which cannot hold dask chunks"),
    ({"chunk_backend": 3}, TypeError, r"argument 'chunk_backend' got int 3; expected a str"),
    ({"chunks": 0}, ValueError, r"argument 'chunks' must hold positive chunk lengths"),
    ({"chunks": -2}, ValueError, r"argument 'chunks' must hold positive chunk lengths"),
    # past int64: set_backend took it, then xp.arange failed in dask ("ufunc 'isnan'")
    ({"chunks": 2**64}, ValueError, r"argument 'chunks' must hold chunk lengths of at most "
                                    r"2\*\*63-1"),
    ({"chunks": "lots"}, ValueError, r"argument 'chunks' has 'lots', which is neither 'auto' "
                                     r"nor a byte size"),
    # a unit without its number: dask's parse_bytes read '' as 1 byte (chunks of one
    # element, silently) and 'KiB' as 1024 bytes
    ({"chunks": ""}, ValueError, r"argument 'chunks' has '', which is neither 'auto' nor"),
    ({"chunks": " "}, ValueError, r"argument 'chunks' has ' ', which is neither 'auto' nor"),
    ({"chunks": "KiB"}, ValueError, r"argument 'chunks' has 'KiB', which is neither 'auto'"),
    ({"chunks": (3, "B")}, ValueError, r"argument 'chunks' has 'B', which is neither 'auto'"),
    # a byte size past float64 ('1e999MiB'): dask's parse_bytes raised OverflowError
    ({"chunks": "1e999MiB"}, ValueError, r"argument 'chunks' has '1e999MiB', a byte size past "
                                         r"any finite count of bytes"),
    ({"chunks": (3, "1e999")}, ValueError, r"has '1e999', a byte size past any finite"),
    ({"chunks": "0MiB"}, ValueError, r"argument 'chunks' has '0MiB', a byte size under one "
                                     r"byte; a chunk holds at least one byte"),
    ({"chunks": "0.5B"}, ValueError, r"has '0.5B', a byte size under one byte"),
    ({"chunks": True}, TypeError, r"argument 'chunks' got bool True; expected 'auto', an int"),
    ({"chunks": 2.5}, TypeError, r"argument 'chunks' got float 2.5"),
    ({"chunks": ((3, -1),)}, ValueError, r"has the block lengths \(3, -1\)"),
    ({"chunk": 3}, TypeError, r"argument 'chunk' got int 3; expected no such option; the dask "
                              r"backend takes chunks= and chunk_backend="),
])
def test_bad_options_are_refused_and_keep_the_state(options, cls, match):
    xp.set_backend("dask", chunks=3)
    with pytest.raises(cls, match=match):
        xp.set_backend("dask", **options)
    with pytest.raises(cls, match=match.replace("set_backend", "use_backend")):
        xp.use_backend("dask", **options)
    assert xp.get_backend() == "dask" and xp.zeros(4).chunks == ((3, 1),)


def test_other_backends_take_no_options():
    with pytest.raises(TypeError, match=r"set_backend: argument 'chunks' got int 3; expected "
                                        r"no such option; the numpy backend takes no options"):
        xp.set_backend("numpy", chunks=3)
    with pytest.raises(TypeError, match="the numpy backend takes no options"):
        xp.use_backend("numpy", chunk_backend="numpy")


@pytest.mark.skipif(gpu_reason() is None, reason="CuPy and a device are available here")
def test_cupy_chunks_without_a_device_say_why():
    """The error names the option that asked for CuPy (a new-user probe: it named the
    backend alone)."""
    with pytest.raises(RuntimeError, match=r"^set_backend: argument 'chunk_backend' is 'cupy', "
                                           r"which cannot be used here: backend 'cupy' is "
                                           r"unavailable: .+"):
        xp.set_backend("dask", chunk_backend="cupy")
    assert xp.get_backend() == "numpy"
    with pytest.raises(RuntimeError, match=r"^use_backend: argument 'chunk_backend' is 'CuPy'"):
        xp.use_backend("dask", chunk_backend="CuPy")


def test_environment_variable_selects_dask_without_importing_it_early():
    code = ("import sys, xstride as xp; print('dask' in sys.modules); a = xp.ones(3); "
            "print(type(a).__module__.split('.')[0], xp.get_backend())")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "XSTRIDE_BACKEND": "dask"}, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "dask", "dask"]  # loaded (and checked) at import
    r = subprocess.run([sys.executable, "-c", "import sys, xstride as xp; xp.ones(2); "
                        "print('dask' in sys.modules)"], capture_output=True, text=True,
                       env={**os.environ, "XSTRIDE_BACKEND": "numpy"}, timeout=120)
    assert r.stdout.split() == ["False"], r.stderr


# --------------------------------------------------------------------- the namespace
def test_standard_functions_follow_dask_arrays():
    with xp.use_backend("dask", chunks=4):
        x = xp.arange(10, dtype=xp.float64)
    assert xp.get_backend() == "numpy"
    y = xp.multiply(x, 2.0) + xp.sin(x)
    assert isinstance(y, da.Array)
    np.testing.assert_array_equal(xp.to_numpy(y), np.arange(10.0) * 2 + np.sin(np.arange(10.0)))
    assert xp.to_numpy(xp.cumulative_sum(x)).tolist() == np.cumsum(np.arange(10.0)).tolist()
    assert float(xp.to_numpy(xp.max(x))) == 9.0
    assert xp.get_array_module(x) is da
    assert xp.array_namespace(x).__name__ == "array_api_compat.dask.array"
    assert xp.broadcast_shapes((3, 1), (1, 4)) == (3, 4)


@pytest.mark.parametrize("chunks", [1, 3, -1])
def test_complex_special_values_equal_the_numpy_backend(chunks):
    """expm1, log, log1p, tanh, acosh of complex dask arrays run the standard's special
    cases on every chunk: the NumPy backend's values, any chunking."""
    inf, nan = np.inf, np.nan
    z = np.array([complex(inf, 0), complex(-inf, nan), complex(0, inf), complex(nan, 0),
                  complex(-inf, inf), complex(0.5, -0.0), complex(1.0, -inf)])
    d = da.from_array(z, chunks=chunks)
    with np.errstate(all="ignore"):
        for f in ("expm1", "log", "log1p", "tanh", "acosh"):
            want = getattr(xp, f)(z)
            got = xp.to_numpy(getattr(xp, f)(d))
            np.testing.assert_array_equal(got, want, err_msg=f)
            np.testing.assert_array_equal(np.signbit(got.imag), np.signbit(want.imag), f)
        assert xp.to_numpy(xp.expm1(da.from_array(np.array([0.5]), chunks=1))).dtype == \
            np.float64


def test_mixing_dask_and_numpy_arrays_is_refused():
    with xp.use_backend("dask"):
        x = xp.ones(3)
    with pytest.raises(TypeError, match=r"add: arrays from different backends cannot be mixed "
                                        r"\(x1 is dask, x2 is numpy\)"):
        xp.add(x, np.ones(3))


@pytest.mark.parametrize("call, named", [
    (lambda d, n: xp.broadcast_arrays(d, n), "args[0] is dask, args[1] is numpy"),
    (lambda d, n: xp.broadcast_arrays(n, n, d), "args[0] is numpy, args[1] is numpy, "
                                                "args[2] is dask"),
    (lambda d, n: xp.meshgrid(d, n), "arrays[0] is dask, arrays[1] is numpy"),
    (lambda d, n: xp.result_type(n, d), "arrays_and_dtypes[0] is numpy, "
                                        "arrays_and_dtypes[1] is dask"),
    (lambda d, n: xp.concat([d, n]), "arrays[0] is dask, arrays[1] is numpy"),
])
def test_mixed_backends_name_the_arguments_of_a_star_parameter_by_index(call, named):
    """A function of ``*args`` names its arguments ``args[0]``, ``args[1]``, ... as
    ``concat`` names its list's (they were "args" and "argument 1")."""
    with xp.use_backend("dask"):
        d = xp.ones(3)
    with pytest.raises(TypeError, match=rf"arrays from different backends cannot be mixed "
                                        rf"\({re.escape(named)}\)"):
        call(d, np.ones(3))


@pytest.mark.parametrize("call, name", [
    (lambda x: xp.from_dlpack(x), "from_dlpack"),
])
def test_what_dask_lacks_raises_not_implemented_naming_an_alternative(call, name):
    with xp.use_backend("dask"):
        x = xp.ones((3, 3))
        with pytest.raises(NotImplementedError,
                           match=rf"^{name}: not available on the dask backend; .*(NumPy|CuPy)"):
            call(x)


class _Foreign:
    """Another library's array: DLPack only."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, **kwargs):
        return self.a.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_from_dlpack_on_dask_does_what_docs_dask_md_says():
    """docs/dask.md said only that ``from_dlpack`` raises ``NotImplementedError`` on the
    dask backend; of a NumPy array it returns that NumPy array's copy-free view, also
    while dask is active. The remedy the message names works."""
    a = np.arange(4.0)
    with xp.use_backend("dask"):
        got = xp.from_dlpack(a)
        assert type(got) is np.ndarray and np.shares_memory(got, a)
        for x in (xp.ones(3), _Foreign(a)):
            with pytest.raises(NotImplementedError, match=r"^from_dlpack: not available on "
                               r"the dask backend; build a NumPy or CuPy array with "
                               r"numpy.from_dlpack or cupy.from_dlpack, then "
                               r"xstride.to_device\(a, 'dask'\)"):
                xp.from_dlpack(x)
        d = xp.to_device(np.from_dlpack(_Foreign(a)), "dask")
    assert type(d).__module__.startswith("dask") and xp.to_numpy(d).tolist() == a.tolist()
    assert type(xp.from_dlpack(_Foreign(a))) is np.ndarray   # the NumPy backend


# --------------------------------------------------------------------- immutable arrays
def test_out_copy_into_and_as_strided_refuse_dask_arrays():
    with xp.use_backend("dask"):
        x = xp.ones(4)
        out = xp.zeros(4)
    immutable = r"arrays of the dask backend are immutable \(views of a task graph"
    with pytest.raises(TypeError, match=rf"add: argument 'out' got dask.Array\(shape=\(4,\), "
                                        rf"dtype=float64\); {immutable}"):
        xp.add(x, x, out=out)
    with pytest.raises(TypeError, match=rf"where: argument 'out' .*{immutable}"):
        xp.where(x > 0, x, x, out=out)
    with pytest.raises(TypeError, match=r"sqrt: arrays from different backends cannot be mixed "
                                        r"\(x is dask, out is numpy\)"):
        xp.sqrt(x, out=np.zeros(4))
    with pytest.raises(TypeError, match=rf"copy_into: argument 'dst' .*{immutable}"):
        xp.copy_into(out, x)
    with pytest.raises(TypeError, match=rf"as_strided: argument 'a' .*{immutable}.*reshape"):
        xp.as_strided(x, (2,), (2,))
    with pytest.raises(TypeError, match=rf"sliding_window_view: argument 'writeable' .*{immutable}"):
        xp.sliding_window_view(x, 2, writeable=True)
    w = xp.sliding_window_view(x, 2)
    assert isinstance(w, da.Array) and xp.to_numpy(w).shape == (3, 2)


@pytest.mark.parametrize("shape, window, axis", [
    ((0, 3), 2, 1),           # dask: "The overlapping depth 1 is larger than your array 0"
    ((0, 3), (0, 2), None),
    ((10,), 0, None),         # dask: "`window_shape` must contain values > 0"
    ((3, 0), 0, 1),
    ((4, 3), (0, 2), (1, 1)),
    ((), (), None),           # dask: "reduce() of empty iterable with no initial value"
    ((5, 4), (2, 3), None),   # (and the plain case)
])
def test_sliding_window_view_of_dask_arrays_at_the_edges(shape, window, axis):
    """A new-user probe: where NumPy's windows are empty (an empty input, a window of
    0) or are the 0-d input itself, dask's function failed; the result is NumPy's."""
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    want = np.lib.stride_tricks.sliding_window_view(x, window, axis)
    with xp.use_backend("dask", chunks=2):
        got = xp.sliding_window_view(xp.asarray(x), window, axis)
    assert isinstance(got, da.Array)
    assert got.shape == want.shape and got.dtype == want.dtype
    out = xp.to_numpy(got)
    assert out.shape == want.shape and np.array_equal(out, want)


def test_sliding_window_view_of_unknown_chunk_lengths_says_what_to_do():
    """After boolean indexing, dask failed with "The overlapping depth ... is larger than
    your array nan"."""
    x = da.from_array(np.arange(10.0), chunks=3)
    y = x[x > 2]
    with pytest.raises(ValueError, match=r"^sliding_window_view: argument 'x' has chunk "
                                         r"lengths that dask does not know .* call "
                                         r"x\.compute_chunk_sizes\(\) first$"):
        xp.sliding_window_view(y, 3)
    y.compute_chunk_sizes()
    assert np.array_equal(xp.to_numpy(xp.sliding_window_view(y, 3)),
                          np.lib.stride_tricks.sliding_window_view(np.arange(3.0, 10.0), 3))


@pytest.mark.parametrize("window", [1, 2, 3])
def test_sliding_window_view_of_dask_arrays_with_chunks_of_no_element(window):
    """A new-user probe: after compute_chunk_sizes() of a boolean selection (chunks
    ((2, 0, 0, 3),)), a window of 1 failed when computed with NumPy's "window shape
    cannot be larger than input array shape" (dask ran NumPy's function on each chunk,
    the empty ones too)."""
    x = da.from_array(np.arange(12.0), chunks=3)
    y = x[(x < 2) | (x > 8)]
    y.compute_chunk_sizes()
    assert 0 in y.chunks[0]
    want = np.lib.stride_tricks.sliding_window_view(np.array([0, 1, 9, 10, 11.0]), window)
    got = xp.to_numpy(xp.sliding_window_view(y, window))
    assert got.shape == want.shape and np.array_equal(got, want)


def test_sliding_window_view_result_rank_past_64_names_the_function():
    """A new-user probe: a dask x of 40 axes with 40 windows raised NumPy's "maximum
    supported dimension for an ndarray is currently 64, found 80", naming no function."""
    x = np.zeros((1,) * 40)
    for arr in (x, da.from_array(x)):
        with pytest.raises(ValueError, match=r"^sliding_window_view: argument 'window_shape' "
                                             r"gives a result of rank 80 .* more than 64$"):
            xp.sliding_window_view(arr, (1,) * 40)


@pytest.mark.parametrize("n, window, itemsize", [(2**40, 2**39, 8), (2**62, 2, 8)])
def test_sliding_window_view_of_dask_arrays_checks_the_result_size(n, window, itemsize):
    """A new-user probe: on dask the result's size was not checked (a window of 2**39
    over 2**40 elements gave a (2**39 + 1, 2**39) array of 2**78 elements); it is
    refused as on NumPy, naming window_shape."""
    x = da.broadcast_to(da.zeros(1, dtype=f"f{itemsize}", chunks=1), (n,))
    with pytest.raises(ValueError, match=r"^sliding_window_view: argument 'window_shape' gives "
                                         r"a result of shape .*overflows int64"):
        xp.sliding_window_view(x, window)


# --------------------------------------------------------------------- conversions
def test_to_numpy_and_to_device_compute():
    with xp.use_backend("dask", chunks=2):
        x = xp.arange(5)
        assert isinstance(xp.to_device(np.arange(3)), da.Array)
        assert xp.to_device(np.arange(3)).chunks == ((2, 1),)
        assert xp.to_device(x) is x
    h = xp.to_numpy(x + 1)
    assert type(h) is np.ndarray and h.tolist() == [1, 2, 3, 4, 5]
    assert xp.to_device(x, "numpy").tolist() == [0, 1, 2, 3, 4]
    assert isinstance(xp.to_device([1, 2], "dask"), da.Array)


def test_to_numpy_of_a_0d_dask_array_is_an_ndarray():
    # dask's compute of a 0-d array is a NumPy scalar (np.int64): it came back as one
    x = xp.to_device(np.arange(5), "dask")
    for got in (xp.to_numpy(xp.sum(x)), xp.to_numpy(x[0]), xp.to_device(x[1], "numpy")):
        assert type(got) is np.ndarray and got.shape == ()
    assert xp.to_numpy(xp.sum(x)) == 10 and xp.to_device(x[1], "numpy") == 1
    with xp.use_backend("numpy"):
        assert type(xp.to_device(x[2])) is np.ndarray


def test_to_device_names_itself_when_the_chunks_option_does_not_fit():
    # it named asarray, which the caller did not call, and offered a chunks= it lacks
    with xp.use_backend("dask", chunks=(4,)):
        with pytest.raises(ValueError, match=r"^to_device: argument 'chunks' is the dask "
                                             r"backend's option \(4,\): 1 entries.*shape "
                                             r"\(2, 3\), more axes; set the option"):
            xp.to_device(np.ones((2, 3)))
    with xp.use_backend("numpy"):
        xp.set_backend("dask", chunks=((1, 1), (2,)))
        xp.set_backend("numpy")
        with pytest.raises(ValueError, match=r"^to_device: argument 'chunks' is the dask "
                                             r"backend's option .*does not fit shape \(2, 3\)"):
            xp.to_device(np.ones((2, 3)), "dask")
        assert xp.to_device(np.ones((2, 2)), "dask").chunks == ((1, 1), (2,))


def test_numpy_backend_asarray_of_a_dask_array_with_copy_false_raises():
    # computing a dask array makes a new array: NumPy's copy=False error, not dask's
    # FutureWarning ("Can't acquire a memory view") and a silent copy
    x = xp.to_device(np.arange(3), "dask")
    with xp.use_backend("numpy"):
        with pytest.raises(ValueError, match=r"^asarray: argument 'copy' is False, but 'obj' "
                                             r"is a dask array.*copy=None"):
            xp.asarray(x, copy=False)
        for copy in (None, True):
            got = xp.asarray(x, copy=copy)
            assert type(got) is np.ndarray and got.tolist() == [0, 1, 2]


# --------------------------------------------------------------------- reductions and manipulation
@pytest.mark.parametrize("name", ["sum", "prod", "min", "max"])
def test_reductions_are_dask_trees_of_the_namespace_functions(name):
    a = np.random.default_rng(0).integers(-3, 4, (37, 11, 5)).astype(np.int32)
    with xp.use_backend("dask", chunks=(7, 4, 2)):
        x = xp.asarray(a)
    fn = getattr(xp, name)
    for axis in (None, 0, (0, 2), -1):
        for keepdims in (False, True):
            got = fn(x, axis=axis, keepdims=keepdims)
            assert isinstance(got, da.Array) and got.name.startswith(f"xstride-{name}")
            want = fn(a, axis=axis, keepdims=keepdims)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(xp.to_numpy(got), want)
    if name in ("sum", "prod"):
        assert xp.to_numpy(fn(x, dtype=xp.float32)) == fn(a, dtype=np.float32)
    else:
        with pytest.raises(ValueError, match=rf"{name}: .*empty"):
            fn(x[:0], axis=0)


def test_min_max_skip_empty_chunks():
    """Chunks of no element (as nonzero leaves them) add nothing to min and max."""
    a = np.array([5, 3, 9, 1], dtype=np.int64)
    with xp.use_backend("dask"):
        x = xp.asarray(a, chunks=((2, 0, 2, 0),))
    assert x.chunks == ((2, 0, 2, 0),)
    assert int(xp.min(x)) == 1 and int(xp.max(x)) == 9 and int(xp.sum(x)) == 18
    y = xp.reshape(x, (1, 4))
    np.testing.assert_array_equal(xp.to_numpy(xp.max(y, axis=1, keepdims=True)), [[9]])


def test_linspace_takes_num_as_its_length_and_checks_it():
    with xp.use_backend("dask", chunks=(2, 3)):      # block lengths of a 1-D array
        a = xp.linspace(0, 1, 5)
        assert a.chunks == ((2, 3),) and xp.to_numpy(a).tolist() == [0, 0.25, 0.5, 0.75, 1]
    with xp.use_backend("dask", chunks=2):
        with pytest.raises(ValueError, match="linspace: argument 'num' must be non-negative"):
            xp.linspace(0, 1, -1)
        for bad in (2.0, True, "3"):
            with pytest.raises(TypeError, match="linspace: argument 'num'"):
                xp.linspace(0, 1, bad)
        assert xp.to_numpy(xp.linspace(0, 1, np.int64(3))).tolist() == [0, 0.5, 1]
        assert xp.to_numpy(xp.linspace(0, 1, 0)).shape == (0,)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint32", "float32"])
def test_products_keep_the_promoted_dtype(dtype):
    """matmul, vecdot and tensordot of small integers: the promoted dtype, wrapped as
    NumPy's arithmetic in it wraps (dask's come back as 64-bit integers)."""
    a = np.full((3, 4), 100, dtype)
    b = np.full((4, 2), 3, dtype)
    v = np.full(4, 60, dtype)
    with xp.use_backend("dask", chunks=2):
        da_, db, dv = xp.asarray(a), xp.asarray(b), xp.asarray(v)
        for got, want in ((xp.matmul(da_, db), np.matmul(a, b)),
                          (xp.linalg.matmul(da_, db), np.matmul(a, b)),
                          (xp.vecdot(dv, dv), xp.vecdot(v, v)),
                          (xp.linalg.vecdot(da_, da_), xp.linalg.vecdot(a, a)),
                          (xp.tensordot(da_, db, axes=1), np.tensordot(a, b, axes=1))):
            got = xp.to_numpy(got)
            assert got.dtype == np.dtype(dtype) and np.array_equal(got, want)


def test_reshape_without_a_copy_and_window_lengths():
    with xp.use_backend("dask", chunks=2):
        x = xp.asarray(np.arange(24).reshape(2, 3, 4))
        r = xp.reshape(x, (6, 4), copy=False)
        assert r.shape == (6, 4) and xp.to_numpy(r).tolist() == np.arange(24).reshape(6, 4).tolist()
        with pytest.raises(TypeError, match="fftfreq: argument 'n'"):
            xp.fft.fftfreq(2.5)
        with pytest.raises(ValueError, match="rfftfreq: argument 'n' must be positive"):
            xp.fft.rfftfreq(-1)
        np.testing.assert_array_equal(xp.to_numpy(xp.fft.fftfreq(4)), np.fft.fftfreq(4))


def test_axes_out_of_range_name_the_function():
    with xp.use_backend("dask", chunks=2):
        a = xp.asarray(np.arange(12.0).reshape(3, 4))
        for call, name in ((lambda: xp.squeeze(a, axis=5), "squeeze"),
                           (lambda: xp.roll(a, 1, axis=5), "roll"),
                           (lambda: xp.roll(a, (1, 1), axis=(0, -3)), "roll"),
                           (lambda: xp.vecdot(a, a, axis=5), "vecdot")):
            with pytest.raises(ValueError, match=f"{name}: argument 'axis'"):
                call()
        want = np.roll(np.arange(12.0).reshape(3, 4), (1, 2), axis=(0, 0))   # axes repeat
        assert np.array_equal(xp.to_numpy(xp.roll(a, (1, 2), axis=(0, 0))), want)
        assert xp.squeeze(xp.asarray(np.ones((1, 3))), axis=0).shape == (3,)


def test_asarray_of_a_dask_array_takes_the_call_s_chunks():
    with xp.use_backend("dask", chunks=2):
        a = xp.asarray(np.arange(8.0).reshape(2, 4))
        assert xp.asarray(a, chunks=(1, 4)).chunks == ((1, 1), (4,))
        assert xp.asarray(a).chunks == a.chunks
        with pytest.raises(ValueError, match="asarray: argument 'chunks'"):
            xp.asarray(a, chunks=0)


@pytest.mark.parametrize("shift, axis", [(1, (0, 2)), (-5, [2, 0, 2]), (np.int8(2), (1,)),
                                         ((1, -2), (0, 2)), (3, None), (7, -1)])
def test_roll_takes_one_int_shift_for_a_tuple_of_axes(shift, axis):
    """The standard: an int shift with a tuple axis shifts each of those axes by it;
    dask's roll wanted one shift per axis ("Must have the same number of shifts as
    axes")."""
    a = np.arange(24.0).reshape(2, 3, 4)
    with xp.use_backend("dask", chunks=2):
        got = xp.roll(xp.asarray(a), shift, axis=axis)
    np.testing.assert_array_equal(xp.to_numpy(got), np.roll(a, shift, axis=axis))


def test_take_repeat_roll_check_their_arguments():
    with xp.use_backend("dask", chunks=2):
        a = xp.asarray(np.arange(6).reshape(2, 3))
        with pytest.raises(ValueError, match="take: argument 'axis' is required"):
            xp.take(a, xp.asarray(np.array([0, 2])))
        with pytest.raises(TypeError, match="take: argument 'indices'"):
            xp.take(xp.asarray(np.arange(3)), xp.asarray(np.array([True, False, True])), axis=0)
        with pytest.raises(TypeError, match="repeat: argument 'repeats'"):
            xp.repeat(xp.asarray(np.arange(3)), 1.5)
        with pytest.raises(TypeError, match="roll: argument 'shift'"):
            xp.roll(xp.asarray(np.arange(3)), 1.5)
        one = xp.take(xp.asarray(np.arange(5)), xp.asarray(np.array([4, 0])))   # 1-D, no axis
        assert xp.to_numpy(one).tolist() == [4, 0]
        assert xp.to_numpy(xp.take(a, xp.asarray(np.array([1])), axis=1)).tolist() == [[1], [4]]


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("d", [0.1, 1 / 3, 1e-7, np.float32(0.1), np.float16(0.3), np.int64(3)])
@pytest.mark.parametrize("chunks", [1, 3, -1])
def test_fft_frequencies_are_numpys_element_for_element(name, d, chunks):
    """A new-user probe: dask's ``fftfreq`` divided a linspace by ``float(d)``, a few
    ulps from NumPy's ``k * (1.0 / (n * d))`` for most ``n`` and ``d`` (1.5e-8 relative
    for a float32 ``d``, whose ``val`` NumPy computes in float32); now NumPy's bits for
    every chunking, with ``dtype=`` too."""
    fn = getattr(xp.fft, name)
    for n in (1, 2, 7, 10, 33):
        for dtype in (None, np.float32):
            want = getattr(np.fft, name)(n, d=d)
            want = want if dtype is None else want.astype(dtype)
            with xp.use_backend("dask", chunks=chunks):
                got = xp.to_numpy(fn(n, d=d, dtype=dtype))
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
