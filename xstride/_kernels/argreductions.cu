// argmin / argmax of the xstride namespace. Launched by xstride/_kernels/argreductions.py
// from a plan of xstride/_plans/argreduction.py. Compiled by NVRTC: no standard headers.
//
// Template parameters:
//   MAX   0 argmin, 1 argmax
//   Tin   element type read; Tacc the type values are compared in (Tin widened to 32
//         bits for the shuffles: bool, 8- and 16-bit integers)
//   NK/NR capacity of the kept/reduced axis arrays of the descriptor
//
// Every element carries (value, logical index). The index is formed from the walk's
// position (the walk visits a row in memory order; xs_arg_pos adds up the logical
// weights, see the plan), never from the order in which threads meet the elements.
// Pairs are combined by xs_arg_better, a strict total order on pairs:
//   1. a NaN beats a number;
//   2. of two numbers, the smaller (argmin) / larger (argmax) beats the other;
//   3. otherwise (two NaNs, or equal numbers, -0.0 == 0.0 included) the smaller index.
// The best pair of a set is then unique, whatever the tree, warp or chunk order that
// reaches it: results are deterministic and equal NumPy's rule (first occurrence of
// the extreme; the first NaN when there is one). Idle lanes pass (worst value,
// XS_ARG_NONE), which every real element beats (rule 2, else rule 3: its index is
// smaller).
//
// Kernels:
//   xs_arg_thread   one thread per (row, chunk), walking its elements in order
//                   (neighbouring threads on neighbouring rows: coalesced when a kept
//                   axis is innermost, plan strategies "short" and "outer")
//   xs_arg_warp     one warp per (row, chunk), lanes interleaved over the elements
//                   (coalesced when the reduced axis is innermost: "inner", "full")
//   xs_arg_group    a group of 1-16 lanes per row of a few dozen 16-byte words
//   xs_arg_interleave  a block per chunk of a contiguous run of rows of a few columns,
//                   reduced over the rows (plan strategy "interleave": argmax(x, axis=0)
//                   of an (n, 3) array), read as one flat array
//   xs_arg_combine  a warp or a block per row folds the chunks' pairs (second pass;
//                   only when a row is split into chunks)
//   xs_arg_rowregs  short dense rows, a thread's few rows loaded as 16-byte words
//   xs_arg_side     rows side by side (a (k, n) array used as .T over axis 1), a
//                   thread's W rows one 16-byte word a step
//   xs_arg_tile     short rows of any element type staged in shared memory by
//                   asynchronous 16-byte copies, a thread a row
// Work item w = chunk * nrows + row; with nchunks > 1 the pair of item w is stored at
// partial [w]. Index arithmetic is 64-bit throughout.
#include <xstride/reduce.cuh>
#include <xstride/detail/namespace_kernels.cuh>
#include <xstride/detail/row_words.cuh>
#include <xstride/detail/async_copy.cuh>
#include <xstride/detail/arg_order.cuh>
#include <xstride/detail/arg_interleave_words.cuh>

template <int NK, int NR>
struct xs_arg_desc {
    long long kshape[NK];
    long long kstride[NK];
    long long rshape[NR];
    long long rstride[NR];
    long long rweight[NR];
    long long nk;
    long long nr;
    long long rbase;
};

// Element offset (from the row's first element) and logical index of the walk's flat
// index j (C order over rshape[0:nr]).
template <int NK, int NR>
__device__ __forceinline__ void xs_arg_pos(long long j, const xs_arg_desc<NK, NR>& d,
                                           long long& off, long long& idx)
{
    if (d.nr == 1) {
        off = j * d.rstride[0];
        idx = d.rbase + j * d.rweight[0];
        return;
    }
    off = 0;
    idx = d.rbase;
#pragma unroll
    for (int k = NR - 1; k >= 0; --k) {
        if (k < d.nr) {
            const long long n = d.rshape[k];
            const long long q = j / n;
            const long long c = j - q * n;
            off += c * d.rstride[k];
            idx += c * d.rweight[k];
            j = q;
        }
    }
}

