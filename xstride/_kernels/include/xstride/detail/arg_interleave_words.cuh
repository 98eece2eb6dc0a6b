/* xstride/detail/arg_interleave_words.cuh -- the word walk of xs_arg_interleave
 * (xstride/_kernels/argreductions.cu, template V > 1): argmin/argmax over the rows of
 * a few contiguous columns, the run read as 16-byte words.
 * Not part of the shipped header API: names and contents may change in any release.
 * Compiled by NVRTC: no standard headers.
 */
#ifndef XSTRIDE_DETAIL_ARG_INTERLEAVE_WORDS_CUH
#define XSTRIDE_DETAIL_ARG_INTERLEAVE_WORDS_CUH

#include <xstride/detail/reduce_ops.cuh>
#include <xstride/detail/arg_order.cuh>

// One block's best pair of each of its blockDim.x * V lanes over the flat run's
// elements [begin, end) of ncols columns (one contiguous run: rows of stride ncols, at
// a 16-byte aligned address), stored at sv/si[lane] ((worst, XS_ARG_NONE) for a lane
// that met no element). Thread t reads words begin / V + t, + blockDim.x, ... with B
// words in flight; element j of its u-th word is lane t * V + j, flat element begin +
// u * blockDim.x * V + t * V + j. blockDim.x * V and begin are multiples of ncols, so
// a lane stays in one column and its u-th element lies on walk position (row) p0 + u
// * blockDim.x * V / ncols, p0 = (begin + t * V + j) / ncols: a lane keeps the best
// value and its step u (xs_arg_run: no index per element) and forms the logical
// index rbase + position * rweight once. The run's last, partial word is step u =
// count of the thread whose word it would be, read element by element.
template <int MAX, typename Tin, typename Tacc, int V, int B>
__device__ __forceinline__ void xs_arg_interleave_words(const Tin* __restrict__ x,
                                                        long long ncols, long long begin,
                                                        long long end, long long rbase,
                                                        long long rweight, Tacc* sv,
                                                        long long* si)
{
    const long long t = (long long)threadIdx.x;
    const long long bd = (long long)blockDim.x;
    const long long wstep = bd * V;
    const long long nw = (end - begin) / V;          // whole words of the chunk
    const long long count = nw > t ? (nw - t + bd - 1) / bd : 0;
    const bool forward = rweight > 0;
    const Tin* base = x + begin + t * V;
    xs_arg_run<MAX, Tacc> run[V];
    long long u = 0;
    xs_batched<B, xs_vec<Tin, V>>(
        0, count, 1,
        [&](long long k, xs_vec<Tin, V>& w) { xs_load_vec<Tin, V>(base + k * wstep, w.t); },
        [&](const xs_vec<Tin, V>& w) {
#pragma unroll
            for (int j = 0; j < V; ++j) run[j].take((Tacc)w.t[j], u, forward);
            ++u;
        });
    if (t == nw % bd) {                              // the run's last, partial word
        const long long e0 = begin + nw * V;
#pragma unroll
        for (int j = 0; j < V; ++j)
            if (e0 + j < end) run[j].take((Tacc)x[e0 + j], count, forward);
    }
    const long long dpos = wstep / ncols;            // walk positions a step
#pragma unroll
    for (int j = 0; j < V; ++j) {
        Tacc v = xs_arg_worst<MAX, Tacc>();
        long long i = XS_ARG_NONE;
        const long long p0 = (begin + t * V + j) / ncols;
        run[j].merge(v, i, rbase + p0 * rweight, dpos * rweight);
        sv[t * V + j] = v;
        si[t * V + j] = i;
    }
}

#endif  // XSTRIDE_DETAIL_ARG_INTERLEAVE_WORDS_CUH
