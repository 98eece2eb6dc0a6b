"""var/std of short rows loaded as 16-byte words: dense rows in registers
(``xs_var_rowregs``, chosen by ``var_kernels.var_regs_q``) and rows side by side
(``xs_var_side``, ``var_kernels.var_side_ok``), both in ``reduce_finish.cu``: which
rows they take from ``xs_var_rows``, their launches and, behind the executor on the
stand-in CuPy of tests/conftest.py, NumPy's values (CPU); they compile under NVRTC
with the parameters the launcher packs (CPU); on the GPU, the bits of ``xs_var_rows``
(the same arithmetic per row) for every ``TUNING`` variant."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import xstride as xp
from xstride._kernels import _reduce_common as rc
from xstride._kernels import var_kernels as vk

from tests.conftest import FakeCupyArray
from tests.test_reduce_rows import fake_rows  # noqa: F401  (fixture)

ROWLENS = (2, 3, 4, 5, 6, 7, 9, 10, 14, 16)
DTYPES = ("float32", "int32", "int16", "uint8")


def _expected_q(k: int, itemsize: int, out_size: int, tuning) -> int:
    """The rows a thread by the rule, found by counting: for 4-byte elements, the fewest
    rows that fill whole 16-byte words, doubled within the tuning's bytes and 32 bytes
    of outputs."""
    minb, within, most = tuning
    if not minb or itemsize != 4 or (k * itemsize) % 16 == 0:
        return 0
    q = 1
    while (q * k * itemsize) % 16:
        q += 1
    if q * k * itemsize > most or q * out_size > 32:
        return 0
    while 2 * q * k * itemsize <= within and 2 * q * out_size <= 32:
        q *= 2
    return q


def _reference(func, h, correction):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(np, func)(h.astype(np.float64), axis=1, ddof=correction)


@pytest.mark.parametrize("tuning", rc.VARIANTS["var_regs"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_dense_rows_launch_and_values(fake_rows, monkeypatch, tuning, dtype):  # noqa: F811
    """Dense rows on a 16-byte boundary that are not whole words go to
    ``xs_var_rowregs`` with the rule's Q (its grid covering the rows Q at a time and
    256 threads a block), the rest to ``xs_var_rows``; both give NumPy's float64
    var/std, rounded to the result type, on row counts that leave a thread's last rows
    partly past the end."""
    monkeypatch.setitem(rc.TUNING, "var_regs", tuning)
    log = fake_rows
    dt = np.dtype(dtype)
    out = np.dtype(np.float32 if dt == np.float32 else np.float64)
    ctype, ftype = rc.CTYPE[dt], vk.FINISH_TYPES[out]
    rng = np.random.default_rng(7)
    taken = 0
    for k in ROWLENS:
        for nrows in (300, 256 * 4 * 3 + 5):
            h = (rng.standard_normal((nrows, k)) * 20 + 3).astype(dt)
            for func, correction in (("var", 0), ("std", 1)):
                got = getattr(xp, func)(FakeCupyArray(h), axis=1, correction=correction)
                want = _reference(func, h, correction).astype(out)
                np.testing.assert_allclose(got.get(), want, rtol=2e-6 if out == np.float32
                                           else 1e-12, err_msg=f"{k} {nrows} {func}")
                expr = log[-1][0]
                q = _expected_q(k, dt.itemsize, out.itemsize, tuning)
                if q:
                    root = "true" if func == "std" else "false"
                    assert expr == (f"xs_var_rowregs<{ctype}, {ftype}, {k}, {q}, {root}, "
                                    f"{tuning[0]}>"), (k, expr)
                    assert log[-1][1] == (-(-nrows // (256 * q)),) and log[-1][2] == (256,)
                    taken += 1
                else:
                    assert expr.startswith("xs_var_rows<"), (k, expr)
    if tuning[0] and dt.itemsize == 4:
        assert taken >= 12    # the register kernel served rows of several lengths


def test_views_off_the_rule_keep_the_rows_kernel(fake_rows, fake_cupy, monkeypatch):  # noqa: F811
    """Rows off a 16-byte boundary and every other row go to ``xs_var_rows``; rows of
    a transposed array to ``xs_var_side`` (to ``xs_var_rows`` off the boundary);
    reversed rows (each read from its lowest address, as the plan gives them) and a
    row-aligned slice stay on the register kernel. Values: NumPy's."""
    monkeypatch.setitem(rc.TUNING, "var_regs", (4, 48, 128))
    log = fake_rows
    base = (np.random.default_rng(3).standard_normal(3 * 4001 + 1) * 5).astype(np.float32)
    cases = [
        (base[1:].reshape(4001, 3), "xs_var_rows<"),            # 4 bytes past the boundary
        (base[:12000].reshape(4000, 3)[::2], "xs_var_rows<"),   # every other row
        (base[:12000].reshape(3, 4000).T, "xs_var_side<float, float, 4,"),   # side by side
        (base[1:12001].reshape(3, 4000).T, "xs_var_rows<"),     # the same, 4 bytes off
        (base[:12000].reshape(4000, 3)[:, ::-1], "xs_var_rowregs<float, float, 3, 4,"),
        (base[:12000].reshape(4000, 3)[4:], "xs_var_rowregs<float, float, 3, 4,"),  # 48 bytes in
    ]
    for h, prefix in cases:
        x = FakeCupyArray(h)
        got = xp.var(x, axis=1)
        np.testing.assert_allclose(got.get(), _reference("var", h, 0).astype(np.float32),
                                   rtol=2e-6)
        assert log[-1][0].startswith(prefix), (h.strides, log[-1][0])
    # an output off a 16-byte boundary (an allocator other than CuPy's pool): the rows
    # kernel for dense rows and rows side by side alike (their words are stored whole)
    for h in (base[:12000].reshape(4000, 3), base[:12000].reshape(3, 4000).T):
        fake_cupy.misalign, fake_cupy.misalign_n = 4, 1
        got = xp.var(FakeCupyArray(h), axis=1)
        assert fake_cupy.misalign_n == 0 and got.data.ptr % 16 == 4
        np.testing.assert_allclose(got.get(), _reference("var", h, 0).astype(np.float32),
                                   rtol=2e-6)
        assert log[-1][0].startswith("xs_var_rows<"), log[-1][0]
    # a broadcast reduced axis (stride 0) side by side: the side kernel reads it
    h = np.broadcast_to(base[:4096], (3, 4096)).T
    got = xp.var(FakeCupyArray(h), axis=1)
    np.testing.assert_array_equal(got.get(), np.zeros(4096, np.float32))
    assert log[-1][0].startswith("xs_var_side<"), log[-1][0]