// Fold elements j = first, first + step, ... < end of the row at p into (bv, bi).
// Each round issues the loads of four elements (predicated past the end: such a slot
// keeps (worst, XS_ARG_NONE), which never wins) before any is compared, so a short
// row's loads are in flight together.
template <int MAX, typename Tin, typename Tacc, int NK, int NR>
__device__ __forceinline__ void xs_arg_fold(const Tin* __restrict__ p, long long first,
                                            long long end, long long step,
                                            const xs_arg_desc<NK, NR>& d, Tacc& bv, long long& bi)
{
    for (long long j = first; j < end; j += 4 * step) {
        long long idx[4];
        Tacc v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            const long long jk = j + k * step;
            v[k] = xs_arg_worst<MAX, Tacc>();
            idx[k] = XS_ARG_NONE;
            if (jk < end) {
                long long off;
                xs_arg_pos(jk, d, off, idx[k]);
                v[k] = (Tacc)p[off];
            }
        }
#pragma unroll
        for (int k = 0; k < 4; ++k)
            if (xs_arg_better<MAX>(v[k], idx[k], bv, bi)) { bv = v[k]; bi = idx[k]; }
    }
}

// Butterfly over each aligned group of g lanes (a power of two, the same in every
// lane; 32 by default: the warp); every lane ends with the best pair of its group.
template <int MAX, typename Tacc>
__device__ __forceinline__ void xs_arg_warp_reduce(Tacc& bv, long long& bi, unsigned g = 32u)
{
#pragma unroll
    for (unsigned o = 16; o > 0; o >>= 1) {
        if (o < g) {
            const Tacc ov = __shfl_xor_sync(XSTRIDE_FULL_WARP_MASK, bv, o);
            const long long oi = __shfl_xor_sync(XSTRIDE_FULL_WARP_MASK, bi, o);
            if (xs_arg_better<MAX>(ov, oi, bv, bi)) { bv = ov; bi = oi; }
        }
    }
}

template <typename Tacc>
__device__ __forceinline__ void xs_arg_store(long long w, long long row, long long nchunks,
                                             Tacc bv, long long bi, long long* __restrict__ out,
                                             Tacc* __restrict__ pval, long long* __restrict__ pidx)
{
    if (nchunks == 1) {
        out[row] = bi;
    } else {
        pval[w] = bv;
        pidx[w] = bi;
    }
}

// One thread per work item (row, chunk); threads loop over the items.
template <int MAX, typename Tin, typename Tacc, int NK, int NR, int MINB>
__global__ void __launch_bounds__(256, MINB) xs_arg_thread(const Tin* __restrict__ x, long long* __restrict__ out,
                                                     Tacc* __restrict__ pval, long long* __restrict__ pidx,
                                                     const xs_arg_desc<NK, NR> d, long long nrows,
                                                     long long rowlen, long long chunk, long long nchunks)
{
    const long long nitems = nrows * nchunks;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    for (long long w = (long long)blockIdx.x * blockDim.x + threadIdx.x; w < nitems; w += nthreads) {
        const long long ch = nchunks == 1 ? 0 : w / nrows;
        const long long row = w - ch * nrows;
        const long long begin = ch * chunk;
        const long long end = begin + chunk < rowlen ? begin + chunk : rowlen;
        const Tin* p = x + xs_offset<NK>(row, d.kshape, d.kstride, d.nk);
        Tacc bv = xs_arg_worst<MAX, Tacc>();
        long long bi = XS_ARG_NONE;
        xs_arg_fold<MAX, Tin, Tacc, NK, NR>(p, begin, end, 1, d, bv, bi);
        xs_arg_store(w, row, nchunks, bv, bi, out, pval, pidx);
    }
}

