/* xstride/detail/fold_partials.cuh -- the last block's fold of a split reduction's
 * per-block partials: staged through shared memory (xs_reduce_interleave in
 * xstride/_kernels/reductions.cu) or a column a thread with many loads in flight
 * (xs_reduce_cols).
 * Not part of the shipped header API: names and contents may change in any release.
 * Compiled by NVRTC: no standard headers.
 */
#ifndef XSTRIDE_DETAIL_FOLD_PARTIALS_CUH
#define XSTRIDE_DETAIL_FOLD_PARTIALS_CUH

// Bytes of shared memory the fold stages its partials in, a slab at a time.
#define XS_FOLD_SLAB_BYTES 4096
// Partials a thread loads before it stores any (a slab of 4-byte accumulators in one
// round trip to L2 for a block of 256 threads, two for 255).
#define XS_FOLD_LOADS 4

// Column c's total, op(...op(op(identity, p[c]), p[ncols + c])..., p[(nchunks - 1) *
// ncols + c]) with p = partials, for threads t < ncols (the identity to the others):
// the order of a loop over the chunks, so the bits of that loop. The loop itself
// waits for one round trip to L2 every few chunks (its loads are volatile, as the
// other blocks wrote them), about 66 of them for 264 chunks; here the whole block
// first copies a slab of XS_FOLD_SLAB_BYTES of partials into shared memory, each
// thread issuing its XS_FOLD_LOADS loads before storing any, so a slab costs one or
// two round trips, then threads t < ncols fold their column's entries of the slab in
// chunk order. Every thread of the block must call it, after the block found it is the
// last (the caller's atomic and __threadfence); ncols at most the slab's entries. Not
// inlined: inlined, it cost 10 of the interleave kernel's instantiations a block per
// SM (ptxas 13, sm_90).
template <typename Tacc, typename Op>
__device__ __noinline__ Tacc xs_fold_partials(const Tacc* partials, long long ncols,
                                              long long nchunks, Op op)
{
    constexpr int SLAB = XS_FOLD_SLAB_BYTES / (int)sizeof(Tacc);
    __shared__ Tacc s_slab[SLAB];
    const volatile Tacc* vp = partials;
    const long long t = threadIdx.x, bd = blockDim.x;
    const long long per = SLAB / ncols;                 // chunks a slab
    Tacc f = Op::template identity<Tacc>();
    for (long long c0 = 0; c0 < nchunks; c0 += per) {
        const long long rows = nchunks - c0 < per ? nchunks - c0 : per;
        const long long m = rows * ncols;               // entries of this slab
        const long long first = c0 * ncols;
        for (long long i0 = t; i0 < m; i0 += XS_FOLD_LOADS * bd) {
            Tacc v[XS_FOLD_LOADS];
#pragma unroll
            for (int k = 0; k < XS_FOLD_LOADS; ++k) {
                const long long i = i0 + k * bd;
                if (i < m) v[k] = (Tacc)vp[first + i];
            }
#pragma unroll
            for (int k = 0; k < XS_FOLD_LOADS; ++k) {
                const long long i = i0 + k * bd;
                if (i < m) s_slab[i] = v[k];
            }
        }
        __syncthreads();
        if (t < ncols)
            for (long long r = 0; r < rows; ++r) f = op(f, s_slab[r * ncols + t]);
        __syncthreads();                                // the slab is read before the next
    }
    return f;
}

// Partials a thread of xs_fold_chain loads before it folds any.
#define XS_FOLD_CHAIN_LOADS 8

// op(...op(op(identity, p[0]), p[stride])..., p[(n - 1) * stride]): one column of
// partials folded in chunk order by one thread (the bits of that loop), which loads
// XS_FOLD_CHAIN_LOADS of them before it folds any, so the chain waits for one round
// trip to L2 every XS_FOLD_CHAIN_LOADS chunks instead of every few. The loads are
// volatile, as other blocks wrote the partials (after the caller's __threadfence).
template <typename Tacc, typename Op>
__device__ __noinline__ Tacc xs_fold_chain(const Tacc* p, long long stride, long long n,
                                           Op op)
{
    const volatile Tacc* vp = p;
    Tacc f = Op::template identity<Tacc>();
    for (long long i0 = 0; i0 < n; i0 += XS_FOLD_CHAIN_LOADS) {
        Tacc v[XS_FOLD_CHAIN_LOADS];
#pragma unroll
        for (int k = 0; k < XS_FOLD_CHAIN_LOADS; ++k)
            if (i0 + k < n) v[k] = (Tacc)vp[(i0 + k) * stride];
#pragma unroll
        for (int k = 0; k < XS_FOLD_CHAIN_LOADS; ++k)
            if (i0 + k < n) f = op(f, v[k]);
    }
    return f;
}

#endif  // XSTRIDE_DETAIL_FOLD_PARTIALS_CUH
