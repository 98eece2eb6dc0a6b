"""Bad input of ``xp.fft`` on the dask backend, and where the NumPy backend took it:
each raises the clear error the NumPy backend raises (or the standard asks for),
naming the function and the argument (found by a new-user probe; the other functions'
cases are in tests/test_bad_input_dask_standard.py)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402
from tests.test_bad_input_dask_standard import _d, _numpy_after  # noqa: E402,F401


# ------------------------------------------------------------------ fft
_ONE = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
_N = ["fftn", "ifftn", "rfftn", "irfftn"]


@pytest.mark.parametrize("name", _ONE + _N)
def test_fft_along_chunked_axes_gathers_them(name):
    a = np.arange(48.0).reshape(6, 8) + 1j * (np.arange(48.0).reshape(6, 8) % 5)
    if name in ("rfft", "ihfft", "rfftn"):
        a = a.real
    fn = getattr(xp.fft, name)
    kw = [{}, {"axis": 0}, {"n": 4}] if name in _ONE else [{}, {"axes": (0,)}, {"s": (4, 4), "axes": (0, 1)}]
    for k in kw:
        got = fn(_d(a, (4, 3)), **k)
        assert isinstance(got, da.Array)
        np.testing.assert_allclose(xp.to_numpy(got), fn(a, **k), rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name", _ONE)
def test_fft_axis_out_of_range_names_it(name, backend):
    wrap = np.asarray if backend == "numpy" else (lambda a: _d(a, ()) if np.ndim(a) == 0 else _d(a))
    for a, axis, match in ((np.arange(8.0), 2, "holds the axis 2, out of range for an array "
                                                "of 1 dimension"),
                           (np.array(1.0), -1, "holds the axis -1, out of range for an array "
                                                "of 0 dimensions")):
        # NumPy's AxisError: an IndexError and a ValueError
        with pytest.raises(IndexError, match=f"{name}: argument 'axis' {match}"):
            getattr(xp.fft, name)(wrap(a), axis=axis)
        with pytest.raises(ValueError, match=f"{name}: argument 'axis'"):
            getattr(xp.fft, name)(wrap(a), axis=axis)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_fft_n_axes_and_shifts_name_their_axes(backend):
    wrap = np.asarray if backend == "numpy" else (lambda a: _d(a, ()) if np.ndim(a) == 0 else _d(a))
    a = np.arange(24.0).reshape(4, 6)
    for name in _N:
        with pytest.raises(IndexError, match=f"{name}: argument 'axes' holds the axis 5"):
            getattr(xp.fft, name)(wrap(a), axes=(0, 5))
    for name in ("rfftn", "irfftn"):
        with pytest.raises(ValueError, match=f"{name}: argument 'x' leaves no axis"):
            getattr(xp.fft, name)(wrap(np.array(1.0)))
    for name in ("fftshift", "ifftshift"):
        with pytest.raises(IndexError, match=f"{name}: argument 'axes' holds the axis 5"):
            getattr(xp.fft, name)(wrap(a), axes=5)
        assert xp.to_numpy(getattr(xp.fft, name)(wrap(np.array(2.0)))) == 2.0
    assert xp.to_numpy(xp.fft.fftn(wrap(np.array(2.0)))) == 2.0


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name", _N)
@pytest.mark.parametrize("axes, twice", [((0, 0), 0), ((1, -1), 1), ((0, 1, 0), 0),
                                         ((-2, 1, 0), 0)])
def test_fft_n_axes_resolving_to_one_axis_are_refused(name, backend, axes, twice):
    """The standard leaves repeated axes unspecified: NumPy transformed the axis again,
    dask refused (0, 0) but transformed (1, -1) twice; both now raise one error."""
    a = np.arange(24.0).reshape(4, 6) + (1j if name in ("ifftn", "irfftn") else 0)
    x = a if backend == "numpy" else _d(a)
    with pytest.raises(ValueError, match=rf"^{name}: argument 'axes' names the axis {twice} "
                                         rf"more than once \({re.escape(repr(axes))} for "
                                         "an array of 2 dimensions\\)"):
        getattr(xp.fft, name)(x, axes=axes)
    with pytest.raises(ValueError, match=f"{name}: argument 'axes' names the axis"):
        getattr(xp.fft, name)(x, s=(4,) * len(axes), axes=axes)
    good = getattr(xp.fft, name)(x, axes=(1, 0))      # distinct axes, any order: as NumPy
    np.testing.assert_allclose(xp.to_numpy(good), getattr(np.fft, name)(a, axes=(1, 0)),
                               rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_fft_lengths_n_and_s_are_checked_at_the_call(backend):
    """``n`` and ``s`` are ints of at least 1 (``s`` also -1), named in the error at the
    call: dask's raised NumPy's unnamed message only when computed, ``rfft`` took
    ``n=True``; ``s`` longer than the array or than ``axes`` raised a bare IndexError on
    dask; ``s`` without ``axes`` transformed dask's first axes, not NumPy's last."""
    a = np.arange(24.0).reshape(4, 6)
    wrap = np.asarray if backend == "numpy" else (lambda v: _d(v, 3))
    for name in _ONE:
        fn = getattr(xp.fft, name)
        for n, cls in ((0, ValueError), (-1, ValueError), (True, TypeError), (2.0, TypeError)):
            with pytest.raises(cls, match=f"^{name}: argument 'n'"):
                fn(wrap(a), n=n)
    for name in _N:
        fn = getattr(xp.fft, name)
        for s, axes, cls in (((0, 4), None, ValueError), ((True, 2), None, TypeError),
                             ((2.0, 3), None, TypeError), ((3, 4, 5), None, ValueError),
                             ((3,), (0, 1), ValueError), (3, None, TypeError)):
            with pytest.raises(cls, match=f"^{name}: argument 's'"):
                fn(wrap(a), s=s, axes=axes)
    for name in ("fftn", "ifftn", "rfftn"):
        got = getattr(xp.fft, name)(wrap(a), s=(4,))
        with warnings.catch_warnings():    # NumPy's s without axes is deprecated
            warnings.simplefilter("ignore", DeprecationWarning)
            want = getattr(np.fft, name)(a, s=(4,))
        assert got.shape == want.shape
        np.testing.assert_allclose(xp.to_numpy(got), want, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(xp.to_numpy(xp.fft.fftn(wrap(a), s=(-1, 4))),
                               np.fft.fftn(a, s=(4, 4), axes=(0, 1)), rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
def test_fft_norm_and_empty_transforms_are_refused_at_the_call(backend):
    """A ``norm`` not of the standard's three, and a transform of no point (length 0
    along a transformed axis without ``n``/``s``; ``irfft``/``hfft`` of length 1, whose
    default length is ``2 * (m - 1)``): dask's 1-D transforms raised NumPy's unnamed
    "Invalid norm value" / "Invalid number of FFT data points (0)" only when computed."""
    wrap = np.asarray if backend == "numpy" else (lambda v: _d(v, 3))
    c = wrap(np.ones((3, 4), complex))

    def real(name, v):   # the transforms of real data take real input (a TypeError)
        return v.real if name in ("rfft", "ihfft", "rfftn") else v
    for name in _ONE + _N:
        with pytest.raises(ValueError, match=f"^{name}: argument 'norm' is 'bad'; expected "
                                             "'backward', 'ortho' or 'forward'"):
            getattr(xp.fft, name)(real(name, c), norm="bad")
    empty = wrap(np.zeros((0, 4), complex))
    for name in _ONE:
        with pytest.raises(ValueError, match=f"^{name}: argument 'x' has shape \\(0, 4\\), "
                                             "whose length 0 along axis 0 .*give 'n'"):
            getattr(xp.fft, name)(real(name, empty), axis=0)
    for name in _N:
        with pytest.raises(ValueError, match=f"^{name}: argument 'x' has shape \\(0, 4\\)"):
            getattr(xp.fft, name)(real(name, empty))
    one = wrap(np.ones((3, 1), complex))
    for name in ("irfft", "hfft", "irfftn"):
        with pytest.raises(ValueError, match=f"^{name}: argument 'x' .*default length "
                                             "2 \\* \\(1 - 1\\) = 0"):
            getattr(xp.fft, name)(one)
    # given lengths, norm=None (NumPy's "backward") and -1 in s still transform as NumPy
    a = np.ones((3, 1), complex)
    np.testing.assert_allclose(xp.to_numpy(xp.fft.irfft(one, n=3, norm=None)),
                               np.fft.irfft(a, n=3))
    np.testing.assert_allclose(xp.to_numpy(xp.fft.irfftn(one, s=(3, -1), axes=(0, 1))),
                               np.fft.irfftn(a, s=(3, -1), axes=(0, 1)))
    np.testing.assert_allclose(xp.to_numpy(xp.fft.fft(empty, n=2, axis=0)),
                               np.fft.fft(np.zeros((0, 4), complex), n=2, axis=0))
    assert xp.to_numpy(xp.fft.fft(empty, axis=1)).shape == (0, 4)


def test_fft_along_axes_of_unknown_lengths_says_so():
    """An axis transformed or shifted whose lengths dask does not know (after boolean
    indexing): dask raised "Array chunk sizes are unknown" or "cannot convert float NaN
    to integer", naming no function."""
    a = np.arange(24.0).reshape(4, 6)
    x = _d(a)
    rows = x[x[:, 0] >= 0]                                  # (nan, 6)
    cols = x[:, da.ones(6, dtype=bool, chunks=2)]           # (4, nan)
    for y, ax in ((rows, 0), (cols, 1)):
        for name in _ONE:
            with pytest.raises(ValueError, match=rf"^{name}: argument 'x' has shape .*nan.*"
                                                 r"compute_chunk_sizes\(\)"):
                getattr(xp.fft, name)(y, axis=ax)
        for name in _N:
            with pytest.raises(ValueError, match=rf"^{name}: argument 'x' .*does not know"):
                getattr(xp.fft, name)(y)
        for name in ("fftshift", "ifftshift"):
            with pytest.raises(ValueError, match=rf"^{name}: argument 'x' .*does not know"):
                getattr(xp.fft, name)(y)
            with pytest.raises(ValueError, match=rf"^{name}: argument 'x' .*does not know"):
                getattr(xp.fft, name)(y, axes=(ax,))
        # the other axis, known, shifts (the backend's roll; dask's concatenated there)
        np.testing.assert_array_equal(xp.to_numpy(xp.fft.fftshift(y, axes=(1 - ax,))),
                                      np.fft.fftshift(a, axes=(1 - ax,)))
    # the other axis, known, still transforms
    np.testing.assert_allclose(xp.to_numpy(xp.fft.fft(rows, axis=1)), np.fft.fft(a, axis=1))
    np.testing.assert_allclose(xp.to_numpy(xp.fft.fft(cols, axis=0)), np.fft.fft(a, axis=0))