// Lane `lane` of `nt` lanes' share of elements [begin, end) of one contiguous row (walk
// stride 1, one reduced axis: logical index rbase + j * rw at walk position j): the
// elements before the first 16-byte boundary one by one (lane t the t-th), then 16-byte
// words of V elements (lane t words t, t + nt, ...; four words in flight before any is
// compared), then the tail one by one; a lane's positions rise, so it keeps an
// xs_arg_run. xs_arg_warp passes nt = 32, a constant once inlined.
template <int MAX, typename Tin, typename Tacc, int V>
__device__ __forceinline__ void xs_arg_fold_words(const Tin* __restrict__ p, long long begin,
                                                  long long end, unsigned lane, unsigned nt,
                                                  long long rbase, long long rw, Tacc& bv,
                                                  long long& bi)
{
    xs_arg_run<MAX, Tacc> run;
    auto take = [&](Tacc v, long long j) { run.take(v, j, rw > 0); };
    const unsigned long long a = (unsigned long long)(p + begin);
    long long head = (long long)(((16ull - (a & 15ull)) & 15ull) / sizeof(Tin));
    head = head < end - begin ? head : end - begin;
    for (long long j = begin + lane; j < begin + head; j += nt) take((Tacc)p[j], j);
    const long long w0 = begin + head, nw = (end - w0) / V;
    const uint4* q = reinterpret_cast<const uint4*>(p + w0);
    long long i = lane;
    for (; i + 3 * nt < nw; i += 4 * nt) {
        xs_row_words<Tin, V> v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) v[k].u[0] = __ldg(q + i + nt * k);
#pragma unroll
        for (int k = 0; k < 4; ++k)
#pragma unroll
            for (int e = 0; e < V; ++e) take((Tacc)v[k].t[e], w0 + (i + nt * k) * V + e);
    }
    for (; i < nw; i += nt) {
        xs_row_words<Tin, V> v;
        v.u[0] = __ldg(q + i);
#pragma unroll
        for (int e = 0; e < V; ++e) take((Tacc)v.t[e], w0 + i * V + e);
    }
    for (long long j = w0 + nw * V + lane; j < end; j += nt) take((Tacc)p[j], j);
    run.merge(bv, bi, rbase, rw);
}

// One warp per work item (row, chunk); warps loop over the items. V == 1: lane t takes
// the chunk's elements t, t + 32, ... (any walk); V > 1: the walk is one contiguous
// axis (the host checks: nr == 1, rstride 1, V * sizeof(Tin) == 16), read by
// xs_arg_fold_words.
template <int MAX, typename Tin, typename Tacc, int NK, int NR, int V>
__global__ void __launch_bounds__(256) xs_arg_warp(const Tin* __restrict__ x, long long* __restrict__ out,
                                                   Tacc* __restrict__ pval, long long* __restrict__ pidx,
                                                   const xs_arg_desc<NK, NR> d, long long nrows,
                                                   long long rowlen, long long chunk, long long nchunks)
{
    static_assert(V == 1 || V * sizeof(Tin) == 16, "16-byte words of V elements");
    const unsigned lane = threadIdx.x & 31u;
    const long long nitems = nrows * nchunks;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < nitems;
         w += nwarps) {
        const long long ch = w / nrows;
        const long long row = w - ch * nrows;
        const long long begin = ch * chunk;
        const long long end = begin + chunk < rowlen ? begin + chunk : rowlen;
        const Tin* p = x + xs_offset<NK>(row, d.kshape, d.kstride, d.nk);
        Tacc bv = xs_arg_worst<MAX, Tacc>();
        long long bi = XS_ARG_NONE;
        if constexpr (V > 1)
            xs_arg_fold_words<MAX, Tin, Tacc, V>(p, begin, end, lane, 32u, d.rbase, d.rweight[0], bv, bi);
        else
            xs_arg_fold<MAX, Tin, Tacc, NK, NR>(p, begin + lane, end, 32, d, bv, bi);
        xs_arg_warp_reduce<MAX>(bv, bi);
        if (lane == 0u) xs_arg_store(w, row, nchunks, bv, bi, out, pval, pidx);
    }
}

// `group` lanes (1, 2, 4, 8 or 16) a row of one contiguous axis (the host checks: one
// chunk a row, nr == 1, rstride 1, V * sizeof(Tin) == 16), 32 / group rows a warp at
// once, each group's lanes reading the row by words as xs_arg_fold_words with nt =
// group, then a butterfly of log2(group) steps; warps stride over the rows. Rows of a
// few dozen words give each lane several words in flight (_geometry.warp_group).
template <int MAX, typename Tin, typename Tacc, int NK, int NR, int V>
__global__ void __launch_bounds__(256) xs_arg_group(const Tin* __restrict__ x, long long* __restrict__ out,
                                                    const xs_arg_desc<NK, NR> d, long long nrows,
                                                    long long rowlen, long long group)
{
    static_assert(V * sizeof(Tin) == 16, "16-byte words of V elements");
    const unsigned g = (unsigned)group, lane = threadIdx.x & 31u, sub = lane & (g - 1u);
    const unsigned slot = lane / g;
    const long long per = 32 / group, step = (((long long)gridDim.x * blockDim.x) >> 5) * per;
    for (long long row = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) * per + slot;
         row - slot < nrows; row += step) {   // warp-uniform: every lane shuffles below
        Tacc bv = xs_arg_worst<MAX, Tacc>();
        long long bi = XS_ARG_NONE;
        if (row < nrows)
            xs_arg_fold_words<MAX, Tin, Tacc, V>(x + xs_offset<NK>(row, d.kshape, d.kstride, d.nk),
                                                 0, rowlen, sub, g, d.rbase, d.rweight[0], bv, bi);
        xs_arg_warp_reduce<MAX>(bv, bi, g);
        if (row < nrows && sub == 0u) out[row] = bi;
    }
}

