// xstride/reduce.cuh -- warp and block reductions (sum, min, max).
//
// Part of xstride (BSD-3-Clause). Self-contained: includes no standard header, so it
// compiles under NVRTC as well as nvcc. Assumes 32-lane warps and the CUDA *_sync
// shuffles (CUDA 9+, any sm_50+); refused on HIP builds by xstride.cuda.CudaKernel.
//
// Types: int, unsigned, long long, unsigned long long, float, double.
//
// ---------------------------------------------------------------------------------
// Thread ranking
// ---------------------------------------------------------------------------------
// Every block-wide function ranks the threads of a 1-, 2- or 3-D block linearly,
// x fastest:  rank = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)
// which is the order in which CUDA forms warps: threads of rank 0..31 are warp 0,
// 32..63 warp 1, and so on; the lane of a thread is rank % 32. A block of 7x5 threads
// therefore has warp 0 = ranks 0..31 (rows y = 0..4 of x = 0..6 minus the last three
// threads of row 4) and a partial warp 1 = ranks 32..34.
//
// ---------------------------------------------------------------------------------
// Warp functions: xstride_warp_sum / _min / _max (T v, unsigned mask = all 32 lanes)
// ---------------------------------------------------------------------------------
// Who calls:   exactly the lanes whose bit is set in `mask`, all with the same mask,
//              converged at the call (the mask may be sparse, e.g. 0x80000101).
//              A lane that is not in `mask` must not call; a lane of `mask` that does
//              not exist (past the end of a partial warp) is undefined behaviour: use
//              xstride_warp_valid_mask() for the last warp of a block.
// Result:      every calling lane gets the reduction of the values of all calling
//              lanes, bit-identical in every lane (pairs are always combined
//              lower-lane-first, so even the sign of a zero min/max agrees).
// Idle lanes:  lanes outside `mask` contribute nothing; no identity is needed.
// Order:       pairwise (tree) in lane order: deterministic for a given mask.
// Reuse:       no shared memory; may be called any number of times in a row.
// NaN:         min and max propagate NaN (any NaN input gives a NaN result); sum does
//              so by IEEE arithmetic.
// Example:     lanes 0..31 pass v = lane, mask = 0xffffffff:
//                xstride_warp_sum(v) == 496, xstride_warp_max(v) == 31 in every lane;
//              lanes 0, 8 and 31 pass 5, -2, 9 with mask 0x80000101:
//                xstride_warp_sum(v, 0x80000101u) == 12 in those three lanes.
//
// ---------------------------------------------------------------------------------
// Block functions: xstride_block_sum / _min / _max (T v)
// ---------------------------------------------------------------------------------
// Who calls:   every thread of the block (1-D, 2-D or 3-D, any legal size 1..1024,
//              partial last warp included), from converged, non-divergent code: the
//              function contains __syncthreads() when the block has more than 32
//              threads.
// Result:      every thread gets the reduction of the values of all threads.
// Idle threads: a thread with nothing to contribute passes the identity of the
//              operation: 0 for sum, xstride_highest<T>() (+inf for float/double,
//              the largest value for integers) for min, xstride_lowest<T>() (-inf or
//              the smallest value) for max. Threads that do not exist (past the end
//              of a partial warp) are handled internally.
// Storage:     33 elements of static shared memory per (type, operation); two
//              barriers inside. May be called repeatedly back to back with no barrier
//              in between (the last read of a call and the first write of the next
//              touch different slots, separated by the next call's first barrier).
// Order:       warp trees, then a tree over the warp results in warp order:
//              deterministic for a given block shape.
// Example:     a 7x5 block (35 threads) where thread (x, y) passes x + 10*y:
//              xstride_block_sum == 805, xstride_block_max == 46,
//              xstride_block_min == 0, in all 35 threads.
//
// xstride_block_sum_atomic(T v, T* dst): xstride_block_sum, then thread rank 0 adds the
// block's sum to *dst with ONE atomicAdd; returns the block sum in every thread. Same
// calling rules as xstride_block_sum. With float/double the final value of *dst
// depends on the order in which blocks arrive (not deterministic run to run); integer
// results are exact. dst may be global or shared memory.
//
// xstride_block_thread_rank(), xstride_block_thread_count(): the linear rank above
// and blockDim.x*blockDim.y*blockDim.z. xstride_warp_valid_mask(): the lanes of the
// caller's warp that exist (0xffffffff except in the partial last warp of a block).
#ifndef XSTRIDE_REDUCE_CUH
#define XSTRIDE_REDUCE_CUH

#define XSTRIDE_WARP_SIZE 32
#define XSTRIDE_FULL_WARP_MASK 0xffffffffu

// ------------------------------------------------------------------ thread ranks
__device__ __forceinline__ unsigned xstride_block_thread_rank()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