def test_every_rule_input_is_checked():
    """``var_regs_q`` refuses what the kernel cannot read as whole words of rows stored
    one after another: 8-byte elements, two kept axes, a reduced stride other than 1,
    rows not ``rowlen`` apart, MINB 0."""
    from types import SimpleNamespace as P

    f4 = np.dtype(np.float32)
    dense = dict(nk=1, nr=1, rstride=(1,), kstride=(3,), rowlen=3)
    assert vk.var_regs_q(P(**dense), 4, 0, f4, (4, 48, 128)) == 4
    for change, itemsize, tuning in ((dict(), 8, (4, 48, 128)), (dict(nk=2), 4, (4, 48, 128)),
                                     (dict(rstride=(2,)), 4, (4, 48, 128)),
                                     (dict(kstride=(6,)), 4, (4, 48, 128)),
                                     (dict(), 4, (0, 48, 128))):
        plan = P(**(dense | change))
        assert vk.var_regs_q(plan, itemsize, 0, f4, tuning) == 0, (change, itemsize, tuning)


ROWREGS = [f"xs_var_rowregs<{tin}, {tout}, {k}, {q}, {root}, {minb}>"
           for tin, tout, k, q, minb in (("float", "float", 3, 4, 4), ("float", "float", 7, 4, 4),
                                         ("float", "float", 2, 8, 3), ("int", "double", 3, 4, 4),
                                         ("short", "double", 6, 4, 4),
                                         ("unsigned char", "double", 12, 4, 4))
           for root in ("true", "false")]


