"""Bad input of the Philox functions and the generator on the host: types, values,
shapes, read-only attributes, thread settings and results past memory, each a clear
error naming the argument (the known answers, statistics and the generator's streams:
test_rng.py)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import xstride as xp
from xstride import rng
from xstride._host import philox as H
from tests.test_rng import U64, ref_uniform2


# ------------------------------------------------------------------ bad input
FUNCS = [rng.philox_uniform, rng.philox_uniform2, rng.philox_normal, rng.philox_normal2]
ARGS = ["seed", "stream", "counter"]


def _call(f, arg, value):
    kw = {"seed": 1, "stream": 2, "counter": 3, arg: value}
    return f(kw["seed"], kw["stream"], kw["counter"])


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("arg", ARGS)
@pytest.mark.parametrize("value", [1.5, True, "3", None, 2j, np.float64(2.0),
                                   np.array([1.0, 2.0]), np.array([True]), [1.5, 2.0],
                                   [1, "a"]], ids=repr)
def test_bad_type(f, arg, value):
    with pytest.raises(TypeError, match=f"'{arg}'"):
        _call(f, arg, value)


@pytest.mark.parametrize("value", [np.timedelta64(5), np.timedelta64(5, "ns"),
                                   np.timedelta64(5, "s"), np.timedelta64("NaT"),
                                   [np.timedelta64(5)], [1, np.timedelta64(5, "s")]],
                         ids=repr)
def test_timedelta_scalars_are_refused(value):
    """NumPy's timedelta64 is an ``np.integer`` subclass but a duration: its arrays were
    refused while a scalar was taken as its count of ns (a 5 ns seed drew seed 5) or
    failed in ``int()`` ("int() argument must be ... not 'datetime.timedelta'", naming
    no argument), and in a list raised a bare ``OverflowError``."""
    for arg in ARGS:
        with pytest.raises(TypeError, match=f"^philox_uniform: argument '{arg}' got "):
            _call(rng.philox_uniform, arg, value)
    with pytest.raises(TypeError, match="^philox4x32_10: argument 'key1' got "):
        rng.philox4x32_10(np.zeros(4, np.uint32), 0, value)


@pytest.mark.parametrize("arg", ARGS)
def test_masked_arrays_are_refused(arg):
    """A masked counter's masked elements would still draw: refused, naming what to pass."""
    value = np.ma.masked_array(np.array([1, 2], np.uint64), mask=[False, True])
    with pytest.raises(TypeError, match=f"'{arg}'.*without a mask"):
        _call(rng.philox_uniform, arg, value)


@pytest.mark.parametrize("arg", ARGS)
def test_dask_arrays_of_masked_chunks_are_refused(arg):
    """As a NumPy masked array: refused at the call (a dask array of masked chunks
    was taken and failed in dask's compute with numpy's MaskError)."""
    da = pytest.importorskip("dask.array")
    value = da.ma.masked_array(da.from_array(np.array([1, 2], np.uint64), chunks=1),
                               mask=np.array([False, True]))
    with pytest.raises(TypeError, match=f"'{arg}'.*without a mask \\(pass dask"):
        _call(rng.philox_uniform, arg, value)
    with pytest.raises(TypeError, match="'key0'.*without a mask"):
        rng.philox4x32_10(da.zeros((2, 4), dtype=np.uint32), value.astype(np.uint32), 0)


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("arg", ARGS)
def test_lists_the_dask_chunks_option_does_not_fit_name_the_function(f, arg):
    """Under the dask backend a list becomes a dask array with the chunks option; one
    the option does not fit names the function and the argument (it named ``asarray``
    and its ``chunks``, which the caller never passed), and the list the option fits
    gives the NumPy backend's values."""
    pytest.importorskip("dask.array")
    with xp.use_backend("dask", chunks=((2, 2),)):
        with pytest.raises(ValueError, match=f"^{f.__name__}: argument '{arg}' becomes a "
                                             "dask array of shape \\(3,\\)"):
            _call(f, arg, [1, 2, 3])
    with xp.use_backend("dask", chunks=(2,)):
        with pytest.raises(ValueError, match=f"^{f.__name__}: argument '{arg}' becomes a "
                                             "dask array of shape \\(2, 3\\)"):
            _call(f, arg, [[1, 2, 3], [4, 5, 6]])
        got = _call(f, arg, [1, 2, 3])
    want = _call(f, arg, np.array([1, 2, 3]))
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        np.testing.assert_array_equal(xp.to_numpy(g), w)