__device__ __forceinline__ unsigned xstride_block_thread_count()
{
    return blockDim.x * blockDim.y * blockDim.z;
}

// Lanes of the caller's warp that exist in this block (bit i = lane i).
__device__ __forceinline__ unsigned xstride_warp_valid_mask()
{
    unsigned first = xstride_block_thread_rank() & ~31u;
    unsigned n = xstride_block_thread_count() - first;
    return n >= 32u ? XSTRIDE_FULL_WARP_MASK : ((1u << n) - 1u);
}

// ------------------------------------------------------------------ limits
template <typename T> struct xstride_limits;
template <> struct xstride_limits<int> {
    static __device__ __forceinline__ int lowest() { return -2147483647 - 1; }
    static __device__ __forceinline__ int highest() { return 2147483647; }
};
template <> struct xstride_limits<unsigned> {
    static __device__ __forceinline__ unsigned lowest() { return 0u; }
    static __device__ __forceinline__ unsigned highest() { return 0xffffffffu; }
};
template <> struct xstride_limits<long long> {
    static __device__ __forceinline__ long long lowest() { return -9223372036854775807LL - 1LL; }
    static __device__ __forceinline__ long long highest() { return 9223372036854775807LL; }
};
template <> struct xstride_limits<unsigned long long> {
    static __device__ __forceinline__ unsigned long long lowest() { return 0ull; }
    static __device__ __forceinline__ unsigned long long highest() { return 0xffffffffffffffffull; }
};
template <> struct xstride_limits<float> {
    static __device__ __forceinline__ float lowest() { return __int_as_float(0xff800000); }
    static __device__ __forceinline__ float highest() { return __int_as_float(0x7f800000); }
};
template <> struct xstride_limits<double> {
    static __device__ __forceinline__ double lowest()
    { return __longlong_as_double((long long)0xfff0000000000000ull); }
    static __device__ __forceinline__ double highest()
    { return __longlong_as_double(0x7ff0000000000000ll); }
};

// Identity of max (-inf / smallest integer) and of min (+inf / largest integer).
template <typename T> __device__ __forceinline__ T xstride_lowest() { return xstride_limits<T>::lowest(); }
template <typename T> __device__ __forceinline__ T xstride_highest() { return xstride_limits<T>::highest(); }

// ------------------------------------------------------------------ operations
// Each operation: a binary call operator (first argument = lower-ranked data) and
// its identity. min/max propagate NaN: a value that is not equal to itself wins.
struct xstride_sum_op {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
    template <typename T> static __device__ __forceinline__ T identity() { return T(0); }
};
struct xstride_min_op {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const
    { return (a != a || a < b) ? a : b; }
    template <typename T> static __device__ __forceinline__ T identity() { return xstride_highest<T>(); }
};
struct xstride_max_op {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const
    { return (a != a || a > b) ? a : b; }
    template <typename T> static __device__ __forceinline__ T identity() { return xstride_lowest<T>(); }
};

// ------------------------------------------------------------------ details
// Position of the k-th (0-based) set bit of m; requires k < __popc(m).
__device__ __forceinline__ unsigned xstride_detail_nth_set_bit(unsigned m, unsigned k)
{
    unsigned pos = 0;
#pragma unroll
    for (unsigned w = 16; w > 0; w >>= 1) {
        unsigned low = m & ((1u << w) - 1u);
        unsigned c = __popc(low);
        if (k >= c) { k -= c; m >>= w; pos += w; } else { m = low; }
    }
    return pos;
}

__device__ __forceinline__ unsigned xstride_detail_lane()
{
    return xstride_block_thread_rank() & 31u;
}

// All 32 lanes: butterfly; each pair combined lower lane first, so every lane ends
// with the same bits.
template <typename T, typename Op>
__device__ __forceinline__ T xstride_detail_warp_reduce_full(T v, Op op)
{
    unsigned lane = xstride_detail_lane();
#pragma unroll
    for (unsigned o = 16; o > 0; o >>= 1) {
        T other = __shfl_xor_sync(XSTRIDE_FULL_WARP_MASK, v, o);
        v = (lane & o) ? op(other, v) : op(v, other);
    }
    return v;
}

// Lanes 0..n-1 (1 <= n <= 32): lane 0 folds [0, n) by a shift-down tree, then
// broadcasts.
template <typename T, typename Op>
__device__ __forceinline__ T xstride_detail_warp_reduce_first(T v, unsigned n, Op op)
{
    if (n >= 32u) return xstride_detail_warp_reduce_full(v, op);
    unsigned mask = (1u << n) - 1u;
    unsigned lane = xstride_detail_lane();
    for (unsigned o = 1; o < n; o <<= 1) {
        T other = __shfl_down_sync(mask, v, o);
        if (lane + o < n) v = op(v, other);
    }
    return __shfl_sync(mask, v, 0);
}

