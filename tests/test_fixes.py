"""The thin overrides where array_api_compat differs from the standard (xstride/_backends/fixes.py)."""

from __future__ import annotations

import numpy as np
import pytest

import xstride as xp

INF, NAN = np.inf, np.nan


def test_finfo_gives_python_floats_and_real_dtype():
    for dt, real in ((xp.float32, np.float32), (xp.float64, np.float64),
                     (xp.complex64, np.float32), (xp.complex128, np.float64)):
        f = xp.finfo(dt)
        assert all(type(v) is float for v in (f.eps, f.max, f.min, f.smallest_normal))
        assert f.dtype == real
        assert f.eps == float(np.finfo(real).eps) and f.bits == np.finfo(real).bits
    assert xp.finfo(np.ones(2, dtype=np.float32)).bits == 32
    with pytest.raises(ValueError, match="finfo: argument 'type' is int32; expected a real"):
        xp.finfo(xp.int32)


def test_floor_divide_infinities_follow_the_standard():
    x1 = np.array([INF, INF, -INF, -INF, 1.0, -1.0, 7.0, -7.0])
    x2 = np.array([2.0, -2.0, 2.0, -2.0, -INF, INF, 2.0, 2.0])
    got = xp.floor_divide(x1, x2)
    want = np.array([INF, -INF, -INF, INF, -0.0, -0.0, 3.0, -4.0])
    np.testing.assert_array_equal(got, want)
    assert np.signbit(got[4]) and np.signbit(got[5])
    assert got.dtype == np.float64
    np.testing.assert_array_equal(xp.floor_divide(np.array([7, -7]), 2), [3, -4])
    assert xp.floor_divide(np.float32(1.0) * np.ones(2, np.float32), 2.0).dtype == np.float32


