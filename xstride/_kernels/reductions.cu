// Reduction kernels of the xstride namespace (sum, prod, min, max, all, any and the
// sum of squared deviations behind var/std). Launched by xstride/_kernels/reductions.py from
// a plan of xstride/_plans/reduction.py. Compiled by NVRTC: no standard headers.
//
// Template parameters of every kernel:
//   OP    0 sum, 1 prod, 2 min, 3 max, 4 sum of (x - center[k])^2, 5 all, 6 any,
//         7 mean (the sum, divided by the number of elements reduced when it is stored),
//         8 the shifted moments (sum of d, sum of d^2) of d = x - center[k].re in a
//         complex128 accumulator (var/std of float32 in one pass), 9 the same about
//         each output's own first element, read from x (center: the address of the
//         row of logical index 0; xs_reduce_interleave only)
//         (all/any: each element becomes (x != 0) in an int accumulator, 0 or 1 --
//         NaN counts as true -- combined by AND / OR, identities 1 / 0)
//   Tin   element type read; Tacc accumulator type; Tout element type written
//   NK/NR capacity of the kept/reduced axis arrays of the descriptor
//   V     elements per vector load (1: scalar loads only)
//   MINB  minimum resident blocks per SM asked of the compiler (__launch_bounds__)
//   B     loads batched per thread: B > 1 issues B independent loads (vectors or
//         scalars) into registers before folding any of them, so B loads per thread
//         are in flight; B == 1 is the original loop (`#pragma unroll 4`, which the
//         compiler splits with a loop-exit branch after each load and so keeps one
//         load in flight). Both fold the elements of a thread in the same sequence:
//         for the same launch geometry the results are bit-identical.
// Index arithmetic is 64-bit throughout. Every order of combination is fixed by the
// launch geometry, never by timing: results are deterministic run to run.
#include <xstride/reduce.cuh>
// The input x: a pointer to the elements by default; the kernels of xp.fuse
// (xstride/_kernels/_fusion_reduce.py) define these three macros before this text to
// read a generated type instead, which computes each element of the fused expression.
#ifndef XS_RED_IN
#define XS_RED_IN(T) const T* __restrict__
#define XS_RED_PTR(T) const T*
#define XS_RED_ADDR(p) ((unsigned long long)(p))
#define XS_RED_MEMORY 1   // x is memory: the tile kernel may stage it by 16-byte words
#endif
#include <xstride/detail/namespace_kernels.cuh>
#include <xstride/detail/reduce_ops.cuh>
#include <xstride/detail/interleave_words.cuh>
#include <xstride/detail/fold_partials.cuh>
#include <xstride/detail/side_rows.cuh>
#include <xstride/detail/fold_row.cuh>   // xs_fold_row

// One warp per output element (row); warps stride over the rows.
template <int OP, typename Tin, typename Tacc, typename Tout, int NK, int NR, int V, int MINB, int B>
__global__ void __launch_bounds__(256, MINB) xs_reduce_rows_warp(XS_RED_IN(Tin) x, Tout* __restrict__ out,
                                    const Tacc* __restrict__ center,
                                    const xs_red_desc<NK, NR> d, long long nrows, long long rowlen)
{
    typedef typename xs_op_of<OP>::type Op;
    Op op;
    const unsigned lane = threadIdx.x & 31u;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; row < nrows;
         row += nwarps) {
        XS_RED_PTR(Tin) p = x + xs_offset<NK>(row, d.kshape, d.kstride, d.nk);
        const Tacc c = xs_centered<OP> ? center[row] : Tacc(0);
        Tacc acc = Op::template identity<Tacc>();
        acc = xs_fold_row<OP, Tin, Tacc, NK, NR, V, B>(p, 0, rowlen, lane, 32u, d, c, acc, op);
        acc = xstride_detail_warp_reduce_full(acc, op);
        if (lane == 0u) out[row] = xs_final<OP, Tout>(acc, rowlen);
    }
}

