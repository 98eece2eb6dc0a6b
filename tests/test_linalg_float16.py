"""float16 in the linear algebra functions on the NumPy and dask backends: refused with
one message naming the argument where NumPy's LAPACK has no float16 routine, NumPy's
answer where it has one (split from tests/test_dask_linalg.py)."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

import xstride as xp  # noqa: E402
from tests.test_dask_conformance import _numpy_after  # noqa: E402,F401  (autouse fixture)


@pytest.mark.parametrize("name", ["inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh",
                                  "eig", "eigvals", "svd", "svdvals", "qr", "pinv",
                                  "matrix_rank", "solve"])
def test_float16_matrices_are_refused_at_the_call(name):
    """NumPy's linalg refuses float16 at the call; dask's tasks took it and raised
    NumPy's unnamed "array type float16 is unsupported in linalg" when computed."""
    a = np.eye(3, dtype=np.float16)
    x = da.from_array(a, chunks=1)
    args = (x, da.from_array(np.eye(3), chunks=1)) if name == "solve" else (x,)
    with pytest.raises(TypeError, match=f"^{name}: argument 'x1?' got .*float16"):
        getattr(xp.linalg, name)(*args)
    with pytest.raises(TypeError):
        getattr(xp.linalg, name)(*(np.asarray(t) for t in args))
    if name == "solve":
        with pytest.raises(TypeError, match="^solve: argument 'x2' got .*float16"):
            xp.linalg.solve(da.from_array(np.eye(3), chunks=1), x)


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (3, 0), (2, 0, 0), (3, 3)])
@pytest.mark.parametrize("name", ["matrix_rank", "pinv"])
def test_float16_matrices_are_refused_empty_or_not_on_both_backends(backend, shape, name):
    """A review: the NumPy backend answered matrix_rank and pinv of an empty float16
    matrix (0, an empty float16 pinv) while dask's refused it at the call; NumPy's linalg
    refuses float16 (its matrix_rank even when empty): both refuse, with one message."""
    with xp.use_backend(backend):
        x = xp.ones(shape, dtype=xp.float16)
    with pytest.raises(TypeError, match=rf"^{name}: argument 'x' got .*float16.*; expected "
                                        r"a float32, float64, complex, integer or bool "
                                        r"array \(float16 is unsupported in linalg"):
        getattr(xp.linalg, name)(x)
    # float32 of the same shape still runs
    with xp.use_backend(backend):
        y = xp.ones(shape, dtype=xp.float32)
    assert xp.to_numpy(getattr(xp.linalg, name)(y)).dtype in (np.float32, np.int64)


_F16_CALLS = {
    "inv": lambda x, y: xp.linalg.inv(x), "det": lambda x, y: xp.linalg.det(x),
    "slogdet": lambda x, y: xp.linalg.slogdet(x), "svd": lambda x, y: xp.linalg.svd(x),
    "svdvals": lambda x, y: xp.linalg.svdvals(x), "eigh": lambda x, y: xp.linalg.eigh(x),
    "eigvalsh": lambda x, y: xp.linalg.eigvalsh(x), "eig": lambda x, y: xp.linalg.eig(x),
    "eigvals": lambda x, y: xp.linalg.eigvals(x),
    "cholesky": lambda x, y: xp.linalg.cholesky(x), "qr": lambda x, y: xp.linalg.qr(x),
    "solve": lambda x, y: xp.linalg.solve(x, y),
    "solve-x2": lambda x, y: xp.linalg.solve(y, x),
    "matrix_norm": lambda x, y: xp.linalg.matrix_norm(x, ord=2),
    "matrix_norm-nuc": lambda x, y: xp.linalg.matrix_norm(x, ord="nuc"),
    "matrix_power": lambda x, y: xp.linalg.matrix_power(x, -1),
    "matrix_power-neg2": lambda x, y: xp.linalg.matrix_power(x, -2),
}


@pytest.mark.parametrize("case", sorted(_F16_CALLS))
def test_float16_refused_on_the_numpy_backend_naming_the_argument(case):
    """A review: on the NumPy backend the linalg functions other than matrix_rank/pinv
    raised NumPy's unnamed "array type float16 is unsupported in linalg" (inv, det and
    eigvalsh would have named NumPy's 'a'), while the dask backend named the argument:
    now the dask backend's message, asked on NumPy's error only."""
    func = case.split("-")[0]
    arg = "x2" if case == "solve-x2" else "x1" if func == "solve" else "x"
    want = (rf"^{func}: argument '{arg}' got numpy.ndarray\(shape=\(3, 3\), dtype=float16\); "
            r"expected a float32, float64, complex, integer or bool array \(float16 is "
            r"unsupported in linalg, as in NumPy\)$")
    a = np.eye(3, dtype=np.float16)
    with pytest.raises(TypeError, match=want):
        _F16_CALLS[case](a, np.eye(3))
    with pytest.raises(TypeError, match=want.replace("numpy.ndarray", "dask.Array")):
        _F16_CALLS[case](da.from_array(a, chunks=1), da.from_array(np.eye(3), chunks=1))
    # float32 still runs
    _F16_CALLS[case](a.astype(np.float32), np.eye(3, dtype=np.float32))


def test_float16_norms_and_powers_are_numpys():
    a = np.eye(3, dtype=np.float16)
    x = da.from_array(a, chunks=1)
    for ord in ("fro", 1, np.inf):
        got = xp.linalg.matrix_norm(x, ord=ord)
        assert got.dtype == np.linalg.matrix_norm(a, ord=ord).dtype
    with pytest.raises(TypeError, match="^matrix_norm: argument 'x' got .*float16"):
        xp.linalg.matrix_norm(x, ord=2)
    assert xp.linalg.matrix_power(x, 2).dtype == np.float16
