/* xstride/detail/namespace_kernels.cuh -- private helpers shared by the namespace's
 * reduction and scan kernels (xstride/_kernels/reductions.cu and scans.cu). Not part
 * of the shipped header API: names and contents may change in any release.
 * Compiled by NVRTC: no standard headers.
 */
#ifndef XSTRIDE_DETAIL_NAMESPACE_KERNELS_CUH
#define XSTRIDE_DETAIL_NAMESPACE_KERNELS_CUH

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

#endif  // XSTRIDE_DETAIL_NAMESPACE_KERNELS_CUH