def test_floor_divide_and_remainder_take_python_ints_past_int64():
    """A Python int with no NumPy integer type (2**64, -2**70) beside a float array is
    a weak float, as NumPy takes it: no TypeError from the special-case masks."""
    from xstride._backends import fixes

    x = np.array([5.0, -3.0, 0.0, INF])
    with np.errstate(all="ignore"):
        for big in (2**64, -2**70):
            got = xp.floor_divide(x, big)
            want = np.floor(x / float(big))
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
            np.testing.assert_array_equal(fixes.remainder(x[:3], big), np.remainder(x[:3], big))
        np.testing.assert_array_equal(xp.floor_divide(2**64, np.array([5.0, INF, -INF])),
                                      [2.0**64 // 5.0, 0.0, -0.0])


def test_expm1_complex_special_cases():
    z = np.array([complex(0.0, 0.0), complex(-0.0, 0.0), complex(INF, 0.0),
                  complex(-INF, INF), complex(INF, INF), complex(-INF, NAN),
                  complex(INF, NAN), complex(NAN, 0.0), complex(NAN, 2.0),
                  complex(1.0, INF), complex(-INF, 0.5)])
    got = xp.expm1(z)
    re, im = got.real, got.imag
    np.testing.assert_array_equal(re[:3], [0.0, 0.0, INF])
    assert not np.signbit(re[1])  # "0 + 0j": +0 real even for a = -0
    np.testing.assert_array_equal(im[:3], [0.0, 0.0, 0.0])
    assert (re[3], im[3]) == (-1.0, 0.0)
    assert np.isinf(re[4]) and np.isnan(im[4])
    assert (re[5], im[5]) == (-1.0, 0.0)
    assert np.isinf(re[6]) and np.isnan(im[6])
    assert np.isnan(re[7]) and im[7] == 0.0
    assert np.isnan(re[8]) and np.isnan(im[8])
    assert np.isnan(re[9]) and np.isnan(im[9])
    assert re[10] == -1.0 and im[10] == 0.0


def test_expm1_conjugate_symmetry_and_ordinary_values():
    z = np.array([1.0 + 2.0j, -0.5 - 0.25j, 1e-10 + 1e-10j], dtype=np.complex128)
    np.testing.assert_allclose(xp.expm1(z), np.expm1(z), rtol=1e-15)
    np.testing.assert_allclose(xp.expm1(np.conj(z)), np.conj(xp.expm1(z)), rtol=1e-15)
    got = xp.expm1(np.array([complex(0.0, -0.0)]))
    assert got.imag[0] == 0.0 and np.signbit(got.imag[0])  # conj(0 + 0j)
    r = np.array([0.0, -0.0, 1.0])
    np.testing.assert_array_equal(xp.expm1(r), np.expm1(r))


def test_remainder_infinite_divisor_takes_sign_of_divisor():
    from xstride._backends.fixes import remainder

    x1 = np.array([3.0, 3.0, -3.0, -3.0, 5.5])
    x2 = np.array([INF, -INF, INF, -INF, 2.0])
    np.testing.assert_array_equal(remainder(x1, x2), [3.0, -INF, INF, -3.0, 1.5])
    np.testing.assert_array_equal(remainder(x1, x2), np.remainder(x1, x2))
    np.testing.assert_array_equal(remainder(np.array([7, -7]), 3), [1, 2])


def test_negative_zero_detection():
    from xstride._backends.fixes import _has_negative_zero

    assert _has_negative_zero(-0.0) and _has_negative_zero(complex(1.0, -0.0))
    assert not _has_negative_zero(0.0) and not _has_negative_zero(0) and not _has_negative_zero(-1.0)
    # NumPy scalars and 0-d arrays (CuPy fills a 0-d array from them too)
    for v in (np.float32(-0.0), np.float64(-0.0), np.asarray(-0.0), np.asarray(-0.0, np.float16),
              np.complex64(complex(1.0, -0.0)), np.asarray(complex(-0.0, 2.0))):
        assert _has_negative_zero(v), v
    for v in (np.float32(0.0), np.asarray(0.0), np.asarray([-0.0]), np.asarray(0),
              np.int8(0), np.asarray(True), np.complex128(1.0)):
        assert not _has_negative_zero(v), v


@pytest.mark.parametrize("name, z, re_check, im_check", [
    ("log", complex(INF, NAN), INF, "nan"),
    ("log", complex(-INF, NAN), INF, "nan"),
    ("log", complex(NAN, INF), INF, "nan"),
    ("log1p", complex(-INF, NAN), INF, "nan"),
    ("log1p", complex(NAN, -INF), INF, "nan"),
    ("tanh", complex(0.0, INF), 0.0, "nan"),
    ("tanh", complex(0.0, NAN), 0.0, "nan"),
    ("acosh", complex(0.0, NAN), "nan", np.pi / 2),
])
def test_complex_special_values(name, z, re_check, im_check):
    """The standard's cases, through the backend-neutral overrides (here on NumPy)."""
    from xstride._backends import complex_special as _complex_special

    got = getattr(_complex_special, name)(np.array([z, 1.0 + 0.5j]))
    for part, check in ((got[0].real, re_check), (got[0].imag, im_check)):
        if check == "nan":
            assert np.isnan(part)
        else:
            assert abs(part) == abs(check) and (check != 0 or not np.signbit(part))
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(got[1], getattr(np, name)(1.0 + 0.5j), rtol=1e-15)


def test_complex_special_values_patch_a_wrong_library_result():
    """_patch writes the standard's value over whatever the library returned."""
    from xstride._backends.complex_special import _patch, _tanh_rules

    x = np.array([complex(0.0, INF), complex(0.0, -NAN), complex(2.0, 1.0)])
    wrong = np.full(3, complex(7.0, 7.0))
    got = _patch(np, x, wrong, _tanh_rules)
    assert got[0].real == 0.0 and not np.signbit(got[0].real) and np.isnan(got[0].imag)
    assert got[1].real == 0.0 and np.isnan(got[1].imag)
    assert got[2] == complex(7.0, 7.0)  # not a special case: left alone


def test_remainder_of_zero_takes_sign_of_divisor():
    from xstride._backends.fixes import remainder

    got = remainder(np.array([0.0, -0.0, 0.0, -0.0]), np.array([-2.0, -2.0, 2.0, 2.0]))
    np.testing.assert_array_equal(np.signbit(got), [True, True, False, False])
    np.testing.assert_array_equal(got, np.remainder([0.0, -0.0, 0.0, -0.0], [-2.0, -2.0, 2.0, 2.0]))


def test_linalg_fixes_logic_with_numpy_standing_in_for_cupy(monkeypatch):
    """The CuPy-only linalg overrides, run with NumPy in CuPy's place (shape logic)."""
    import array_api_compat.numpy as cnp

    from xstride._backends import linalg_fixes as lf

    monkeypatch.setattr(lf._backend, "array_module", lambda name: np)
    monkeypatch.setattr(lf, "_linalg", lambda: cnp.linalg)
    a = np.array([[2.0, 0.0], [0.0, 3.0]], dtype=np.float32)
    np.testing.assert_allclose(lf.solve(a, np.array([4.0, 9.0], np.float32)), [2.0, 3.0])
    stack = np.stack([a, 2 * a])
    y = lf.solve(stack, np.array([[4.0], [9.0]], np.float32))
    assert y.shape == (2, 2, 1)
    np.testing.assert_allclose(y[:, :, 0], [[2.0, 3.0], [1.0, 1.5]], rtol=1e-6)
    e = lf.solve(np.empty((0, 0), np.float32), np.empty((0,), np.float32))
    assert e.shape == (0,) and e.dtype == np.float32
    e2 = lf.solve(np.empty((3, 0, 0)), np.empty((0, 2)))
    assert e2.shape == (3, 0, 2)
    with pytest.raises(ValueError, match=r"linalg.solve: argument 'x2' must have shape \(2,\)"):
        lf.solve(a, np.ones(3))
    with pytest.raises(ValueError, match=r"linalg.solve: argument 'x1' must have shape"):
        lf.solve(np.ones((2, 3)), np.ones(2))
    res = lf.eig(a)
    assert res.eigenvalues.dtype == np.complex64 and res._fields == ("eigenvalues", "eigenvectors")
    assert lf.eigvals(a.astype(np.float64)).dtype == np.complex128


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_window_lengths_are_checked(name):
    """fftfreq/rfftfreq: ``n`` a positive int, named in the error (NumPy raised
    ZeroDivisionError for 0)."""
    f = getattr(xp.fft, name)
    for bad, cls in ((0, ValueError), (-1, ValueError), (2.5, TypeError), (True, TypeError),
                     ("4", TypeError)):
        with pytest.raises(cls, match=f"{name}: argument 'n'"):
            f(bad)
    np.testing.assert_array_equal(f(np.int64(4), d=0.5), getattr(np.fft, name)(4, d=0.5))
    # the spacing: NumPy's unnamed ZeroDivisionError for 0; dask's inf/nan silently
    import importlib.util

    for backend in ("numpy",) + (("dask",) if importlib.util.find_spec("dask") else ()):
        with xp.use_backend(backend):
            for bad, cls in ((0, ValueError), (0.0, ValueError), ("a", TypeError),
                             (1j, TypeError), (True, TypeError), (None, TypeError)):
                with pytest.raises(cls, match=f"^{name}: argument 'd'"):
                    f(4, d=bad)
            np.testing.assert_array_equal(xp.to_numpy(f(4, d=np.float32(-2))),
                                          getattr(np.fft, name)(4, d=-2.0))
    assert f(3, dtype=xp.float32).dtype == np.float32
    assert f(3, device="cpu").shape == getattr(np.fft, name)(3).shape
    # the standard's signature (the conformance suite's signature test reads it)
    import inspect

    import array_api_compat.numpy as compat

    want = inspect.signature(getattr(compat.fft, name)).parameters
    got = inspect.signature(f).parameters
    assert [(p.name, p.kind, p.default) for p in got.values()] == \
        [(p.name, p.kind, p.default) for p in want.values()]
    with pytest.raises(TypeError):
        f(4, window=2)


def test_finfo_of_something_without_a_dtype_is_a_type_error():
    for bad in (None, 1.0, object()):
        with pytest.raises(TypeError, match="finfo: argument 'type'"):
            xp.finfo(bad)
    assert xp.finfo(np.ones(2)).eps == np.finfo(np.float64).eps


def test_to_device_names_its_backend_argument():
    with pytest.raises(ValueError, match="to_device: argument 'backend' names an unknown"):
        xp.to_device(np.ones(3), backend="tpu")


def test_matrix_rank_of_empty_matrices_is_zero():
    got = xp.linalg.matrix_rank(np.zeros((2, 0, 3)))
    assert got.dtype == np.int64 and got.tolist() == [0, 0]
    one = xp.linalg.matrix_rank(np.zeros((4, 0)))
    assert one == 0 and isinstance(one, np.integer)
    assert xp.linalg.matrix_rank(np.eye(3)) == 3
    np.testing.assert_array_equal(xp.linalg.matrix_rank(np.ones((2, 3, 3)), rtol=1e-3), [1, 1])


def test_qr_names_an_unknown_mode():
    for bad in ("r", "raw", None):
        with pytest.raises(ValueError, match="qr: argument 'mode' must be 'reduced' or"):
            xp.linalg.qr(np.eye(3), mode=bad)
    q, r = xp.linalg.qr(np.ones((3, 2)), mode="complete")
    assert q.shape == (3, 3) and r.shape == (3, 2)


def test_diff_names_a_prepend_or_append_of_another_shape():
    """"diff": prepend/append "must have the same shape as x, except for the axis".
    NumPy's said "axis 1 is out of bounds for array of dimension 1" for a 1-D prepend of
    a 2-D x, and named neither argument for another length; dask's said
    "('Shapes do not align: %s', [(2, 3), (3, 1)])"."""
    a = np.arange(6).reshape(2, 3)
    for kw in ({"prepend": np.zeros(2)}, {"append": np.zeros((3, 1))},
               {"prepend": np.zeros((2, 1, 1))}):
        (arg, _), = kw.items()
        with pytest.raises(ValueError, match=f"diff: argument '{arg}' has shape "):
            xp.diff(a, axis=1, **kw)
        with xp.use_backend("dask"):
            with pytest.raises(ValueError, match=f"diff: argument '{arg}' has shape "):
                xp.diff(xp.asarray(a), axis=1, **{arg: xp.asarray(kw[arg])})
    assert xp.diff(a, axis=1, prepend=np.zeros((2, 2), int)).tolist() == [[0, 0, 1, 1],
                                                                           [0, 3, 1, 1]]
    assert xp.diff(np.asarray([1, 4, 9]), prepend=0, append=np.asarray([16])).tolist() == [
        1, 3, 5, 7]


def test_sort_and_count_nonzero_flags_are_bools():
    """sort/argsort took descending="yes" (sorted descending) and stable="no" (stable);
    count_nonzero's keepdims="yes" was "'str' object cannot be interpreted as an integer"."""
    x = np.asarray([3, 1, 2])
    for func in (xp.sort, xp.argsort):
        for kw in ({"descending": "yes"}, {"stable": "no"}, {"descending": None}):
            (arg, _), = kw.items()
            with pytest.raises(TypeError, match=f"{func.__name__}: argument '{arg}' got .*; "
                                                "expected a bool"):
                func(x, **kw)
            with xp.use_backend("dask"):
                with pytest.raises(TypeError, match=f"{func.__name__}: argument '{arg}'"):
                    func(xp.asarray(x), **kw)
    with pytest.raises(TypeError, match="count_nonzero: argument 'keepdims' got str"):
        xp.count_nonzero(x, keepdims="yes")
    assert xp.sort(x, descending=np.bool_(True)).tolist() == [3, 2, 1]
    assert xp.count_nonzero(np.asarray([[0, 1], [1, 1]]), axis=1, keepdims=True).tolist() == [
        [1], [2]]


def test_from_dlpack_names_an_x_without_dlpack():
    """NumPy's raised "AttributeError: 'list' object has no attribute '__dlpack__'"."""
    for bad in ([1, 2], 3.0, None):
        with pytest.raises(TypeError, match="from_dlpack: argument 'x' got .*; expected an "
                                            "array with __dlpack__"):
            xp.from_dlpack(bad)
    a = np.arange(3)
    assert np.shares_memory(xp.from_dlpack(a), a)
    assert not np.shares_memory(xp.from_dlpack(a, copy=True), a)


@pytest.mark.parametrize("fill", [None, "a", b"x", object()])
def test_full_refuses_a_fill_value_of_no_number(fill):
    """``full(2, "a")`` made a ``<U1`` array and ``full(2, None)`` an object array on
    NumPy; the standard's fill value is a bool, int, float or complex."""
    with pytest.raises(TypeError, match="^full: argument 'fill_value' got .*expected a bool, int"):
        xp.full(2, fill)
    assert xp.full(2, 1.5).tolist() == [1.5, 1.5] and xp.full(2, True).dtype == np.bool_


def test_count_nonzero_takes_a_numpy_bool_keepdims():
    """check_flag takes NumPy bools (as the reductions' keepdims does), but NumPy's
    count_nonzero raised "'numpy.bool' object cannot be interpreted as an integer"."""
    x = np.asarray([[0, 1], [1, 1]])
    for flag, want in ((np.True_, [[1], [2]]), (np.False_, [1, 2])):
        assert xp.count_nonzero(x, axis=1, keepdims=flag).tolist() == want
    assert xp.count_nonzero(x, keepdims=np.True_).tolist() == [[3]]


@pytest.mark.parametrize("fill, dtype", [(None, np.float64), (None, np.bool_), ("1", np.int32),
                                         ("1.5", np.float32), (b"2", np.int8),
                                         (np.str_("3"), np.complex64)])
def test_full_refuses_a_fill_value_of_no_number_with_a_dtype_too(fill, dtype):
    """With a dtype NumPy's full made NaN (or False) of None and parsed a str or bytes:
    ``full(2, "1", dtype=int32)`` was ``[1, 1]``; the standard's fill value is a number."""
    with pytest.raises(TypeError, match="^full: argument 'fill_value' got .*expected a bool, int"):
        xp.full(2, fill, dtype=dtype)
    assert xp.full(2, 1, dtype=dtype).dtype == dtype


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_linspace_num_is_an_int_and_endpoint_a_bool(backend):
    """``linspace(0, 1, True)`` was ``num=1`` on NumPy and ``endpoint="no"`` was taken as
    true on both backends; the standard's ``num`` is an int and ``endpoint`` a bool."""
    if backend == "dask":
        pytest.importorskip("dask.array")
    with xp.use_backend(backend):
        for bad in (True, np.False_, 2.0, "3", None):
            with pytest.raises(TypeError, match="^linspace: argument 'num' got "):
                xp.linspace(0, 1, bad)
        for bad in ("no", 1, 0, None, 1.0):
            with pytest.raises(TypeError, match="^linspace: argument 'endpoint' got .*"
                                                "expected a bool"):
                xp.linspace(0, 1, 3, endpoint=bad)
        np.testing.assert_array_equal(xp.to_numpy(xp.linspace(0, 1, np.int64(3),
                                                              endpoint=np.False_)),
                                      np.linspace(0, 1, 3, endpoint=False))
        assert xp.to_numpy(xp.linspace(0, 1, num=2, endpoint=True)).tolist() == [0.0, 1.0]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_vector_norm_ord_is_no_bool_and_keepdims_a_bool(backend):
    """``vector_norm([3, 4], ord=True)`` was the norm of ord 1 (7.0) and
    ``keepdims="yes"`` was taken as true, on NumPy and dask."""
    if backend == "dask":
        pytest.importorskip("dask.array")
    with xp.use_backend(backend):
        v = xp.asarray([3.0, 4.0])
        for bad in (True, False, np.True_):
            with pytest.raises(TypeError, match="^vector_norm: argument 'ord' got .*not a bool"):
                xp.linalg.vector_norm(v, ord=bad)
        for bad in ("yes", 1, None, 0.0):
            with pytest.raises(TypeError, match="^vector_norm: argument 'keepdims' got .*"
                                                "expected a bool"):
                xp.linalg.vector_norm(v, keepdims=bad)
        assert xp.to_numpy(xp.linalg.vector_norm(v, keepdims=np.True_)).tolist() == [5.0]
        assert float(xp.to_numpy(xp.linalg.vector_norm(v, ord=np.int64(1)))) == 7.0


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_fft_frequencies_take_a_real_floating_dtype(backend, name):
    """``rfftfreq(5, dtype=int64)`` silently returned zeros (the frequencies truncated);
    the standard's ``dtype`` "must be a real-valued floating-point data type"."""
    if backend == "dask":
        pytest.importorskip("dask.array")
    f = getattr(xp.fft, name)
    with xp.use_backend(backend):
        for bad in (xp.int64, xp.uint8, xp.bool, xp.complex128, "int32", "nonsense", 3):
            with pytest.raises(TypeError, match=f"^{name}: argument 'dtype' got .*expected a "
                                                "real-valued floating-point dtype"):
                f(5, dtype=bad)
        for dt in (xp.float32, xp.float64, "float32", None):
            got = f(5, dtype=dt)
            assert got.dtype == np.dtype(dt or np.float64)
            np.testing.assert_allclose(xp.to_numpy(got), getattr(np.fft, name)(5), rtol=1e-6)


def test_count_nonzero_of_a_masked_array_skips_masked_elements_without_axis():
    """NumPy's count of every element read the data under the mask: 4 for this array,
    where its count over both axes (and the dask backend's) is 1."""
    m = np.ma.masked_array([[1, 0, 2], [3, 4, 0]], mask=[[0, 0, 1], [1, 1, 1]])
    assert int(xp.count_nonzero(m)) == 1
    assert int(xp.count_nonzero(m)) == int(xp.count_nonzero(m, axis=(0, 1)))
    assert xp.count_nonzero(m, keepdims=True).tolist() == [[1]]
    plain = np.ma.masked_array(m.data)
    assert int(xp.count_nonzero(plain)) == 4
    da = pytest.importorskip("dask.array")
    assert int(xp.count_nonzero(da.from_array(m, chunks=1, asarray=False))) == 1