def test_words_lists_the_dask_chunks_option_does_not_fit_name_the_argument():
    da = pytest.importorskip("dask.array")
    with xp.use_backend("dask", chunks=(2,)):
        for args, name in ((([[1, 2, 3, 4]] * 3, 0, 0), "counter_words"),
                           ((da.zeros((2, 3, 4), dtype=np.uint32), [[1, 2, 3]] * 2, 0),
                            "key0")):
            with pytest.raises(ValueError, match=f"^philox4x32_10: argument '{name}' "
                                                 "becomes a dask array"):
                rng.philox4x32_10(*args)


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("arg", ARGS)
@pytest.mark.parametrize("value", [-1, 2**64, -(2**70), np.array([3, -1]), [1, -2],
                                   [1, 2**64], np.int64(-4)], ids=repr)
def test_bad_value(f, arg, value):
    with pytest.raises(ValueError, match=f"'{arg}'"):
        _call(f, arg, value)


def test_max_values_are_valid():
    u = rng.philox_uniform(2**64 - 1, 2**64 - 1, [2**64 - 1])
    assert u[0] == ref_uniform2(2**64 - 1, 2**64 - 1, 2**64 - 1)[0]


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
def test_not_broadcastable(f):
    with pytest.raises(ValueError, match="broadcast"):
        f(np.zeros(3, U64), 0, np.zeros(4, U64))


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("width", [2**31, 2**33])
def test_broadcast_results_too_large_to_exist(f, width):
    """Broadcast views whose result no array can hold (2**62 or 2**64 values): a
    ValueError naming the function and the shapes (NumPy's bare "array is too big", or
    "shapes do not broadcast together" for shapes that do)."""
    seed = np.broadcast_to(U64(0), (2**31, 1))
    counter = np.broadcast_to(U64(0), (1, width))
    with pytest.raises(ValueError, match=rf"{f.__name__}: the arguments broadcast to shape "
                                         rf"\(2147483648, {width}\) \(seed .*more than the "
                                         r"2\*\*63 - 1 bytes"):
        f(seed, 0, counter)
    cw = np.broadcast_to(np.uint32(0), (2**30, 1, 4))
    with pytest.raises(ValueError, match=r"philox4x32_10: the arguments broadcast to shape "
                                         r"\(1073741824, 2147483648\).* of 16 bytes"):
        rng.philox4x32_10(cw, np.broadcast_to(np.uint32(0), (1, 2**31)), 0)


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
def test_empty_broadcast_too_large_to_exist(f):
    """An empty broadcast shape whose non-zero extents no array can hold, (0, 2**62):
    NumPy refuses it (np.empty((0, 2**62))), and so do Philox's shapes; the functions let
    it through to NumPy's bare "array is too big", naming no function (on dask, only at
    compute)."""
    seed = np.zeros((0, 1), U64)
    counter = np.broadcast_to(np.uint8(0), (1, 2**62))   # a view of 2**62 uint8 exists
    with pytest.raises(ValueError, match=rf"{f.__name__}: the arguments broadcast to shape "
                                         r"\(0, 4611686018427387904\) \(seed \(0, 1\).*no "
                                         r"values, but 4611686018427387904 .*2\*\*63 - 1 bytes"):
        f(seed, 0, counter)
    with xp.use_backend("dask"):
        import dask.array as da
        with pytest.raises(ValueError, match=rf"{f.__name__}: the arguments broadcast"):
            f(da.zeros((0, 1), dtype=U64), 0, da.broadcast_to(da.zeros((1, 1), dtype=np.uint8),
                                                              (1, 2**62)))
    cw = np.broadcast_to(np.uint8(0), (1, 2**60, 4))
    with pytest.raises(ValueError, match=r"philox4x32_10: the arguments broadcast to shape "
                                         r"\(0, 1152921504606846976\).* of 16 bytes"):
        rng.philox4x32_10(cw, np.zeros((0, 1), np.uint32), 0)


