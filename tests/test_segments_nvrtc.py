"""segments.cu and compaction.cu compile under NVRTC (no GPU) with every template instance the executor
can ask for, and each kernel's parameters in PTX have the sizes the launcher packs."""

from __future__ import annotations

import numpy as np
import pytest

from tests.test_cuda_headers_nvrtc import compile_named, nvrtc, ptx_param_sizes
from tests.test_segments_launch import MODELS
from xstride._core.dtypes import C_TYPES
from xstride._kernels import segments as ks
from xstride._kernels import compaction as kc
from xstride._kernels import voxel_passes
from xstride._kernels._compile import source
from xstride._plans.segments import OPS, VALUE_DTYPES, accumulator, result_dtype

pytestmark = pytest.mark.skipif(nvrtc is None, reason="cuda-bindings/nvrtc not importable")

INT_KEYS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]

# bytes of each parameter as segments.py packs them: P pointer/long long (8), i int (4)
PARAMS = {"xs_seg_thread": "PPqqqqqP", "xs_seg_warp": "PPqPqqqqqPP",
          "xs_seg_combine": "PPPqqqqP", "xs_seg_offsets_stats": "PqP", "xs_seg_count": "PqqPiPPP",
          "xs_seg_scan_tiles": "PqP", "xs_seg_scatter": "PqqPPqPPPPq",
          "xs_seg_copy_staged": "PqPPPPP", "xs_seg_bins_walk": "PqqPP",
          "xs_seg_bins_fill": "PqqP", "xs_seg_close": "PqqPP", "xs_vox_bounds": "PqqqP", "xs_vox_keys": "PqqqqqqqqqqqqP"}


def every_name() -> list[str]:
    """Every kernel family of segments.cu the executor asks for: each value dtype with
    one op (in turn), every op with float32 and uint8 and each (accumulator, shuffle)
    type pair (all of them would take NVRTC over a minute), the mean of every integer
    dtype (its accumulator, ``xs_seg_i128``)."""
    ops = [op for op in OPS if op != "count"]
    pairs = {(d, ops[i % len(ops)]) for i, d in enumerate(VALUE_DTYPES)}
    pairs |= {(d, op) for d in ("float32", "uint8") for op in ops}
    pairs |= {(d, "min") for d in ("int16", "uint32", "int64", "uint64", "float64")}
    pairs |= {(d, "mean") for d in INT_KEYS}   # the exact sum, xs_seg_i128, of each
    names = []
    for dtype, op in sorted(pairs):
        for tile in {False, np.dtype(dtype).itemsize in (4, 8)}:   # the warp walk's two forms
            names += ks.reduce_kernels(dtype, op, result_dtype(op, dtype), accumulator(op, dtype),
                                       tile)
    return names + [ks._OFFSETS_STATS]


def every_compaction_name() -> list[str]:
    """Every kernel of compaction.cu the executor asks for, with every key dtype."""
    names = []
    words = list(kc._WORDS.values())
    names += ["xs_seg_count<0, unsigned char>", "xs_seg_count<2, long long>",
              "xs_seg_scatter<2, long long, unsigned char>"]
    names += [f"xs_seg_scatter<0, unsigned char, {w}>" for w in words]
    for key in INT_KEYS:
        kt = C_TYPES[key]
        names += [f"xs_seg_count<1, {kt}>",
                  f"xs_seg_scatter<1, {kt}, {kc._WORDS[np.dtype(key).itemsize]}>",
                  f"xs_seg_bins_walk<{kt}>", f"xs_seg_bins_fill<{kt}>"]
    names += [f"xs_seg_copy_staged<{w}>" for w in words]
    return names + [kc.SCAN_TILES, kc._CLOSE]


#: the kernels of voxels.cu
VOXEL_NAMES = [f"xs_vox_{kind}<{t}, {d}>" for kind in ("bounds", "keys")
               for t in ("float", "double") for d in (2, 3)]


def compile_all(names, arch="sm_90", file="segments.cu"):
    return compile_named(source(file), names, arch, file)


def test_every_instance_compiles_with_the_packed_parameter_sizes():
    seen = set()
    for file, names in (("segments.cu", every_name()),
                        (kc.COMPACT_SOURCE, every_compaction_name()),
                        (voxel_passes._VOX_SOURCE, VOXEL_NAMES)):
        lowered, ptx = compile_all(names, file=file)
        for name in names:
            base = name.partition("<")[0]
            entry = lowered[name]
            want = [4 if c == "i" else 8 for c in PARAMS[base]]
            assert ptx_param_sizes(ptx, entry) == want, name
            seen.add(base)
    assert seen == set(PARAMS) == set(MODELS)   # every kernel is launched and modelled


def test_integer_means_instantiate_the_exact_accumulator():
    """Every integer dtype's mean runs on ``xs_seg_i128`` (the three kernels of each are
    in :func:`every_name`, so the test above compiles them); floats keep double."""
    for dtype in INT_KEYS:
        names = ks.reduce_kernels(dtype, "mean", "float64", accumulator("mean", dtype))
        assert all(f"<{C_TYPES[dtype]}, xs_seg_i128, double, 0, true" in n for n in names)
        assert set(names) <= set(every_name())
    assert ", double, float, 0, true>" in ks.reduce_kernels("float32", "mean", "float32",
                                                             "float64")[0]
