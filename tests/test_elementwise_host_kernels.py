"""The engine's generated kernels run on the host (tests/_host_kernels.py: g++, a block's
threads as threads, no GPU) against NumPy, bit for bit: the paths that 1- and 2-byte
operands take (one vector a thread, a repeated row read from the table of its
rotations, flat tails), with the grid the engine sizes and with one block looping over
the whole array."""

from __future__ import annotations

import numpy as np
import pytest

from xstride._kernels import _elementwise_exec as ex

from ._host_kernels import CXX, HostArray, aligned, build_dir, install

pytestmark = pytest.mark.skipif(CXX is None, reason="g++ (C++20) is not on PATH")


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    return build_dir(tmp_path_factory, "host_kernels")


@pytest.fixture
def host(monkeypatch, build):
    return install(monkeypatch, build)


def _add(host, x, y, cases, label):
    """Record ``x + y`` (bool: or) through the engine into a new aligned array; the
    kernel runs at ``host.run()``."""
    want = (x | y) if x.dtype == np.bool_ and y.dtype == np.bool_ else x + y
    out = aligned(np.zeros(want.shape, want.dtype))
    specs = [ex.operand("out0", want.dtype, kind="out"),
             ex.operand("in0", x.dtype, want.dtype), ex.operand("in1", y.dtype, want.dtype)]
    entry, _ = ex.launch("host", "out0 = in0 + in1;", specs, [HostArray(out)],
                         [HostArray(x), HostArray(y)])
    cases.append((out, want, entry[4], label))


def _check(host, cases):
    launches = host.run()
    assert len(launches) == len(cases)
    for (out, want, kind, label), launch in zip(cases, launches):
        assert np.array_equal(out, want), (label, kind, launch.grid, launch.blocks)
    return launches


def _values(rng, shape, dtype):
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.random(shape) < 0.5
    return (rng.standard_normal(shape) * 20).astype(dt)


@pytest.mark.parametrize("dtype", ["uint8", "bool", "int16", "float16", "float32"])
def test_repeated_rows_match_numpy(host, dtype):
    """x + row over (n, k): the row of x itself, reversed, strided, of another buffer,
    first or second; x on and off alignment; n with a flat tail; the engine's grid and
    one block. 1- and 2-byte rows that are not whole vectors read the table."""
    rng = np.random.default_rng(3)
    cases = []
    for k in (3, 5, 16, 64):
        for n, shift in ((7, 1), (301, 0)):
            x = aligned(_values(rng, (n, k), dtype), shift)
            src = aligned(_values(rng, (3, 2 * k + 1), dtype))
            rows = {"own": x[n // 2], "reversed": src[0, ::-1][:k],
                    "strided": src[1, ::2][:k], "other": src[2, 1:k + 1]}
            for first in (True, False):
                for name, row in rows.items():
                    for cap in (None, 1):
                        host.cap = cap
                        a, b = (x, row) if first else (row, x)
                        _add(host, a, b, cases, (k, n, shift, name, first, cap))
    launches = _check(host, cases)
    assert "flat2d" in {c[2] for c in cases}
    tables = sum("__xs_t" in launch.src for launch in launches)
    assert (tables > 0) == (np.dtype(dtype).itemsize <= 2), tables


@pytest.mark.parametrize("pair", [("uint8", "uint8"), ("int8", "float32"), ("bool", "bool"),
                                  ("int16", "int16"), ("float16", "float16")])
def test_flat_operands_match_numpy(host, pair):
    """Flat zips of 1- and 2-byte operands (one vector of 16 or 8 elements a thread):
    lengths with a tail, starts off alignment, the engine's grid and one block."""
    rng = np.random.default_rng(4)
    cases = []
    for n in (1, 15, 4096 + 17):
        for sa, sb in ((0, 0), (1, 0), (0, 3)):
            x = aligned(_values(rng, n, pair[0]), sa)
            y = aligned(_values(rng, n, pair[1]), sb)
            for cap in (None, 1):
                host.cap = cap
                _add(host, x, y, cases, (n, sa, sb, cap))
    _check(host, cases)
    assert {c[2] for c in cases} == {"flat"}


def test_one_vector_a_thread_covers_every_element(host):
    """uint8 rows of 16 (the "rows" path, one 16-byte vector a row and a thread): the
    engine's grid of ceil(n / 256) blocks, and a single block looping over them."""
    rng = np.random.default_rng(5)
    x = aligned(_values(rng, (5000, 16), "uint8"))
    cases = []
    for cap in (None, 1):
        host.cap = cap
        _add(host, x, x[7], cases, cap)
    launches = _check(host, cases)
    assert [c[2] for c in cases] == ["rows", "rows"]
    assert all("__xs_v1[1];" in launch.src for launch in launches)
    assert [(launch.grid, launch.blocks) for launch in launches] == [(20, 20), (20, 1)]


def test_other_layouts_match_numpy(host):
    """The engine's other loops on the host: long rows in row tiles (uint8 and float32),
    a 3-D broadcast (rows under two outer axes), reversed and strided views and mixed
    widths (flat2d), a strided output view, a scalar operand; the engine's grid and
    one block."""
    rng = np.random.default_rng(6)
    cases = []
    for dtype in ("uint8", "float32"):
        x = aligned(_values(rng, (3, 70001), dtype))
        for cap in (None, 1):
            host.cap = cap
            _add(host, x, x[1], cases, (dtype, "row tiles", cap))
            a = aligned(_values(rng, (4, 1, 37), dtype))
            b = aligned(_values(rng, (1, 5, 37), dtype))
            _add(host, a, b, cases, (dtype, "3-d broadcast", cap))
            c = aligned(_values(rng, (40, 66), dtype))
            _add(host, c[::-1, ::-2], c[:, 1:34], cases, (dtype, "reversed, strided", cap))
            m = aligned(_values(rng, (40, 33), "float32" if dtype == "uint8" else "uint8"))
            _add(host, c[:, :33], m, cases, (dtype, "mixed widths", cap))
    launches = _check(host, cases)
    kinds = {c[2] for c in cases}
    assert {"rows", "flat2d"} <= kinds, kinds
    assert any("__xs_q" in launch.src for launch in launches)   # the row tiles' pointers
    # a strided output view and a scalar operand
    x = aligned(_values(rng, (50, 64), "int16"))
    big = aligned(np.zeros((50, 128), np.int16))
    out = big[:, ::2]
    specs = [ex.operand("out0", np.int16, kind="out"), ex.operand("in0", np.int16, np.int16),
             ex.operand("s", np.int16, np.int16, kind="scalar")]
    for cap in (None, 1):
        host.cap = cap
        big[...] = 0
        ex.launch("host", "out0 = in0 * s;", specs, [HostArray(out)],
                  [HostArray(x), np.int16(3)])
        host.run()
        assert np.array_equal(out, x * np.int16(3)) and not big[:, 1::2].any(), cap
