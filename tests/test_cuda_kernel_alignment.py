"""CudaKernel refuses an array argument whose device address is not aligned for the
parameter's elements (a ``double*`` given a view that starts 4 bytes into an element):
the device would fault with "misaligned address" and leave the context unusable. The
rule is a pure function of two ints, tested here without a device; the launch path runs
on the stand-in CuPy arrays, and once on a real device (marked ``gpu``)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from xstride.cuda import CudaKernel, CudaStruct
from xstride.cuda._args import check_aligned

from tests.test_cuda_kernel import BASE, dev, device_array, gpu  # noqa: F401 (gpu: a fixture)


@pytest.mark.parametrize("ptr, alignment", [
    (0, 8), (BASE, 16), (BASE + 8, 8), (BASE + 4, 4), (BASE + 1, 1), (BASE + 2, 2),
])
def test_aligned_addresses_pass(ptr, alignment):
    check_aligned(ptr, alignment, "CudaKernel 'k'", "x", "double *")


@pytest.mark.parametrize("ptr, alignment, offset", [
    (BASE + 4, 8, 4), (BASE + 8, 16, 8), (BASE + 1, 2, 1), (BASE + 6, 4, 2), (12, 8, 4),
])
def test_misaligned_addresses_name_argument_alignment_and_offset(ptr, alignment, offset):
    with pytest.raises(ValueError, match=re.escape(
            f"CudaKernel 'k': argument 'x' starts at device address {ptr:#x}, {offset} "
            f"byte{'s' if offset != 1 else ''} past a multiple of {alignment}; 'T *' needs "
            f"its elements aligned to {alignment} bytes")):
        check_aligned(ptr, alignment, "CudaKernel 'k'", "x", "T *")


SRC = r"""
#include <xstride/array_view.cuh>
struct P { const double* d; };
extern "C" __global__ void k(const double* x, Array1D<float> v, const complex<double>* z,
                             const void* raw, P p) { }
"""


def _args(**change):
    """Good arguments for ``k`` of ``SRC``, some of them changed."""
    struct = CudaStruct("P", [("d", "const double*")])
    args = dict(x=dev(4, np.float64), v=dev(4, np.float32), z=dev(2, np.complex128),
                raw=dev(3, np.uint8), p=struct(d=dev(2, np.float64)))
    args.update(change)
    return list(args.values())


@pytest.mark.parametrize("change, arg, alignment, offset", [
    (dict(x=device_array(np.zeros(4), ptr=BASE + 4)), "x", 8, 4),
    (dict(v=device_array(np.zeros(4, np.float32), ptr=BASE + 2)), "v", 4, 2),
    # complex<double> is aligned to 16 on the device (NumPy's complex128: 8)
    (dict(z=device_array(np.zeros(2, np.complex128), ptr=BASE + 8)), "z", 16, 8),
])
def test_a_misaligned_array_is_refused_before_launch(gpu, change, arg, alignment, offset):
    k = CudaKernel(SRC, "k")
    with pytest.raises(ValueError, match=rf"^CudaKernel 'k': argument '{arg}' starts at "
                                         rf"device address 0x[0-9a-f]+, {offset} bytes past a "
                                         rf"multiple of {alignment}; .* needs its elements "
                                         rf"aligned to {alignment} bytes"):
        k(*_args(**change), n_threads=1)
    assert not gpu.builds or not gpu.builds[0][3].launches


def test_a_misaligned_struct_field_is_named(gpu):
    P = CudaStruct("P", [("d", "const double*")])
    with pytest.raises(ValueError, match=r"argument 'field d' starts at device address "
                                         r"0x[0-9a-f]+, 4 bytes past a multiple of 8"):
        P(d=device_array(np.zeros(2), ptr=BASE + 4))


def test_aligned_void_and_empty_arrays_pass(gpu):
    """``void*`` takes any address; an empty array is never read."""
    k = CudaKernel(SRC, "k")
    k(*_args(raw=device_array(np.zeros(3, np.uint8), ptr=BASE + 3),
             x=device_array(np.zeros(0), ptr=BASE + 4)), n_threads=1)
    assert len(gpu.builds[0][3].launches) == 1


@pytest.mark.gpu
def test_a_view_inside_an_element_is_refused_on_the_device(cp):
    cupy = cp
    a = cupy.zeros(9, dtype=cupy.float32)
    v = a[1:].view(cupy.float64)   # 4 bytes past the start of a's allocation
    k = CudaKernel('extern "C" __global__ void k(const double* x) { }', "k")
    with pytest.raises(ValueError, match=r"argument 'x' .* 4 bytes past a multiple of 8"):
        k(v, n_threads=1)
    k(a[2:8].view(cupy.float64), n_threads=1)   # 8 bytes past it: aligned
    cupy.cuda.Device().synchronize()


@pytest.mark.gpu
def test_a_complex128_array_8_bytes_past_16_is_refused_on_the_device(cp):
    """CuPy's ``complex<double>`` is ``__align__(16)`` under NVRTC: an array of it that
    starts 8 bytes past a multiple of 16 is refused (the device's 16-byte loads would
    fault), one at a multiple of 16 is read."""
    cupy = cp
    a = cupy.arange(10, dtype=cupy.float64)
    src = ('#include <cupy/complex.cuh>\nextern "C" __global__ void k(const complex<double>* z,'
           ' double* out) { out[0] = z[0].real() + z[0].imag(); }')
    k = CudaKernel(src, "k")
    out = cupy.zeros(1, dtype=cupy.float64)
    with pytest.raises(ValueError, match=r"argument 'z' .* 8 bytes past a multiple of 16"):
        k(a[1:9].view(cupy.complex128), out, n_threads=1)
    k(a[2:10].view(cupy.complex128), out, n_threads=1)
    assert float(out.get()[0]) == 5.0
