"""Bad input of the standard's functions on the dask backend, and where the NumPy
backend took it: each raises the clear error the NumPy backend raises (or the standard
asks for), naming the function and the argument (found by a new-user probe)."""

from __future__ import annotations

import re

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402


@pytest.fixture(autouse=True)
def _numpy_after():
    yield
    xp.set_backend("numpy")


def _d(a, chunks=2):
    return da.from_array(np.asarray(a), chunks=chunks)


# ------------------------------------------------------------------ searchsorted
@pytest.mark.parametrize("sorter, cls, match", [
    (np.array([1, 2]), ValueError, "has shape \\(2,\\); expected \\(3,\\)"),
    (np.array([1, 2, 0, 0]), ValueError, "has shape \\(4,\\)"),
    (np.array([[1, 2, 0]]), ValueError, "has shape \\(1, 3\\)"),
    (np.array([True, False, True]), TypeError, "integer dtype"),
    (np.array([1.0, 2.0, 0.0]), TypeError, "integer dtype"),
])
def test_searchsorted_checks_sorter_s_dtype_and_shape(sorter, cls, match):
    x1, x2 = _d([3.0, 1.0, 2.0]), _d([1.5, 2.5], 1)
    with pytest.raises(cls, match=f"searchsorted: argument 'sorter' .*{match}"):
        xp.searchsorted(x1, x2, sorter=_d(sorter))
    with pytest.raises(cls, match=f"searchsorted: argument 'sorter' .*{match}"):   # NumPy's
        xp.searchsorted(np.array([3.0, 1.0, 2.0]), np.array([1.5, 2.5]), sorter=sorter)


@pytest.mark.parametrize("sorter", [[1, 2, 3], [1, 2, -1], [1, 2, -4]])
def test_searchsorted_refuses_sorter_indices_out_of_range(sorter):
    x1, x2 = _d([3.0, 1.0, 2.0]), _d([1.5, 2.5], 1)
    got = xp.searchsorted(x1, x2, sorter=_d(sorter))     # values: checked when computed
    with pytest.raises(ValueError, match="searchsorted: argument 'sorter' holds the index "
                                         f"{sorter[-1]}, out of range for x1 of 3"):
        xp.to_numpy(got)
    with pytest.raises(ValueError, match="searchsorted: argument 'sorter' holds the index"):
        xp.searchsorted(x1, x2, sorter=sorter)            # a list: checked at the call
    with pytest.raises(ValueError, match="searchsorted: .*out of range"):
        xp.searchsorted(np.array([3.0, 1.0, 2.0]), np.array([1.5, 2.5]), sorter=np.array(sorter))


@pytest.mark.parametrize("side, cls", [("middle", ValueError), ("Right", ValueError),
                                       (None, TypeError), (1, TypeError)])
def test_searchsorted_checks_side_at_the_call(side, cls):
    """dask's searchsorted took any ``side`` and raised NumPy's unnamed "search side must
    be 'left' or 'right'" only when computed; both backends now refuse it at the call."""
    x1, x2 = _d([1.0, 2.0, 3.0]), _d([1.5, 2.5], 1)
    match = "is .*; expected 'left' or 'right'" if cls is ValueError else "got .*"
    for a, v in ((x1, x2), (np.array([1.0, 2.0, 3.0]), np.array([1.5, 2.5]))):
        with pytest.raises(cls, match=f"^searchsorted: argument 'side' {match}"):
            xp.searchsorted(a, v, side=side)
        with pytest.raises(cls, match="^searchsorted: argument 'side'"):
            xp.searchsorted(a, v, side=side, sorter=[0, 1, 2])
    assert xp.to_numpy(xp.searchsorted(x1, x2, side="right")).tolist() == [1, 2]


def test_searchsorted_with_a_good_sorter_still_answers():
    x1, x2 = _d([3.0, 1.0, 2.0]), _d([1.5, 2.5], 1)
    for s in ([1, 2, 0], np.array([1, 2, 0], np.uint8)):
        assert xp.to_numpy(xp.searchsorted(x1, x2, sorter=_d(s))).tolist() == [1, 2]
    assert xp.to_numpy(xp.searchsorted(x1, x2, sorter=[1, 2, 0])).tolist() == [1, 2]