def test_every_register_kernel_compiles_with_the_packed_parameter_sizes():
    from tests.test_cuda_headers_nvrtc import compile_named, nvrtc, ptx_param_sizes
    from xstride._kernels._compile import source

    if nvrtc is None:
        pytest.skip("cuda-bindings/nvrtc not importable")
    lowered, ptx = compile_named(source("reduce_finish.cu"), ROWREGS, "sm_90",
                                 "reduce_finish.cu")
    for name in ROWREGS:   # x, out, nrows, dof
        assert ptx_param_sizes(ptx, lowered[name]) == [8, 8, 8, 8], name


@pytest.mark.gpu
@pytest.mark.parametrize("tuning", [t for t in rc.VARIANTS["var_regs"] if t[0]])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_register_kernel_has_the_bits_of_the_rows_kernel(cp, monkeypatch, tuning, dtype):
    """The same rows through ``xs_var_rowregs`` and through ``xs_var_rows``
    (``TUNING["var_regs"]`` off): the same bits (each row's arithmetic is one device
    function), NumPy's values within float32's rounding, NaN and infinities where
    NumPy has them; every row length the rule takes was launched on the register
    kernel."""
    spy = []
    launch = vk._rowregs_launch

    def recording(plan, x, q, root, out_dtype):
        spy.append((plan.rowlen, q))
        return launch(plan, x, q, root, out_dtype)

    monkeypatch.setattr(vk, "_rowregs_launch", recording)
    rng = np.random.default_rng(17)
    dt = np.dtype(dtype)
    out_size = 4 if dt == np.float32 else 8
    for k in ROWLENS:
        for nrows in (256, 256 * 8 * 3 + 7, 100_003):
            h = (rng.standard_normal((nrows, k)) * 30 + 5).astype(dt)
            if dt.kind == "f" and nrows > 256:
                h[5, 0], h[6, k - 1], h[7, :] = np.nan, np.inf, -np.inf
            x = cp.asarray(h)
            for func, correction in (("var", 0), ("std", 1), ("var", k)):
                monkeypatch.setitem(rc.TUNING, "var_regs", tuning)
                monkeypatch.setattr(vk, "_VAR_ROWS", vk.Bounded(256))
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    got = cp.asnumpy(getattr(xp, func)(x, axis=1, correction=correction))
                    monkeypatch.setitem(rc.TUNING, "var_regs", (0, 0, 0))
                    monkeypatch.setattr(vk, "_VAR_ROWS", vk.Bounded(256))
                    want = cp.asnumpy(getattr(xp, func)(x, axis=1, correction=correction))
                assert got.tobytes() == want.tobytes(), (k, nrows, func, correction)
                ref = _reference(func, h, correction).astype(got.dtype)
                np.testing.assert_allclose(got, ref, rtol=2e-6 if out_size == 4 else 1e-12)
    taken = {k for k, q in spy}
    assert taken == {k for k in ROWLENS
                     if _expected_q(k, dt.itemsize, out_size, tuning)}, (taken, spy)
    assert taken   # not vacuous: some row length took the register kernel