// `group` lanes (1, 2, 4, 8 or 16) per output element (row), 32 / group rows a warp at
// once: a row of a few dozen 16-byte words gives each lane several loads in flight
// (the host's choice, _geometry.warp_group; 32 lanes: xs_reduce_rows_warp, whose
// step is a constant). Each group folds as xs_reduce_rows_warp's warp with nt = group
// and a tree of log2(group) shuffles; warps stride over the rows.
template <int OP, typename Tin, typename Tacc, typename Tout, int NK, int NR, int V, int MINB, int B>
__global__ void __launch_bounds__(256, MINB) xs_reduce_rows_group(XS_RED_IN(Tin) x, Tout* __restrict__ out,
                                     const Tacc* __restrict__ center,
                                     const xs_red_desc<NK, NR> d, long long nrows,
                                     long long rowlen, long long group)
{
    typedef typename xs_op_of<OP>::type Op;
    Op op;
    const unsigned g = (unsigned)group, lane = threadIdx.x & 31u, sub = lane & (g - 1u);
    const unsigned slot = lane / g;
    const long long per = 32 / group, step = (((long long)gridDim.x * blockDim.x) >> 5) * per;
    for (long long row = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) * per + slot;
         row - slot < nrows; row += step) {   // warp-uniform: every lane shuffles below
        Tacc acc = Op::template identity<Tacc>();
        if (row < nrows) {
            XS_RED_PTR(Tin) p = x + xs_offset<NK>(row, d.kshape, d.kstride, d.nk);
            acc = xs_fold_row<OP, Tin, Tacc, NK, NR, V, B>(
                p, 0, rowlen, sub, g, d, xs_centered<OP> ? center[row] : Tacc(0), acc, op);
        }
        acc = xs_group_reduce(acc, g, op);
        if (row < nrows && sub == 0u) out[row] = xs_final<OP, Tout>(acc, rowlen);
    }
}

// One block per (row, chunk). With more than one chunk per row, each block stores
// its partial result and the last block of the row (counted with one atomic) folds
// the partials in chunk order.
template <int OP, typename Tin, typename Tacc, typename Tout, int NK, int NR, int V, int MINB, int B>
__global__ void __launch_bounds__(256, MINB) xs_reduce_rows_block(XS_RED_IN(Tin) x, Tout* __restrict__ out,
                                     const Tacc* __restrict__ center, Tacc* partials,
                                     unsigned* counters, const xs_red_desc<NK, NR> d,
                                     long long nrows, long long rowlen, long long chunk,
                                     long long nchunks)
{
    typedef typename xs_op_of<OP>::type Op;
    Op op;
    __shared__ int s_last;
    const long long w = blockIdx.x;
    const long long row = w / nchunks;
    const long long ch = w - row * nchunks;
    const long long begin = ch * chunk;
    const long long end = begin + chunk < rowlen ? begin + chunk : rowlen;
    XS_RED_PTR(Tin) p = x + xs_offset<NK>(row, d.kshape, d.kstride, d.nk);
    const Tacc c = xs_centered<OP> ? center[row] : Tacc(0);
    Tacc acc = Op::template identity<Tacc>();
    acc = xs_fold_row<OP, Tin, Tacc, NK, NR, V, B>(p, begin, end, threadIdx.x, blockDim.x, d, c, acc, op);
    acc = xstride_detail_block_reduce(acc, op);
    if (nchunks == 1) {
        if (threadIdx.x == 0) out[row] = xs_final<OP, Tout>(acc, rowlen);
        return;
    }
    if (threadIdx.x == 0) {
        partials[row * nchunks + ch] = acc;
        __threadfence();
        unsigned prev = atomicAdd(counters + row, 1u);
        s_last = prev == (unsigned)(nchunks - 1);
    }
    __syncthreads();
    if (!s_last) return;
    __threadfence();
    const volatile Tacc* vp = partials + row * nchunks;
    Tacc a = Op::template identity<Tacc>();
    for (long long i = threadIdx.x; i < nchunks; i += blockDim.x) a = op(a, (Tacc)vp[i]);
    a = xstride_detail_block_reduce(a, op);
    if (threadIdx.x == 0) {
        out[row] = xs_final<OP, Tout>(a, rowlen);
        counters[row] = 0u;
    }
}

