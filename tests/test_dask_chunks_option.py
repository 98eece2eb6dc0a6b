"""The dask backend's ``chunks`` option (``set_backend("dask", chunks=...)``, a
creation call's own ``chunks=``): what reaches the creation functions, NumPy integers,
per-axis options on arrays of another rank, and the checks of each."""

from __future__ import annotations

import re

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402


@pytest.fixture(autouse=True)
def _numpy_after():
    yield
    # the dask backend's default options back (a dask Philox made later under the NumPy
    # backend, rng.Philox(..., backend="dask"), reads the options set last), then NumPy
    xp.set_backend("dask")
    xp.set_backend("numpy")


@pytest.mark.parametrize("chunks, expected", [
    (4, ((4, 4, 2), (3,))),
    ((5, 1), ((5, 5), (1, 1, 1))),
    (-1, ((10,), (3,))),
    ("80B", ((3, 3, 3, 1), (3,))),
])
def test_chunks_option_reaches_every_creation_function(chunks, expected):
    with xp.use_backend("dask", chunks=chunks):
        for a in (xp.zeros((10, 3)), xp.ones((10, 3)), xp.empty((10, 3)),
                  xp.full((10, 3), 2.0), xp.asarray(np.ones((10, 3)))):
            assert a.chunks == expected
        if isinstance(chunks, int):
            assert xp.arange(10).chunks == expected[:1]
            assert xp.linspace(0, 1, 10).chunks == expected[:1]
    assert xp.get_backend() == "numpy"


@pytest.mark.parametrize("chunks, expected", [
    (np.int64(4), ((4, 4, 2),)), (np.int32(4), ((4, 4, 2),)), ((np.int64(4),), ((4, 4, 2),)),
    (((np.int64(3), np.int16(7)),), ((3, 7),))])
def test_chunks_take_numpy_integers(chunks, expected):
    """``chunks=n // 4`` of an array's length is a NumPy integer: taken as an int, as
    shapes and offsets take one elsewhere."""
    with xp.use_backend("dask", chunks=chunks):
        assert xp.zeros(10).chunks == expected
    xp.set_backend("dask", chunks=chunks)
    try:
        assert xp.ones(10).chunks == expected
    finally:
        xp.set_backend("numpy")
    with xp.use_backend("dask"):
        assert xp.asarray(np.arange(10), chunks=chunks).chunks == expected


@pytest.mark.parametrize("chunks, cls", [(np.bool_(True), TypeError), (np.int64(0), ValueError),
                                         (np.float32(4), TypeError),
                                         (((np.int64(3), np.bool_(True)),), ValueError)])
def test_chunks_refuse_numpy_bools_floats_and_non_positive_ints(chunks, cls):
    with pytest.raises(cls, match="set_backend: argument 'chunks'"):
        xp.set_backend("dask", chunks=chunks)


def test_chunks_option_none_is_refused_before_anything_changes():
    """A new-user probe: ``set_backend("dask", chunks=None)`` was taken, and the first
    creation function failed with dask's "You must specify a chunks= keyword argument"
    (docs/dask.md: an option of the wrong type is a TypeError, raised before anything
    changes). A call's own ``chunks=None`` still means the option."""
    for select in (xp.set_backend, xp.use_backend):
        with pytest.raises(TypeError, match=r"^(set|use)_backend: argument 'chunks' got "
                                            r"NoneType None; expected 'auto'"):
            select("dask", chunks=None)
        assert xp.get_backend() == "numpy"
    with xp.use_backend("dask", chunks=4):
        assert xp.zeros(10, chunks=None).chunks == ((4, 4, 2),)


@pytest.mark.parametrize("call", [
    lambda: xp.asarray([1, 2], chunks=1),
    lambda: xp.zeros(5, chunks=3),
    lambda: xp.arange(5, chunks=2),
    lambda: xp.full(3, 1.0, chunks=(2,)),
    lambda: xp.zeros_like(np.zeros(3), chunks=2),   # *_like: NumPy's "zeros_like() got
    lambda: xp.full_like(np.zeros(3), 1.0, chunks=2),   # an unexpected keyword argument"
    lambda: xp.empty_like(np.zeros(3), dtype=xp.int8, chunks="1MiB"),
    lambda: xp.ones_like(np.zeros(3), chunks=2),
], ids=["asarray", "zeros", "arange", "full", "zeros_like", "full_like", "empty_like",
        "ones_like"])