@pytest.mark.parametrize("name", _N)
def test_fft_n_axes_check_of_the_cupy_backend_runs_before_cupy(name):
    """CuPy's fftn took repeated axes one way or another by layout; its registered
    function refuses them before CuPy is imported (a NumPy array stands in)."""
    from xstride._backends.dispatch import implementation

    fn = implementation("cupy", f"fft.{name}")
    assert fn.__module__ == "xstride._backends.fft_fixes"
    with pytest.raises(ValueError, match=f"^{name}: argument 'axes' names the axis 0 more"):
        fn(np.zeros((2, 2)), axes=(0, -2))
    with pytest.raises(IndexError, match=f"^{name}: argument 'axes' holds the axis 5"):
        fn(np.zeros((2, 2)), axes=(0, 5))


@pytest.mark.parametrize("chunks", [None, 1, 2])
@pytest.mark.parametrize("name, call", [
    ("rfft", lambda v: xp.fft.rfft(v)), ("ihfft", lambda v: xp.fft.ihfft(v, n=4)),
    ("rfftn", lambda v: xp.fft.rfftn(v, axes=(0,))),
])
def test_transforms_of_real_data_refuse_complex_input(name, call, chunks):
    """rfft, ihfft and rfftn take real input (the standard); a complex x was NumPy's
    "ufunc 'rfft_n_odd' not supported for the input types", naming no argument."""
    a = np.arange(6.0).reshape(2, 3) + 1j
    x = a if chunks is None else _d(a, chunks)
    with pytest.raises(TypeError, match=rf"^{name}: argument 'x' got .*complex128.*real-valued"):
        call(x)


