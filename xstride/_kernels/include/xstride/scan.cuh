// xstride/scan.cuh -- warp and block prefix sums (inclusive and exclusive).
//
// Part of xstride (BSD-3-Clause). Self-contained apart from xstride/reduce.cuh (thread
// ranks, limits, operations); includes no standard header, so it compiles under NVRTC
// as well as nvcc. Assumes 32-lane warps and the CUDA *_sync shuffles; refused on HIP
// builds by xstride.cuda.CudaKernel.
//
// Types: int, unsigned, long long, unsigned long long, float, double.
// Threads are ranked as in reduce.cuh: rank = x + blockDim.x*(y + blockDim.y*z), so
// "earlier" in a scan means lower rank (lower lane within a warp).
//
// Exclusive scans are formed by SHIFTING the inclusive scan one position (the value
// of the previous participant), never by subtracting the own value from the
// inclusive result. For float/double this matters: with inputs 1 then 1e20, the
// second exclusive value is exactly 1 (subtraction would give 1e20 - 1e20 = 0). Thus
// exclusive[i] == inclusive[i-1] bit for bit, and the first participant gets 0.
//
// ---------------------------------------------------------------------------------
// xstride_warp_inclusive_sum(T v, unsigned mask = all)          -> inclusive prefix
// xstride_warp_inclusive_sum(T v, unsigned mask, T* total)       (+ warp total)
// xstride_warp_exclusive_sum(T v, unsigned mask = all)          -> exclusive prefix
// xstride_warp_exclusive_sum(T v, unsigned mask, T* total)       (+ warp total)
// ---------------------------------------------------------------------------------
// Who calls:   exactly the lanes in `mask`, with the same mask, converged; the mask
//              may be sparse. Participants are ordered by lane number; lanes outside
//              the mask are skipped (they neither contribute nor receive). Lanes of
//              `mask` that do not exist (partial last warp) are undefined behaviour:
//              use xstride_warp_valid_mask().
// Result:      each caller gets the sum over the participants up to and including
//              itself (inclusive) or strictly before itself (exclusive; 0 for the
//              first participant). `*total`, if given, receives the sum over all
//              participants in every calling lane (total must point to the caller's
//              own variable).
// Order:       Kogge-Stone (log2 steps), lower lanes first: deterministic.
// Reuse:       no shared memory; may be called any number of times in a row.
// Example:     mask 0x0000000f, lanes 0..3 pass 3, 1, 4, 1:
//                inclusive -> 3, 4, 8, 9;  exclusive -> 0, 3, 4, 8;  total 9.
//              mask 0x80000101, lanes 0, 8, 31 pass 1.0, 1e20, 1.0 (double):
//                exclusive -> 0.0, 1.0, 1e20 (lane 8 gets exactly 1).
//
// ---------------------------------------------------------------------------------
// xstride_block_inclusive_sum(T v)            xstride_block_inclusive_sum(T v, T* total)
// xstride_block_exclusive_sum(T v)            xstride_block_exclusive_sum(T v, T* total)
// ---------------------------------------------------------------------------------
// Who calls:   every thread of the block (1-, 2- or 3-D, any legal size 1..1024,
//              partial last warp included) from converged code: the functions
//              contain __syncthreads() when the block has more than 32 threads.
// Result:      each thread gets the prefix sum over ranks <= its own (inclusive) or
//              < its own (exclusive, rank 0 gets 0); `*total`, if given, gets the
//              block total (== the inclusive value of the last rank) in every thread.
// Idle threads: pass 0 (the identity of the sum); their position still counts.
// Storage:     96 elements of static shared memory per type (three arrays of 32); two
//              barriers inside. May be called repeatedly back to back with no barrier
//              in between (the reads after the second barrier touch arrays that the
//              next call only writes after its own first barrier).
// Order:       warp scans, then a Kogge-Stone scan of the warp totals by warp 0.
//              Deterministic for a given block shape; exclusive is the exact shift of
//              inclusive, also across warp boundaries.
// Example:     a 3x2x2 block (12 threads) where every thread passes 2:
//                inclusive -> 2, 4, ..., 24 by rank; exclusive -> 0, 2, ..., 22;
//                total 24; thread (x=1, y=1, z=0) has rank 4: inclusive 10.
#ifndef XSTRIDE_SCAN_CUH
#define XSTRIDE_SCAN_CUH

#include "reduce.cuh"

// ------------------------------------------------------------------ details (any op)
// Inclusive scan over lanes 0..n-1 (1 <= n <= 32).
template <typename T, typename Op>
__device__ __forceinline__ T xstride_detail_warp_scan_first(T v, unsigned n, Op op)
{
    unsigned mask = n >= 32u ? XSTRIDE_FULL_WARP_MASK : ((1u << n) - 1u);
    unsigned lane = xstride_detail_lane();
#pragma unroll
    for (unsigned o = 1; o < 32u; o <<= 1) {
        if (o >= n) break;
        T t = __shfl_up_sync(mask, v, o);
        if (lane >= o) v = op(t, v);
    }
    return v;
}

// Inclusive scan over the lanes of any non-empty mask, in lane order.
template <typename T, typename Op>
__device__ __forceinline__ T xstride_detail_warp_scan_sparse(T v, unsigned mask, Op op)
{
    unsigned lane = xstride_detail_lane();
    unsigned rank = __popc(mask & ((1u << lane) - 1u));
    unsigned n = __popc(mask);
    for (unsigned o = 1; o < n; o <<= 1) {
        unsigned src = rank >= o ? xstride_detail_nth_set_bit(mask, rank - o) : lane;
        T t = __shfl_sync(mask, v, src);
        if (rank >= o) v = op(t, v);
    }
    return v;
}