@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
def test_results_past_memory_name_the_function(f):
    """Broadcast views whose result exists on paper but not in memory (8 TiB): was
    NumPy's "Unable to allocate ...", naming no xstride function."""
    what = "results" if f.__name__.endswith("2") else "result"
    seed = np.broadcast_to(U64(0), (2**20, 1))
    counter = np.broadcast_to(U64(0), (1, 2**20))
    with pytest.raises(MemoryError, match=rf"{f.__name__}: not enough memory for the {what}, "
                                          r"shape \(1048576, 1048576\) \(8\.00 TiB\)"):
        f(seed, 0, counter)


def test_words_past_memory_name_the_function():
    cw = np.broadcast_to(np.uint32(0), (2**20, 1, 4))
    with pytest.raises(MemoryError, match=r"philox4x32_10: not enough memory for the output "
                                          r"words, shape \(1048576, 1048576, 4\) \(16\.00 TiB\)"):
        rng.philox4x32_10(cw, np.broadcast_to(np.uint32(0), (1, 2**20)), 0)


def test_words_bad_input():
    with pytest.raises(TypeError, match="'counter_words'"):
        rng.philox4x32_10(np.zeros(4, np.float32), 0, 0)
    with pytest.raises(TypeError, match="'counter_words'"):
        rng.philox4x32_10(5, 0, 0)
    with pytest.raises(ValueError, match="'counter_words'.*shape"):
        rng.philox4x32_10(np.zeros(3, np.uint32), 0, 0)
    with pytest.raises(ValueError, match="'counter_words'"):
        rng.philox4x32_10(np.array([2**32, 0, 0, 0], np.uint64), 0, 0)
    with pytest.raises(ValueError, match="'counter_words'"):
        rng.philox4x32_10(np.array([-1, 0, 0, 0]), 0, 0)
    with pytest.raises(ValueError, match="'key0'"):
        rng.philox4x32_10(np.zeros(4, np.uint32), 2**32, 0)
    with pytest.raises(ValueError, match="'key1'"):
        rng.philox4x32_10(np.zeros(4, np.uint32), 0, -1)
    with pytest.raises(TypeError, match="'key1'"):
        rng.philox4x32_10(np.zeros(4, np.uint32), 0, 1.0)
    with pytest.raises(ValueError, match="broadcast"):
        rng.philox4x32_10(np.zeros((3, 4), np.uint32), np.zeros(2, np.uint32), 0)


def test_generator_of_an_unavailable_backend_names_philox(monkeypatch):
    """A new-user probe: ``Philox(1, backend="cupy")`` without CuPy raised the backend's
    bare ``RuntimeError`` ("backend 'cupy' is unavailable: ..."), the one message of an
    unavailable backend that named no function (``set_backend`` and ``use_backend``
    name theirs)."""
    from xstride import _backends
    from xstride._core.errors import backend_unavailable_error

    def unavailable():
        raise backend_unavailable_error("cupy", "no device here")

    monkeypatch.setattr(_backends.get("cupy"), "load", unavailable)
    with pytest.raises(RuntimeError, match="^Philox: backend 'cupy' is unavailable: no device"):
        rng.Philox(1, backend="cupy")


