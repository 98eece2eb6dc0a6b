"""``clip``'s bounds (Python scalars, arrays) against ``x``'s dtype, on the NumPy and dask
backends (``xstride/_backends/clip_checks.py``)."""

import numpy as np
import pytest

import xstride as xp
from xstride._backends import dispatch, registry


def _on(backend, a):
    if backend == "numpy":
        return a
    with xp.use_backend("dask", chunks=1):
        return xp.asarray(a)


BACKENDS = ["numpy", "dask"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x, kw, arg", [
    (np.array([True, False]), dict(max=-1), "max"),            # was [T, F] / [T, T]
    (np.array([True, False]), dict(min=-200, max=300), "min"),  # was [True, True]
    (np.array([True, False]), dict(min=0.5), "min"),
    (np.array([-3, 0, 5], np.int8), dict(min=0.5), "min"),     # was truncated to 0
    (np.array([-3, 0, 5], np.int8), dict(min=1e40), "min"),    # unnamed / 0 on dask
    (np.array([1.0, 2.0]), dict(min=1j), "min"),               # AttributeError on dask
    (np.array([1.0, 2.0]), dict(max="a"), "max"),
    (np.array([1.0, 2.0]), dict(min=[1, 2]), "min"),
])
def test_scalar_bound_of_another_kind_is_refused(backend, x, kw, arg):
    with pytest.raises(TypeError, match=rf"clip: argument '{arg}' got .*dtype {x.dtype}"):
        xp.to_numpy(xp.clip(_on(backend, x), **kw))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype, kw, arg", [
    (np.int8, dict(min=300), "min"), (np.int8, dict(max=-300), "max"),
    (np.uint8, dict(max=-1), "max"),   # dask wrapped: [44, ...], [255, ...]
])
def test_int_bound_past_the_far_end_is_an_overflow_on_both_backends(backend, dtype, kw, arg):
    with pytest.raises(OverflowError, match=rf"clip: argument '{arg}' .*{np.dtype(dtype)}"):
        xp.to_numpy(xp.clip(_on(backend, np.array([0, 5, 100], dtype)), **kw))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x, kw, want", [
    (np.array([True, False]), dict(min=True), [True, True]),
    (np.array([True, False]), dict(), [True, False]),          # dask: "positive" refused bools
    (np.array([-3, 0, 120], np.int8), dict(min=-1000, max=7), [-3, 0, 7]),
    (np.array([-3, 0, 120], np.int8), dict(min=True, max=np.int64(5)), [1, 1, 5]),
    (np.array([1.0, 2.5]), dict(min=2, max=2.25), [2.0, 2.25]),
    (np.array([1 + 1j, 3j]), dict(min=0.5, max=2 + 0j), [1 + 1j, 0.5]),  # dask: AttributeError
])
def test_bounds_the_standard_allows(backend, x, kw, want):
    got = xp.to_numpy(xp.clip(_on(backend, x), **kw))
    assert got.dtype == x.dtype and got.tolist() == want


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x, kw, arg", [
    (np.array([1.5, -2.0, 3.0], np.float32), dict(min=np.zeros(3, np.int64)), "min"),
    (np.array([1, -2, 3], np.int8), dict(min=np.array([0.5, 0.0, 0.0])), "min"),  # truncated
    (np.array([1, -2, 3], np.int8), dict(max=np.array([300, 1, 1], np.int16)), "max"),
    (np.array([1, -2, 3], np.int8), dict(max=np.ones(3, np.uint8)), "max"),   # int16 by both
    (np.array([1, 2], np.int64), dict(max=np.ones(2, np.uint64)), "max"),     # float64 by NumPy
    (np.array([True, False]), dict(max=np.zeros(2, np.int8)), "max"),
    (np.array([1.0, -2.0]), dict(max=np.array([1j, 1.0])), "max"),           # lost its 1j
    (np.array([1.0, -2.0], np.float32), dict(min=np.float32(0), max=np.ones(2)), "max"),
])
def test_array_bound_of_a_dtype_that_does_not_promote_to_x_s_is_refused(backend, x, kw, arg):
    """An array bound "should have the same data type as x" (the standard's clip); the
    library cast one of another dtype to x's (a float bound of int8 truncated, int16 300
    wrapped, a complex bound lost its imaginary part) alike on both backends, with no
    word of it: now a TypeError naming the bound on both."""
    bound = kw[arg]
    with pytest.raises(TypeError, match=rf"^clip: argument '{arg}' got .*dtype={bound.dtype}\)"
                                        rf"; expected .*array of dtype {x.dtype} \(the dtype "
                                        r"of x"):
        xp.to_numpy(xp.clip(_on(backend, x), **{k: _on(backend, v) for k, v in kw.items()}))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x, kw, want", [
    (np.array([1, -2, 3]), dict(max=np.ones(3, np.int8)), [1, -2, 1]),   # NumPy: OverflowError
    (np.array([1, -2, 300], np.int16), dict(min=np.zeros(3, np.uint8), max=np.int16(7)),
     [1, 0, 7]),
    (np.array([1.5, -2.0, 3.0]), dict(min=np.zeros(3, np.float32)), [1.5, 0.0, 3.0]),
    (np.array([2 + 1j, -1j]), dict(max=np.ones(2, np.float32)), [1 + 0j, -1j]),
    (np.array([1.5, -2.0], np.float32), dict(min=np.zeros(2, np.float32)), [1.5, 0.0]),
])
def test_array_bound_of_x_s_dtype_or_one_that_promotes_to_it(backend, x, kw, want):
    """A narrower dtype of the same kind (or a real float bound of a complex x) holds
    every value in x's dtype: it is taken, with the same answer on both backends (the
    NumPy backend's int64 x with an int8 bound was an unnamed OverflowError, "Python
    integer 9223372036854775807 out of bounds for int8")."""
    got = xp.to_numpy(xp.clip(_on(backend, x), **{k: _on(backend, v) for k, v in kw.items()}))
    assert got.dtype == x.dtype and got.tolist() == want