// Plan strategy "interleave": nred rows of ncols <= 32 contiguous columns (the kept
// axis of stride 1, the walk's one axis of stride rs >= ncols), e.g. argmax(x, axis=0)
// of an (n, 3) array or of x[:, :3] of an (n, 7) one. As xs_reduce_interleave
// (reductions.cu), the rows' columns are one flat array (flat element f at
// (f / ncols) * rs + f % ncols): block b takes the flat
// elements [b * chunk, (b + 1) * chunk) (chunk a multiple of the block's lanes,
// blockDim.x * V, a multiple of ncols), thread t (V = 1) the elements b * chunk + t, +
// blockDim.x, ..., all of column t % ncols at walk positions (b * chunk + t) / ncols +
// m * blockDim.x / ncols; every load of a warp is one contiguous span, B in flight per
// thread. V > 1 (rs == ncols, a 16-byte aligned run): thread t reads 16-byte words of
// V elements, each element a lane of its own (xs_arg_interleave_words). The block then
// folds each column's lanes in shared memory, in G = blockDim.x / ncols groups, then
// the groups (the order is strict: any fold order gives the same pair); the pair of
// (block b, column c) is work item b * ncols + c of xs_arg_combine, or with one block
// the index itself.
template <int MAX, typename Tin, typename Tacc, int B, int V>
__global__ void __launch_bounds__(256) xs_arg_interleave(const Tin* __restrict__ x, long long* __restrict__ out,
                                                         Tacc* __restrict__ pval, long long* __restrict__ pidx,
                                                         long long ncols, long long nred, long long chunk,
                                                         long long nchunks, long long rbase, long long rweight,
                                                         long long rs)
{
    __shared__ Tacc sv[256 * V];
    __shared__ long long si[256 * V];
    const long long width = (long long)blockDim.x;       // a multiple of ncols / gcd(ncols, V)
    const long long total = ncols * nred;
    const long long begin = (long long)blockIdx.x * chunk;
    const long long end = begin + chunk < total ? begin + chunk : total;
    const unsigned t = threadIdx.x;
    if (V > 1) {
        xs_arg_interleave_words<MAX, Tin, Tacc, V, B>(x, ncols, begin, end, rbase, rweight,
                                                      sv, si);
    } else {
        const long long wrows = width / ncols;            // walk positions per step
        Tacc bv = xs_arg_worst<MAX, Tacc>();
        long long bi = XS_ARG_NONE;
        long long j = (begin + t) / ncols;
        const Tin* p = x + j * rs + (long long)(t % (unsigned)ncols);   // flat begin + t
        const long long pstep = wrows * rs;
        for (long long i = begin + t; i < end; i += B * width, j += B * wrows, p += B * pstep) {
            Tacc v[B];
#pragma unroll
            for (int k = 0; k < B; ++k) {
                const long long ik = i + k * width;
                v[k] = ik < end ? (Tacc)p[k * pstep] : xs_arg_worst<MAX, Tacc>();
            }
#pragma unroll
            for (int k = 0; k < B; ++k) {
                const long long idx = i + k * width < end ? rbase + (j + k * wrows) * rweight
                                                          : XS_ARG_NONE;
                if (xs_arg_better<MAX>(v[k], idx, bv, bi)) { bv = v[k]; bi = idx; }
            }
        }
        sv[t] = bv;
        si[t] = bi;
    }
    __syncthreads();
    const long long groups = width / ncols;
    Tacc bv = xs_arg_worst<MAX, Tacc>();
    long long bi = XS_ARG_NONE;
    if ((long long)t < groups * ncols)    // lanes t, t + groups * ncols, ...: column t % ncols
        for (long long u = t; u < width * V; u += groups * ncols)
            if (xs_arg_better<MAX>(sv[u], si[u], bv, bi)) { bv = sv[u]; bi = si[u]; }
    __syncthreads();
    if ((long long)t < groups * ncols) { sv[t] = bv; si[t] = bi; }
    __syncthreads();
    if ((long long)t < ncols) {
        for (long long g = 1; g < groups; ++g)
            if (xs_arg_better<MAX>(sv[g * ncols + t], si[g * ncols + t], bv, bi)) {
                bv = sv[g * ncols + t];
                bi = si[g * ncols + t];
            }
        xs_arg_store((long long)blockIdx.x * ncols + t, t, nchunks, bv, bi, out, pval, pidx);
    }
}