def test_generator_bad_input():
    with pytest.raises(ValueError, match="'seed'"):
        rng.Philox(-1)
    with pytest.raises(TypeError, match="'seed'"):
        rng.Philox(1.0)
    with pytest.raises(TypeError, match="'seed'"):
        rng.Philox(np.arange(3))
    with pytest.raises(ValueError, match="'stream'"):
        rng.Philox(1, 2**64)
    with pytest.raises(ValueError, match="'backend'"):
        rng.Philox(1, backend="torch")
    with pytest.raises(ValueError, match="Philox: argument 'backend' names an unknown backend ' NumPy '"):
        rng.Philox(1, backend=" NumPy ")   # blanks are an error, as in set_backend
    assert rng.Philox(1, backend="NumPy").backend == "numpy"
    with pytest.raises(TypeError, match="'backend'"):
        rng.Philox(1, backend=3)
    g = rng.Philox(1, backend="numpy")
    with pytest.raises(ValueError, match="'shape'"):
        g.uniform((2, -1))
    with pytest.raises(TypeError, match="'shape'"):
        g.normal(2.5)
    with pytest.raises(TypeError, match="'shape'"):
        g.uniform((2, 1.0))
    with pytest.raises(ValueError, match="'n'"):
        g.advance(-1)
    with pytest.raises(TypeError, match="'n'"):
        g.advance(1.5)
    with pytest.raises(ValueError, match="'high'"):
        g.integers(5, 5)
    with pytest.raises(TypeError, match="'low'"):
        g.integers(0.5, 5)
    with pytest.raises(ValueError, match="'high'"):
        g.integers(-1, 2**64)
    assert g.counter == 0  # failed calls consume nothing


_DRAWS = {"uniform": lambda g, s: g.uniform(s), "normal": lambda g, s: g.normal(s),
          "integers": lambda g, s: g.integers(0, 9, shape=s)}


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("method", list(_DRAWS))
def test_philox_shapes_are_what_numpy_takes(method, backend):
    """An integer-like (``__index__``: a 0-d integer array, a NumPy integer) is a shape,
    alone or in a sequence, as in ``np.zeros(np.array(3))``; the numbers are those of
    the plain int shape."""
    if backend == "dask":
        pytest.importorskip("dask.array")
    from xstride import rng

    draw = _DRAWS[method]
    assert np.zeros(np.array(3)).shape == (3,)                  # NumPy's rule
    for shape, want in ((np.array(3), (3,)), (np.int8(3), (3,)),
                        ((np.array(2), np.uint16(3)), (2, 3)), (np.array([2, 3]), (2, 3)),
                        (np.array(0), (0,))):
        got = draw(rng.Philox(5, backend=backend), shape)
        plain = draw(rng.Philox(5, backend="numpy"), want)
        assert got.shape == want
        np.testing.assert_array_equal(xp.to_numpy(got), plain)


@pytest.mark.parametrize("method", list(_DRAWS))
def test_philox_shape_errors_name_the_shape_as_given(method):
    """A list with a float was reported as "got tuple (2.0,)", a value never passed."""
    from xstride import rng

    g = rng.Philox(1, backend="numpy")
    draw = _DRAWS[method]
    name = f"Philox.{method}: argument 'shape'"
    zero_d = r"got numpy.ndarray\(shape=\(\), dtype="
    for bad, shown in (([2.0], r"got list \[2\.0\]"), ((2, 1.0), r"got tuple \(2, 1\.0\)"),
                       ([[2]], r"got list \[\[2\]\]"), (np.array(3.0), zero_d + r"float64\)"),
                       (np.array(True), zero_d + r"bool\)"), ([True], r"got list \[True\]"),
                       (True, "got bool True")):
        with pytest.raises(TypeError, match=f"{name} {shown}; expected an int or a tuple"):
            draw(g, bad)
    for bad, shown in ((-1, "-1"), ([2, -1], r"\[2, -1\]"), (np.array(-2), r"array\(-2\)")):
        with pytest.raises(ValueError, match=f"{name} has a negative extent: {shown}$"):
            draw(g, bad)
    assert g.counter == 0


def test_counter_lists_are_exact_past_2_63():
    from xstride import rng

    got = rng.philox_uniform(1, 2, [3, 2**64 - 1])
    want = rng.philox_uniform(1, 2, np.array([3, 2**64 - 1], dtype=np.uint64))
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="argument 'counter' has values outside"):
        rng.philox_uniform(1, 2, [-1, 2**64 - 1])
    with pytest.raises(TypeError, match="argument 'counter' got list"):
        rng.philox_uniform(1, 2, [1.5])


@pytest.mark.parametrize("func", ["philox_uniform", "philox_uniform2", "philox_normal",
                                  "philox_normal2"])
