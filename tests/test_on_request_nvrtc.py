"""Kernels declared ``XS_ON_REQUEST`` (``detail/on_request.cuh``) are generated only for
a module that names them: an NVRTC run of morton.cu, philox.cu or segments.cu holds the
kernels it asks for and no other (a call compiles what it launches, not the file)."""

from __future__ import annotations

import re

import pytest

from tests.test_cuda_headers_nvrtc import _check, nvrtc
from xstride._kernels import morton, philox, segments
from xstride._kernels._compile import include_dir, on_request, source

pytestmark = pytest.mark.skipif(nvrtc is None, reason="cuda-bindings/nvrtc not importable")


def entries(file: str, names) -> tuple[list[str], dict]:
    """``(.entry names in the PTX, lowered names)`` of ``file`` compiled for ``names``."""
    (prog,) = _check(nvrtc.nvrtcCreateProgram(source(file).encode(), file.encode(), 0, [], []),
                     "create")
    try:
        for n in names:
            _check(nvrtc.nvrtcAddNameExpression(prog, n.encode()), n)
        opts = ["-arch=compute_90", "-std=c++17", f"-I{include_dir()}"]
        res = nvrtc.nvrtcCompileProgram(prog, len(opts), [o.encode() for o in opts])
        (size,) = _check(nvrtc.nvrtcGetProgramLogSize(prog), "log size")
        log = bytes(max(size, 2))
        _check(nvrtc.nvrtcGetProgramLog(prog, log), "log")
        assert res[0] == nvrtc.nvrtcResult.NVRTC_SUCCESS, log.decode(errors="replace")
        lowered = {n: _check(nvrtc.nvrtcGetLoweredName(prog, n.encode()), n)[0].decode()
                   for n in names}
        (size,) = _check(nvrtc.nvrtcGetPTXSize(prog), "ptx size")
        ptx = bytes(max(size, 2))
        _check(nvrtc.nvrtcGetPTX(prog, ptx), "ptx")
    finally:
        nvrtc.nvrtcDestroyProgram(prog)
    found = re.findall(r"\.entry\s+([A-Za-z0-9_$]+)", ptx.decode(errors="replace"))
    return found, lowered


@pytest.mark.parametrize("file", [morton._SOURCE, philox.SOURCE_FILE, "segments.cu"])
def test_a_file_compiled_for_no_kernel_generates_none(file):
    found, _ = entries(file, [])
    assert found == []


@pytest.mark.parametrize("file, name", [
    (morton._SOURCE, "xstride_morton_rows3_f64"),
    (morton._SOURCE, "xstride_morton_decode2_u64"),
    (philox.SOURCE_FILE, "xstride_philox_uniform_f3"),
    (philox.SOURCE_FILE, "xstride_philox_words_k"),
    ("segments.cu", "xs_seg_scan_tiles"),
])
def test_a_module_holds_only_the_kernel_it_names(file, name):
    found, lowered = entries(file, [on_request(name)])
    assert found == [lowered[on_request(name)]]
    assert name in found[0]


def test_the_count_family_holds_its_tile_scan():
    """segments.py compiles the tile scan in the module of each count pass."""
    family = ("xs_seg_count<1, unsigned long long>",
              "xs_seg_scatter<1, unsigned long long, unsigned long long>", segments._SCAN_TILES)
    found, lowered = entries("segments.cu", family)
    assert sorted(found) == sorted(lowered[n] for n in family)
