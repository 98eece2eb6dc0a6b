"""``CudaKernel`` and ``CudaStruct`` arguments read through ``__cuda_array_interface__``
without a GPU: an object whose interface is not a valid one is a ``TypeError`` naming
the argument and what is wrong, never a raw ``KeyError``/``struct.error`` from inside."""

from __future__ import annotations

import pytest

from xstride.cuda import CudaKernel, CudaStruct

from .test_cuda_kernel import gpu  # noqa: F401  (fixture)


class Interface:
    """An object with the given ``__cuda_array_interface__``."""

    def __init__(self, cai):
        self.__cuda_array_interface__ = cai


def _cai(**change):
    cai = {"shape": (3,), "typestr": "<f4", "data": (0x7F00_0000_0000, False),
           "strides": None, "version": 3}
    cai.update(change)
    return {k: v for k, v in cai.items() if v is not ...}


@pytest.mark.parametrize("cai, why", [
    (None, "it is a NoneType, not a dict"),
    (_cai(typestr=...), "it has no 'typestr'"),
    (_cai(shape=..., data=...), "it has no 'shape', 'data'"),
    (_cai(typestr=5), "its typestr 5 is not a dtype"),
    (_cai(shape=(3.0,)), r"its shape \(3.0,\) is not a tuple of ints >= 0"),
    (_cai(shape=(-3,)), r"its shape \(-3,\) is not a tuple of ints >= 0"),
    (_cai(data=(-5, False)), r"its data \(-5, False\) is not \(pointer, read-only flag\)"),
    (_cai(data=(2**64, False)), r"its data .* with a pointer in \[0, 2\*\*64\)"),
    (_cai(data=0x1000), r"its data 4096 is not \(pointer"),
    (_cai(data=(0, False)), "its data pointer is null for 3 elements"),
    (_cai(data=(None, False)), "its data pointer is null for 3 elements"),
    (_cai(strides=(4.0,)), r"its strides \(4.0,\) are not one int per axis of shape \(3,\)"),
    (_cai(strides=(4, 4)), r"its strides \(4, 4\) are not one int per axis"),
    (_cai(mask=object()), "it has a mask; masked arrays are not supported"),
    # a new-user probe: a bare OverflowError ("Python int too large to convert to C
    # long") from the view's packing
    (_cai(shape=(2**63,)), r"its shape \(9223372036854775808,\) has an extent of 2\*\*63"),
    (_cai(strides=(2**70,)), r"its strides \(1180591620717411303424,\) do not fit in 64-bit"),
])
def test_a_malformed_interface_names_the_argument(gpu, cai, why):  # noqa: F811
    """These were a raw KeyError, TypeError or struct.error ('argument out of range'),
    or (a mask, a null pointer) launched as if valid."""
    k = CudaKernel("#include <xstride/array_view.cuh>\n"
                   "__global__ void k(float* x, Array1D<float> v) {}", "k")
    good = Interface(_cai())
    for args, name in (((Interface(cai), good), "x"), ((good, Interface(cai)), "v")):
        with pytest.raises(TypeError, match=rf"CudaKernel 'k': argument '{name}' got "
                           rf"Interface .*its __cuda_array_interface__ is not valid: {why}"):
            k(*args, n_threads=1)
    S = CudaStruct("S", [("p", "float*")])
    with pytest.raises(TypeError, match=f"CudaStruct 'S': argument 'field p' .*{why}"):
        S(p=Interface(cai))


def test_valid_interfaces_are_still_accepted(gpu):  # noqa: F811
    k = CudaKernel("__global__ void k(const float* x, void* y) {}", "k")
    k(Interface(_cai()), Interface(_cai(shape=(0,), data=(0, False))), n_threads=1)
    k(Interface(_cai(shape=[2, 3], strides=[12, 4], data=[0x1000, True], mask=None)),
      Interface(_cai(typestr="|V0", shape=(5,), data=(0, False))), n_threads=1)
    assert len(gpu.builds) == 1


def test_a_byte_swapped_array_says_so(gpu):  # noqa: F811
    """Was 'has dtype float32; the kernel takes 'float*' (dtype float32)'."""
    k = CudaKernel("#include <xstride/array_view.cuh>\n"
                   "__global__ void k(float* x, Array1D<double> v) {}", "k")
    good = Interface(_cai())
    with pytest.raises(TypeError, match=r"argument 'x' has dtype >f4 \(byte-swapped: the "
                       r"device's order is little-endian\); the kernel takes 'float\*' "
                       r"\(dtype float32\)"):
        k(Interface(_cai(typestr=">f4")), good, n_threads=1)
    with pytest.raises(TypeError, match=r"argument 'v' has dtype >f8 \(byte-swapped"):
        k(good, Interface(_cai(typestr=">f8")), n_threads=1)
    with pytest.raises(TypeError, match=r"argument 'x' has dtype float64; the kernel"):
        k(Interface(_cai(typestr="<f8")), good, n_threads=1)