// Outer (column) reduction: block = 32 x BY threads; thread (tx, ty) owns V
// neighbouring kept columns of tile blockIdx.x and folds rows ty, ty + BY, ... of
// chunk blockIdx.y. Rows are combined over ty in order in shared memory; chunks are
// combined in order by the last block of the column tile (xs_fold_chain: a column a
// thread, XS_FOLD_CHAIN_LOADS chunks' partials in flight; for V == 1 a load a chunk,
// as the tail says).
#define XS_COLS_BY 8
template <int OP, typename Tin, typename Tacc, typename Tout, int NK, int NR, int V, int MINB, int B>
__global__ void __launch_bounds__(256, MINB) xs_reduce_cols(XS_RED_IN(Tin) x, Tout* __restrict__ out,
                               const Tacc* __restrict__ center, Tacc* partials,
                               unsigned* counters, const xs_red_desc<NK, NR> d,
                               long long ncols, long long nred, long long chunk,
                               long long nchunks)
{
    typedef typename xs_op_of<OP>::type Op;
    Op op;
    __shared__ Tacc sm[XS_COLS_BY][32 * V];
    __shared__ int s_last;
    const unsigned tx = threadIdx.x, ty = threadIdx.y;
    const long long col0 = ((long long)blockIdx.x * 32 + tx) * V;
    const bool active = col0 < ncols;
    Tacc acc[V];
    Tacc c[V];
#pragma unroll
    for (int j = 0; j < V; ++j) acc[j] = Op::template identity<Tacc>();
    if (active) {
        const long long width = ncols - col0 < V ? ncols - col0 : V;   // V > 1: always V
#pragma unroll
        for (int j = 0; j < V; ++j) c[j] = (xs_centered<OP> && j < width) ? center[col0 + j] : Tacc(0);
        const long long r0 = (long long)blockIdx.y * chunk;
        const long long r1 = r0 + chunk < nred ? r0 + chunk : nred;
        if constexpr (B > 1) {
            // B rows per thread in flight: loads of rows r, r + BY, ... r + (B-1)BY
            // are issued before any is folded; the fold order per column is the same
            // as the B == 1 loop below.
            XS_RED_PTR(Tin) base = x + xs_offset<NK>(col0, d.kshape, d.kstride, d.nk);
            const long long s = d.rstride[0];
            auto fold = [&](const xs_vec<Tin, V>& w) {
#pragma unroll
                for (int j = 0; j < V; ++j) acc[j] = op(acc[j], xs_transform<OP, Tacc>(w.t[j], c[j]));
            };
            if constexpr (NR == 1) {
                xs_batched<B, xs_vec<Tin, V>>(r0 + ty, r1, (long long)XS_COLS_BY,
                    [&](long long r, xs_vec<Tin, V>& w) { xs_load_vec<Tin, V>(base + r * s, w.t); }, fold);
            } else if (d.nr == 2) {   // the offset walked (xs_walk2), up to 6 loads in
                // flight (8 spilled var's centered pass under ptxas 13)
                xs_walk2 o(r0 + ty, (long long)XS_COLS_BY, d.rshape[1], d.rstride[0], d.rstride[1]);
                xs_batched<(B < 6 ? B : 6), xs_vec<Tin, V>>(r0 + ty, r1, (long long)XS_COLS_BY,
                    [&](long long, xs_vec<Tin, V>& w) { xs_load_vec<Tin, V>(base + o.off, w.t); o.next(); },
                    fold);
            } else {
                xs_batched<2, xs_vec<Tin, V>>(r0 + ty, r1, (long long)XS_COLS_BY,
                    [&](long long r, xs_vec<Tin, V>& w) {
                        xs_load_vec<Tin, V>(base + xs_offset<NR>(r, d.rshape, d.rstride, d.nr), w.t); },
                    fold);
            }
        } else if constexpr (V > 1) {
            XS_RED_PTR(Tin) base = x + xs_offset<NK>(col0, d.kshape, d.kstride, d.nk);
            if constexpr (NR == 1) {
                const long long s = d.rstride[0];
#pragma unroll 4
                for (long long r = r0 + ty; r < r1; r += XS_COLS_BY) {
                    Tin v[V];
                    xs_load_vec<Tin, V>(base + r * s, v);
#pragma unroll
                    for (int j = 0; j < V; ++j) acc[j] = op(acc[j], xs_transform<OP, Tacc>(v[j], c[j]));
                }
            } else {
                for (long long r = r0 + ty; r < r1; r += XS_COLS_BY) {
                    Tin v[V];
                    xs_load_vec<Tin, V>(base + xs_offset<NR>(r, d.rshape, d.rstride, d.nr), v);
#pragma unroll
                    for (int j = 0; j < V; ++j) acc[j] = op(acc[j], xs_transform<OP, Tacc>(v[j], c[j]));
                }
            }
        } else {
            XS_RED_PTR(Tin) base = x + xs_offset<NK>(col0, d.kshape, d.kstride, d.nk);
            if constexpr (NR == 1) {
                const long long s = d.rstride[0];
#pragma unroll 4
                for (long long r = r0 + ty; r < r1; r += XS_COLS_BY)
                    acc[0] = op(acc[0], xs_transform<OP, Tacc>(base[r * s], c[0]));
            } else {
                for (long long r = r0 + ty; r < r1; r += XS_COLS_BY)
                    acc[0] = op(acc[0], xs_transform<OP, Tacc>(
                        base[xs_offset<NR>(r, d.rshape, d.rstride, d.nr)], c[0]));
            }
        }
    }
#pragma unroll
    for (int j = 0; j < V; ++j) sm[ty][tx * V + j] = acc[j];
    __syncthreads();
    if (ty == 0 && active) {
#pragma unroll
        for (int j = 0; j < V; ++j) {
            Tacc a = sm[0][tx * V + j];
            for (int y = 1; y < XS_COLS_BY; ++y) a = op(a, sm[y][tx * V + j]);
            if (nchunks == 1) out[col0 + j] = xs_final<OP, Tout>(a, nred);
            else partials[(long long)blockIdx.y * ncols + col0 + j] = a;
        }
    }
    if (nchunks == 1) return;
    __threadfence();
    __syncthreads();
    if (tx == 0 && ty == 0) {
        unsigned prev = atomicAdd(counters + blockIdx.x, 1u);
        s_last = prev == (unsigned)(nchunks - 1);
    }
    __syncthreads();
    if (!s_last || !active) return;
    __threadfence();
    if constexpr (V == 1) {
        // One column a thread: thread (tx, 0) folds it, a load a chunk. With
        // xs_fold_chain, which gains here only its loads in flight, 26 of these
        // instantiations (min/max of 1- and 2-byte elements, all/any) took 8 more
        // registers and lost a block per SM (ptxas 13, sm_90), and any of a bool
        // (2**21, 64) read 0.51 of copy against 0.57 on the H100 (2026-12-06).
        if (ty != 0) return;
        const volatile Tacc* vp = partials;
        Tacc a = Op::template identity<Tacc>();
        for (long long ch = 0; ch < nchunks; ++ch) a = op(a, (Tacc)vp[ch * ncols + col0]);
        out[col0] = xs_final<OP, Tout>(a, nred);
    } else {
        // column col0 + j by thread (tx, j % XS_COLS_BY), over the chunks in order
        for (int j = (int)ty; j < V; j += XS_COLS_BY)
            out[col0 + j] = xs_final<OP, Tout>(xs_fold_chain(partials + col0 + j, ncols, nchunks, op), nred);
    }
    if (tx == 0 && ty == 0) counters[blockIdx.x] = 0u;
}