@pytest.mark.parametrize("arg", [0, 1, 2])
def test_lists_holding_0d_arrays_are_the_lists_of_their_ints(func, arg):
    """A 0-d array in a seed, stream or counter list stands for its int, as a NumPy
    scalar does: ``[np.int64(3), np.array(5)]`` was refused as "expected integers"
    (NumPy keeps a 0-d array whole in the object array the list became)."""
    from xstride import rng

    def call(v):
        args = [1, 2, 7]
        args[arg] = v
        return getattr(rng, func)(*args)

    got, want = call([np.int64(3), np.array(5)]), call([3, 5])
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,), strict=True):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(call([[np.array(2**64 - 1, np.uint64), 4]])[0],
                                  call(np.array([[2**64 - 1, 4]], np.uint64))[0])
    with pytest.raises(ValueError, match="has negative values"):
        call([np.array(-5), 1])
    with pytest.raises(TypeError, match="got list .*expected integers"):
        call([np.array(5.0), 1])


def test_philox4x32_10_lists_holding_0d_arrays():
    from xstride import rng

    want = rng.philox4x32_10([[3, 5, 1, 2]], [3, 5], 0)
    got = rng.philox4x32_10([[np.int64(3), np.array(5), 1, np.array(2, np.uint32)]],
                            [np.int64(3), np.array(5)], 0)
    np.testing.assert_array_equal(got, want)


def test_philox_counter_is_read_only():
    from xstride import rng

    g = rng.Philox(1)
    g.uniform(3)
    assert g.counter == 2
    with pytest.raises(AttributeError):
        g.counter = -5
    assert g.advance(10).counter == 12


@pytest.mark.parametrize("attr, value", [("seed", -1), ("seed", 1.5), ("seed", 2),
                                         ("stream", 2**64), ("stream", 3),
                                         ("backend", "dask"), ("backend", "numpy")])
def test_philox_seed_stream_and_backend_are_read_only(attr, value):
    """A new-user probe: ``g.seed = -1`` silently gave the stream of seed 2**64 - 1,
    ``g.seed = 1.5`` failed later, ``g.backend = "dask"`` changed the repr only."""
    g = rng.Philox(1, 5, backend="numpy")
    first = g.uniform(4)
    with pytest.raises(AttributeError):
        setattr(g, attr, value)
    assert (g.seed, g.stream, g.backend) == (1, 5, "numpy")
    assert repr(g) == "Philox(seed=1, stream=5, counter=2, backend='numpy')"
    again = rng.Philox(1, 5, backend="numpy")
    again.advance(2)
    np.testing.assert_array_equal(g.uniform(4), again.uniform(4))
    np.testing.assert_array_equal(first, rng.Philox(1, 5, backend="numpy").uniform(4))


@pytest.mark.parametrize("low", [-5, 0, np.int64(-1)])
def test_philox_integers_one_argument_form_names_low_only(low):
    """``integers(-5)`` complained about 'high' and "[0, -5)" though only 'low' was given."""
    g = rng.Philox(1, backend="numpy")
    with pytest.raises(ValueError, match=r"^Philox\.integers: argument 'low' must be positive "
                                         r"when 'high' is omitted .*; got -?\d+$") as info:
        g.integers(low)
    assert "'high' must" not in str(info.value) and "argument 'high'" not in str(info.value)
    with pytest.raises(ValueError, match=r"^Philox\.integers: argument 'low' range \[0, "
                                         r"36893488147419103232\) does not fit"):
        g.integers(2**65)
    assert g.counter == 0
    assert g.integers(1, shape=3).tolist() == [0, 0, 0]


@pytest.mark.parametrize("low, high, culprit", [
    (-2**63 - 1, 0, "low"), (-2**70, 2**70, "low"),     # low below int64: no dtype holds it
    (2**64, 2**64 + 1, "low"), (2**70, 2**71, "low"),   # low past uint64: named 'high'
    (0, 2**64 + 1, "high"), (-1, 2**64, "high"), (-1, 2**63 + 1, "high")])
