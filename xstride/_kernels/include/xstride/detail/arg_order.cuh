/* xstride/detail/arg_order.cuh -- the order of argmin/argmax pairs (value, logical
 * index) that every kernel of xstride/_kernels/argreductions.cu folds by (the rules
 * are stated at the top of that file), and a thread's best element of one walk.
 * Not part of the shipped header API: names and contents may change in any release.
 * Compiled by NVRTC: no standard headers.
 */
#ifndef XSTRIDE_DETAIL_ARG_ORDER_CUH
#define XSTRIDE_DETAIL_ARG_ORDER_CUH

#include <xstride/reduce.cuh>

#define XS_ARG_NONE 9223372036854775807LL

// True when (va, ia) beats (vb, ib) (the order above).
template <int MAX, typename T>
__device__ __forceinline__ bool xs_arg_better(T va, long long ia, T vb, long long ib)
{
    const bool na = va != va, nb = vb != vb;
    if (na != nb) return na;
    if (!na) {
        if (MAX ? (va > vb) : (va < vb)) return true;
        if (MAX ? (vb > va) : (vb < va)) return false;
    }
    return ia < ib;
}

template <int MAX, typename T>
__device__ __forceinline__ T xs_arg_worst()
{
    return MAX ? xstride_lowest<T>() : xstride_highest<T>();
}

// The best of a thread's elements met in increasing walk position j of one reduced
// axis (logical index rbase + j * rw, so the index rises with j when rw > 0 and falls
// when rw < 0), by xs_arg_better's order without forming an index per element: a NaN
// beats a number; of two numbers the better value wins; a tie (two NaNs, equal
// numbers) goes to the smaller index, the earlier position when rw > 0 and the later
// when rw < 0. merge folds the winner, with its index, into (bv, bi). For the warp
// kernel's word walk (the element walks of the thread and interleave kernels read
// no faster with it on the H200: (n, 16) over axis 1 0.52 -> 0.53 of copy, (n, 3)
// over axis 0 0.58-0.62 -> 0.56-0.57).
template <int MAX, typename Tacc>
struct xs_arg_run {
    Tacc bv = xs_arg_worst<MAX, Tacc>();
    long long bj = -1;        // none yet
    __device__ __forceinline__ void take(Tacc v, long long j, bool forward)
    {
        const bool vn = v != v, bn = bv != bv;
        const bool win = forward ? (vn && !bn) || (!vn && (MAX ? v > bv : v < bv))
                                 : vn || (!bn && (MAX ? v >= bv : v <= bv));
        if (bj < 0 || win) { bv = v; bj = j; }
    }
    __device__ __forceinline__ void merge(Tacc& v, long long& i, long long rbase, long long rw) const
    {
        if (bj < 0) return;
        const long long idx = rbase + bj * rw;
        if (xs_arg_better<MAX>(bv, idx, v, i)) { v = bv; i = idx; }
    }
};

#endif  // XSTRIDE_DETAIL_ARG_ORDER_CUH