// Second pass: a group of G threads (G = 32, a warp, or 256, a block: a few rows of
// many chunks) per row folds the pairs of its nchunks chunks (pval/pidx[ch * nrows +
// row]) and writes the index. A thread loads 8 pairs before it compares any (argmin(x,
// axis=0) of a (3, n) array used as .T: 40 us with one pair in flight and a warp a
// row, H200); the order is a strict total order, so the fold's order does not change
// the result.
#define XS_ARG_COMBINE_B 8
template <int MAX, typename Tacc, int G>
__global__ void __launch_bounds__(256) xs_arg_combine(const Tacc* __restrict__ pval,
                                                      const long long* __restrict__ pidx,
                                                      long long* __restrict__ out,
                                                      long long nrows, long long nchunks)
{
    static_assert(G == 32 || G == 256, "a warp or a block of 256 threads a row");
    __shared__ Tacc sv[8];
    __shared__ long long si[8];
    const unsigned lane = threadIdx.x & 31u, r = threadIdx.x % (unsigned)G;
    const long long ngroups = ((long long)gridDim.x * blockDim.x) / G;
    for (long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / G; row < nrows;
         row += ngroups) {
        Tacc bv = xs_arg_worst<MAX, Tacc>();
        long long bi = XS_ARG_NONE;
        for (long long ch0 = r; ch0 < nchunks; ch0 += G * XS_ARG_COMBINE_B) {
            Tacc v[XS_ARG_COMBINE_B];
            long long i[XS_ARG_COMBINE_B];
#pragma unroll
            for (int k = 0; k < XS_ARG_COMBINE_B; ++k) {
                const long long ch = ch0 + G * k;
                v[k] = ch < nchunks ? pval[ch * nrows + row] : xs_arg_worst<MAX, Tacc>();
                i[k] = ch < nchunks ? pidx[ch * nrows + row] : XS_ARG_NONE;
            }
#pragma unroll
            for (int k = 0; k < XS_ARG_COMBINE_B; ++k)
                if (xs_arg_better<MAX>(v[k], i[k], bv, bi)) { bv = v[k]; bi = i[k]; }
        }
        xs_arg_warp_reduce<MAX>(bv, bi);
        if constexpr (G == 256) {   // the block's 8 warp results, by the first warp
            if (lane == 0u) { sv[threadIdx.x >> 5] = bv; si[threadIdx.x >> 5] = bi; }
            __syncthreads();
            bv = lane < 8u ? sv[lane] : xs_arg_worst<MAX, Tacc>();
            bi = lane < 8u ? si[lane] : XS_ARG_NONE;
            xs_arg_warp_reduce<MAX>(bv, bi);
            __syncthreads();   // sv, si are read before the next row writes them
        }
        if (r == 0u) out[row] = bi;
    }
}