def test_philox_integers_range_error_names_the_end_out_of_range(low, high, culprit):
    """``integers(-2**63 - 1, 0)`` said "argument 'high'", though 0 fits every dtype and
    ``low`` is below int64 (NumPy: "low is out of bounds for int64"); and
    ``integers(2**64, 2**64 + 1)`` named 'high' though ``low`` is past uint64."""
    g = rng.Philox(1, backend="numpy")
    with pytest.raises(ValueError, match=rf"^Philox\.integers: argument '{culprit}' range "
                                         rf"\[{low}, {high}\) does not fit int64 or uint64$"):
        g.integers(low, high)
    assert g.counter == 0


@pytest.mark.parametrize("value", ["0", "-1", "abc", "1.5"])
def test_num_threads_variable_that_is_no_positive_int_is_an_error(monkeypatch, value):
    """Issue 15 item 13: XSTRIDE_NUM_THREADS=0, -1 or abc was silently ignored."""
    monkeypatch.setenv("XSTRIDE_NUM_THREADS", value)
    with pytest.raises(ValueError, match="XSTRIDE_NUM_THREADS="):
        xp.rng.philox_uniform(1, 2, np.arange(1 << 20, dtype=np.uint64))


def test_host_threads_follow_omp_num_threads_when_xstride_num_threads_is_unset(monkeypatch):
    """A dask worker process has OMP_NUM_THREADS=1: its one thread must use one core."""
    monkeypatch.delenv("XSTRIDE_NUM_THREADS", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert H._threads(64) == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert H._threads(64) == 3
    monkeypatch.setenv("XSTRIDE_NUM_THREADS", "2")     # xstride's own variable wins
    assert H._threads(64) == 2
    monkeypatch.delenv("XSTRIDE_NUM_THREADS")
    for ignored in ("", "0", "many"):                  # not ours to refuse: the default
        monkeypatch.setenv("OMP_NUM_THREADS", ignored)
        assert H._threads(64) == max(1, min(os.cpu_count() or 1, 16, 32))


@pytest.mark.parametrize("method", list(_DRAWS))
def test_philox_result_past_memory_is_named_and_consumes_nothing(method):
    """An 8 TiB draw was NumPy's "Unable to allocate", naming no call."""
    from xstride import rng

    g = rng.Philox(1, backend="numpy")
    with pytest.raises(MemoryError, match=rf"Philox\.{method}: not enough memory for the "
                                          r"result, shape \(1048576, 1048576\) \(8\.00 TiB\)"):
        _DRAWS[method](g, (2**20, 2**20))
    np.testing.assert_array_equal(_DRAWS[method](g, 4),
                                  _DRAWS[method](rng.Philox(1, backend="numpy"), 4))


@pytest.mark.parametrize("name", ["seed", "stream"])
@pytest.mark.parametrize("value", [1.0, np.array(3.0), np.array([1, 2]), [1], True,
                                   np.bool_(1), np.array(True), "1", None])
def test_philox_seed_and_stream_are_one_int_and_say_so(name, value):
    """A new-user probe: ``Philox(1.0)`` said "expected a non-negative integer or an
    integer array" (what the philox_* functions take) though the generator takes one
    int; all say one thing. (A 0-d integer array is taken as its int since, as
    ``advance`` takes it: tests/test_rng.py.)"""
    kwargs = {"seed": 1, "stream": 0, name: value}
    with pytest.raises(TypeError, match=f"^Philox: argument '{name}' got .*; expected a "
                                        "non-negative int$"):
        xp.rng.Philox(**kwargs)
    assert xp.rng.Philox(np.uint64(5), np.int32(2)).seed == 5   # NumPy integers are ints


@pytest.mark.parametrize("low, high", [(np.array(2), np.array(9)), (np.int8(2), 9),
                                       (2, np.array(9, np.uint64))])
def test_philox_integers_takes_0d_integer_arrays_as_their_ints(low, high):
    """``integers(np.array(0), np.array(5))`` was "expected an int" while ``shape``,
    the seed and NumPy integer scalars took anything that stands for an int."""
    from xstride.rng import Philox

    got = Philox(3).integers(low, high, 50)
    np.testing.assert_array_equal(got, Philox(3).integers(2, 9, 50))


@pytest.mark.parametrize("bad", [np.array(2.0), np.array(True), np.array([2]), "2", 2.0,
                                 np.float32(2)])
def test_philox_integers_refuses_what_is_no_int(bad):
    from xstride.rng import Philox

    g = Philox(3)
    with pytest.raises(TypeError, match=r"^Philox\.integers: argument 'low' .*expected an int"):
        g.integers(bad, 9)
    assert g.counter == 0



# ------------------------------------------------------------------ NumPy's Generator calls
@pytest.mark.parametrize("call, match", [
    (lambda g: g.integers(0, 6, size=3),
     r"^Philox\.integers: no argument 'size'; the output shape is shape= "
     r"\(g\.integers\(low, high, shape\), as NumPy's size=\)$"),
    (lambda g: g.uniform(size=3), r"^Philox\.uniform: no argument 'size'; .*shape="),
    (lambda g: g.normal(size=(2, 2)), r"^Philox\.normal: no argument 'size'; .*shape="),
    (lambda g: g.uniform(0, 1, 100),
     r"^Philox\.uniform: takes at most 1 positional argument \(shape\) but 3 were given: "
     r"g\.uniform\(shape\); .*low \+ \(high - low\) \* g\.uniform\(shape\)$"),
    (lambda g: g.normal(0.0, 2.0, 5), r"^Philox\.normal: takes at most 1 positional .*"
                                       r"loc \+ scale \* g\.normal\(shape\)$"),
    (lambda g: g.normal(loc=1.0), r"^Philox\.normal: no argument 'loc'; g\.normal\(shape\)"),
    (lambda g: g.integers(0, 6, 3, np.int32), r"^Philox\.integers: takes at most 3 "
                                               r"positional arguments \(low, high, shape\)"),
    (lambda g: g.integers(0, 6, 3, endpoint=True), r"^Philox\.integers: no argument "
                                                    r"'endpoint'; .*give high \+ 1"),
    (lambda g: g.integers(0, 6, dtype=np.int32), r"^Philox\.integers: no argument 'dtype'"),
    (lambda g: g.advance(1, 2), r"^Philox\.advance: takes at most 1 positional argument"),
])
def test_generator_called_as_numpys_says_what_to_write(call, match):
    """A NumPy user's call (``size=``, the distribution's parameters, ``dtype=``) was
    Python's bare "got an unexpected keyword argument 'size'" or "takes from 1 to 2
    positional arguments but 4 were given"; nothing is consumed, nothing accepted."""
    g = rng.Philox(5, backend="numpy")
    with pytest.raises(TypeError, match=match):
        call(g)
    assert g.counter == 0
    assert g.integers(0, 6, shape=3).shape == (3,)
    assert g.uniform(shape=(2, 1)).shape == (2, 1)
    assert str(__import__("inspect").signature(g.integers)) == "(low, high=None, shape=())"


# ------------------------------------------------------------------ NumPy's Generator names
@pytest.mark.parametrize("name, instead", [
    ("random", r"g\.uniform\(shape\)"),
    ("standard_normal", r"g\.normal\(shape\)"),
    ("choice", r"a\[g\.integers\(0, a\.shape\[0\], shape\)\]"),
    ("permutation", r"xp\.argsort\(g\.uniform\(n\)\)"),
    ("shuffle", r"x\[xp\.argsort\(g\.uniform\(x\.shape\[0\]\)\)\]"),
    ("bytes", r"xp\.astype\(g\.integers\(0, 256, n\), xp\.uint8\)"),
])
def test_numpys_generator_method_it_lacks_says_what_to_write(name, instead):
    """``g.random(3)``, ``g.standard_normal(3)`` were Python's bare "'Philox' object has
    no attribute 'random'"; the AttributeError now names the method and what to call."""
    g = rng.Philox(5, backend="numpy")
    with pytest.raises(AttributeError, match=rf"^Philox: no method '{name}' \(NumPy's "
                                             rf"Generator\.{name}\); write {instead}"):
        getattr(g, name)
    assert not hasattr(g, name)
    assert g.counter == 0


def test_every_name_of_numpys_generator_it_lacks_says_what_to_write():
    """docs/rng.md: a method of NumPy's Generator that Philox lacks is an AttributeError
    saying what to write. Only 10 did: g.spawn(2), g.poisson(1.0), g.bit_generator (and
    31 more) were Python's bare "'Philox' object has no attribute 'spawn'", and so were
    the names of NumPy's own bit generator numpy.random.Philox (jumped, random_raw,
    state) that a user of that class tries."""
    g = rng.Philox(5, backend="numpy")
    names = [n for n in dir(np.random.Generator) if not n.startswith("_")]
    # and every public name of NumPy's bit generator numpy.random.Philox and of legacy
    # RandomState (a new-user probe: lock, seed_seq, ctypes, cffi, capsule,
    # random_integers, get_state, set_state and tomaxint were Python's bare error)
    names += [n for n in dir(np.random.Philox) if not n.startswith("_")]
    names += [n for n in dir(np.random.RandomState) if not n.startswith("_")]
    assert len(names) > 45 and "spawn" in names and "jumped" in names and "lock" in names
    assert "random_integers" in names and "set_state" in names
    for name in names:
        if name == "seed":   # RandomState's method; Philox's seed is its int
            assert g.seed == 5
            continue
        if name in ("uniform", "normal", "integers", "advance"):
            assert callable(getattr(g, name))
            continue
        with pytest.raises(AttributeError, match=rf"^Philox: no (method|attribute) '{name}' "
                                                 r"\(NumPy's .*\)[;:] .*(write|draws only)"):
            getattr(g, name)
    with pytest.raises(AttributeError, match=r"write \[xp\.rng\.Philox\(g\.seed, "
                                             r"stream=s, backend=g\.backend\) for s in"):
        g.spawn
    with pytest.raises(AttributeError, match=r"'poisson'.*draws only uniform\(shape\), "
                                             r"normal\(shape\) and integers"):
        g.poisson
    with pytest.raises(AttributeError, match=r"numpy\.random\.Philox\.state\); write "
                                             r"g\.seed, g\.stream and g\.counter"):
        g.state
    with pytest.raises(AttributeError, match=r"^Philox: no method 'random_integers' \(NumPy's "
                                             r"RandomState\.random_integers\); write "
                                             r"g\.integers\(low, high \+ 1, shape\)"):
        g.random_integers
    for name in ("randn", "random_sample"):   # RandomState's, not Generator's
        with pytest.raises(AttributeError, match=rf"^Philox: no method '{name}' \(NumPy's "
                                                 rf"RandomState\.{name}\)"):
            getattr(g, name)
    assert g.counter == 0


def test_other_missing_names_and_existing_methods_are_unchanged():
    import copy
    import pickle

    g = rng.Philox(5, backend="numpy")
    with pytest.raises(AttributeError, match=r"^'Philox' object has no attribute 'nope'$"):
        g.nope
    assert g.normal(2).shape == (2,) and g.integers(0, 6, 3).shape == (3,)
    for twin in (copy.copy(g), copy.deepcopy(g), pickle.loads(pickle.dumps(g))):
        assert twin.counter == g.counter
        np.testing.assert_array_equal(twin.uniform(4), copy.copy(g).uniform(4))


@pytest.mark.parametrize("method", list(_DRAWS))
def test_philox_refuses_a_shape_that_is_an_iterator(method):
    """``g.uniform(i for i in [2])`` drew two numbers where ``np.zeros`` refuses a
    generator: a shape is an int or a sequence; a range is a sequence."""
    from xstride import rng

    g = rng.Philox(1, backend="numpy")
    draw = _DRAWS[method]
    with pytest.raises(TypeError, match="expected a sequence of integers"):
        np.zeros(i for i in [2])                                  # NumPy's rule
    for bad in ((i for i in [2]), iter([2, 3]), map(int, "23")):
        with pytest.raises(TypeError, match=f"Philox.{method}: argument 'shape' got "):
            draw(g, bad)
    assert g.counter == 0   # nothing drawn
    assert draw(g, range(2, 4)).shape == (2, 3)
