"""Kernel signatures without a GPU: declarators and named types the C signature
parser reads (pointers to arrays, aliases, enums, the word ``restrict``)."""

from __future__ import annotations

import re

import pytest

from xstride.cuda import CudaKernel


def _params(src: str):
    return [(p.name, p.ctype.kind, p.ctype.text) for p in CudaKernel(src, "k").params]


@pytest.mark.parametrize("decl, name, text, how", [
    ("float (*x)[4]", "x", "a pointer to arrays ('float (*x)[4]')",
     "declare it 'float* x' (one bound, 'float x[]', is that pointer) and index it "
     "yourself, or take an 'Array2D<float>' view"),
    ("const double (* __restrict__ y)[3][2]", "y",
     "a pointer to arrays ('const double (* __restrict__ y)[3][2]')", "'Array3D<const double>'"),
    ("int (*)[2]", "arg1", "a pointer to arrays ('int (*)[2]')", "'int* arg1'"),
    ("float (&r)[4]", "r", "a reference to an array ('float (&r)[4]')", "'Array1D<float>'"),
])
def test_a_pointer_to_arrays_is_named(decl, name, text, how):
    """``float (*x)[4]`` was "parameter 1 ('arg1'): unknown C type 'float (*x)': pointers
    to 'float (' are not supported"; it is refused as ``float x[4][4]`` is, by its name."""
    with pytest.raises(ValueError, match=re.escape(
            f"CudaKernel 'k': parameter 1 ({name!r}) is declared as {text}, which is not "
            "supported; a parameter is a scalar, a pointer, an ArrayND<T> / CArrayND<T> view "
            "or a struct: declare it ")) as info:
        CudaKernel(f"__global__ void k(int ok, {decl}) {{}}", "k")
    assert how in str(info.value)


def test_restrict_last_is_the_parameters_name():
    """C++ has no ``restrict``: ``float* restrict`` declares a parameter called
    ``restrict`` (it was dropped as a qualifier, the parameter called ``arg0``). Before a
    name it is still read as the qualifier a ``#define restrict __restrict__`` makes it."""
    assert _params("__global__ void k(float* restrict, int restrict2) {}") == [
        ("restrict", "pointer", "float*"), ("restrict2", "scalar", "int")]
    assert _params("__global__ void k(const double* restrict) {}") == [
        ("restrict", "pointer", "const double*")]
    assert [p.name for p in CudaKernel("__global__ void k(float restrict[]) {}", "k").params] \
        == ["restrict"]
    assert _params("#define restrict __restrict__\n"
                   "__global__ void k(float* restrict x, const int* __restrict__ y) {}") == [
        ("x", "pointer", "float*"), ("y", "pointer", "const int*")]