@pytest.mark.parametrize("x2", [None, "a", b"a", ["a", "b"]])
def test_searchsorted_refuses_values_of_no_number(x2):
    """NumPy's compared a str with x1's numbers as strings (``searchsorted([1, 2],
    "a")`` was 2) and raised "'<' not supported between instances of 'NoneType' and
    'NoneType'" for None; dask's took None at the call and failed when computed."""
    for x1 in (_d([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0])):
        with pytest.raises(TypeError, match=r"^searchsorted: argument 'x2' got .*; expected "
                                            "an array or a Python scalar of a bool or "
                                            "numeric dtype"):
            xp.searchsorted(x1, x2)
        assert xp.to_numpy(xp.searchsorted(x1, 2.5)).tolist() == 2
    assert xp.searchsorted(np.array(["a", "c"]), "b").tolist() == 1   # strings: NumPy's


def test_searchsorted_with_a_sorter_of_x1_of_unknown_length_says_to_compute_it():
    """After boolean indexing, dask's gather of x1 by sorter raised its
    NotImplementedError ("Slicing an array with unknown chunks with a dask.array of
    ints is not supported"), naming neither the function nor an argument."""
    x = _d([3.0, -1.0, 1.0, 2.0])
    x1, x2 = x[x > 0], _d([1.5, 2.5], 1)
    with pytest.raises(ValueError, match=r"^searchsorted: argument 'x1' has shape \(nan,\), "
                                         "with a length dask does not know .*; call "
                                         r"x1.compute_chunk_sizes\(\) first"):
        xp.searchsorted(x1, x2, sorter=_d([1, 2, 0]))
    x1.compute_chunk_sizes()
    assert xp.to_numpy(xp.searchsorted(x1, x2, sorter=_d([1, 2, 0]))).tolist() == [1, 2]


# ------------------------------------------------------------------ flip
@pytest.mark.parametrize("axis, match", [((0, 0), "names axis 0 twice"),
                                         ((0, -2), "names axis 0 twice"),
                                         (5, "5 is out of range")])
def test_flip_refuses_a_repeated_axis_as_numpy_does(axis, match):
    a = np.arange(6).reshape(2, 3)
    with pytest.raises(ValueError, match=f"flip: argument 'axis' .*{match}"):
        xp.flip(_d(a), axis=axis)
    with pytest.raises(ValueError, match="flip: "):
        xp.flip(a, axis=axis)
    assert xp.to_numpy(xp.flip(_d(a), axis=(0, -1))).tolist() == np.flip(a, (0, 1)).tolist()


def test_flip_takes_a_list_of_axes_as_numpy_does():
    """NumPy's flip takes ``axis=[0]`` (unlike its reductions): the axis check of the
    dask backend's flip, shared with the reductions, still lets a list through."""
    a = np.arange(6).reshape(2, 3)
    assert xp.to_numpy(xp.flip(_d(a), axis=[0, -1])).tolist() == np.flip(a, [0, 1]).tolist()
    assert xp.flip(a, axis=[0]).tolist() == np.flip(a, [0]).tolist()


# ------------------------------------------------------------------ sort, argsort
@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name", ["sort", "argsort"])
def test_sort_axes_out_of_range_and_0d_arrays_name_axis(name, backend):
    wrap = np.asarray if backend == "numpy" else (lambda a: _d(a, ()) if np.ndim(a) == 0 else _d(a))
    fn = getattr(xp, name)
    for a, axis in ((np.array([3, 1, 2]), 1), (np.array([3, 1, 2]), -2), (np.array(5), -1),
                    (np.array(5), 0)):
        with pytest.raises(IndexError, match=f"{name}: argument 'axis' is {axis}, out of range "
                                             f"for an array of {a.ndim} dimension"):
            fn(wrap(a), axis=axis)
    with pytest.raises(ValueError, match=f"{name}: argument 'axis'"):   # AxisError: both
        fn(wrap(np.array(5)))
    with pytest.raises(TypeError, match=f"{name}: argument 'axis' got float"):
        fn(wrap(np.zeros((2, 2))), axis=1.0)
    got = xp.to_numpy(fn(wrap(np.array([[3, 1], [0, 2]])), axis=0))
    assert got.tolist() == getattr(np, name)(np.array([[3, 1], [0, 2]]), axis=0).tolist()