// Short dense rows in registers (plan strategy "thread" over rows of L elements stored
// one after another, forward, the first on a 16-byte boundary, 1-, 2- or 4-byte
// elements, Q = 16 / gcd(L * sizeof(Tin), 16) rows holding at most 48 bytes and at
// most 4 of them, or Q = 1 row of whole words of up to 96 bytes: arg_regs_rows in
// argreductions.py): thread g loads rows g * Q ..
// g * Q + Q - 1 as whole 16-byte words (element by element for the last, shorter
// group), compares each row's elements (index j within the row) by the order above
// and stores the Q indices. Instruction-bound xs_arg_thread walks such rows at 0.84
// warps issued a cycle per scheduler and DRAM 49 % busy ((2**25, 3) float32, Nsight
// Compute, H200). The order is a strict total order: the same indices as every walk.
template <int MAX, typename Tin, typename Tacc, int L, int Q, int MINB>
__global__ void __launch_bounds__(256, MINB) xs_arg_rowregs(const Tin* __restrict__ x,
                                                            long long* __restrict__ out,
                                                            long long nrows)
{
    constexpr int E = L * Q;
    const long long r0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * Q;
    if (r0 >= nrows) return;
    const int rows = nrows - r0 < Q ? (int)(nrows - r0) : Q;
    const Tin* src = x + r0 * L;
    xs_row_words<Tin, E> v;
    xs_load_row_words(v, src, rows * L);
    long long o[Q];
#pragma unroll
    for (int r = 0; r < Q; ++r) {
        Tacc bv = xs_arg_worst<MAX, Tacc>();
        long long bi = XS_ARG_NONE;
#pragma unroll
        for (int j = 0; j < L; ++j)
            if (xs_arg_better<MAX>((Tacc)v.t[r * L + j], (long long)j, bv, bi)) {
                bv = (Tacc)v.t[r * L + j];
                bi = j;
            }
        o[r] = bi;
    }
    long long* dst = out + r0;
    if (Q % 2 == 0 && rows == Q) {
#pragma unroll
        for (int r = 0; r < Q; r += 2)
            reinterpret_cast<longlong2*>(dst)[r / 2] = make_longlong2(o[r], o[r + 1]);
    } else {
#pragma unroll
        for (int r = 0; r < Q; ++r)
            if (r < rows) dst[r] = o[r];
    }
}

// Rows side by side (a (k, n) array used as .T, reduced over axis 1: one kept axis of
// stride 1, one reduced axis of stride rs; nrows and rs multiples of W = 16 /
// sizeof(Tin), 8 for 1-byte elements, x on a 16-byte boundary, no split:
// arg_side_rows in argreductions.py): thread g takes rows g * W .. g * W + W - 1, each
// step j of the walk one 16-byte (8-byte) word of their W elements (logical index
// rbase + j * rw), two words in flight; the W indices are stored as 16-byte words
// (two a word).
template <int BYTES> struct xs_side_word { typedef uint4 type; };
template <> struct xs_side_word<8> { typedef uint2 type; };

template <int MAX, typename Tin, typename Tacc, int W>
__global__ void __launch_bounds__(256) xs_arg_side(const Tin* __restrict__ x, long long* __restrict__ out,
                                                   long long nrows, long long rowlen, long long rs,
                                                   long long rbase, long long rw)
{
    // a 16-byte word of W rows a step, or 8 bytes of 8 one-byte rows (W = 8)
    static_assert(W * sizeof(Tin) == 16 || W * sizeof(Tin) == 8, "W rows a 16- or 8-byte step");
    typedef typename xs_side_word<W * sizeof(Tin)>::type Word;
    union Row { Word u; Tin t[W]; };
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < nrows / W;
         g += nthreads) {
        const Word* p = reinterpret_cast<const Word*>(x + g * W);
        const long long ws = rs / W;   // the walk's stride in words
        Tacc bv[W];
        long long bi[W];
#pragma unroll
        for (int u = 0; u < W; ++u) { bv[u] = xs_arg_worst<MAX, Tacc>(); bi[u] = XS_ARG_NONE; }
        auto take = [&](const Row& v, long long j) {
            const long long idx = rbase + j * rw;
#pragma unroll
            for (int u = 0; u < W; ++u)
                if (xs_arg_better<MAX>((Tacc)v.t[u], idx, bv[u], bi[u])) { bv[u] = (Tacc)v.t[u]; bi[u] = idx; }
        };
        long long j = 0;
        for (; j + 1 < rowlen; j += 2) {
            Row a, b;
            a.u = __ldg(p + j * ws);
            b.u = __ldg(p + (j + 1) * ws);
            take(a, j);
            take(b, j + 1);
        }
        if (j < rowlen) {
            Row a;
            a.u = __ldg(p + j * ws);
            take(a, j);
        }
        longlong2* dst = reinterpret_cast<longlong2*>(out + g * W);
#pragma unroll
        for (int u = 0; u < W; u += 2) dst[u / 2] = make_longlong2(bi[u], bi[u + 1]);
    }
}

