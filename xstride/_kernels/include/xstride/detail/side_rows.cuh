/* xstride/detail/side_rows.cuh -- the "short" reduction of rows that lie side by side
 * (xs_reduce_short with V < -1, xstride/_kernels/reductions.cu): a thread takes
 * W adjacent rows, each step of their elements one load of 16 (W = 16 / sizeof(Tin))
 * or 8 bytes (1-byte rows into 8-byte accumulators: SIDE_ACC_BYTES of _geometry.py).
 * Not part of the shipped header API: names and contents may change in any release.
 * Compiled by NVRTC: no standard headers.
 */
#ifndef XSTRIDE_DETAIL_SIDE_ROWS_CUH
#define XSTRIDE_DETAIL_SIDE_ROWS_CUH

#include <xstride/detail/reduce_ops.cuh>
#include <xstride/detail/row_words.cuh>

// Rows g * W .. g * W + W - 1 (one kept axis of stride 1, one reduced axis of stride
// s, nrows and s multiples of W, x on a 16-byte boundary: the host checks), each row
// folded one element at a time in order (the bits of one row per thread). The W
// outputs of a thread are stored as 16-byte words where they fill whole words and out
// is on a 16-byte boundary (a warp's stores then cover whole sectors), else one by one.
template <int OP, typename Tin, typename Tacc, typename Tout, int W, typename Op>
__device__ __forceinline__ void xs_side_rows(const Tin* __restrict__ x, Tout* __restrict__ out,
                                             long long s, long long nrows, long long rowlen,
                                             Op op)
{
    static_assert(W * sizeof(Tin) == 16 || W * sizeof(Tin) == 8, "16- or 8-byte steps of W rows");
    static_assert(!xs_centered<OP>, "no center: var's pass of such rows runs xs_var_rows");
    constexpr bool WORDS = (W * sizeof(Tout)) % 16 == 0;
    const bool aligned = WORDS && (reinterpret_cast<unsigned long long>(out) & 15ull) == 0ull;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < nrows / W;
         g += nthreads) {
        const long long row = g * W;
        const Tin* p = x + row;   // the kept axis has stride 1
        Tacc acc[W];
#pragma unroll
        for (int u = 0; u < W; ++u) acc[u] = Op::template identity<Tacc>();
#pragma unroll 4
        for (long long j = 0; j < rowlen; ++j) {
            Tin v[W];
            if constexpr (W * sizeof(Tin) == 16) {
                xs_load_vec<Tin, W>(p + j * s, v);
            } else {
                union { uint2 u; Tin t[W]; } w;
                w.u = __ldg(reinterpret_cast<const uint2*>(p + j * s));
#pragma unroll
                for (int u = 0; u < W; ++u) v[u] = w.t[u];
            }
#pragma unroll
            for (int u = 0; u < W; ++u) acc[u] = op(acc[u], xs_transform<OP, Tacc>(v[u], Tacc(0)));
        }
        if constexpr (WORDS) {
            if (aligned) {
                xs_row_words<Tout, W> o;
#pragma unroll
                for (int u = 0; u < W; ++u) o.t[u] = xs_final<OP, Tout>(acc[u], rowlen);
#pragma unroll
                for (int k = 0; k < W * (int)sizeof(Tout) / 16; ++k)
                    reinterpret_cast<uint4*>(out + row)[k] = o.u[k];
                continue;
            }
        }
#pragma unroll
        for (int u = 0; u < W; ++u) out[row + u] = xs_final<OP, Tout>(acc[u], rowlen);
    }
}

#endif  // XSTRIDE_DETAIL_SIDE_ROWS_CUH