def test_a_call_s_own_chunks_on_the_numpy_backend_name_the_backend(call):
    """A new user's slip: ``xp.asarray(a, chunks=...)`` with the NumPy backend active
    said NumPy's "asarray: array() got an unexpected keyword argument 'chunks'"."""
    name = call.__code__.co_names[1]   # xp.<name>(...)
    with pytest.raises(TypeError, match=rf"^{name}: argument 'chunks' got .*; expected no "
                                        r"chunks on the numpy backend \(an argument of the "
                                        r"dask backend's arrays"):
        call()


def test_a_call_may_give_its_own_chunks():
    with xp.use_backend("dask", chunks=4):
        assert xp.zeros(10, chunks=5).chunks == ((5, 5),)
        assert xp.asarray(np.arange(10), chunks=2).chunks == ((2,) * 5,)


@pytest.mark.parametrize("call, cls, match", [
    (lambda: xp.zeros(10, chunks=0), ValueError, "zeros: argument 'chunks' must hold positive"),
    (lambda: xp.asarray(np.arange(10), chunks=0), ValueError, "asarray: argument 'chunks'"),
    (lambda: xp.ones(10, chunks="lots"), ValueError, "ones: argument 'chunks' has 'lots'"),
    (lambda: xp.arange(10, chunks=-2), ValueError, "arange: argument 'chunks'"),
    (lambda: xp.full((4,), 1.0, chunks=(2.5,)), TypeError, "full: argument 'chunks' got"),
])
def test_a_call_s_own_chunks_get_the_option_s_checks(call, cls, match):
    """chunks= given to one creation call is checked as set_backend checks the option:
    a clear error naming the function, not dask's ZeroDivisionError or message."""
    with xp.use_backend("dask", chunks=4):
        with pytest.raises(cls, match=match):
            call()
        assert xp.ones((4, 4), chunks=[2, 4]).chunks == ((2, 2), (4,))   # lists as tuples


@pytest.mark.parametrize("call", [
    lambda: xp.zeros((55,)), lambda: xp.ones(55), lambda: xp.full((55,), 1.0),
    lambda: xp.arange(55), lambda: xp.arange(5, 60, 1), lambda: xp.linspace(0, 1, 55),
    lambda: xp.asarray(np.arange(55)), lambda: xp.rng.Philox(1).uniform((55,)),
    lambda: xp.rng.Philox(1).normal(55),
])
def test_a_per_axis_option_chunks_an_array_of_lower_rank_by_its_leading_entries(call):
    """A probe: under chunks=(13, 3) for (n, 3) positions, the (n,) masses of the same
    script were refused; they take the leading entries, the same rows."""
    with xp.use_backend("dask", chunks=(13, 3)):
        assert call().chunks == ((13, 13, 13, 13, 3),)


@pytest.mark.parametrize("call", [
    lambda: xp.empty((4, 5, 6)), lambda: xp.asarray(np.ones((2, 2, 2))),
    lambda: xp.rng.Philox(1).normal((2, 3, 4)),
])
def test_a_per_axis_option_on_an_array_of_higher_rank_names_the_option(call):
    """chunks=(13, 3) is per axis for (n, 3) arrays; an array of more axes says so,
    naming the function and the option, instead of dask's 'Chunks do not add up'."""
    with xp.use_backend("dask", chunks=(13, 3)):
        with pytest.raises(ValueError, match=r"argument 'chunks' is the dask backend's "
                                             r"option \(13, 3\): 2 entries, one per axis"):
            call()
        assert xp.zeros((55, 3)).chunks == ((13, 13, 13, 13, 3), (3,))   # its own rank
        assert xp.rng.Philox(1).uniform((55, 3)).chunks[1] == (3,)
        assert xp.zeros(55, chunks=11).chunks == ((11,) * 5,)           # the call's own
        # a draw takes no chunks= of its own: its message does not offer one
        with pytest.raises(ValueError) as info:
            xp.rng.Philox(1).uniform((2, 3, 4))
        assert "own chunks=" not in str(info.value) and "'auto'" in str(info.value)
        with pytest.raises(ValueError, match="give this call its own chunks="):
            xp.zeros((2, 3, 4))
    with xp.use_backend("dask", chunks=(50, 5)):   # block lengths of a 1-D array, summed
        assert xp.arange(55).chunks == ((50, 5),) and xp.zeros(55).chunks == ((50, 5),)
        assert xp.arange(100).chunks == ((50, 50),)   # else its leading entry