template <typename T, typename Op>
__device__ __forceinline__ T xstride_detail_warp_scan(T v, unsigned mask, Op op)
{
    if ((mask & (mask + 1u)) == 0u) return xstride_detail_warp_scan_first(v, __popc(mask), op);
    return xstride_detail_warp_scan_sparse(v, mask, op);
}

// The inclusive value of the previous participant (identity for the first one).
template <typename T, typename Op>
__device__ __forceinline__ T xstride_detail_warp_shift(T incl, unsigned mask, Op)
{
    unsigned lane = xstride_detail_lane();
    unsigned below = mask & ((1u << lane) - 1u);
    unsigned src = below ? 31u - __clz(below) : lane;
    T t = __shfl_sync(mask, incl, src);
    return below ? t : Op::template identity<T>();
}

// Inclusive value of the last participant, in every participant.
template <typename T>
__device__ __forceinline__ T xstride_detail_warp_last(T incl, unsigned mask)
{
    return __shfl_sync(mask, incl, 31u - __clz(mask));
}

// Block scan, any op. Returns the inclusive or exclusive value; *total (if non-null)
// gets the inclusive value of the last rank.
template <typename T, typename Op>
__device__ __forceinline__ T xstride_detail_block_scan(T v, bool exclusive, T* total, Op op)
{
    __shared__ T xstride_warp_tot[32];   // written before barrier 1, read between
    __shared__ T xstride_warp_pre[32];   // written between the barriers, read after
    __shared__ T xstride_warp_end[32];   // idem: inclusive value at the end of warp w
    unsigned rank = xstride_block_thread_rank();
    unsigned count = xstride_block_thread_count();
    unsigned lane = rank & 31u, warp = rank >> 5;
    unsigned nwarps = (count + 31u) >> 5;
    unsigned in_warp = count - (warp << 5);
    if (in_warp > 32u) in_warp = 32u;
    unsigned mask = in_warp >= 32u ? XSTRIDE_FULL_WARP_MASK : ((1u << in_warp) - 1u);
    T incl = xstride_detail_warp_scan_first(v, in_warp, op);
    T prev = xstride_detail_warp_shift(incl, mask, op);
    if (nwarps == 1u) {
        if (total) *total = xstride_detail_warp_last(incl, mask);
        return exclusive ? prev : incl;
    }
    T wtot = xstride_detail_warp_last(incl, mask);
    if (lane == 0u) xstride_warp_tot[warp] = wtot;
    __syncthreads();
    if (warp == 0u) {   // full warp: count > 32
        T t = lane < nwarps ? xstride_warp_tot[lane] : Op::template identity<T>();
        T ti = xstride_detail_warp_scan_first(t, 32u, op);
        T te = xstride_detail_warp_shift(ti, XSTRIDE_FULL_WARP_MASK, op);
        if (lane < nwarps) {
            xstride_warp_pre[lane] = te;
            xstride_warp_end[lane] = lane == 0u ? t : op(te, t);
        }
    }
    __syncthreads();
    if (total) *total = xstride_warp_end[nwarps - 1u];
    if (exclusive) {
        if (lane != 0u) return warp == 0u ? prev : op(xstride_warp_pre[warp], prev);
        return warp == 0u ? Op::template identity<T>() : xstride_warp_end[warp - 1u];
    }
    return warp == 0u ? incl : op(xstride_warp_pre[warp], incl);
}

// ------------------------------------------------------------------ public: warp
template <typename T>
__device__ __forceinline__ T xstride_warp_inclusive_sum(T v, unsigned mask = XSTRIDE_FULL_WARP_MASK)
{
    return xstride_detail_warp_scan(v, mask, xstride_sum_op());
}

template <typename T>
__device__ __forceinline__ T xstride_warp_inclusive_sum(T v, unsigned mask, T* total)
{
    T incl = xstride_detail_warp_scan(v, mask, xstride_sum_op());
    if (total) *total = xstride_detail_warp_last(incl, mask);
    return incl;
}

template <typename T>
__device__ __forceinline__ T xstride_warp_exclusive_sum(T v, unsigned mask = XSTRIDE_FULL_WARP_MASK)
{
    T incl = xstride_detail_warp_scan(v, mask, xstride_sum_op());
    return xstride_detail_warp_shift(incl, mask, xstride_sum_op());
}

template <typename T>
__device__ __forceinline__ T xstride_warp_exclusive_sum(T v, unsigned mask, T* total)
{
    T incl = xstride_detail_warp_scan(v, mask, xstride_sum_op());
    if (total) *total = xstride_detail_warp_last(incl, mask);
    return xstride_detail_warp_shift(incl, mask, xstride_sum_op());
}

// ------------------------------------------------------------------ public: block
template <typename T>
__device__ __forceinline__ T xstride_block_inclusive_sum(T v)
{ return xstride_detail_block_scan(v, false, (T*)0, xstride_sum_op()); }

template <typename T>
__device__ __forceinline__ T xstride_block_inclusive_sum(T v, T* total)
{ return xstride_detail_block_scan(v, false, total, xstride_sum_op()); }

template <typename T>
__device__ __forceinline__ T xstride_block_exclusive_sum(T v)
{ return xstride_detail_block_scan(v, true, (T*)0, xstride_sum_op()); }

template <typename T>
__device__ __forceinline__ T xstride_block_exclusive_sum(T v, T* total)
{ return xstride_detail_block_scan(v, true, total, xstride_sum_op()); }

#endif  // XSTRIDE_SCAN_CUH