// Any non-empty mask: the same tree over the ranks of the lanes within the mask.
template <typename T, typename Op>
__device__ __forceinline__ T xstride_detail_warp_reduce_sparse(T v, unsigned mask, Op op)
{
    unsigned lane = xstride_detail_lane();
    unsigned rank = __popc(mask & ((1u << lane) - 1u));
    unsigned n = __popc(mask);
    for (unsigned o = 1; o < n; o <<= 1) {
        unsigned src_rank = rank + o;
        unsigned src = src_rank < n ? xstride_detail_nth_set_bit(mask, src_rank) : lane;
        T other = __shfl_sync(mask, v, src);
        if (src_rank < n) v = op(v, other);
    }
    return __shfl_sync(mask, v, __ffs(mask) - 1);
}

template <typename T, typename Op>
__device__ __forceinline__ T xstride_detail_warp_reduce(T v, unsigned mask, Op op)
{
    if (mask == XSTRIDE_FULL_WARP_MASK) return xstride_detail_warp_reduce_full(v, op);
    if ((mask & (mask + 1u)) == 0u) return xstride_detail_warp_reduce_first(v, __popc(mask), op);
    return xstride_detail_warp_reduce_sparse(v, mask, op);
}

template <typename T, typename Op>
__device__ __forceinline__ T xstride_detail_block_reduce(T v, Op op)
{
    __shared__ T xstride_partials[33];
    unsigned rank = xstride_block_thread_rank();
    unsigned count = xstride_block_thread_count();
    unsigned lane = rank & 31u, warp = rank >> 5;
    unsigned nwarps = (count + 31u) >> 5;
    unsigned in_warp = count - (warp << 5);
    v = xstride_detail_warp_reduce_first(v, in_warp < 32u ? in_warp : 32u, op);
    if (nwarps == 1u) return v;
    if (lane == 0u) xstride_partials[warp] = v;
    __syncthreads();
    if (warp == 0u) {   // warp 0 is full here (count > 32)
        T p = lane < nwarps ? xstride_partials[lane] : Op::template identity<T>();
        p = xstride_detail_warp_reduce_full(p, op);
        if (lane == 0u) xstride_partials[32] = p;
    }
    __syncthreads();
    return xstride_partials[32];
}

__device__ __forceinline__ int xstride_detail_atomic_add(int* p, int v) { return atomicAdd(p, v); }
__device__ __forceinline__ unsigned xstride_detail_atomic_add(unsigned* p, unsigned v) { return atomicAdd(p, v); }
__device__ __forceinline__ unsigned long long xstride_detail_atomic_add(unsigned long long* p, unsigned long long v)
{ return atomicAdd(p, v); }
__device__ __forceinline__ long long xstride_detail_atomic_add(long long* p, long long v)
{   // two's complement: the unsigned sum has the same bits
    return (long long)atomicAdd((unsigned long long*)p, (unsigned long long)v);
}
__device__ __forceinline__ float xstride_detail_atomic_add(float* p, float v) { return atomicAdd(p, v); }
__device__ __forceinline__ double xstride_detail_atomic_add(double* p, double v) { return atomicAdd(p, v); }

// ------------------------------------------------------------------ public: warp
template <typename T>
__device__ __forceinline__ T xstride_warp_sum(T v, unsigned mask = XSTRIDE_FULL_WARP_MASK)
{ return xstride_detail_warp_reduce(v, mask, xstride_sum_op()); }

template <typename T>
__device__ __forceinline__ T xstride_warp_min(T v, unsigned mask = XSTRIDE_FULL_WARP_MASK)
{ return xstride_detail_warp_reduce(v, mask, xstride_min_op()); }

template <typename T>
__device__ __forceinline__ T xstride_warp_max(T v, unsigned mask = XSTRIDE_FULL_WARP_MASK)
{ return xstride_detail_warp_reduce(v, mask, xstride_max_op()); }

// ------------------------------------------------------------------ public: block
template <typename T>
__device__ __forceinline__ T xstride_block_sum(T v)
{ return xstride_detail_block_reduce(v, xstride_sum_op()); }

template <typename T>
__device__ __forceinline__ T xstride_block_min(T v)
{ return xstride_detail_block_reduce(v, xstride_min_op()); }

template <typename T>
__device__ __forceinline__ T xstride_block_max(T v)
{ return xstride_detail_block_reduce(v, xstride_max_op()); }

template <typename T>
__device__ __forceinline__ T xstride_block_sum_atomic(T v, T* dst)
{
    T s = xstride_detail_block_reduce(v, xstride_sum_op());
    if (xstride_block_thread_rank() == 0u) xstride_detail_atomic_add(dst, s);
    return s;
}

#endif  // XSTRIDE_REDUCE_CUH