def _read_only(a):
    a = np.array(a)
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("x, kw, want", [
    (np.array([1, -2, 3], np.int8), dict(min=np.broadcast_to(np.int8(0), (3,))), [1, 0, 3]),
    (np.array([1, -2, 3], np.int64), dict(max=_read_only([2, 2, 2])), [1, -2, 2]),
    (np.array([1.0, -2.0, 3.0], ">f8"), dict(min=0.0, max=2.0), [1.0, 0.0, 2.0]),
    (np.array([1, -2, 300], ">i2"), dict(min=np.zeros(3, ">i2"), max=7), [1, 0, 7]),
])
def test_read_only_bounds_and_byte_swapped_x(backend, x, kw, want):
    """On NumPy, array_api_compat's clip (1.16) wrote into an integer x's array bounds
    (a read-only one, a broadcast_to view, was "clip: assignment destination is
    read-only") and refused an x of non-native byte order ("Cannot cast ufunc 'clip'
    input 0 from dtype('>f8')"); dask answered both. The bound is left as it was."""
    before = {k: np.array(v, copy=True) for k, v in kw.items() if isinstance(v, np.ndarray)}
    got = xp.to_numpy(xp.clip(_on(backend, x), **{k: _on(backend, v) if isinstance(
        v, np.ndarray) else v for k, v in kw.items()}))
    assert got.dtype == x.dtype and got.tolist() == want
    for k, v in before.items():
        assert kw[k].tolist() == v.tolist()


def test_the_checks_are_every_backend_s_clip():
    """One check for all: the CuPy backend's clip went to array_api_compat unchecked."""
    for name in registry.REGISTRY:
        assert dispatch.implementation(name, "clip").__module__ == "xstride._backends.clip_checks"




