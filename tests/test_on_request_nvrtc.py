"""Kernels declared ``XS_ON_REQUEST`` (``detail/on_request.cuh``) are generated only for
a module that names them: an NVRTC run of morton.cu, philox.cu, segments.cu or
compaction.cu holds the kernels it asks for and no other (a call compiles what it
launches, not the file)."""

from __future__ import annotations

import re

import pytest

from tests.test_cuda_headers_nvrtc import compile_named, nvrtc
from xstride._kernels import morton, philox, segments
from xstride._kernels._compile import on_request, source

pytestmark = pytest.mark.skipif(nvrtc is None, reason="cuda-bindings/nvrtc not importable")


def entries(file: str, names) -> tuple[list[str], dict]:
    """``(.entry names in the PTX, lowered names)`` of ``file`` compiled for ``names``."""
    lowered, ptx = compile_named(source(file), names, "compute_90", file)
    return re.findall(r"\.entry\s+([A-Za-z0-9_$]+)", ptx), lowered


@pytest.mark.parametrize("file", [morton._SOURCE, philox.SOURCE_FILE, "segments.cu",
                                  "compaction.cu"])
def test_a_file_compiled_for_no_kernel_generates_none(file):
    found, _ = entries(file, [])
    assert found == []


@pytest.mark.parametrize("file, name", [
    (morton._SOURCE, "xstride_morton_rows3_f64"),
    (morton._SOURCE, "xstride_morton_decode2_u64"),
    (philox.SOURCE_FILE, "xstride_philox_uniform_f3"),
    (philox.SOURCE_FILE, "xstride_philox_words_k"),
    ("compaction.cu", "xs_seg_scan_tiles"),
])
def test_a_module_holds_only_the_kernel_it_names(file, name):
    found, lowered = entries(file, [on_request(name)])
    assert found == [lowered[on_request(name)]]
    assert name in found[0]


def test_the_count_family_holds_its_tile_scan():
    """segments.py compiles the tile scan in the module of each count pass."""
    family = ("xs_seg_count<1, unsigned long long>",
              "xs_seg_scatter<1, unsigned long long, unsigned long long>", segments._SCAN_TILES)
    found, lowered = entries("compaction.cu", family)
    assert sorted(found) == sorted(lowered[n] for n in family)