// One thread per output element (plan strategy "short": rows of at most 32 elements,
// many rows). Thread `row` folds its row's elements j = 0, 1, ..., rowlen - 1 in that
// order, sequentially, into one accumulator (no tree, no shared memory: the order is
// fixed by the row alone, whatever the grid). Neighbouring threads take neighbouring
// rows, so for an (n, k) array a warp's loads together cover one contiguous span of
// 32 * k elements (coalesced at the sector level). B loads are issued before any is
// folded (xs_batched; two reduced axes walked by xs_walk2, 2 loads with three or
// more); a row shorter than B is one
// partial, predicated batch. The fold order is the same for every B. Threads loop
// over the rows (grid-stride) when the grid is capped. Parameters as
// xs_reduce_rows_warp; V > 1: each row is rowlen / V aligned 16-byte vectors (the
// host checks), loaded whole. V < -1: the rows lie side by side (one kept axis of
// stride 1, one reduced axis, e.g. sum(x, axis=1) of a (k, n) array used as .T; nrows
// and the reduced stride multiples of W = -V, x 16-byte aligned: the host checks): a
// thread takes W adjacent rows, each step of their elements one 16-byte load, each
// row still folded one element at a time in order (the bits of one row per thread).
// Not for OP 4: var/std's rows of one reduced axis run xs_var_rows (reduce_finish.cu),
// so the host never asks this walk for a center.
template <int OP, typename Tin, typename Tacc, typename Tout, int NK, int NR, int V, int MINB, int B>
__global__ void __launch_bounds__(256, MINB) xs_reduce_short(XS_RED_IN(Tin) x, Tout* __restrict__ out,
                                const Tacc* __restrict__ center,
                                const xs_red_desc<NK, NR> d, long long nrows, long long rowlen)
{
    typedef typename xs_op_of<OP>::type Op;
    Op op;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    if constexpr (V < -1) {   // rows side by side (include/xstride/detail/side_rows.cuh)
        static_assert(NR == 1, "rows side by side: one reduced axis");
        xs_side_rows<OP, Tin, Tacc, Tout, -V>(x, out, d.rstride[0], nrows, rowlen, op);
        return;
    }
    for (long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x; row < nrows;
         row += nthreads) {
        XS_RED_PTR(Tin) p = x + xs_offset<NK>(row, d.kshape, d.kstride, d.nk);
        const Tacc c = xs_centered<OP> ? center[row] : Tacc(0);
        Tacc acc = Op::template identity<Tacc>();
        auto fold = [&](Tin w) { acc = op(acc, xs_transform<OP, Tacc>(w, c)); };
        if constexpr (V > 1) {
            // contiguous rows of whole 16-byte vectors, 16-byte aligned (checked by
            // the host): rowlen / V vector loads, folded element by element in order
            xs_batched<B, xs_vec<Tin, V>>(0, rowlen / V, 1,
                [&](long long j, xs_vec<Tin, V>& w) { xs_load_vec<Tin, V>(p + j * V, w.t); },
                [&](const xs_vec<Tin, V>& w) {
#pragma unroll
                    for (int u = 0; u < V; ++u) fold(w.t[u]);
                });
        } else if constexpr (NR == 1) {
            const long long s = d.rstride[0];
            xs_batched<B, Tin>(0, rowlen, 1, [&](long long j, Tin& w) { w = p[j * s]; }, fold);
        } else if (B > 1 && d.nr == 2) {   // the offset walked (xs_walk2)
            xs_walk2 o(0, 1, d.rshape[1], d.rstride[0], d.rstride[1]);
            xs_batched<B, Tin>(0, rowlen, 1, [&](long long, Tin& w) { w = p[o.off]; o.next(); }, fold);
        } else {
            // more reduced axes: a 64-bit division per axis and element; two loads
            // in flight, as in xs_fold_row (more would spill the offset arithmetic)
            xs_batched<(B < 2 ? B : 2), Tin>(0, rowlen, 1,
                               [&](long long j, Tin& w) { w = p[xs_offset<NR>(j, d.rshape, d.rstride, d.nr)]; },
                               fold);
        }
        out[row] = xs_final<OP, Tout>(acc, rowlen);
    }
}