@pytest.mark.parametrize("call", [
    lambda A: A.morton_keys([[0.1, 0.2], [0.3, 0.4]], [0, 0], [1, 1], 3),
    lambda A: A.sort_by_key([3, 1], [[1, 2], [3, 4]]),
], ids=["morton_keys", "sort_by_key"])
def test_a_list_argument_meets_the_chunks_error_not_no_array(call):
    """A probe: a 2-D list under a one-entry chunks option was refused as "expected an
    array" (the conversion's ValueError about the option swallowed), hiding the cause.
    (``voxel_downsample``, which does not run on dask, refuses such a list with its
    ``NotImplementedError`` first: tests/test_voxels.py.)"""
    with xp.use_backend("dask", chunks=(4,)):
        with pytest.raises(ValueError, match="the dask backend's chunks option"):
            call(xp.algorithms)


@pytest.mark.parametrize("call, func, arg", [
    (lambda A: A.morton_keys([[0.1, 0.2], [0.3, 0.4]], [0, 0], [1, 1], 3),
     "morton_keys", "positions"),
    (lambda A: A.sort_by_key([3, 1], [[1, 2], [3, 4]]), "sort_by_key", r"values\[0\]"),
    (lambda A: A.morton_decode([[1, 2], [3, 4]], 2), "morton_decode", "keys"),
    (lambda A: A.morton_encode([[1, 2], [3, 4]], 1), "morton_encode", "ix"),
], ids=["morton_keys", "sort_by_key", "morton_decode", "morton_encode"])
def test_a_list_argument_that_the_chunks_option_does_not_fit_names_the_call(call, func, arg):
    """A list that the algorithm makes a dask array under a chunks option that does not
    fit its rank: the error named ``asarray`` and its argument 'chunks', and offered
    "give this call its own chunks=", which the algorithm does not take. It names the
    function called and the list's argument now, and says how to pass a dask array."""
    with xp.use_backend("dask", chunks=(4,)):
        with pytest.raises(ValueError) as info:
            call(xp.algorithms)
    text = str(info.value)
    assert re.match(rf"^{func}: argument '{arg}' becomes a dask array of shape \(2, 2\)", text)
    assert "the dask backend's chunks option (4,) does not fit: 1 entries, one per axis" in text
    assert "xstride.asarray(x, chunks=...)" in text and "own chunks=" not in text
    with xp.use_backend("dask", chunks=((1, 2),)):   # block lengths of another length
        with pytest.raises(ValueError, match=r"^sort_by_key: argument 'keys' becomes a dask "
                                             r"array of shape \(2,\).*chunks option "
                                             r"\(\(1, 2\),\).*Chunks do not add up"):
            xp.algorithms.sort_by_key([3, 1])


@pytest.mark.parametrize("method", ["uniform", "normal", "integers"])
def test_philox_block_lengths_that_do_not_fit_name_the_method(method):
    """A chunks option of block lengths that do not add up to the draw's rows: the
    error names the method and the option (it was dask's bare "Chunks do not add up to
    shape"), and no counter is used."""
    draws = {"uniform": lambda g, s: g.uniform(s), "normal": lambda g, s: g.normal(s),
             "integers": lambda g, s: g.integers(5, shape=s)}
    with xp.use_backend("dask", chunks=((3, 4), 3)):
        g = xp.rng.Philox(1)
        for shape in (9, (9, 3)):
            with pytest.raises(ValueError, match=rf"^Philox\.{method}: argument 'chunks' is "
                                                 r"the dask backend's option \(\(3, 4\), 3\)"
                                                 r".*Chunks do not add up"):
                draws[method](g, shape)
            assert g.counter == 0
        assert draws[method](g, (7, 3)).chunks == ((3, 4), (3,))   # rows that fit


_FIVE = {"zeros": lambda **k: xp.zeros(5, **k), "ones": lambda **k: xp.ones((5,), **k),
         "empty": lambda **k: xp.empty(5, **k), "full": lambda **k: xp.full(5, 1.0, **k),
         "arange": lambda **k: xp.arange(5, **k), "linspace": lambda **k: xp.linspace(0, 1, 5, **k),
         "asarray": lambda **k: xp.asarray(np.arange(5.0), **k)}


