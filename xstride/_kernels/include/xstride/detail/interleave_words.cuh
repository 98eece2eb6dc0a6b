/* xstride/detail/interleave_words.cuh -- the word walk of the "interleave" reduction
 * kernel (xs_reduce_interleave in xstride/_kernels/reductions.cu, template V > 1).
 * Not part of the shipped header API: names and contents may change in any release.
 * Compiled by NVRTC: no standard headers.
 */
#ifndef XSTRIDE_DETAIL_INTERLEAVE_WORDS_CUH
#define XSTRIDE_DETAIL_INTERLEAVE_WORDS_CUH

#include <xstride/detail/reduce_ops.cuh>

// One block's fold of the flat run's elements [begin, end) of ncols columns (one
// contiguous run, rows of stride ncols, at a 16-byte aligned address; a fused input
// computes V elements of its expression a word, xs_load_vec of _fusion_source.py),
// read as 16-byte words of V elements: thread t takes words begin / V + t,
// + blockDim.x, ... with B words in flight. Element j of its words is lane t * V + j
// of the block's blockDim.x * V lanes (a multiple of ncols, and begin one of that), so
// each of its V accumulators keeps one column; the run's last, partial word is folded
// element by element by the thread whose word it would be. The lanes of a column are
// then folded in G = blockDim.x / ncols groups (group g: lanes c + ncols * (g + G * i)
// in order), the groups in order. Returns column t's total to threads t < ncols (the
// identity to the others); every thread of the block must call it.
template <int OP, typename Tin, typename Tacc, int V, int B, typename P, typename Op>
__device__ __forceinline__ Tacc xs_interleave_words(P x, const Tacc* __restrict__ center,
                                                    long long ncols, long long begin,
                                                    long long end, Op op)
{
    __shared__ Tacc sw[256 * V];
    const unsigned t = threadIdx.x;
    const long long bd = (long long)blockDim.x;
    Tacc acc[V], cen[V];
#pragma unroll
    for (int j = 0; j < V; ++j) {
        acc[j] = Op::template identity<Tacc>();
        cen[j] = xs_center_of<OP, Tin>(center, ((long long)t * V + j) % ncols);
    }
    const long long nw = (end - begin) / V;          // whole words of the chunk
    const long long count = nw > (long long)t ? (nw - (long long)t + bd - 1) / bd : 0;
    P base = x + begin + (long long)t * V;
    const long long wstep = bd * V;
    xs_batched<B, xs_vec<Tin, V>>(
        0, count, 1,
        [&](long long u, xs_vec<Tin, V>& w) { xs_load_vec<Tin, V>(base + u * wstep, w.t); },
        [&](const xs_vec<Tin, V>& w) {
#pragma unroll
            for (int j = 0; j < V; ++j) acc[j] = op(acc[j], xs_transform<OP, Tacc>(w.t[j], cen[j]));
        });
    if ((long long)t == nw % bd) {                   // the run's last, partial word
        const long long e0 = begin + nw * V;
#pragma unroll
        for (int j = 0; j < V; ++j)
            if (e0 + j < end) acc[j] = op(acc[j], xs_transform<OP, Tacc>(x[e0 + j], cen[j]));
    }
#pragma unroll
    for (int j = 0; j < V; ++j) sw[t * V + j] = acc[j];
    __syncthreads();
    const long long G = bd / ncols;
    Tacc g = Op::template identity<Tacc>();
    if ((long long)t < G * ncols)
        for (long long v = (long long)t; v < bd * V; v += G * ncols) g = op(g, sw[v]);
    __syncthreads();
    if ((long long)t < G * ncols) sw[t] = g;
    __syncthreads();
    Tacc a = Op::template identity<Tacc>();
    if ((long long)t < ncols)
        for (long long k = 0; k < G; ++k) a = op(a, sw[k * ncols + t]);
    return a;
}

#endif  // XSTRIDE_DETAIL_INTERLEAVE_WORDS_CUH