// Short rows staged in shared memory (arg_tile_rows in argreductions.py: one kept axis
// of stride ks != 0, one contiguous reduced run of rowlen elements, no split; every
// element type): block b takes the tiles b, b + gridDim.x, ... of R = rows_per_tile
// consecutive rows. The 16-byte words that hold a tile's span, (R - 1)|ks| + rowlen
// elements, are copied to shared memory by cp.async, the next tile's copies in flight
// while this tile's rows are compared (two buffers); the first and last word may reach
// up to 15 bytes outside the span, never past the 16-byte unit of the allocation that
// holds it (as xs_reduce_tile's words). Thread t then walks rows t, t + blockDim.x, ...
// of the tile in memory order (walk position j, logical index rbase + j * rw: rising
// when rw > 0) and stores their indices, neighbouring threads on neighbouring outputs.
// 4- and 8-byte elements: one word of padding after every 8 (byte b of the span's
// words at b + 16 * (b >> 7)), so that rows 32, 64 or 128 bytes apart do not meet on
// one bank; 1- and 2-byte rows read slower padded (uint8 (n, 5) 0.64 of copy against
// 0.75, bool (n, 100) 0.41 against 0.48 on the H200). TB: the most bytes of a span (a
// multiple of 16, at most 16384); MINB: blocks an SM (__launch_bounds__).
template <int MAX, typename Tin, typename Tacc, int TB, int MINB>
__global__ void __launch_bounds__(256, MINB) xs_arg_tile(const Tin* __restrict__ x, long long* __restrict__ out,
                                                         long long nrows, long long rowlen, long long ks,
                                                         long long rows_per_tile, long long rbase, long long rw)
{
    constexpr int S = (int)sizeof(Tin);
    constexpr bool PAD = S >= 4;
    constexpr int WORDS = (TB + 30) / 16;  // TB bytes from up to 15 bytes into a word
    constexpr int CAP = PAD ? WORDS + (WORDS - 1) / 8 : WORDS;   // the last word's slot, + 1
    static_assert(2 * CAP * 16 <= 48 * 1024, "two buffers in static shared memory");
    __shared__ uint4 s[2][CAP];
    const long long R = rows_per_tile;
    const long long ntiles = (nrows + R - 1) / R;
    const long long aks = ks < 0 ? -ks : ks;
    const bool forward = rw > 0;
    // rows in the tile, and the element offset of its lowest element
    auto extent = [&](long long tile, long long& nt, long long& lo) {
        const long long r0 = tile * R;
        nt = nrows - r0 < R ? nrows - r0 : R;
        lo = ks >= 0 ? r0 * ks : (r0 + nt - 1) * ks;
    };
    auto stage = [&](long long tile, int b) {
        long long nt, lo;
        extent(tile, nt, lo);
        const unsigned long long a = (unsigned long long)(x + lo);
        const long long nbytes = (long long)(a & 15ull) + ((nt - 1) * aks + rowlen) * S;
        const int nw = (int)((nbytes + 15) >> 4);
        const uint4* w = reinterpret_cast<const uint4*>(a & ~15ull);
        for (int i = (int)threadIdx.x; i < nw; i += (int)blockDim.x)
            xs_async_copy<16>(&s[b][PAD ? i + (i >> 3) : i], w + i);
        xs_async_commit();
    };
    long long tile = blockIdx.x;
    if (tile < ntiles) stage(tile, 0);
    for (int b = 0; tile < ntiles; tile += gridDim.x, b ^= 1) {
        if (tile + gridDim.x < ntiles) {
            stage(tile + gridDim.x, b ^ 1);   // the buffer every thread left at the last barrier
            xs_async_wait_prior<1>();
        } else {
            xs_async_wait_prior<0>();
        }
        __syncthreads();
        long long nt, lo;
        extent(tile, nt, lo);
        const int shift = (int)(((unsigned long long)(x + lo) & 15ull) / S);
        const Tin* e0 = reinterpret_cast<const Tin*>(s[b]);
        const long long r0 = tile * R;
        for (int t = (int)threadIdx.x; t < (int)nt; t += (int)blockDim.x) {
            const int o = shift + (int)((r0 + t) * ks - lo);
            xs_arg_run<MAX, Tacc> run;
#pragma unroll 4
            for (int j = 0; j < (int)rowlen; ++j) {
                const int e = o + j;
                run.take((Tacc)e0[PAD ? e + ((e * S) >> 7) * (16 / S) : e], j, forward);
            }
            out[r0 + t] = rbase + run.bj * rw;
        }
        __syncthreads();
    }
}
