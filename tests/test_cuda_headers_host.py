"""The headers' ``__host__ __device__`` arithmetic, compiled as C++17 by the host
compiler (g++) and compared with NumPy: index math, view offsets and strides.

One C++ program is generated with the cases written in as literals; each line it
prints is compared with the value NumPy gives for the same case.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

from xstride._kernels._compile import include_dir

CXX = shutil.which("g++") or shutil.which("c++")
pytestmark = pytest.mark.skipif(CXX is None, reason="no host C++ compiler (g++) on PATH")


def _ll(values) -> str:
    return "{" + ", ".join(f"{int(v)}LL" for v in values) + "}"


class Program:
    """C++ statements that each print one integer, and the integers NumPy expects."""

    def __init__(self):
        self.body: list[str] = []
        self.expected: list[int] = []
        self.labels: list[str] = []

    def check(self, expr: str, value, label: str):
        self.body.append(f'    std::printf("%lld\\n", (long long)({expr}));')
        self.expected.append(int(value))
        self.labels.append(label)

    def source(self) -> str:
        head = ("#include <xstride/index.cuh>\n#include <xstride/array_view.cuh>\n"
                "#include <xstride/atomic.cuh>\n#include <cstdio>\n\n"
                "static long long base[1 << 16];\n\nint main() {\n"
                "    for (long long i = 0; i < (1 << 16); ++i) base[i] = i;\n")
        return head + "\n".join(self.body) + "\n    return 0;\n}\n"


def _view_cases(p: Program, rng):
    for n in range(1, 17):
        shape = rng.integers(1, 4 if n <= 6 else 3, size=n)
        strides = rng.integers(-7, 8, size=n)
        strides[rng.integers(0, n)] = 0 if n > 2 else strides[0]  # some broadcast axes
        # start far enough in that every reachable offset is inside base[]
        low = sum(min(0, (s_ - 1) * st) for s_, st in zip(shape, strides))
        high = sum(max(0, (s_ - 1) * st) for s_, st in zip(shape, strides))
        start = -low + int(rng.integers(0, 5))
        assert start + high < (1 << 16)
        base = np.arange(1 << 16, dtype=np.int64)
        view = as_strided(base[start:], shape=tuple(shape), strides=tuple(8 * strides))
        name = f"v{n}"
        p.body.append(f"    xstride_array<long long, {n}> {name};")
        p.body.append(f"    {name}.data = base + {start};")
        for d in range(n):
            p.body.append(f"    {name}.shape[{d}] = {shape[d]}; {name}.strides[{d}] = {strides[d]};")
        cname = f"c{n}"
        p.body.append(f"    xstride_carray<long long, {n}> {cname};")
        p.body.append(f"    {cname}.data = base + {start};")
        for d in range(n):
            p.body.append(f"    {cname}.shape[{d}] = {shape[d]};")
        cview = base[start:start + int(np.prod(shape))].reshape(tuple(shape))
        p.check(f"{name}.size()", view.size, f"Array{n}D size")
        p.check(f"{cname}.size()", view.size, f"CArray{n}D size")
        for d in range(n):
            p.check(f"{cname}.stride({d})", cview.strides[d] // 8, f"CArray{n}D stride {d}")
        flat_values = view.ravel(order="C")
        flats = range(view.size) if view.size <= 48 else rng.choice(view.size, 48, replace=False)
        for f in flats:
            p.check(f"{name}.at_flat({f})", flat_values[f], f"Array{n}D at_flat({f})")
            p.check(f"{cname}[{f}]", cview.ravel()[f], f"CArray{n}D [{f}]")
        for _ in range(6):
            idx = tuple(int(rng.integers(0, s_)) for s_ in shape)
            args = ", ".join(map(str, idx))
            p.check(f"{name}({args})", view[idx], f"Array{n}D {idx}")
            p.check(f"{cname}({args})", cview[idx], f"CArray{n}D {idx}")
            p.check(f"{name}.offset({args})", int(np.dot(idx, strides)), f"offset {idx}")
            p.check(f"[&]{{ long long i[{n}] = {_ll(idx)}; return {name}.in_bounds(i); }}()",
                    1, f"in_bounds {idx}")
        bad = [0] * n
        bad[int(rng.integers(0, n))] = int(shape[0] if n == 1 else 99)
        p.check(f"[&]{{ long long i[{n}] = {_ll(bad)}; return {name}.in_bounds(i); }}()", 0,
                f"out of bounds {bad}")
        neg = [0] * n
        neg[-1] = -1
        p.check(f"[&]{{ long long i[{n}] = {_ll(neg)}; return {name}.in_bounds(i); }}()", 0,
                "negative index")


def _index_cases(p: Program, rng):
    for a, b in [(0, 1), (1, 1), (7, 3), (9, 3), (10, 128), (2**40 + 1, 256)]:
        p.check(f"xstride_ceil_div({a}LL, {b}LL)", -(-a // b), f"ceil_div({a}, {b})")
    for ndim in (1, 2, 3, 5, 8):
        shape = rng.integers(1, 6, size=ndim)
        strides = rng.integers(-9, 10, size=ndim)
        size = int(np.prod(shape))
        sh, st = _ll(shape), _ll(strides)
        p.check(f"[]{{ long long s[{ndim}] = {sh}; return xstride_size({ndim}, s); }}()", size,
                f"size {tuple(shape)}")
        for flat in rng.integers(0, size, size=5):
            idx = np.unravel_index(int(flat), tuple(shape))
            for d in range(ndim):
                p.check(f"[]{{ long long s[{ndim}] = {sh}; long long o[{ndim}]; "
                        f"xstride_unravel_index({flat}, {ndim}, s, o); return o[{d}]; }}()",
                        idx[d], f"unravel {flat} in {tuple(shape)} axis {d}")
            p.check(f"[]{{ long long s[{ndim}] = {sh}; long long i[{ndim}] = {_ll(idx)}; "
                    f"return xstride_ravel_index({ndim}, s, i); }}()",
                    np.ravel_multi_index(idx, tuple(shape)), f"ravel {idx}")
            p.check(f"[]{{ long long t[{ndim}] = {st}; long long i[{ndim}] = {_ll(idx)}; "
                    f"return xstride_offset({ndim}, t, i); }}()",
                    int(np.dot(idx, strides)), f"offset {idx}")
            p.check(f"[]{{ long long s[{ndim}] = {sh}; long long t[{ndim}] = {st}; "
                    f"return xstride_flat_to_offset({flat}, {ndim}, s, t); }}()",
                    int(np.dot(idx, strides)), f"flat_to_offset {flat}")
    for n0, n1, n2 in [(3, 4, 5), (1, 7, 2), (6, 1, 1)]:
        ref = np.arange(n0 * n1 * n2).reshape(n0, n1, n2)
        ref2 = np.arange(n0 * n1).reshape(n0, n1)
        for _ in range(4):
            i, j, k = int(rng.integers(0, n0)), int(rng.integers(0, n1)), int(rng.integers(0, n2))
            p.check(f"xstride_c_offset_3d({n1}, {n2}, {i}, {j}, {k})", ref[i, j, k], "c_offset_3d")
            p.check(f"xstride_c_offset_2d({n1}, {i}, {j})", ref2[i, j], "c_offset_2d")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    rng = np.random.default_rng(20261130)
    p = Program()
    _index_cases(p, rng)
    _view_cases(p, rng)
    d = tmp_path_factory.mktemp("hostcxx")
    (d / "t.cpp").write_text(p.source())
    cmd = [CXX, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{include_dir()}",
           str(d / "t.cpp"), "-o", str(d / "t")]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, f"{' '.join(cmd)} failed:\n{res.stderr[-6000:]}"
    run = subprocess.run([str(d / "t")], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    got = [int(v) for v in run.stdout.split()]
    return p, got


def test_host_program_printed_every_case(results):
    p, got = results
    assert len(p.expected) > 1000
    assert len(got) == len(p.expected)


def test_host_arithmetic_matches_numpy(results):
    p, got = results
    wrong = [(lab, g, e) for lab, g, e in zip(p.labels, got, p.expected) if g != e]
    assert not wrong, f"{len(wrong)} mismatches, first: {wrong[:10]}"


def test_every_view_rank_was_checked(results):
    p, _ = results
    for n in range(1, 17):
        assert any(lab.startswith(f"Array{n}D (") for lab in p.labels)
        assert any(lab.startswith(f"CArray{n}D [") for lab in p.labels)