@pytest.mark.parametrize("chunks", [None, 1, 3])
@pytest.mark.parametrize("name, s", [("fftn", (-1, 4)), ("ifftn", (-1, -1)),
                                     ("rfftn", (-1, -1)), ("irfftn", (3, -1))])
def test_fft_n_axes_minus_one_in_s_gives_the_input_length_in_the_shape(name, s, chunks):
    """-1 in ``s`` keeps the input's length: dask's arrays declared it as the length
    (shape (-1, 4), chunks ((-1,), (4,))) though their blocks held NumPy's result."""
    a = np.arange(6.0).reshape(3, 2) + (0 if name == "rfftn" else 1j)
    want = getattr(np.fft, name)(a, s=s, axes=(0, 1))
    got = getattr(xp.fft, name)(a if chunks is None else _d(a, chunks), s=s, axes=(0, 1))
    assert got.shape == want.shape
    if chunks is not None:
        assert tuple(sum(c) for c in got.chunks) == want.shape
    np.testing.assert_allclose(xp.to_numpy(got), want, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name", ["fftn", "ifftn"])
@pytest.mark.parametrize("dtype, want", [(np.float32, np.complex64), (np.float64, np.complex128),
                                         (np.float16, np.complex64), (np.int8, np.complex128),
                                         (np.bool_, np.complex128),
                                         (np.complex64, np.complex64)])
def test_fftn_along_no_axis_is_x_in_the_transforms_complex_dtype(backend, name, dtype, want):
    """fftn/ifftn with axes=() or s=() (or of a 0-D array) transform nothing: NumPy's
    returned x's own dtype (compat's complex64 for float32 only), dask's x itself, so
    the backends disagreed (complex64 vs float32). Now a copy of x in the dtype a
    transform along an axis gives, on both."""
    a = (np.arange(6) % 2).astype(dtype).reshape(2, 3)
    wrap = np.asarray if backend == "numpy" else (lambda v: _d(v, ()) if v.ndim == 0 else _d(v))
    fn = getattr(xp.fft, name)
    assert fn(wrap(a)).dtype == want                  # along every axis: the reference
    for got in (fn(wrap(a), axes=()), fn(wrap(a), s=()), fn(wrap(a), axes=(), norm="ortho"),
                fn(wrap(a[0, 0].copy()))):
        assert got.dtype == want
        h = xp.to_numpy(got)
        assert h.dtype == want
        np.testing.assert_array_equal(h, a if h.ndim else a[0, 0])
    x = wrap(a)
    got = fn(x, axes=())
    assert got is not x


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("axes", [1, -1, (1,), (1, 1), ()])
def test_shifts_along_known_axes_of_an_array_with_unknown_lengths(name, axes):
    """A new-user probe: rows selected by a boolean mask (axis 0 of unknown length)
    refused a shift along axis 1, naming axes (0, 1); dask's shift also failed to
    concatenate there. A shift along known axes is now the backend's roll; one along an
    unknown axis names only the requested ones."""
    a = np.arange(60.0).reshape(6, 10)
    x = da.from_array(a, chunks=(2, 3))
    rows = x[x[:, 0] > 15]
    got = getattr(xp.fft, name)(rows, axes=axes).compute()
    np.testing.assert_array_equal(got, getattr(np.fft, name)(a[a[:, 0] > 15], axes=axes))
    with pytest.raises(ValueError, match=rf"^{name}: argument 'x' has shape \(nan, 10\), "
                                         r"with lengths dask does not know .* along the "
                                         r"axes \(0,\), which"):
        getattr(xp.fft, name)(rows, axes=0)
