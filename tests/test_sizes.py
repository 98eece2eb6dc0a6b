"""The 64-bit size rule (issue 15 item 1): the pure rule, Layout and xstride's views on
NumPy, and the CuPy overrides through the stand-in CuPy (``fake_cupy``).

Real CuPy runs the issue's examples in ``test_sizes_gpu.py``.
"""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xstride as xp
from xstride._backends import dispatch, registry
from xstride._core.sizes import INT64_MAX, checked_size
from xstride.layout import Layout

SEVEN = (2, 2, 5, 5581, 8681, 49477, 384773)  # product 2**64 + 4: wraps to 4


# ---------------------------------------------------------------------- the rule
def test_seven_extents_wrap_to_four_in_64_bits():
    assert int(np.prod(SEVEN, dtype=np.int64)) == 4  # what CuPy computes
    assert np.prod(SEVEN, dtype=object) == 2**64 + 4


@pytest.mark.parametrize("shape, itemsize", [
    ((INT64_MAX,), 1), ((2**31, 2**32 - 1), 1), ((2**60 - 1,), 8), (((2**63 - 1) // 16,), 16),
    ((0, INT64_MAX, INT64_MAX), 16), ((), 16), ((3, 0), 8),
])
def test_rule_accepts_up_to_the_limit(shape, itemsize):
    assert checked_size("f", "shape", shape, itemsize) == int(np.prod(shape, dtype=object))


@pytest.mark.parametrize("shape, itemsize, match", [
    ((2**63,), 1, r"an extent 9223372036854775808, which overflows int64"),
    ((0, 2**64), 1, r"an extent 18446744073709551616"),
    ((2, -1), 1, r"a negative extent -1"),
    (SEVEN, 1, r"has 18446744073709551620 elements, which overflows int64"),
    ((2**32, 2**32, 2), 8, r"has 36893488147419103232 elements"),
    ((2**60,), 8, r"1152921504606846976 elements of 8 bytes, 9223372036854775808 bytes in all"),
    ((2**62,), 2, r"of 2 bytes, 9223372036854775808 bytes in all"),
])
def test_rule_refuses_past_the_limit(shape, itemsize, match):
    with pytest.raises(ValueError, match=rf"^zeros: argument 'shape' \(.*{match}"):
        checked_size("zeros", "shape", shape, itemsize)


def test_rule_wording_for_a_shape_an_argument_makes():
    with pytest.raises(ValueError, match=r"^tile: argument 'repetitions' gives a result of "
                                         r"shape \(1208925819614629174706176,\) with"):
        checked_size("tile", "repetitions", (2**80,), 8, result=True)


_EXTENTS = st.one_of(st.integers(1, 9), st.integers(2**20, 2**34),
                     st.sampled_from([2**31, 2**32, 2**61, 2**62, 2**63 - 1, 2**63]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_EXTENTS, max_size=6), st.sampled_from([1, 2, 4, 8, 16]))
def test_rule_agrees_with_numpy_and_layout(shape, itemsize):
    """NumPy's own check of a stride-0 view (no zero extents, so its order does not
    matter) is an independent oracle; Layout applies the same rule."""
    shape = tuple(shape)
    dtype = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64, 16: np.complex128}[itemsize]
    try:
        np.broadcast_to(np.zeros((), dtype), shape)
        numpy_ok = True
    except ValueError:
        numpy_ok = False
    try:
        checked_size("f", "shape", shape, itemsize)
        ours = True
    except ValueError:
        ours = False
    try:
        Layout(shape, (0,) * len(shape), 0, itemsize)
        layout_ok = True
    except ValueError:
        layout_ok = False
    assert ours == numpy_ok == layout_ok, (shape, itemsize)


# ---------------------------------------------------------------------- Layout and views
def test_layout_refuses_a_byte_size_past_int64():
    assert Layout((1, 2**60 - 1), (0, 0), 0, 8).size == 2**60 - 1
    with pytest.raises(ValueError, match=r"^Layout: argument 'shape' .* bytes in all"):
        Layout((1, 2**62), (0, 0), 0, 8)
    with pytest.raises(ValueError, match="bytes in all"):
        Layout((1,), itemsize=8).broadcast_to((2**61,))


def test_as_strided_refuses_what_numpy_would_refuse_with_its_own_words():
    a = xp.ones((1, 1))
    with pytest.raises(ValueError, match=r"^as_strided: argument 'shape' "
                                         r"\(1, 4611686018427387904\) "
                                         r".* 36893488147419103232 bytes in all"):
        xp.as_strided(a, (1, 2**62), (0, 0))
    with pytest.raises(ValueError,
                       match=r"^as_strided: argument 'shape' .* elements, which overflows"):
        xp.as_strided(np.arange(10), (2**40, 2**40), (0, 0))
    with pytest.raises(ValueError, match=r"^as_strided: argument 'shape' .* bytes in all"):
        xp.as_strided(np.arange(10, dtype=np.int64), (2**60,), (0,))  # issue 15 item 12
    v = xp.as_strided(np.arange(1, dtype=np.int8), (2**62 - 1, 2), (0, 0))  # at the limit
    assert v.shape == (2**62 - 1, 2) and not v.flags.writeable


def test_sliding_window_view_refuses_a_result_past_int64():
    x = np.broadcast_to(np.ones(1, np.int8), (2**40,))
    with pytest.raises(ValueError, match=r"^sliding_window_view: argument 'window_shape' gives "
                                         r"a result of shape \(549755813889, 549755813888\)"):
        xp.sliding_window_view(x, 2**39)
    assert xp.sliding_window_view(x, 2**20).shape == (2**40 - 2**20 + 1, 2**20)


# ---------------------------------------------------------------------- NumPy keeps its own
_NUMPY_REFUSES = {
    "ones": lambda: xp.ones(SEVEN, dtype=xp.int8),
    "zeros": lambda: xp.zeros((2**32, 2**32, 2)),
    "empty": lambda: xp.empty((2**33, 2**31)),
    "full": lambda: xp.full((2**32, 2**32), 1.5),
    "broadcast_to": lambda: xp.broadcast_to(xp.ones(1), (2**40, 2**40)),
    "eye": lambda: xp.eye(2**32),
    "arange": lambda: xp.arange(2.0**62),
    "linspace": lambda: xp.linspace(0, 1, 2**62),
    "zeros_like": lambda: xp.zeros_like(xp.ones(1), shape=(2**32, 2**32)),
    "reshape": lambda: xp.reshape(xp.ones(4), SEVEN),
}


@pytest.mark.parametrize("name", sorted(_NUMPY_REFUSES))
def test_numpy_backend_refuses_with_a_value_error(name):
    """NumPy checks sizes itself; xstride adds nothing to its fast path (on NumPy's
    error the creation functions of a ``shape`` name it: tests/test_bad_input_creation.py)."""
    named = ("argument 'shape' .* overflows int64" if name in ("empty", "full", "ones", "zeros",
                                                                 "zeros_like", "broadcast_to")
             else "argument 'n_rows' .* overflows int64" if name == "eye"
             else "argument 'shape' .* does not hold the 4 elements" if name == "reshape"
             else "too big|too large|Maximum allowed|cannot reshape")
    with pytest.raises(ValueError, match=f"^{name}: .*({named})"):
        _NUMPY_REFUSES[name]()


def test_numpy_arange_of_ints_past_float_precision_checks_its_length():
    """NumPy's arange computes its length in float64: arange(2**63 - 1) and arange(2**63)
    were empty; the exact length is checked (tests/test_fixes.py: the values)."""
    for args in ((2**63 - 1,), (2**63,), (-2**62, 2**62)):
        with pytest.raises(ValueError, match=r"^arange: argument 'stop' gives"):
            xp.arange(*args)


def test_numpy_arange_of_ints_past_float_precision_names_the_result_it_cannot_allocate():
    """``arange(2**53 + 1)`` was NumPy's MemoryError about an internal uint64 array of
    shape (2**53,) (its float length): the result's true shape and size are named."""
    with pytest.raises(MemoryError, match=r"^arange: not enough memory for the result, "
                                          r"shape \(9007199254740993,\) \(64\.00 PiB\)$"):
        xp.arange(2**53 + 1)
    with pytest.raises(MemoryError, match=r"^arange: .* shape \(768614336404564651,\)"):
        xp.arange(-2**60, 2**60, 3)
    assert xp.arange(2**53 + 7, 2**53, -3).tolist() == [2**53 + 7, 2**53 + 4, 2**53 + 1]


# ---------------------------------------------------------------------- CuPy overrides
@pytest.fixture
def compat(cupy_compat):
    """conftest's ``cupy_compat``: the CuPy backend over the stand-in CuPy, compat's
    calls recorded."""
    return cupy_compat


def _big(fake, n=2**40, dtype=np.float64):
    """A stand-in CuPy array of ``n`` elements, all one (stride 0)."""
    return fake.ndarray(np.broadcast_to(np.ones(1, dtype), (n,)))


_CUPY_REFUSES = [  # (call, function, argument)
    (lambda c: xp.ones(SEVEN, dtype=xp.int8), "ones", "shape"),
    (lambda c: xp.zeros((2**32, 2**32, 2)), "zeros", "shape"),
    (lambda c: xp.empty((2**33, 2**31)), "empty", "shape"),
    (lambda c: xp.empty(2**60), "empty", "shape"),  # float64: 2**63 bytes
    (lambda c: xp.full((2**32, 2**32), 1.5), "full", "shape"),
    (lambda c: xp.full((2**62,), 1), "full", "shape"),  # int64 from the Python int
    (lambda c: xp.full((2**62,), 1, dtype=xp.int16), "full", "shape"),
    (lambda c: xp.eye(2**32), "eye", "n_rows"),
    (lambda c: xp.eye(2**31, 2**29), "eye", "n_cols"),
    (lambda c: xp.arange(2**62), "arange", "start"),
    (lambda c: xp.arange(0, 2**64, 1, dtype=xp.int8), "arange", "stop"),
    (lambda c: xp.arange(0.0, 1e300), "arange", "stop"),
    (lambda c: xp.linspace(0, 1, 2**60), "linspace", "num"),
    (lambda c: xp.linspace(0, 1j, 2**59), "linspace", "num"),  # complex128
    (lambda c: xp.empty_like(c.cupy.ndarray((1,)), shape=(2**40, 2**40)), "empty_like", "shape"),
    (lambda c: xp.zeros_like(c.cupy.ndarray((1,)), shape=SEVEN), "zeros_like", "shape"),
    (lambda c: xp.ones_like(c.cupy.ndarray((1,)), dtype=xp.int16, shape=(2**62,)),
     "ones_like", "shape"),
    (lambda c: xp.full_like(c.cupy.ndarray((1,)), 2.0, shape=(2**61,)), "full_like", "shape"),
    (lambda c: xp.broadcast_to(c.cupy.ndarray((1,)), (2**40, 2**40)), "broadcast_to", "shape"),
    (lambda c: xp.broadcast_to(c.cupy.ndarray((1,)), (2**61,)), "broadcast_to", "shape"),
    (lambda c: xp.broadcast_arrays(c.cupy.ndarray(np.broadcast_to(np.ones((1, 1)), (2**40, 1))),
                                   c.cupy.ndarray(np.broadcast_to(np.ones((1, 1)), (1, 2**40)))),
     "broadcast_arrays", "arrays"),
    (lambda c: xp.reshape(c.cupy.ndarray((4,)), SEVEN), "reshape", "shape"),
    (lambda c: xp.reshape(_big(c.cupy, 2**40), (2**40, 2**40)), "reshape", "shape"),
    (lambda c: xp.reshape(c.cupy.ndarray((0,)), (-1, 2**40, 2**40)), "reshape", "shape"),
    (lambda c: xp.tile(_big(c.cupy), (2**40,)), "tile", "repetitions"),
    (lambda c: xp.tile(c.cupy.ndarray((2,)), 2**61), "tile", "repetitions"),
    (lambda c: xp.tile(c.cupy.ndarray((2,)), (2**31, 2**31, 1)), "tile", "repetitions"),
    (lambda c: xp.repeat(_big(c.cupy), 2**40), "repeat", "repeats"),
    (lambda c: xp.repeat(c.cupy.ndarray((2, 2)), [2**62, 2**62], axis=1), "repeat", "repeats"),
    (lambda c: xp.repeat(c.cupy.ndarray((2, 2)), 2**61, axis=-1), "repeat", "repeats"),
]


@pytest.mark.parametrize("case", range(len(_CUPY_REFUSES)))
def test_cupy_overrides_refuse_sizes_past_int64(compat, case):
    call, func, arg = _CUPY_REFUSES[case]
    with pytest.raises(ValueError, match=rf"^{func}: argument '{arg}' .*overflows int64"):
        call(compat)
    assert compat.calls == []  # refused before CuPy saw it


def test_cupy_overrides_pass_valid_calls_on_unchanged(compat):
    fake = compat.cupy
    x, big = fake.ndarray((2, 3)), _big(fake, 2**40, np.int8)
    calls = [
        (lambda: xp.ones((2, 3), dtype=xp.int8), ("ones", ((2, 3),), {"dtype": xp.int8})),
        (lambda: xp.zeros(5), ("zeros", (5,), {"dtype": None})),
        (lambda: xp.empty((0, 2**62, 2**62)), ("empty", ((0, 2**62, 2**62),), {"dtype": None})),
        (lambda: xp.empty((2**63 - 1,), dtype=xp.int8),
         ("empty", ((2**63 - 1,),), {"dtype": xp.int8})),
        (lambda: xp.full((2**61 - 1,), 1, dtype=xp.int32),
         ("full", ((2**61 - 1,), 1), {"dtype": xp.int32})),
        (lambda: xp.eye(3, 4, k=1), ("eye", (3, 4), {"k": 1, "dtype": None})),
        (lambda: xp.arange(2**60 - 1), ("arange", (2**60 - 1,), {"stop": None, "step": 1,
                                                                "dtype": None})),
        (lambda: xp.arange(10, 0, -3), ("arange", (10,), {"stop": 0, "step": -3,
                                                          "dtype": None})),
        (lambda: xp.linspace(0, 1, 5, endpoint=False),
         ("linspace", (0, 1, 5), {"dtype": None, "endpoint": False})),
        (lambda: xp.empty_like(x, shape=(4, 5)), ("empty_like", (x,), {"dtype": None,
                                                                      "shape": (4, 5)})),
        (lambda: xp.zeros_like(x), ("zeros_like", (x,), {"dtype": None})),
        (lambda: xp.broadcast_to(x, (2**20, 2, 3)), ("broadcast_to", (x, (2**20, 2, 3)), {})),
        (lambda: xp.reshape(x, (3, -1)), ("reshape", (x, (3, -1)), {"copy": None})),
        (lambda: xp.reshape(big, (2**20, -1)), ("reshape", (big, (2**20, -1)), {"copy": None})),
        (lambda: xp.tile(x, (2, 1, 1)), ("tile", (x, (2, 1, 1)), {})),
        (lambda: xp.repeat(big, 2**22), ("repeat", (big, 2**22), {"axis": None})),
        (lambda: xp.repeat(x, [1, 2, 3], axis=1), ("repeat", (x, [1, 2, 3]), {"axis": 1})),
    ]
    for call, (name, args, kwargs) in calls:
        compat.calls.clear()
        assert call() == name
        [(got_name, got_args, got_kwargs)] = compat.calls
        assert (got_name, got_args) == (name, args)
        assert {k: v for k, v in got_kwargs.items() if k != "device"} == kwargs


def test_cupy_overrides_leave_unreadable_arguments_to_the_library(compat):
    """Arguments the check cannot read reach CuPy unchanged, which raises its own error
    (a shape of no ints and a zero step are named first, as on NumPy:
    tests/test_creation_cupy.py)."""
    fake = compat.cupy
    x = fake.ndarray((2, 3))
    for call in (lambda: xp.repeat(x, -1), lambda: xp.repeat(x, [1, 2], axis=1),
                 lambda: xp.tile(x, (-2,)),
                 lambda: xp.arange(0.0, float("inf")), lambda: xp.reshape(x, (-1, -1)),
                 lambda: xp.broadcast_arrays(fake.ndarray((2,)), fake.ndarray((3,)))):
        compat.calls.clear()
        call()
        assert len(compat.calls) == 1


def test_cupy_repeat_with_a_device_array_of_repeats(compat):
    """CuPy 14 takes a CuPy array of repeats: one float64 sum decides, and only a total
    near the limit copies the counts to the host for the exact check."""
    fake = compat.cupy

    class Counts(fake.ndarray):
        def sum(self, dtype=None):
            return self.host.sum(dtype=dtype)

        def __len__(self):
            return len(self.host)

    x = fake.ndarray((2,), dtype=np.int8)
    small = Counts(np.array([1, 2]))
    assert xp.repeat(x, small) == "repeat" and compat.calls[-1][1] == (x, small)
    big = Counts(np.array([2**62, 2**62]))
    with pytest.raises(ValueError, match=r"^repeat: argument 'repeats' gives a result of shape "
                                         r"\(9223372036854775808,\)"):
        xp.repeat(x, big)
    assert xp.repeat(x, Counts(np.array([2**62 - 1, 2**62]))) == "repeat"  # 2**63 - 1 bytes
