/* xstride/detail/namespace_kernels.cuh -- private helpers shared by the namespace's
 * reduction and scan kernels (xstride/_kernels/reductions.cu, reduce_finish.cu and scans.cu). Not part
 * of the shipped header API: names and contents may change in any release.
 * Compiled by NVRTC: no standard headers.
 */
#ifndef XSTRIDE_DETAIL_NAMESPACE_KERNELS_CUH
#define XSTRIDE_DETAIL_NAMESPACE_KERNELS_CUH

#include <xstride/detail/half.cuh>
#include <xstride/detail/complex.cuh>

// Product with its identity, the companion of reduce.cuh's sum/min/max operators.
struct xs_prod_op {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return a * b; }
    template <typename T> static __device__ __forceinline__ T identity() { return T(1); }
};

// Element offset of flat index i over (shape, stride)[0:n], last axis fastest; N is
// the capacity of the arrays (n <= N). 64-bit throughout.
template <int N>
__device__ __forceinline__ long long xs_offset(long long i, const long long (&shape)[N],
                                               const long long (&stride)[N], long long n)
{
    if (n == 1) return i * stride[0];
    long long off = 0;
#pragma unroll
    for (int d = N - 1; d >= 0; --d) {
        if (d < n) {
            long long s = shape[d];
            long long q = i / s;
            off += (i - q * s) * stride[d];
            i = q;
        }
    }
    return off;
}

// The layout of a reduction's input (xstride/_kernels/reductions.py packs it from the
// plan): kept axes (output index k, C order over kshape) and reduced axes, element
// strides; NK/NR the capacities, nk/nr the axes in use.
template <int NK, int NR>
struct xs_red_desc {
    long long kshape[NK];
    long long kstride[NK];
    long long rshape[NR];
    long long rstride[NR];
    long long nk;
    long long nr;
};

#endif  // XSTRIDE_DETAIL_NAMESPACE_KERNELS_CUH