@pytest.mark.parametrize("minb", rc.VARIANTS["var_side"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "float64"])
def test_side_rows_launch_and_values(fake_rows, monkeypatch, minb, dtype):  # noqa: F811
    """Rows of 2 to 4 elements of 4 bytes side by side ((k, n) arrays used as .T, a
    multiple of 4 of them, on a 16-byte boundary) go to ``xs_var_side`` (its grid over
    the groups of 4 rows, 256 threads a block, the stride, rows and length packed);
    other counts, lengths, offsets and 8-byte elements to ``xs_var_rows``. Values:
    NumPy's float64 var/std rounded to the result type."""
    monkeypatch.setitem(rc.TUNING, "var_side", minb)
    log = fake_rows
    dt = np.dtype(dtype)
    out = np.dtype(np.float32 if dt == np.float32 else np.float64)
    rng = np.random.default_rng(9)
    taken = 0
    for k, n, start in ((2, 4096, 0), (3, 4096, 0), (4, 1028, 0), (5, 4096, 0), (3, 4098, 0),
                        (3, 4100, 1), (3, 4100, 4)):
        base = (rng.standard_normal((k, n)) * 9 - 2).astype(dt)
        h = base[:, start:].T                     # rows side by side, start elements in
        for func, correction in (("var", 0), ("std", 1)):
            got = getattr(xp, func)(FakeCupyArray(h), axis=1, correction=correction)
            want = _reference(func, h, correction).astype(out)
            np.testing.assert_allclose(got.get(), want, rtol=2e-6 if out == np.float32
                                       else 1e-12, err_msg=f"{k} {n} {start} {func}")
            expr, grid, block, args = log[-1]
            nrows = n - start
            if (minb and dt.itemsize == 4 and 2 <= k <= 4 and nrows % 4 == 0
                    and start % 4 == 0):
                root = "true" if func == "std" else "false"
                assert expr == (f"xs_var_side<{rc.CTYPE[dt]}, {vk.FINISH_TYPES[out]}, 4, "
                                f"{root}, {minb}>"), (k, n, start, expr)
                assert grid == (min(-(-nrows // 1024), vk.SHORT_MAX_BLOCKS),) and block == (256,)
                assert [int.from_bytes(b, "little") for b in args[2:5]] == [n, nrows, k]
                taken += 1
            else:
                assert expr.startswith("xs_var_rows<"), (k, n, start, expr)
    assert taken == (0 if not minb or dt.itemsize != 4 else 2 * 4)


SIDE = [f"xs_var_side<{tin}, {tout}, 4, {root}, {minb}>"
        for tin, tout, minb in (("float", "float", 4), ("int", "double", 4), ("float", "float", 3))
        for root in ("true", "false")]


def test_every_side_kernel_compiles_with_the_packed_parameter_sizes():
    from tests.test_cuda_headers_nvrtc import compile_named, nvrtc, ptx_param_sizes
    from xstride._kernels._compile import source

    if nvrtc is None:
        pytest.skip("cuda-bindings/nvrtc not importable")
    lowered, ptx = compile_named(source("reduce_finish.cu"), SIDE, "sm_90", "reduce_finish.cu")
    for name in SIDE:   # x, out, s, nrows, rowlen, dof
        assert ptx_param_sizes(ptx, lowered[name]) == [8] * 6, name


@pytest.mark.gpu
@pytest.mark.parametrize("minb", [m for m in rc.VARIANTS["var_side"] if m])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_side_kernel_has_the_bits_of_the_rows_kernel(cp, monkeypatch, minb, dtype):
    """Rows side by side through ``xs_var_side`` and through ``xs_var_rows``
    (``TUNING["var_side"]`` 0): the same bits, NumPy's values, NaN and infinities where
    NumPy has them; the side kernel launched for every row length it takes."""
    spy = []
    launch = vk._side_launch

    def recording(plan, x, root, out_dtype):
        spy.append(plan.rowlen)
        return launch(plan, x, root, out_dtype)

    monkeypatch.setattr(vk, "_side_launch", recording)
    rng = np.random.default_rng(23)
    dt = np.dtype(dtype)
    for k in (2, 3, 4):
        for n in (1024, 4 * 40_001):
            h = (rng.standard_normal((k, n)) * 30 + 5).astype(dt)
            if dt.kind == "f":
                h[0, 5], h[k - 1, 6], h[:, 7] = np.nan, np.inf, -np.inf
            x = cp.asarray(h).T
            for func, correction in (("var", 0), ("std", 1), ("var", k)):
                monkeypatch.setitem(rc.TUNING, "var_side", minb)
                monkeypatch.setattr(vk, "_VAR_ROWS", vk.Bounded(256))
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    got = cp.asnumpy(getattr(xp, func)(x, axis=1, correction=correction))
                    monkeypatch.setitem(rc.TUNING, "var_side", 0)
                    monkeypatch.setattr(vk, "_VAR_ROWS", vk.Bounded(256))
                    want = cp.asnumpy(getattr(xp, func)(x, axis=1, correction=correction))
                assert got.tobytes() == want.tobytes(), (k, n, func, correction)
                ref = _reference(func, h.T, correction).astype(got.dtype)
                np.testing.assert_allclose(got, ref, rtol=2e-6 if dt == np.float32 else 1e-12)
    assert set(spy) == {2, 3, 4}
