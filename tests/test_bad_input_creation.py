"""Bad shapes and sizes of the creation functions on the NumPy and dask backends: one
error naming the function and the argument, of the class NumPy raises (NumPy's own
messages named no argument: "'float' object cannot be interpreted as an integer",
"negative dimensions are not allowed"; found by a new-user walkthrough)."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

def _backends():
    out = ["numpy"]
    try:
        import dask.array  # noqa: F401
        out.append("dask")
    except ImportError:   # pragma: no cover - dask is a test dependency
        pass
    return out


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("call, cls, match", [
    (lambda: xp.eye(2, k=1.0), TypeError, r"^eye: argument 'k' got float 1\.0; expected an int"),
    (lambda: xp.eye(2, k=None), TypeError, r"^eye: argument 'k' got NoneType None"),
    (lambda: xp.eye(2, k=True), TypeError, r"^eye: argument 'k' got bool True"),
    (lambda: xp.eye(2.0), TypeError, r"^eye: argument 'n_rows' got float 2\.0"),
    (lambda: xp.eye(2, 3.0), TypeError, r"^eye: argument 'n_cols' got float 3\.0"),
    (lambda: xp.eye(-1), ValueError, r"^eye: argument 'n_rows' has the negative length -1"),
    (lambda: xp.eye(2, -3), ValueError, r"^eye: argument 'n_cols' has the negative length -3"),
    (lambda: xp.zeros(-1), ValueError, r"^zeros: argument 'shape' has the negative length -1"),
    (lambda: xp.ones((2, -1)), ValueError, r"^ones: argument 'shape' has the negative length"),
    (lambda: xp.empty(-2), ValueError, r"^empty: argument 'shape' has the negative length -2"),
    (lambda: xp.full(-1, 1.0), ValueError, r"^full: argument 'shape' has the negative length"),
    (lambda: xp.zeros(2.0), TypeError, r"^zeros: argument 'shape' got float 2\.0; expected "
                                        r"an int or a tuple of ints"),
    (lambda: xp.ones((2.0, 3)), TypeError, r"^ones: argument 'shape' got tuple \(2\.0, 3\)"),
    (lambda: xp.zeros(True), TypeError, r"^zeros: argument 'shape' got bool True"),
    (lambda: xp.empty((True, 2)), TypeError, r"^empty: argument 'shape' got tuple \(True, 2\)"),
    (lambda: xp.zeros(None), TypeError, r"^zeros: argument 'shape' got NoneType None"),
    (lambda: xp.full("3", 1), TypeError, r"^full: argument 'shape' got str '3'"),
    (lambda: xp.zeros((2**40, 2**40)), ValueError, r"^zeros: argument 'shape' .* overflows int64"),
    (lambda: xp.full((2**62, 4), 1), ValueError, r"^full: argument 'shape' .* overflows int64"),
    (lambda: xp.eye(2**32), ValueError, r"^eye: argument 'n_rows' .* overflows int64"),
    (lambda: xp.eye(2, 2**62), ValueError, r"^eye: argument 'n_cols' .* overflows int64"),
])
def test_creation_names_a_bad_shape_and_eye_argument(backend, call, cls, match):
    with xp.use_backend(backend):
        with pytest.raises(cls, match=match):
            call()


_EMPTY = r"\(0, 4611686018427387904, 4\) has no element, but its non-zero extents times "


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("call, match", [
    (lambda: xp.zeros((0, 2**62, 4)), rf"^zeros: argument 'shape' {_EMPTY}the item size \(8\)"),
    (lambda: xp.ones([0, 2**62, 4]), rf"^ones: argument 'shape' {_EMPTY}"),
    (lambda: xp.empty((0, 2**62, 4), dtype=xp.int8), rf"^empty: argument 'shape' {_EMPTY}"
                                                     r"the item size \(1\) are "
                                                     r"18446744073709551616 bytes"),
    (lambda: xp.full((0, 2**62, 4), 1.0), rf"^full: argument 'shape' {_EMPTY}"),
    (lambda: xp.eye(0, 2**62), r"^eye: argument 'n_cols' gives a result of shape "
                               r"\(0, 4611686018427387904\) with no element, but its non-zero"),
    (lambda: xp.eye(2**62, 0), r"^eye: argument 'n_cols' gives a result of shape "
                               r"\(4611686018427387904, 0\) with no element"),
    (lambda: xp.zeros_like(xp.ones(3), shape=(0, 2**62, 4)),
     rf"^zeros_like: argument 'shape' {_EMPTY}"),
    (lambda: xp.ones_like(xp.ones(3), shape=(0, 2**62, 4)), rf"^ones_like: argument 'shape' "
                                                            rf"{_EMPTY}"),
    (lambda: xp.empty_like(xp.ones(3), shape=(0, 2**62, 4)), rf"^empty_like: argument "
                                                             rf"'shape' {_EMPTY}"),
    (lambda: xp.full_like(xp.ones(3), 2.0, shape=(0, 2**62, 4)), rf"^full_like: argument "
                                                                 rf"'shape' {_EMPTY}"),
])
def test_an_empty_shape_past_numpys_extent_rule_names_the_argument(backend, call, match):
    """A new-user probe: ``zeros((0, 2**62, 4))`` has no element, but NumPy refuses any
    shape whose non-zero extents times the item size pass 2**63 - 1 bytes, an empty one
    too, with its unnamed "array is too big" ("zeros: array is too big; ..."; dask's
    chunking raised a bare MemoryError, its ``*_like`` a ZeroDivisionError). It is the
    ``ValueError`` naming the argument, as a size past int64 is."""
    with xp.use_backend(backend):
        with pytest.raises(ValueError, match=match):
            call()


def test_an_empty_shape_within_numpys_extent_rule_is_made():
    """Up to the rule's bound the NumPy backend makes the empty array, as NumPy does."""
    assert xp.zeros((0, 2**61, 3), dtype=xp.int8).shape == (0, 2**61, 3)
    assert xp.eye(0, (2**63 - 1) // 8).shape == (0, (2**63 - 1) // 8)
    assert xp.full((2**60 - 1, 0), 1.0).shape == (2**60 - 1, 0)
    assert xp.ones_like(np.ones(3), shape=(0, 2**61, 3), dtype=xp.int8).shape == (0, 2**61, 3)


@pytest.mark.parametrize("backend", _backends())
def test_a_like_shape_past_int64_is_named(backend):
    """The dask backend's ``*_like`` checked ``shape=``'s lengths but not its size:
    ``zeros_like(x, shape=(2**62, 4))`` was dask's bare MemoryError."""
    with xp.use_backend(backend):
        x = xp.ones(3)
    with pytest.raises(ValueError, match=r"^zeros_like: argument 'shape' \(4611686018427387904, "
                                         r"4\) has 18446744073709551616 elements"):
        xp.zeros_like(x, shape=(2**62, 4))


@pytest.mark.parametrize("backend", _backends())
def test_creation_takes_numpy_ints_and_keeps_other_errors_as_numpys(backend):
    with xp.use_backend(backend):
        assert xp.zeros((np.int32(2), np.int64(3))).shape == (2, 3)
        assert xp.full(np.int64(2), 0.5).shape == (2,)
        assert xp.to_numpy(xp.eye(np.int64(2), np.int16(3), k=np.int8(1))).tolist() == [
            [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    with pytest.raises(TypeError, match="^zeros: argument 'dtype' got str 'foo'"):   # named
        xp.zeros(3, dtype="foo")
    with pytest.raises(ValueError, match="^ones: argument 'device' is 'gpu'; the numpy backend's devices are 'cpu'$"):   # NumPy's own
        xp.ones(3, device="gpu")


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("args, kwargs, cls, match", [
    ((None,), {}, TypeError, r"^arange: argument 'start' got NoneType None; expected a real"),
    (("a",), {}, TypeError, r"^arange: argument 'start' got str 'a'"),
    ((0, [1]), {}, TypeError, r"^arange: argument 'stop' got list \[1\]"),
    ((1e20,), {}, ValueError, r"^arange: argument 'stop' gives 1e\+20 elements"),
    ((float("inf"),), {}, ValueError, r"^arange: argument 'stop' gives inf elements"),
    ((0, 2**63, 1), {"dtype": np.int8}, ValueError,
     r"^arange: argument 'stop' gives 9223372036854775808 elements"),
    ((0, 2**63), {"dtype": np.float64}, ValueError, r"^arange: argument 'stop' gives 922"),
])
def test_arange_names_its_bad_argument_and_a_length_past_int64(backend, args, kwargs, cls,
                                                               match):
    """NumPy's said "unsupported operand type(s) for -: 'NoneType' and 'int'" and "Maximum
    allowed size exceeded", and made arange(0, 2**63, dtype=int8) an empty array (its
    length in float64): the NumPy backend now answers as the dask backend does."""
    with xp.use_backend(backend):
        with pytest.raises(cls, match=match):
            xp.arange(*args, **kwargs)
        got = xp.to_numpy(xp.arange(2**53, 2**53 + 2**51 * 3, 2**51, dtype=np.int64))
        assert got.tolist() == [2**53, 2**53 + 2**51, 2**53 + 2**52]


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("call, func, shown", [
    (lambda: xp.full(3, None), "full", "NoneType None"),
    (lambda: xp.full(3, "a"), "full", "str 'a'"),
    (lambda: xp.full(2, b"1", dtype=np.int8), "full", "bytes b'1'"),
    (lambda: xp.full_like(xp.zeros(3), None), "full_like", "NoneType None"),
    (lambda: xp.full_like(xp.zeros(3, dtype=np.int32), "1"), "full_like", "str '1'"),
    (lambda: xp.full_like(xp.zeros(3), None, dtype=np.int16), "full_like", "NoneType None"),
])
def test_a_fill_of_no_number_is_a_type_error_on_every_backend(backend, call, func, shown):
    """dask's full(3, None) raised NotImplementedError and full(3, "a") ValueError, both
    its dispatch's two-line message; full_like(x, None) filled NaN on both backends."""
    with xp.use_backend(backend):
        with pytest.raises(TypeError, match=f"^{func}: argument 'fill_value' got {shown}; "
                                            "expected a bool, int, float or complex$"):
            call()
        assert xp.to_numpy(xp.full_like(xp.zeros(2), True)).tolist() == [1.0, 1.0]
        assert xp.to_numpy(xp.full(2, "ab", dtype="U2")).tolist() == ["ab", "ab"]


@pytest.mark.parametrize("backend", _backends())
def test_linspace_names_a_negative_num(backend):
    """NumPy's said "Number of samples, -1, must be non-negative." (no argument named)."""
    with xp.use_backend(backend):
        with pytest.raises(ValueError, match=r"^linspace: argument 'num' must be "
                                             r"non-negative; got -1$"):
            xp.linspace(0, 1, -1)
        assert xp.to_numpy(xp.linspace(0, 1, np.int64(0))).size == 0


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("args, arg, shown", [
    ((None, 1, 3), "start", "NoneType None"), ((0, None, 3), "stop", "NoneType None"),
    (("0", 1, 3), "start", "str '0'"), ((0, b"1", 3), "stop", "bytes b'1'"),
])
def test_linspace_names_an_end_of_no_number(backend, args, arg, shown):
    """NumPy's and dask's said "unsupported operand type(s) for -: 'int' and 'NoneType'"
    (NumPy's a DTypePromotionError for a str), naming no argument."""
    with xp.use_backend(backend):
        with pytest.raises(TypeError, match=rf"^linspace: argument '{arg}' got {shown}; "
                                            "expected a real or complex number$"):
            xp.linspace(*args)
        assert xp.to_numpy(xp.linspace(np.float32(0), 1j, 3)).tolist() == [0, 0.5j, 1j]


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("func, call", [
    ("zeros", lambda d: xp.zeros(3, dtype=d)),
    ("ones", lambda d: xp.ones((2, 2), dtype=d)),
    ("empty", lambda d: xp.empty(3, dtype=d)),
    ("full", lambda d: xp.full(3, 1, dtype=d)),
    ("zeros_like", lambda d: xp.zeros_like(xp.asarray([1.0]), dtype=d)),
    ("full_like", lambda d: xp.full_like(xp.asarray([1.0]), 2, dtype=d)),
    ("asarray", lambda d: xp.asarray([1, 2], dtype=d)),
    ("arange", lambda d: xp.arange(3, dtype=d)),
    ("linspace", lambda d: xp.linspace(0, 1, 3, dtype=d)),
    ("eye", lambda d: xp.eye(2, dtype=d)),
])
def test_a_dtype_that_is_no_dtype_is_named(backend, func, call):
    """``dtype="foo"`` was NumPy's "data type 'foo' not understood" (no argument named)
    and dask's two-line message of its dispatch; a TypeError naming ``dtype`` now, as
    ``astype``'s, with NumPy's reason."""
    with xp.use_backend(backend):
        with pytest.raises(TypeError, match=rf"^{func}: argument 'dtype' got str 'foo'; "
                                            r"expected a dtype such as xstride\.float64 "
                                            r"\(data type 'foo' not understood\)$"):
            call("foo")
        with pytest.raises(TypeError, match=rf"^{func}: argument 'dtype' got int 1; "
                                            r"expected a dtype .*Cannot interpret '1'"):
            call(1)
        with pytest.raises(TypeError, match=r"^astype: argument 'dtype' got str 'foo'"):
            xp.astype(xp.asarray([1.0]), "foo")
        assert call(xp.int32).dtype == xp.int32   # a good dtype: as before
        assert call("float32").dtype == xp.float32


@pytest.mark.parametrize("backend", _backends())
def test_eye_takes_a_0d_integer_array_k_as_numpy_does(backend):
    """NumPy's ``eye(3, k=np.array(1))`` is the first superdiagonal; the check of ``k``
    (``isinstance`` of int) refused it on both backends ("got numpy.ndarray"), a
    regression of the NumPy backend. A 0-D bool or float array is still refused."""
    with xp.use_backend(backend):
        got = xp.to_numpy(xp.eye(3, k=np.array(1)))
        assert got.tolist() == np.eye(3, k=1).tolist()
        assert xp.to_numpy(xp.eye(2, 3, k=np.array(-1, np.int8))).tolist() == \
            np.eye(2, 3, k=-1).tolist()
        for bad, shown in ((np.array(True), "bool"), (np.array(1.0), "float64")):
            with pytest.raises(TypeError, match=rf"^eye: argument 'k' got numpy\.ndarray"
                                                rf"\(shape=\(\), dtype={shown}\); expected an int"):
                xp.eye(3, k=bad)


def test_numpy_creation_of_a_good_shape_does_not_go_through_compat():
    """The checks of ``shape`` run on NumPy's error only, so that a call NumPy takes costs
    nothing more (shape_checks.py); the new wrapper called array_api_compat's function
    (its frame and ``_check_device``: about 0.4 us on a 0.7 us ``zeros(3)``). With
    ``device`` None NumPy's own is called, as compat calls it; with a device, compat's."""
    import sys

    calls = []

    def profile(frame, event, arg):
        if event == "call":
            calls.append(frame.f_code.co_name)

    with xp.use_backend("numpy"):
        xp.zeros(1), xp.eye(1)   # first calls done
        sys.setprofile(profile)
        try:
            got = [xp.zeros(3), xp.ones((2, 3), dtype=xp.float32), xp.empty(0),
                   xp.eye(3, k=1), xp.eye(2, 3, dtype=xp.int8)]
        finally:
            sys.setprofile(None)
        assert "_check_device" not in calls
        want = [np.zeros(3), np.ones((2, 3), np.float32), np.empty(0), np.eye(3, k=1),
                np.eye(2, 3, dtype=np.int8)]
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
        assert xp.eye(3, k=1).tolist() == want[3].tolist()
        assert xp.zeros(2, device="cpu").tolist() == [0.0, 0.0]
        assert xp.eye(2, device="cpu").tolist() == [[1.0, 0.0], [0.0, 1.0]]
        with pytest.raises(ValueError, match="^eye: argument 'device' is 'gpu'; the numpy backend's devices are 'cpu'$"):
            xp.eye(2, device="gpu")


def test_numpy_creation_lays_no_other_error_on_a_shape_numpy_takes():
    """NumPy takes a 1-D integer array or a ``range`` as a shape; an error of another
    argument (a dtype it does not know, a device) was laid on ``shape`` ("got
    numpy.ndarray ...; expected an int or a tuple of ints"). The other argument's error
    now (a dtype named as for any shape); a bad length in such a shape is still named."""
    with xp.use_backend("numpy"):
        assert xp.zeros(np.array([2, 3])).shape == (2, 3)
        assert xp.full(range(2, 4), 1.0).shape == (2, 3)
        with pytest.raises(TypeError, match="^zeros: argument 'dtype' got str 'foo'"):
            xp.zeros(np.array([2, 3]), dtype="foo")
        with pytest.raises(TypeError, match="^empty: argument 'dtype' got str 'foo'"):
            xp.empty(range(2, 4), dtype="foo")
        with pytest.raises(ValueError, match="^ones: argument 'device' is 'gpu'; the numpy backend's devices are 'cpu'$"):
            xp.ones(np.array([2]), device="gpu")
        with pytest.raises(ValueError, match=r"^zeros: argument 'shape' has the negative "
                                             r"length -1"):
            xp.zeros(np.array([2, -1]))
        with pytest.raises(TypeError, match=r"^full: argument 'shape' got str '3'"):
            xp.full("3", 1)


def test_numpy_full_like_of_a_number_does_not_go_through_compat():
    """The new NumPy ``full_like`` (a fill of no number refused) called array_api_compat's
    through ``compat_function`` and ran ``check_fill_type`` on every call: 1.8 us ->
    2.7 us for ``full_like(x, 2)`` of 1000 float64. A number goes to NumPy's own with
    ``device`` None, as compat calls it; a device goes through compat."""
    import sys

    calls = []

    def profile(frame, event, arg):
        if event == "call":
            calls.append(frame.f_code.co_name)

    with xp.use_backend("numpy"):
        x = xp.zeros(3, dtype=xp.int16)
        xp.full_like(x, 1)
        sys.setprofile(profile)
        try:
            got = [xp.full_like(x, 2), xp.full_like(x, 1.5, dtype=xp.float32)]
        finally:
            sys.setprofile(None)
        assert "_check_device" not in calls and "check_fill_type" not in calls
        assert got[0].dtype == np.int16 and got[0].tolist() == [2, 2, 2]
        assert got[1].dtype == np.float32 and got[1].tolist() == [1.5] * 3
        assert xp.full_like(x, 3, device="cpu").tolist() == [3, 3, 3]
        with pytest.raises(ValueError, match="^full_like: argument 'device' is 'gpu'; the numpy backend's devices are 'cpu'$"):
            xp.full_like(x, 3, device="gpu")
        with pytest.raises(TypeError, match="^full_like: argument 'fill_value' got NoneType"):
            xp.full_like(x, None)


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("copy", ["yes", 1.0, 0, [], "no"])
def test_asarray_copy_of_no_bool_is_a_type_error(backend, copy):
    # NumPy took any value by its truth (copy=0 made a view, copy=1.0 a copy) and
    # refused a str with a ValueError; dask's asarray of a dask array took any value
    with xp.use_backend(backend):
        x = xp.asarray([1.0, 2.0])
        for obj in (x, [1.0, 2.0]):
            with pytest.raises(TypeError, match=r"^asarray: argument 'copy' got "
                                                r".*; expected True, False or None"):
                xp.asarray(obj, copy=copy)
        assert xp.to_numpy(xp.asarray(x, copy=np.True_)).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("name", ["full", "full_like"])
def test_full_fill_value_of_more_than_zero_dimensions_is_named(backend, name):
    # the standard's fill_value is a scalar: NumPy's broadcast an array fill
    # (full(2, array([3.0])) gave [3.0, 3.0]), dask's refused it ("fill_value must be
    # scalar. Received Array instead.", naming neither the function nor the argument)
    with xp.use_backend(backend):
        x = xp.zeros(2)
        call = ((lambda f: xp.full(2, f)) if name == "full"
                else (lambda f: xp.full_like(x, f)))
        for fill in (xp.asarray([3.0]), xp.asarray(np.ones((2, 2)))):
            with pytest.raises(ValueError, match=rf"^{name}: argument 'fill_value' has shape "
                                                 r"\((1,|2, 2)\); expected a scalar"):
                call(fill)
        for fill in ([3.0, 4.0], (3.0,)):
            with pytest.raises(TypeError, match=rf"^{name}: argument 'fill_value' got "
                                                r"(list|tuple) .*; expected a bool, int, "):
                call(fill)
        assert xp.to_numpy(call(np.float32(3.0))).tolist() == [3.0, 3.0]


def test_numpy_from_dlpack_names_device_and_copy_as_asarray_does():
    # NumPy's said "Device not understood. Only \"cpu\" is allowed, but received: gpu"
    # and "strings are not allowed for 'copy' keyword" (a ValueError), and took
    # copy=0 by its truth; asarray names both arguments
    a = np.arange(3.0)
    with xp.use_backend("numpy"):
        with pytest.raises(ValueError, match=r"^from_dlpack: argument 'device' is 'gpu'; "
                                             r"the numpy backend's devices are 'cpu'$"):
            xp.from_dlpack(a, device="gpu")
        for copy in ("x", 0, 1.0):
            with pytest.raises(TypeError, match=r"^from_dlpack: argument 'copy' got .*; "
                                                r"expected True, False or None$"):
                xp.from_dlpack(a, copy=copy)
        assert np.shares_memory(xp.from_dlpack(a, device="cpu", copy=np.False_), a)
        assert np.shares_memory(xp.from_dlpack(a, device=a.device), a)


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("fill, dtype, cls, match", [
    (1j, xp.float64, TypeError, "got complex 1j; expected a real number for dtype float64"),
    (1 + 0j, xp.int32, TypeError, "got .*; expected a real number for dtype int32"),
    (np.complex64(2j), xp.bool, TypeError, "got .*; expected a real number for dtype bool"),
    (float("nan"), xp.int64, ValueError, "is nan, which the integer dtype int64"),
    (float("-inf"), xp.uint8, ValueError, "is -inf, which the integer dtype uint8"),
    (np.float32("nan"), xp.int16, ValueError, "is nan, which the integer dtype int16"),
    (300.0, xp.int8, OverflowError, "is 300.0, whose integer part is out of bounds for int8"),
    (-1.5, xp.uint8, OverflowError, "is -1.5, whose integer part is out of bounds for uint8"),
])
def test_a_fill_the_dtype_cannot_hold_is_refused_as_asarray_refuses_it(backend, fill, dtype,
                                                                       cls, match):
    """A new-user probe: ``full(2, 1j, dtype=float64)`` filled 0.0 and ``full(2, nan,
    dtype=int64)`` -2**63 (NumPy's unsafe cast, a warning at most), where
    ``asarray(1j, dtype=float64)`` and ``asarray(nan, dtype=int64)`` raise."""
    with xp.use_backend(backend):
        with pytest.raises(cls, match=rf"^full: argument 'fill_value' {match}"):
            xp.full(2, fill, dtype=dtype)
        x = xp.zeros(2, dtype=dtype)
        with pytest.raises(cls, match=rf"^full_like: argument 'fill_value' {match}"):
            xp.full_like(x, fill)


@pytest.mark.parametrize("backend", _backends())
def test_fills_the_dtype_holds_still_fill(backend):
    with xp.use_backend(backend):
        assert xp.to_numpy(xp.full(2, 2.7, dtype=xp.int8)).tolist() == [2, 2]   # truncated
        assert xp.to_numpy(xp.full(2, -0.5, dtype=xp.uint8)).tolist() == [0, 0]
        assert xp.to_numpy(xp.full(2, 1j, dtype=xp.complex64)).tolist() == [1j, 1j]
        assert xp.to_numpy(xp.full(2, float("nan"))).tolist() != [0, 0]   # float64 NaN
        assert xp.to_numpy(xp.full(2, 2.5, dtype=xp.bool)).tolist() == [True, True]
        assert xp.to_numpy(xp.full_like(xp.zeros(2), float("inf"))).tolist() == [np.inf] * 2


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("start, stop, num, dtype, want", [
    (0, 2**63 - 1, 2, xp.int64, [0, 2**63 - 1]),
    (2**62, 2**63 - 1, 3, xp.int64, [2**62, 6917529027641081856, 2**63 - 1]),
    (-2**63, 2**63 - 1, 5, xp.int64, [-2**63, -2**62, 0, 2**62, 2**63 - 1]),
    (0, 2**64 - 1, 2, xp.uint64, [0, 2**64 - 1]),
    (np.uint64(2**64 - 1), 0, 3, xp.uint64, [2**64 - 1, 2**63, 0]),
    (0.0, 9.2e18, 3, xp.int64, [0, 4600000000000000000, 9200000000000000000]),
])
def test_linspace_of_integer_ends_past_2_53_does_not_wrap(backend, start, stop, num, dtype,
                                                          want):
    """A new-user probe: ``linspace(0, 2**63 - 1, 2, dtype=int64)`` ended in ``-2**63``
    on both backends (NumPy's float64 value ``2**63`` cast to int64 wrapped). A value
    that rounded past the dtype's largest integer is that integer; the others are
    NumPy's values (floats, floored, cast: ``2**53 + 1`` stays NumPy's ``2**53``)."""
    with xp.use_backend(backend):
        got = xp.to_numpy(xp.linspace(start, stop, num, dtype=dtype))
    assert got.dtype == dtype and got.tolist() == want
    with xp.use_backend(backend):
        near = xp.to_numpy(xp.linspace(0, 2**53 + 1, 3, dtype=xp.int64))
    assert near.tolist() == np.linspace(0, 2**53 + 1, 3, dtype=np.int64).tolist()


def test_linspace_of_integer_array_ends_past_2_53_does_not_wrap():
    """A review: NumPy's array ends (its extension) still wrapped, with NumPy's "invalid
    value encountered in cast" warning."""
    with np.errstate(invalid="raise"):
        got = xp.linspace(np.array([0, 5]), np.array([2**63 - 1, 10]), 2, dtype=xp.int64)
    assert got.dtype == np.int64 and got.tolist() == [[0, 5], [2**63 - 1, 10]]


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("start, stop, dtype, cls, match", [
    (0, 300, xp.int8, OverflowError, "'stop' is 300, whose integer part is out of bounds "
                                     "for the dtype int8"),
    (-1, 5, xp.uint8, OverflowError, "'start' is -1, whose integer part is out of bounds"),
    (0.0, 2.0**40, xp.int32, OverflowError, "'stop' is 1099511627776.0, whose integer"),
    (-1.5, 5, xp.uint8, OverflowError, "'start' is -1.5, whose integer part"),
    (float("nan"), 1, xp.int16, ValueError, "'start' is nan, which the integer dtype int16"),
])
def test_linspace_ends_an_integer_dtype_cannot_hold_are_refused(backend, start, stop, dtype,
                                                                cls, match):
    """A new-user probe: ``linspace(0, 300, 3, dtype=int8)`` ended in 44 (NumPy's cast
    wrapped), where ``full(2, 300, dtype=int8)`` raises ``OverflowError``."""
    with xp.use_backend(backend):
        with pytest.raises(cls, match=rf"^linspace: argument {match}"):
            xp.linspace(start, stop, 3, dtype=dtype)
        got = xp.to_numpy(xp.linspace(0, 100, 3, dtype=dtype))   # ends it holds: NumPy's
        assert got.dtype == dtype and got.tolist() == [0, 50, 100]
        # ends whose integer part it holds (a review: 127.9 and -0.5 were refused)
        got = xp.to_numpy(xp.linspace(-0.5, 127.9, 3, dtype=dtype))
        assert got.tolist() == np.linspace(-0.5, 127.9, 3, dtype=dtype).tolist()
