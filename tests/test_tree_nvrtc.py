"""tree.cu compiles under NVRTC (no GPU) with every template instance the executor can
ask for (one per integer key dtype), in one module as the executor requests it, and
each kernel's parameters in PTX have the sizes the launcher packs."""

from __future__ import annotations

import pytest

from tests.test_cuda_headers_nvrtc import ARCHS, compile_named, nvrtc, ptx_param_sizes
from xstride._kernels import tree as kt
from xstride._kernels._compile import source

pytestmark = pytest.mark.skipif(nvrtc is None, reason="cuda-bindings/nvrtc not importable")

INT_KEYS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]

# bytes of each parameter as tree.py packs them: P pointer/long long (8), i int (4)
PARAMS = {"xs_tree_count": "PqqiiqPP", "xs_tree_scan": "PqP",
          "xs_tree_build": "PqqiiqPPPPP", "xs_tree_counts": "PqqP"}


def compile_module(names, arch="sm_90"):
    """``(lowered names, PTX)`` of tree.cu with the name expressions ``names``."""
    return compile_named(source("tree.cu"), names, arch, "tree.cu")


@pytest.mark.parametrize("dtype", INT_KEYS)
def test_the_module_of_each_key_dtype_compiles_with_the_packed_sizes(dtype):
    family = kt.kernel_family(dtype)
    lowered, ptx = compile_module(family)
    assert {name.partition("<")[0] for name in family} == set(PARAMS)
    for name in family:
        want = [4 if c == "i" else 8 for c in PARAMS[name.partition("<")[0]]]
        assert ptx_param_sizes(ptx, lowered[name]) == want, name


@pytest.mark.parametrize("arch", ARCHS)
def test_the_module_compiles_for_each_checked_arch(arch):
    compile_module(kt.kernel_family("int64"), arch=arch)