// Strategy "tile": rows of at most 32 contiguous elements (one kept axis of stride
// ks, the reduced run of stride 1). A block stages the span of memory that holds R
// consecutive rows in shared memory with coalesced loads (neighbouring threads on
// neighbouring elements; B loads issued before any is stored), then thread t folds
// rows r0 + t, r0 + t + blockDim.x, ... of the tile from shared memory, elements
// j = 0, 1, ..., rowlen - 1 in that order: the same fold as xs_reduce_short, so the
// two give the same bits. R is chosen by the host
// (xstride/_kernels/_geometry.py) so that the span, (R - 1)|ks| + rowlen elements,
// fits TB bytes (TUNING["tile"]); blocks loop over the tiles (grid-stride).
template <typename T, int TB> struct xs_tile_cap {
    static constexpr int elems = TB / (int)sizeof(T);
    // one element of padding after every 32; at least 32 more elements: room for
    // the 16-byte words of a 1-byte span that does not start on a word (and a whole
    // number of 16-byte words in all)
    static constexpr int padded = (elems + (elems / 32 > 32 ? elems / 32 : 32) + 15) / 16 * 16;
};

template <int OP, typename Tin, typename Tacc, typename Tout, int NK, int NR, int V, int MINB, int B,
          int TB>
__global__ void __launch_bounds__(256, MINB) xs_reduce_tile(XS_RED_IN(Tin) x, Tout* __restrict__ out,
                               const Tacc* __restrict__ center,
                               const xs_red_desc<NK, NR> d, long long nrows, long long rowlen,
                               long long rows_per_tile)
{
    typedef typename xs_op_of<OP>::type Op;
    Op op;
    __shared__ __align__(16) Tin s[xs_tile_cap<Tin, TB>::padded];
    const long long ks = d.kstride[0];
    const long long aks = ks < 0 ? -ks : ks;
    const long long R = rows_per_tile;
    const int step = (int)blockDim.x;
    for (long long r0 = (long long)blockIdx.x * R; r0 < nrows; r0 += (long long)gridDim.x * R) {
        const long long nt = nrows - r0 < R ? nrows - r0 : R;
        const long long lo = ks >= 0 ? r0 * ks : (r0 + nt - 1) * ks;
        const int span = (int)((nt - 1) * aks + rowlen);
        XS_RED_PTR(Tin) src = x + lo;
#ifdef XS_RED_MEMORY
        if constexpr (sizeof(Tin) <= 2) {
            // 1- and 2-byte elements: a thread's B element loads would keep B or 2B
            // bytes in flight; stage the 16-byte words that hold the span instead
            // (aligned words: the first and last may reach up to 15 bytes past the
            // span, never past the 16-byte units of the device allocation that holds
            // it), unpadded (a warp reading neighbouring rows touches neighbouring
            // words: broadcasts, few bank conflicts). Element e is at s[shift + e].
            const unsigned long long a = (unsigned long long)src;
            const int shift = (int)(a & 15ull) / (int)sizeof(Tin);
            const uint4* w = reinterpret_cast<const uint4*>(a & ~15ull);
            uint4* sw = reinterpret_cast<uint4*>(s);
            const int nw = ((shift + span) * (int)sizeof(Tin) + 15) >> 4;
            int i = (int)threadIdx.x;
            for (; i + (B - 1) * step < nw; i += B * step) {
                uint4 v[B];
#pragma unroll
                for (int k = 0; k < B; ++k) v[k] = __ldg(w + i + k * step);
#pragma unroll
                for (int k = 0; k < B; ++k) sw[i + k * step] = v[k];
            }
            for (; i < nw; i += step) sw[i] = __ldg(w + i);
            __syncthreads();
            for (int t = (int)threadIdx.x; t < (int)nt; t += step) {
                const long long row = r0 + t;
                const int o = shift + (int)(row * ks - lo);
                const Tacc c = xs_centered<OP> ? center[row] : Tacc(0);
                Tacc acc = Op::template identity<Tacc>();
                for (int j = 0; j < (int)rowlen; ++j)
                    acc = op(acc, xs_transform<OP, Tacc>(s[o + j], c));
                out[row] = xs_final<OP, Tout>(acc, rowlen);
            }
            __syncthreads();
            continue;
        }
#endif
        // element e staged at e + (e >> sh): a pad after every 32 when rows lie 2 or a
        // multiple of 4 elements apart (16 apart, unpadded, would put a warp's reads of
        // row t on one bank), else none (t * aks + j then meets each bank at most twice;
        // padded, rows 31 apart met one bank 24 times on average, 62 apart 16 times)
        const int sh = (aks & 3) && aks != 2 ? 31 : 5;
        int i = (int)threadIdx.x;
        for (; i + (B - 1) * step < span; i += B * step) {   // full batches
            Tin v[B];
#pragma unroll
            for (int k = 0; k < B; ++k) v[k] = src[i + k * step];
#pragma unroll
            for (int k = 0; k < B; ++k) { const int e = i + k * step; s[e + (e >> sh)] = v[k]; }
        }
        if (i < span) {                                       // the last, partial batch
            Tin v[B];
#pragma unroll
            for (int k = 0; k < B; ++k)
                if (i + k * step < span) v[k] = src[i + k * step];
#pragma unroll
            for (int k = 0; k < B; ++k) {
                const int e = i + k * step;
                if (e < span) s[e + (e >> sh)] = v[k];
            }
        }
        __syncthreads();
        for (int t = (int)threadIdx.x; t < (int)nt; t += step) {
            const long long row = r0 + t;
            const int o = (int)(row * ks - lo);
            const Tacc c = xs_centered<OP> ? center[row] : Tacc(0);
            Tacc acc = Op::template identity<Tacc>();
            for (int j = 0; j < (int)rowlen; ++j) {
                const int e = o + j;
                acc = op(acc, xs_transform<OP, Tacc>(s[e + (e >> sh)], c));
            }
            out[row] = xs_final<OP, Tout>(acc, rowlen);
        }
        __syncthreads();
    }
}