@pytest.mark.parametrize("name", ["sort", "argsort"])
def test_dask_sort_without_an_axis_sorts_the_flattened_array(name):
    """As the NumPy backend's (NumPy's flattened sort); dask's raised a ``TypeError``
    comparing None with an int, then xstride's a ``TypeError`` the NumPy backend did not
    raise."""
    a = np.array([[3, 1], [0, 2]])
    got = getattr(xp, name)(_d(a), axis=None)
    assert xp.to_numpy(got).tolist() == getattr(np, name)(a, axis=None).tolist()


# ------------------------------------------------------------------ diff
def test_diff_checks_x_axis_and_n_on_dask():
    a = np.array([1, 4, 9, 16])
    with pytest.raises(ValueError, match="diff: argument 'x' is 0-D"):
        xp.diff(_d(np.array(3), ()))
    for axis in (1, -2):
        with pytest.raises(IndexError, match=f"diff: argument 'axis' is {axis}, out of range"):
            xp.diff(_d(a), axis=axis)
    with pytest.raises(TypeError, match="diff: argument 'axis' got float"):
        xp.diff(_d(np.zeros((2, 2))), axis=1.0)
    with pytest.raises(TypeError, match="diff: argument 'n' got float 1.0"):
        xp.diff(_d(a), n=1.0)
    with pytest.raises(TypeError, match="diff: "):          # the NumPy backend refuses it too
        xp.diff(a, n=1.0)


@pytest.mark.parametrize("kw", [{}, {"n": 2}, {"n": 0}, {"prepend": True},
                                {"append": np.array([False]), "n": 3}])