@pytest.mark.parametrize("name", sorted(_FIVE))
def test_block_lengths_that_do_not_add_up_name_the_function_and_chunks(name):
    """Block lengths (2, 2) for 5 elements were dask's "An error occurred while calling
    the wrap_func_shape_as_first_arg method ... Chunks do not add up to shape", naming
    neither the argument nor the option; the check of the Philox draws answers first."""
    with xp.use_backend("dask", chunks=((2, 2),)):
        with pytest.raises(ValueError, match=rf"^{name}: argument 'chunks' is the dask "
                                             r"backend's option \(\(2, 2\),\), which does not "
                                             r"fit shape \(5,\): Chunks do not add up"):
            _FIVE[name]()
    with xp.use_backend("dask", chunks=2):
        with pytest.raises(ValueError, match=rf"^{name}: argument 'chunks' is this call's "
                                             r"\(\(2, 2\),\), which does not fit shape \(5,\)"):
            _FIVE[name](chunks=((2, 2),))
        assert _FIVE[name](chunks=((2, 3),)).chunks == ((2, 3),)


def test_eye_and_like_block_lengths_that_do_not_fit_name_the_function():
    """eye's and the *_like functions' own chunks= of other block lengths (or another
    count of axes) than the shape: dask's unnamed messages, named here."""
    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match=r"^eye: argument 'chunks' is this call's "
                                             r"\(\(2, 2\),\), which does not fit shape \(5, 5\)"):
            xp.eye(5, chunks=((2, 2),))
        with pytest.raises(ValueError, match=r"^eye: argument 'chunks' is this call's "
                                             r"\(\(2, 2\), \(5,\)\), which does not fit"):
            xp.eye(5, chunks=((2, 2), (5,)))
        assert xp.eye(5, chunks=((2, 3), (5,))).chunks == ((2, 3), (5,))
        x = xp.zeros(5)
        for name in ("zeros_like", "ones_like", "empty_like"):
            with pytest.raises(ValueError, match=rf"^{name}: argument 'chunks' is this call's "
                                                 r"\(\(4,\),\), which does not fit shape"):
                getattr(xp, name)(x, chunks=((4,),))
        with pytest.raises(ValueError, match=r"^full_like: argument 'chunks' is this call's"):
            xp.full_like(x, 2.0, chunks=((4,),))
        assert xp.zeros_like(x, chunks=((1, 4),)).chunks == ((1, 4),)


def test_asarray_of_a_dask_array_checks_its_own_chunks_as_of_any_input():
    """asarray(dask_array, chunks=...) went to dask's rechunk unchecked: block lengths of
    another sum raised dask's unnamed "Chunks do not add up to shape", and (1, 2) or
    ((4,), (1,)) of a 1-D array were taken, where a NumPy array's were refused."""
    with xp.use_backend("dask"):
        x = xp.arange(4)
        for chunks in (((1, 1),), (1, 2), ((4,), (1,))):
            for a in (x, np.arange(4)):
                with pytest.raises(ValueError, match=r"^asarray: argument 'chunks' is this "
                                   rf"call's {re.escape(repr(chunks))}, which does not fit "
                                   r"shape \(4,\)"):
                    xp.asarray(a, chunks=chunks)
        assert xp.asarray(x, chunks=((1, 3),)).chunks == ((1, 3),)
        assert xp.asarray(x, chunks=(2,)).chunks == ((2, 2),)
        assert xp.asarray(x, chunks="8B").chunks == ((1, 1, 1, 1),)


def test_like_chunks_fit_the_shape_keyword_not_x():
    """A *_like call's chunks= with a shape= of its own: checked against that shape (they
    were checked against x's, so chunks fitting shape= were refused and chunks fitting x
    passed to dask's unnamed error)."""
    with xp.use_backend("dask"):
        x = xp.zeros((2, 3))
        for name in ("zeros_like", "ones_like", "empty_like"):
            assert getattr(xp, name)(x, shape=(4,), chunks=((1, 3),)).chunks == ((1, 3),)
            assert getattr(xp, name)(x, shape=4, chunks=2).chunks == ((2, 2),)
            with pytest.raises(ValueError, match=rf"^{name}: argument 'chunks' is this call's "
                                                 r"\(\(2, 3\),\), which does not fit shape \(4,\)"):
                getattr(xp, name)(x, shape=[4], chunks=((2, 3),))
        got = xp.full_like(x, 7, shape=(3, 1), chunks=((2, 1), (1,)))
        assert got.chunks == ((2, 1), (1,))
        np.testing.assert_array_equal(xp.to_numpy(got), np.full((3, 1), 7.0))