// Strategy "interleave": nred rows of ncols <= 32 contiguous columns (the kept axis of
// stride 1, the reduced axis of stride rs = d.rstride[0] >= ncols: one contiguous run
// when rs == ncols), reduced over the rows, e.g. sum(x, axis=0) of an (n, 3) array, or
// of x[:, :3] of an (n, 7) one. The rows are read as one flat array of nred * ncols
// elements (flat element f at (f / ncols) * rs + f % ncols): block b takes
// elements [b * chunk, (b + 1) * chunk) (chunk a multiple of blockDim.x, itself a
// multiple of ncols), thread t the elements b * chunk + t, + blockDim.x, ..., all of
// column t % ncols, folded in order with B loads in flight; every load of a warp is
// one contiguous span. The block then folds, per column c, its threads c, c + ncols,
// ... in order in shared memory; with several blocks the last block to finish
// (counted with one atomic) folds the blocks' partials per column in block order,
// staged through shared memory (xs_fold_partials, xstride/detail/fold_partials.cuh).
// V > 1: one contiguous run read as 16-byte words (xs_interleave_words, the private
// xstride/detail/interleave_words.cuh).
template <int OP, typename Tin, typename Tacc, typename Tout, int NK, int NR, int V, int MINB, int B>
__global__ void __launch_bounds__(256, MINB) xs_reduce_interleave(XS_RED_IN(Tin) x, Tout* __restrict__ out,
                                     const Tacc* __restrict__ center, Tacc* partials,
                                     unsigned* counters, const xs_red_desc<NK, NR> d,
                                     long long ncols, long long nred, long long chunk,
                                     long long nchunks)
{
    typedef typename xs_op_of<OP>::type Op;
    Op op;
    __shared__ int s_last;
    const long long total = ncols * nred;
    const long long begin = (long long)blockIdx.x * chunk;
    const long long end = begin + chunk < total ? begin + chunk : total;
    const unsigned t = threadIdx.x;
    const long long bd = (long long)blockDim.x;
    Tacc a = Op::template identity<Tacc>();   // threads t < ncols: column t's block total
    if constexpr (V > 1) {
        a = xs_interleave_words<OP, Tin, Tacc, V, B>(x, center, ncols, begin, end, op);
    } else {
        __shared__ Tacc sm[256];
        const int col = (int)(t % (unsigned)ncols);
        const Tacc c = xs_center_of<OP, Tin>(center, col);
        Tacc acc = Op::template identity<Tacc>();
        // flat element i = begin + t + u * blockDim.x is at (i / ncols) * rs + col: rows
        // of stride rs >= ncols (rs == ncols: one contiguous run)
        const long long rs = d.rstride[0];
        const long long first = begin + (long long)t;
        const long long count = end > first ? (end - first + bd - 1) / bd : 0;
        XS_RED_PTR(Tin) base = x + (first / ncols) * rs + col;
        const long long rstep = (bd / ncols) * rs;
        xs_batched<B, Tin>(0, count, 1,
                           [&](long long u, Tin& w) { w = base[u * rstep]; },
                           [&](Tin w) { acc = op(acc, xs_transform<OP, Tacc>(w, c)); });
        sm[t] = acc;
        __syncthreads();
        if ((long long)t < ncols)
            for (unsigned u = t; u < blockDim.x; u += (unsigned)ncols) a = op(a, sm[u]);
    }
    if ((long long)t < ncols) {
        if (nchunks == 1) out[t] = xs_final<OP, Tout>(a, nred);
        else partials[(long long)blockIdx.x * ncols + t] = a;
    }
    if (nchunks == 1) return;
    __threadfence();
    __syncthreads();
    if (t == 0) {
        unsigned prev = atomicAdd(counters, 1u);
        s_last = prev == (unsigned)(nchunks - 1);
    }
    __syncthreads();
    if (!s_last) return;
    __threadfence();
    const Tacc f = xs_fold_partials(partials, ncols, nchunks, op);   // the whole block
    if ((long long)t < ncols) out[t] = xs_final<OP, Tout>(f, nred);
    if (t == 0) counters[0] = 0u;
}