def test_diff_of_bools_on_dask_is_numpy_s_not_equal(kw):
    a = np.array([True, False, False, True, True])
    want = xp.diff(a, **kw)
    dkw = {k: (_d(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    got = xp.to_numpy(xp.diff(_d(a), **dkw))
    assert got.dtype == want.dtype == np.bool_ and got.tolist() == want.tolist()


@pytest.mark.parametrize("kw", [{"append": np.array([2.5])}, {"prepend": np.array([0])},
                                {"append": 2.5}, {"prepend": 0, "n": 2},
                                {"append": np.array([2.5]), "n": 3}])
def test_diff_of_bools_with_ends_of_numbers_subtracts_as_numpy(kw):
    """A new-user probe: a bool ``x`` with a float or int end took the ``not_equal`` path
    and cast the ends to int8 (``diff(b, append=[2.5])`` gave bools); NumPy joins the
    ends first and subtracts in the joined dtype."""
    a = np.array([True, False, False, True])
    want = np.diff(a, **kw)
    dkw = {k: (_d(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
    got = xp.to_numpy(xp.diff(_d(a), **dkw))
    assert got.dtype == want.dtype != np.bool_ and got.tolist() == want.tolist()


# ------------------------------------------------------------------ tril, triu
@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name", ["tril", "triu"])
def test_tril_triu_take_matrices_only(name, backend):
    wrap = np.asarray if backend == "numpy" else (lambda a: _d(a, ()) if np.ndim(a) == 0 else _d(a))
    fn = getattr(xp, name)
    for a in (np.arange(3), np.array(1)):
        with pytest.raises(ValueError, match=f"{name}: argument 'x' has {a.ndim} dimension"):
            fn(wrap(a))
    with pytest.raises(TypeError, match=f"{name}: argument 'k' got float 1.5"):
        fn(wrap(np.ones((3, 3))), k=1.5)
    m = np.arange(18).reshape(2, 3, 3)
    assert xp.to_numpy(fn(wrap(m), k=-1)).tolist() == getattr(np, name)(m, k=-1).tolist()


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name", ["tril", "triu"])
def test_tril_triu_take_any_int_k(name, backend):
    """Every int is a diagonal, as for ``eye``: NumPy's raised "Python int too large to
    convert to C long" for ``triu(x, k=-2**63)`` and past int64 (dask's when computed),
    naming neither the function nor ``k``."""
    wrap = np.asarray if backend == "numpy" else _d
    fn, ref = getattr(xp, name), getattr(np, name)
    m = np.arange(1, 25).reshape(2, 3, 4)
    for k, same in [(2**70, 99), (-2**70, -99), (-2**63, -99), (2**63 - 1, 99),
                    (np.int64(-2**63), -99), (np.uint64(2**64 - 1), 99), (4, 4), (-3, -3),
                    (np.int8(-2), -2)]:
        got = xp.to_numpy(fn(wrap(m), k=k))
        np.testing.assert_array_equal(got, ref(m, k=same))


# ------------------------------------------------------------------ linalg.cross, outer
@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("s1, s2, axis, who, shape", [
    ((3,), (2, 3), -2, "x1", (3,)), ((3, 2), (4, 3, 2), -3, "x1", (3, 2)),
    ((4, 3, 2), (3, 2), -3, "x2", (3, 2)),
])
def test_cross_axis_of_one_operand_only_is_out_of_range(backend, s1, s2, axis, who, shape):
    """A review: cross(ones(3), ones((2, 3)), axis=0) said "whose length in x1 of shape
    (3,) is 1" of an axis x1 lacks; the standard's axis is one of both operands, in
    [-min(x1.ndim, x2.ndim), -1]: out of range, naming 'axis' (NumPy's AxisError)."""
    wrap = np.asarray if backend == "numpy" else _d
    x1, x2 = wrap(np.ones(s1)), wrap(np.ones(s2))
    m = min(len(s1), len(s2))
    text = (f"cross: argument 'axis' is {axis}, out of range for the operands: {who} of "
            f"shape {shape} has no such axis (an axis of both lies in [-{m}, -1])")
    with pytest.raises(np.exceptions.AxisError, match=f"^{re.escape(text)}$"):
        xp.linalg.cross(x1, x2, axis=axis)
    # the last axis, an axis of both, still runs
    assert xp.linalg.cross(wrap(np.ones((3, 2))), wrap(np.ones((4, 3, 2))), axis=-2).shape \
        == (4, 3, 2)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("s1, s2, axis, last", [
    ((3,), (2, 3), 0, "-1"), ((3,), (2, 3), 1, "-1"), ((2, 3), (4, 2, 3), 1, "one of [-2, -1]"),
    ((2, 3), (4, 2, 3), 2, "one of [-2, -1]"), ((3, 2), (4, 3, 2), 1, "one of [-2, -1]"),
    ((4, 3, 2), (3, 2), 0, "one of [-2, -1]"), ((3, 3), (3, 3, 3), 1, "one of [-2, -1]"),
])
def test_cross_non_negative_axis_of_operands_of_different_ranks(backend, s1, s2, axis, last):
    """A review: a non-negative axis with operands of different ranks names a different
    axis in each (NumPy counts it in each operand, the broadcast shape counts it in the
    longer): cross(ones((3, 3)), ones((3, 3, 3)), axis=1) crossed x1's last axis on the
    NumPy backend and its first on dask (two answers, silently); (2, 3) beside (4, 2, 3)
    with axis=1 said "whose length in x1 of shape (2, 3) is 2", of x1's axis 0, and
    (3, 2) beside (4, 3, 2) with axis=1 NumPy's "objects cannot be broadcast" of shapes
    (3,) and (4, 2). The standard's axis counts from the last, in [-min(ndim), -1]: one
    AxisError naming 'axis' on both backends, saying which to give."""
    wrap = np.asarray if backend == "numpy" else _d
    x1, x2 = wrap(np.ones(s1)), wrap(np.ones(s2))
    text = (f"cross: argument 'axis' is {axis}, counted from the first axis of operands of "
            f"different ranks (x1 of shape {s1}, x2 of shape {s2}), where it names a "
            f"different axis in each; give the axis counted from the last: {last} "
            "(the standard's)")
    with pytest.raises(np.exceptions.AxisError, match=f"^{re.escape(text)}$"):
        xp.linalg.cross(x1, x2, axis=axis)
    # a non-negative axis of operands of one rank is one axis: still NumPy's answer
    a, b = np.arange(9.0).reshape(3, 3), np.arange(9.0)[::-1].reshape(3, 3)
    np.testing.assert_array_equal(xp.to_numpy(xp.linalg.cross(wrap(a), wrap(b), axis=0)),
                                  np.linalg.cross(a, b, axis=0))
    # a 0-D operand has no axis (it said "an axis of both lies in [-0, -1]")
    with pytest.raises(np.exceptions.AxisError, match=r"x1 of shape \(\) has no such axis "
                                                      r"\(a 0-D operand has no axis\)$"):
        xp.linalg.cross(wrap(np.ones(())), wrap(np.ones(3)))


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_cross_takes_vectors_of_length_3_only(backend):
    wrap = np.asarray if backend == "numpy" else _d
    for s1, s2, who, n in (((2,), (2,), "x1", 2), ((2, 1), (2, 3), "x1", 1),
                           ((2, 3), (2, 4), None, None)):
        match = (f"cross: argument 'axis' is -1, whose length in {who} of shape {s1} is {n}"
                 .replace("(", r"\(").replace(")", r"\)")) if who else "cross: shapes"
        with pytest.raises(ValueError, match=match):
            xp.linalg.cross(wrap(np.ones(s1)), wrap(np.ones(s2)))
    a, b = np.arange(6.0).reshape(2, 3), np.array([1.0, 0.0, 2.0])
    assert np.allclose(xp.to_numpy(xp.linalg.cross(wrap(a), wrap(b))), np.cross(a, b))
    # two bool operands: NumPy's bool-subtract TypeError, dask's "unsupported operand
    # type(s) for -: 'Array' and 'Array'"; one error naming cross (bool with int: int)
    t = np.array([True, False, True])
    with pytest.raises(TypeError, match="^cross: argument 'x1' got .*both bool"):
        xp.linalg.cross(wrap(t), wrap(t[::-1]))
    np.testing.assert_array_equal(xp.to_numpy(xp.linalg.cross(wrap(t), wrap(np.arange(3)))),
                                  np.cross(t, np.arange(3)))


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_outer_takes_vectors_only(backend):
    wrap = (np.asarray if backend == "numpy"
            else (lambda a: _d(a, ()) if np.ndim(a) == 0 else _d(a)))
    with pytest.raises(ValueError, match=r"outer: argument 'x1' has shape \(2, 2\); outer takes "
                                         "one-dimensional vectors"):
        xp.linalg.outer(wrap(np.ones((2, 2))), wrap(np.ones(3)))
    with pytest.raises(ValueError, match=r"outer: argument 'x2' has shape \(\)"):
        xp.linalg.outer(wrap(np.ones(3)), wrap(np.array(2.0)))
    got = xp.to_numpy(xp.linalg.outer(wrap(np.arange(3.0)), wrap(np.arange(2.0))))
    assert got.tolist() == np.outer(np.arange(3.0), np.arange(2.0)).tolist()


# ------------------------------------------------------------------ where's weak ints
@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_where_s_python_ints_must_fit_the_array_s_dtype_as_in_add(backend):
    wrap = np.asarray if backend == "numpy" else _d
    c = wrap(np.array([True, False, True]))
    i8, u8 = wrap(np.array([1, 2, 100], np.int8)), wrap(np.array([1, 2, 3], np.uint8))
    with pytest.raises(OverflowError):
        xp.add(i8, 1000)                                 # the rule where follows
    for call, arg, v, dt in ((lambda: xp.where(c, i8, 1000), "x2", 1000, "int8"),
                             (lambda: xp.where(c, 1000, i8), "x1", 1000, "int8"),
                             (lambda: xp.where(c, u8, -1), "x2", -1, "uint8")):
        with pytest.raises(OverflowError, match=f"where: argument '{arg}' is the Python int "
                                                f"{v}, out of bounds for {dt}"):
            call()
    for call, want, dt in ((lambda: xp.where(c, i8, 127), [1, 127, 100], np.int8),
                           (lambda: xp.where(c, i8, 1.5), [1, 1.5, 100], np.float64),
                           (lambda: xp.where(c, 1, 2), [1, 2, 1], np.int64)):
        got = xp.to_numpy(call())
        assert got.dtype == dt and got.tolist() == want


# ------------------------------------------------------------------ lower value
def test_dask_broadcast_arrays_names_shapes_that_do_not_broadcast():
    with pytest.raises(ValueError, match=r"broadcast_arrays: shapes \(3,\) and \(2,\) cannot be "
                                         "broadcast together"):
        xp.broadcast_arrays(_d(np.arange(3)), _d(np.arange(2)))
    a, b = xp.broadcast_arrays(_d(np.arange(3)), _d(np.arange(2)[:, None]))
    assert a.shape == b.shape == (2, 3) and xp.to_numpy(b).tolist() == [[0] * 3, [1] * 3]


# ------------------------------------------------------------------ reshape
@pytest.mark.parametrize("data, chunks, shape, cls, match", [
    (np.zeros((2, 0)), -1, (0, -1), ValueError, r"\(0, -1\), which does not hold the 0"),
    (np.zeros((2, 0)), -1, (-1, 0), ValueError, "does not hold the 0 elements"),
    (np.arange(6.0).reshape(2, 3), (1, 2), (0, -1), ValueError, "does not hold the 6"),
    (np.arange(6.0).reshape(2, 3), (1, 2), (-1, 4), ValueError, r"\(-1, 4\), which does not"),
    (np.arange(6.0).reshape(2, 3), (1, 2), (4,), ValueError, "does not hold the 6"),
    (np.arange(6.0).reshape(2, 3), (1, 2), (-1, -1), ValueError, "only one length may be -1"),
    (np.arange(6.0).reshape(2, 3), (1, 2), (6.0,), TypeError, "an int or a tuple of ints"),
    (np.zeros((2, 0)), -1, (0.0,), TypeError, "an int or a tuple of ints"),
    (np.arange(6.0), 2, (True, 6), TypeError, "an int or a tuple of ints"),
    # a new-user probe: dask's made an array of shape (-2, -3)
    (np.arange(6.0), 2, (-2, -3), ValueError, r"is \(-2, -3\): a length is negative"),
])
def test_reshape_checks_the_shape_as_numpy(data, chunks, shape, cls, match):
    """dask's raised ZeroDivisionError for (0, -1), IndexError "Bad index" for (-1, 4),
    and took (6.0,); the NumPy backend raises ValueError and TypeError."""
    with pytest.raises(cls, match=f"reshape: argument 'shape' .*{match}"):
        xp.reshape(_d(data, chunks), shape)
    with pytest.raises(cls):
        xp.reshape(data, shape)                           # the NumPy backend


def test_reshape_of_unknown_lengths_says_to_compute_them():
    x = _d(np.arange(6.0), 2)
    y = x[x > 1]
    with pytest.raises(ValueError, match=r"reshape: argument 'x' has shape \(nan,\), with "
                                         r"lengths dask does not know .*compute_chunk_sizes"):
        xp.reshape(y, (2, -1))
    assert xp.to_numpy(xp.reshape(y, (-1,))).tolist() == [2.0, 3.0, 4.0, 5.0]


@pytest.mark.parametrize("shape, chunks, new", [
    ((2, 3), (1, 2), (3, 2)), ((4, 6), (3, 4), (6, 4)), ((4, 6), (3, 4), (8, 3)),
    ((4, 6), (3, 4), (2, 12)), ((4, 6), (3, 4), (12, -1)), ((2, 3, 4), (1, 2, 3), (4, 6)),
])
@pytest.mark.parametrize("copy", [None, False])
def test_reshape_dask_splits_unevenly_goes_through_the_flat_array(shape, chunks, new, copy):
    """dask refuses reshapes whose blocks would split unevenly (its
    NotImplementedError); NumPy's answer, through the flat array."""
    a = np.arange(float(np.prod(shape))).reshape(shape)
    got = xp.reshape(_d(a, chunks), new, copy=copy)
    want = a.reshape(new)
    assert got.shape == want.shape
    np.testing.assert_array_equal(xp.to_numpy(got), want)


@pytest.mark.parametrize("shape, cls, match", [
    ((True, 6), TypeError, r"got tuple \(True, 6\); expected an int or a tuple of ints"),
    ((2.0, 6), TypeError, r"got tuple \(2.0, 6\); expected an int or a tuple of ints"),
    ((-1, 6), ValueError, "has the negative length -1"),
    ((2**60, 6), ValueError, r"\(1152921504606846976, 6\) has 6917529027641081856 elements "
                             r"of 8 bytes, .* overflows int64"),
])
def test_broadcast_to_checks_the_shape_at_the_call(shape, cls, match):
    """A new-user probe: dask's broadcast_to took bools, floats, negative lengths and
    sizes past int64 (an array of shape (-1, 6)) and failed only when computed, with
    NumPy's messages; the NumPy backend refuses them at the call."""
    with pytest.raises(cls, match=f"^broadcast_to: argument 'shape' {match}"):
        xp.broadcast_to(_d(np.arange(6.0)), shape)
    with pytest.raises(cls):
        xp.broadcast_to(np.arange(6.0), shape)            # the NumPy backend
    got = xp.broadcast_to(_d(np.arange(6.0)), (np.int64(2), 6))
    assert xp.to_numpy(got).tolist() == np.broadcast_to(np.arange(6.0), (2, 6)).tolist()


# ------------------------------------------------------------------ permute_dims, arange
@pytest.mark.parametrize("axes, cls, match", [
    ((0, 2), np.exceptions.AxisError, "2 is out of range for an array of 2 dimensions"),
    ((-3, 0), np.exceptions.AxisError, "-3 is out of range"),
    ((0, 0), ValueError, r"\(0, 0\) names axis 0 twice"),
    ((1,), ValueError, "expected a permutation"),
    (1, ValueError, "is 1; expected a permutation"),
    ((1.0, 0), TypeError, "a tuple of ints"),
    ((True, False), TypeError, "a tuple of ints"),
    ((1, -1), ValueError, r"\(1, -1\) names axis 1 twice"),
    ((0, 1.5), TypeError, "got tuple \\(0, 1.5\\); expected a tuple of ints, a permutation"),
    (1.5, TypeError, "got float 1.5; expected a tuple of ints"),
    ("ab", TypeError, "got str 'ab'; expected a tuple of ints"),
    ((0, (0, 1)), TypeError, "expected a tuple of ints"),
])
def test_permute_dims_checks_axes(axes, cls, match):
    """dask's said "('Unknown dimension', {2})" and "object of type 'int' has no
    len()". The NumPy backend raises the same text (one check, ``axis_errors.py``): its
    said "names an axis more than once (repeated axes)" for ``(0, 0)``, "expected an
    int (or a tuple of ints where the function takes several axes)" for ``(0, 1.5)``
    and NumPy's "expected a sequence of integers or a single integer, got '1.5'"."""
    a = np.arange(6).reshape(2, 3)
    with pytest.raises(cls, match=f"permute_dims: argument 'axes' .*{match}") as on_dask:
        xp.permute_dims(_d(a), axes)
    with pytest.raises(cls) as on_numpy:
        xp.permute_dims(a, axes)                          # the NumPy backend
    assert type(on_numpy.value) is type(on_dask.value)
    assert str(on_numpy.value) == str(on_dask.value)
    for good in ((1, 0), [-1, 0], None):
        np.testing.assert_array_equal(xp.to_numpy(xp.permute_dims(_d(a), good)), a.T)
    assert xp.to_numpy(xp.permute_dims(_d(a[0]), 0)).tolist() == [0, 1, 2]


@pytest.mark.parametrize("args, n", [((0, float("inf")), "inf"), ((float("-inf"), 0), "inf"),
                                     ((0, 1e300, 1e-300), "inf"), ((2**70,), str(2**70))])
def test_arange_of_more_elements_than_an_array_holds(args, n):
    """dask's raised OverflowError "cannot convert float infinity to integer" or a
    TypeError from its isnan; NumPy's a ValueError."""
    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match=f"arange: argument 'stop' gives {n} elements"):
            xp.arange(*args)
        assert xp.to_numpy(xp.arange(2**62, 2**62 + 3)).tolist() == [2**62 + i for i in range(3)]
        assert xp.to_numpy(xp.arange(3, -3, -1.5)).tolist() == [3.0, 1.5, 0.0, -1.5]
    with pytest.raises(ValueError):
        xp.arange(*args)                                  # the NumPy backend


@pytest.mark.parametrize("obj", [[1, 2], 3.0, np.arange(3)])
def test_asarray_of_host_data_checks_device(obj):
    """asarray of lists, scalars and NumPy arrays ignored device= ("cuda" made an array
    silently); zeros, full, eye and asarray of a dask array raise, as NumPy's does."""
    with xp.use_backend("dask"):
        with pytest.raises(ValueError, match="asarray: argument 'device' is 'cuda'; the "
                                             "dask backend's devices are 'cpu'"):
            xp.asarray(obj, device="cuda")
        for dev in xp.__array_namespace_info__().devices() + (None,):
            assert xp.to_numpy(xp.asarray(obj, device=dev)).tolist() == np.asarray(obj).tolist()
    with pytest.raises(ValueError):
        xp.asarray(obj, device="cuda")                    # the NumPy backend


def _selected():
    """Rows 1..5 of a (6, 2) array, selected by a boolean mask: lengths (nan, 2)."""
    a = np.arange(12.0).reshape(6, 2)
    x = _d(a, 2)
    return a[1:], x[x[:, 0] > 1]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("arrays", [[], ()])
def test_concat_of_no_array_is_one_error_on_both_backends(backend, arrays):
    """NumPy's said "need at least one array to concatenate", dask's "Need array(s) to
    concatenate"."""
    with xp.use_backend(backend), pytest.raises(
            ValueError, match="^concat: argument 'arrays' is empty; concat needs at least "
                              "one array$"):
        xp.concat(arrays)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("func", ["concat", "stack"])
@pytest.mark.parametrize("make, got", [(lambda a: (v for v in [a, a]), "generator"),
                                       (lambda a: 5, "int 5"), (lambda a: {1, 2}, "set")])
def test_concat_and_stack_of_no_sequence_name_arrays(backend, func, make, got):
    """A new-user probe: a generator was NumPy's unnamed "The first input argument needs
    to be a sequence", dask's "object of type 'generator' has no len()" for ``concat``,
    and dask's ``stack`` stacked a generator's arrays and a set's ints."""
    with xp.use_backend(backend):
        a = xp.ones(3)
        with pytest.raises(TypeError, match=rf"^{func}: argument 'arrays' got {got}.*; "
                                            r"expected a tuple or list of arrays$"):
            getattr(xp, func)(make(a))
        assert getattr(xp, func)([a, a]).shape == ((6,) if func == "concat" else (2, 3))


@pytest.mark.parametrize("shapes, match", [
    (((2, 3), (2, 2)), r"holds shapes \(2, 3\) \(index 0\) and \(2, 2\) \(index 1\); stack "
                       "joins arrays of one shape$"),
    (((2, 3), (2, 3), (3,)), r"holds shapes \(2, 3\) \(index 0\) and \(3,\) \(index 2\)"),
    ((), "is empty; stack needs at least one array$"),
])
@pytest.mark.parametrize("masked", [False, True])
def test_stack_of_no_array_or_of_shapes_that_differ_is_one_error(shapes, match, masked):
    """NumPy's said "all input arrays must have the same shape" (naming none) and "need
    at least one array to stack"; dask's "Stacked arrays must have the same shape. The
    first array had shape (2, 3), while array 2 has shape (2, 2)" (counting from 1) and
    "Need array(s) to stack". One ``ValueError`` naming ``arrays`` on both backends
    (numpy.ma's stack of masked arrays too)."""
    arrays = [np.ma.masked_array(np.ones(s), mask=True) if masked else np.ones(s)
              for s in shapes]
    with pytest.raises(ValueError, match=f"^stack: argument 'arrays' {match}") as on_numpy:
        xp.stack(arrays)
    with xp.use_backend("dask"):
        with pytest.raises(ValueError) as on_dask:
            xp.stack([da.from_array(a, chunks=1, asarray=False) for a in arrays])
    assert str(on_numpy.value) == str(on_dask.value)


@pytest.mark.parametrize("shapes, axis, dim, lengths", [
    (((2, 2), (4, 1)), 0, 1, "2 and 1"),
    (((2, 2), (4, 1)), 1, 0, "2 and 4"),
    (((2, 3, 4), (2, 5, 4), (2, 3, 5)), -2, 2, "4 and 5"),
])
def test_concat_of_lengths_that_differ_off_the_axis_names_them(shapes, axis, dim, lengths):
    """dask's message was its unformatted "('Shapes do not align: %s', [(2, 2), (4, 1)])";
    it now names the arrays, the dimension and its lengths, and the NumPy backend's is the
    same text (NumPy's said "all the input array dimensions except for the concatenation
    axis must match exactly, but along dimension 1, the array at index 0 has size 2 ...")."""
    arrays = [_d(np.ones(s)) for s in shapes]
    with pytest.raises(ValueError, match=rf"^concat: argument 'arrays' holds shapes .*differ "
                                         rf"along dimension {dim} \({lengths}\)") as on_dask:
        xp.concat(arrays, axis=axis)
    with pytest.raises(ValueError) as on_numpy:
        xp.concat([np.ones(s) for s in shapes], axis=axis)
    assert str(on_numpy.value) == str(on_dask.value)
    masked = [np.ma.masked_array(np.ones(s), mask=True) for s in shapes]   # numpy.ma's join
    with pytest.raises(ValueError) as on_numpy:
        xp.concat(masked, axis=axis)
    assert str(on_numpy.value) == str(on_dask.value)
    a, y = _selected()                               # lengths dask does not know: taken
    with xp.use_backend("dask"):
        got = xp.concat([y, y], axis=0)
    np.testing.assert_array_equal(xp.to_numpy(got), np.concatenate([a, a]))