@pytest.mark.parametrize("x, kw, exc, arg", [
    (np.array([True, False]), dict(min=-200), TypeError, "min"),
    (np.array([-3, 0, 5], np.int8), dict(min=0.5), TypeError, "min"),
    (np.array([1.0, 2.0]), dict(max="a"), TypeError, "max"),
    (np.array([-3, 0, 5], np.int8), dict(min=300), OverflowError, "min"),
    (np.array([1, 2], np.int8), dict(max=np.array([1, 1], np.int16)), TypeError, "max"),
])
def test_cupy_clip_checks_its_bounds_before_cupy(cupy_compat, x, kw, exc, arg):
    """The check runs on CuPy arrays too (a stand-in CuPy: its registration, not CuPy's
    kernels), before array_api_compat's clip is called."""
    compat, fake = cupy_compat, cupy_compat.cupy
    kw = {k: fake.ndarray(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    with pytest.raises(exc, match=rf"^clip: argument '{arg}' .*{x.dtype}"):
        xp.clip(fake.ndarray(x), **kw)
    assert compat.calls == []


def test_cupy_clip_hands_the_checked_bounds_to_one_kernel(cupy_compat, monkeypatch):
    """Integer and real floating ``x``: one ``ElementwiseKernel`` into a new array of
    ``x``'s dtype (scalar bounds converted to it, a near-end int dropped, an array bound
    converted to ``x``'s dtype); bool and complex ``x``: array_api_compat's."""
    compat, fake = cupy_compat, cupy_compat.cupy
    clips = []   # (kernel's in_params, its arguments) of each launch

    class Kernel:   # runs the kernel's operation on the host, as the device would
        def __init__(self, in_params, out_params, operation, name):
            assert out_params == "T out" and name.startswith("xs_clip")
            self.params, self.operation = in_params, operation

        def __call__(self, *args):
            clips.append((self.params, args))
            x, *bounds, out = args
            v = np.broadcast_to(x.host, out.shape).copy()
            names = [p.split()[1] for p in self.params.split(", ")[1:]]
            for name, b in zip(names, bounds):
                b = np.broadcast_to(getattr(b, "host", b), v.shape)
                hit = (v < b if name == "lo" else v > b) | (b != b)
                assert f"v {'<' if name == 'lo' else '>'} {name} || {name} != {name}" \
                    in self.operation
                v[hit] = b[hit]
            out.host[...] = v

    monkeypatch.setattr(fake, "ElementwiseKernel", Kernel, raising=False)
    monkeypatch.setattr(fake.ndarray, "astype", lambda self, dt, copy=True: self
                        if self.host.dtype == dt and not copy
                        else fake.ndarray(self.host.astype(dt)), raising=False)
    i8 = fake.ndarray(np.array([-3, 0, 5], np.int8))
    b = fake.ndarray(np.zeros((2, 3), np.int8))
    got = xp.clip(i8, -1000, 4)
    (params, (x, hi, out)), = clips
    assert params == "T x, T hi" and x is i8 and type(hi) is np.int8 and hi == 4
    assert out is got and got.dtype == np.int8 and got.host.tolist() == [-3, 0, 4]
    clips.clear()
    got = xp.clip(i8, np.int64(-2), max=b)          # a NumPy scalar: its Python value
    (params, (x, lo, hi, out)), = clips
    assert params == "T x, T lo, T hi" and x is i8 and hi is b
    assert lo == -2 and type(lo) is np.int8
    assert got.shape == (2, 3) and got.host.tolist() == [[-2, 0, 0]] * 2
    clips.clear()
    wide = fake.ndarray(np.array([1, 1, 1], np.int8))
    got = xp.clip(fake.ndarray(np.array([-3, 0, 5], np.int64)), wide)   # int8 bound of int64
    (_, (_, lo, _)), = clips
    assert lo.host.dtype == np.int64 and got.host.tolist() == [1, 1, 5]
    f4 = fake.ndarray(np.array([0.5, 2.0, -1.0, np.nan], np.float32))
    clips.clear()
    got = xp.clip(f4, True, 1.5)
    assert [type(v) for v in clips[0][1][1:3]] == [np.float32, np.float32]
    assert got.dtype == np.float32 and got.host.tolist()[:3] == [1.0, 1.5, 1.0]
    assert np.isnan(got.host[3])
    clips.clear()
    got = xp.clip(f4, float("nan"), 1.5)              # a NaN bound gives NaN
    assert np.isnan(got.host).all()
    clips.clear()
    got = xp.clip(i8)                                 # no bounds: a copy, no clip
    assert clips == [] and got is not i8 and got.host.tolist() == [-3, 0, 5]
    assert compat.calls == []
    # bool x, complex x: array_api_compat's clip
    bools, z = fake.ndarray(np.array([True, False])), fake.ndarray(np.array([1j, 2.0]))
    assert xp.clip(bools, False, True) == "clip"
    assert compat.calls == [("clip", (bools, False, True), {})]
    compat.calls.clear()
    xp.clip(z, min=0.5, max=2 + 0j)   # compat's clip reads the shape of a complex bound
    assert [(name, args) for name, args, _ in compat.calls] == [
        ("asarray", (2 + 0j,)), ("clip", (z, 0.5, "asarray"))]
    assert compat.calls[0][2] == {"dtype": np.complex128}
    assert clips == []

def test_numpy_clip_of_masked_arrays_keeps_the_mask():
    """NumPy backend: ``numpy.ma`` operands keep their masks, as NumPy's ``clip`` of a
    masked array and the dask backend's clip of masked chunks do (compat's clip returned
    a plain array, the masked elements shown clipped)."""
    a = np.array([1.0, 2.0, 3.0, -4.0])
    m = np.ma.masked_array(a, mask=[False, True, False, True])
    got = xp.clip(m, 0.0, 1.5)
    assert np.ma.isMaskedArray(got) and got.dtype == np.float64
    assert np.ma.getmaskarray(got).tolist() == [False, True, False, True]
    assert got.compressed().tolist() == [1.0, 1.5]
    assert np.ma.getmaskarray(np.clip(m, 0.0, 1.5)).tolist() == [False, True, False, True]
    assert np.ma.getmaskarray(xp.clip(m)).tolist() == [False, True, False, True]
    lo = np.ma.masked_array(np.zeros(4), mask=[True, False, False, False])
    got = xp.clip(a, lo, None)   # a masked bound masks the result where it is masked
    assert np.ma.getmaskarray(got).tolist() == [True, False, False, False]
    assert got.compressed().tolist() == [2.0, 3.0, 0.0]
    xi = np.ma.masked_array(np.array([[1, 2, 3]], dtype=np.int8), mask=[[False, False, True]])
    hi = np.ma.masked_array(np.array([[1], [2]], dtype=np.int8), mask=[[True], [False]])
    got = xp.clip(xi, None, hi)   # broadcast: the masks too
    assert got.dtype == np.int8 and got.shape == (2, 3)
    assert np.ma.getmaskarray(got).tolist() == [[True, True, True], [False, False, True]]
    assert got.compressed().tolist() == [1, 2]
    with pytest.raises(TypeError, match="^clip: argument 'min'"):   # checked as before
        xp.clip(m, 0.5j)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("lo, hi, name, match", [
    (None, [1.0, 2.0, 3.0], "max", r"has shape \(3,\), which does not broadcast with x's "
                                   r"shape \(2,\)"),
    ([1.0, 2.0, 3.0], 5.0, "min", r"has shape \(3,\), which does not broadcast with x's"),
    ([[0.0], [1.0]], [1.0, 2.0, 3.0], "max", r"has shape \(3,\), which does not broadcast "
                                             r"with the shape of x and min .* \(2, 2\)"),
])
def test_array_bounds_of_shapes_that_do_not_broadcast_are_named(backend, lo, hi, name, match):
    """NumPy's said "shape mismatch: ... Mismatch is between arg 0 with shape (2,) and
    arg 2 with shape (3,)", dask's "Chunks do not add up to shape. Got chunks=((2, 1),),
    shape=(2,)": neither named the bound."""
    x = _on(backend, np.array([1.0, 2.0]))
    lo, hi = (v if v is None or isinstance(v, float) else _on(backend, np.array(v))
              for v in (lo, hi))
    with pytest.raises(ValueError, match=rf"^clip: argument '{name}' {match}"):
        xp.clip(x, lo, hi)
    got = xp.clip(x, _on(backend, np.array([[0.0], [1.5]])), 1.75)
    assert xp.to_numpy(got).tolist() == [[1.0, 1.75], [1.5, 1.75]]