// Strategy "lanes": nrows contiguous rows of rowlen = G * E elements one after another
// (the kept axis of stride rowlen, the reduced run of stride 1), E = 16 / sizeof(Tin)
// and G a power of two up to 32. The rows are read as one flat array of E-element
// chunks: chunk c (row c / G, part c % G) goes to consecutive threads of the
// grid-stride walk, which folds its E elements in order; the G lanes of a row, G
// neighbours in one warp, then combine by shuffles at distances G/2, ..., 1. The
// association depends on rowlen and the type only: V == E loads each chunk as one
// 16-byte vector (the host checked the alignment), V == 1 element by element, with
// the same bits. Whole warps walk together (the loop test uses the warp's first
// chunk), so every lane reaches every shuffle; B chunks per thread are loaded
// before any is folded.
template <int OP, typename Tin, typename Tacc, typename Tout, int NK, int NR, int V, int MINB, int B>
__global__ void __launch_bounds__(256, MINB) xs_reduce_lanes(const Tin* __restrict__ x, Tout* __restrict__ out,
                                const Tacc* __restrict__ center,
                                const xs_red_desc<NK, NR> d, long long nrows, long long rowlen)
{
    typedef typename xs_op_of<OP>::type Op;
    Op op;
    constexpr int E = 16 / (int)sizeof(Tin);
    const int G = (int)(rowlen / E);
    const int lg = __ffs(G) - 1;
    const long long nch = nrows * (long long)G;
    const long long lane = (long long)(threadIdx.x & 31u);
    const long long nt = (long long)gridDim.x * blockDim.x;
    for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c - lane < nch;
         c += (long long)B * nt) {
        Tin v[B][E];
#pragma unroll
        for (int k = 0; k < B; ++k) {
            const long long ck = c + (long long)k * nt;
            if (ck < nch) {
                if constexpr (V == E) {
                    xs_load_vec<Tin, E>(x + ck * E, v[k]);
                } else {
#pragma unroll
                    for (int j = 0; j < E; ++j) v[k][j] = x[ck * E + j];
                }
            }
        }
#pragma unroll
        for (int k = 0; k < B; ++k) {
            const long long ck = c + (long long)k * nt;
            if (ck - lane >= nch) break;          // the whole warp is past the end
            const long long row = ck >> lg;
            Tacc acc = Op::template identity<Tacc>();
            if (ck < nch) {
                const Tacc cen = xs_centered<OP> ? center[row] : Tacc(0);
#pragma unroll
                for (int j = 0; j < E; ++j) acc = op(acc, xs_transform<OP, Tacc>(v[k][j], cen));
            }
            for (int off = G >> 1; off > 0; off >>= 1)
                acc = op(acc, __shfl_xor_sync(0xffffffffu, acc, off));
            if (ck < nch && (ck & (long long)(G - 1)) == 0) out[row] = xs_final<OP, Tout>(acc, rowlen);
        }
    }
}
