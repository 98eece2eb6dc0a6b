/* xstride/detail/reduce_ops.cuh -- private pieces of the namespace's reduction
 * kernels (xstride/_kernels/reductions.cu): the operator of each OP, the stored value,
 * the per-element transform, 16-byte vector loads and batched loads. Not part of the
 * shipped header API: names and contents may change in any release.
 * Compiled by NVRTC: no standard headers.
 */
#ifndef XSTRIDE_DETAIL_REDUCE_OPS_CUH
#define XSTRIDE_DETAIL_REDUCE_OPS_CUH

#include <xstride/reduce.cuh>
#include <xstride/detail/namespace_kernels.cuh>

template <int OP> struct xs_op_of { typedef xstride_sum_op type; };
template <> struct xs_op_of<1> { typedef xs_prod_op type; };
template <> struct xs_op_of<2> { typedef xstride_min_op type; };
template <> struct xs_op_of<3> { typedef xstride_max_op type; };

// all / any over the 0/1 values of (x != 0): AND with identity 1, OR with identity 0.
struct xs_and_op {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return a & b; }
    template <typename T> static __device__ __forceinline__ T identity() { return T(1); }
};
struct xs_or_op {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return a | b; }
    template <typename T> static __device__ __forceinline__ T identity() { return T(0); }
};
template <> struct xs_op_of<5> { typedef xs_and_op type; };
template <> struct xs_op_of<6> { typedef xs_or_op type; };
template <> struct xs_op_of<7> { typedef xstride_sum_op type; };
template <> struct xs_op_of<8> { typedef xstride_sum_op type; };
template <> struct xs_op_of<9> { typedef xstride_sum_op type; };

// The ops whose transform reads the output's center: 4 (x - c)^2, 8 the moments.
template <int OP> constexpr bool xs_centered = OP == 4 || OP == 8 || OP == 9;

// The center of output i: center[i] (OP 4, 8), or for OP 9 (the moments of OP 8 about
// each output's own first element; the "interleave" kernel only) element i of the row
// of logical index 0, whose address the host passes as center: K = x0[i] widened to
// double, the value xs_var_center would have written (reduce_finish.cu).
template <int OP, typename Tin, typename Tacc>
__device__ __forceinline__ Tacc xs_center_of(const Tacc* __restrict__ center, long long i)
{
    if constexpr (OP == 9) return Tacc((double)reinterpret_cast<const Tin*>(center)[i], 0.0);
    else if constexpr (xs_centered<OP>) return center[i];
    else return Tacc(0);
}

// The value stored for an output: the folded accumulator, converted; for the mean
// (OP 7) first divided by the count n (as NumPy's mean: the sum, divided once).
template <int OP, typename Tout, typename Tacc>
__device__ __forceinline__ Tout xs_final(Tacc a, long long n)
{
    if constexpr (OP == 7) return (Tout)(a / (Tacc)n);
    else return (Tout)a;
}

template <int OP, typename Tacc, typename Tin>
__device__ __forceinline__ Tacc xs_transform(Tin v, Tacc c)
{
    if constexpr (OP == 4) {
        Tacc t = (Tacc)v - c;
        return t * t;
    } else if constexpr (OP == 8 || OP == 9) {
        // the shifted moments: (d, d * d) of d = x - K, K = c.re (Tacc complex128)
        const double d = (double)v - c.re;
        return Tacc(d, d * d);
    } else if constexpr (OP == 5 || OP == 6) {
        return (Tacc)(v != Tin(0));   // NaN != 0: true, as NumPy's truth value of NaN
    } else {
        return (Tacc)v;
    }
}

// V consecutive elements from a 16-byte aligned address.
template <typename Tin, int V>
__device__ __forceinline__ void xs_load_vec(const Tin* p, Tin (&out)[V])
{
    if constexpr (V == 1) {
        out[0] = p[0];
    } else {
        union { uint4 u; Tin t[V]; } w;
        w.u = __ldg(reinterpret_cast<const uint4*>(p));
#pragma unroll
        for (int j = 0; j < V; ++j) out[j] = w.t[j];
    }
}

template <typename Tin, int V> struct xs_vec { Tin t[V]; };

// Fold the items i = first, first + step, ... < end in that order: B loads are issued
// (load(i, item)) before the first of them is folded (fold(item)). Full batches need
// no bounds test; the last, partial batch tests each of its B items.
template <int B, typename Item, typename Load, typename Fold>
__device__ __forceinline__ void xs_batched(long long first, long long end, long long step,
                                           Load load, Fold fold)
{
    long long i = first;
    for (; i + (long long)(B - 1) * step < end; i += (long long)B * step) {
        Item v[B];
#pragma unroll
        for (int k = 0; k < B; ++k) load(i + (long long)k * step, v[k]);
#pragma unroll
        for (int k = 0; k < B; ++k) fold(v[k]);
    }
    if (i < end) {
        Item v[B];
#pragma unroll
        for (int k = 0; k < B; ++k)
            if (i + (long long)k * step < end) load(i + (long long)k * step, v[k]);
#pragma unroll
        for (int k = 0; k < B; ++k)
            if (i + (long long)k * step < end) fold(v[k]);
    }
}

// The element offset of flat index i over two reduced axes (C order: extents n0 x n1,
// strides s0, s1), moved on by a fixed step with at most one carry: one division at
// the start instead of one per element (xs_offset).
struct xs_walk2 {
    long long i1, off, n1, rem, adv, carry;
    __device__ __forceinline__ xs_walk2(long long i, long long step, long long n1_,
                                        long long s0, long long s1)
        : n1(n1_)
    {
        const long long q = i / n1, sq = step / n1;
        i1 = i - q * n1;
        off = q * s0 + i1 * s1;
        rem = step - sq * n1;
        adv = sq * s0 + rem * s1;   // the step without a carry
        carry = s0 - n1 * s1;       // and one carry
    }
    __device__ __forceinline__ void next()
    {
        i1 += rem;
        off += adv;
        if (i1 >= n1) {
            i1 -= n1;
            off += carry;
        }
    }
};

// The values of each aligned group of g lanes (g a power of two, at most 32) folded by
// a butterfly, the lower lanes' values on the left of op (the steps of
// xstride_detail_warp_reduce_full, which is this with g == 32: the same bits); every
// lane of a group gets its group's result. g must be the same in every lane.
template <typename T, typename Op>
__device__ __forceinline__ T xs_group_reduce(T v, unsigned g, Op op)
{
    const unsigned lane = threadIdx.x & 31u;
#pragma unroll
    for (unsigned o = 16; o > 0; o >>= 1) {
        if (o < g) {
            T other = __shfl_xor_sync(0xffffffffu, v, o);
            v = (lane & o) ? op(other, v) : op(v, other);
        }
    }
    return v;
}

#endif  // XSTRIDE_DETAIL_REDUCE_OPS_CUH
