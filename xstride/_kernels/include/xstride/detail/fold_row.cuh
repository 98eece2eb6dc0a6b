/* xstride/detail/fold_row.cuh -- private piece of the namespace's reduction kernels
 * (xstride/_kernels/reductions.cu): the fold of one row's elements by one of several
 * cooperating threads. Reads its input through XS_RED_IN / XS_RED_PTR / XS_RED_ADDR,
 * which the including file defines (reductions.cu: a pointer; xp.fuse's kernels: a
 * generated type). Not part of the shipped header API: names and contents may change
 * in any release. Compiled by NVRTC: no standard headers.
 */
#ifndef XSTRIDE_DETAIL_FOLD_ROW_CUH
#define XSTRIDE_DETAIL_FOLD_ROW_CUH

#include <xstride/detail/reduce_ops.cuh>

// Fold elements [begin, end) of one row into acc; thread `t` of `nt` cooperating
// threads takes every nt-th element (or vector). The assignment depends only on the
// row's address and length, so the order is fixed. One walk is compiled per
// instantiation: NR == 1 (one reduced axis) with V > 1 (the host vectorizes only a
// contiguous run) the vector walk, NR == 1 with V == 1 the strided walk, NR > 1 the
// general one (smaller kernels compile faster; see docs/performance.md, "Cold start").
template <int OP, typename Tin, typename Tacc, int NK, int NR, int V, int B, typename Op>
__device__ __forceinline__ Tacc xs_fold_row(XS_RED_IN(Tin) p, long long begin,
                                            long long end, unsigned t, unsigned nt,
                                            const xs_red_desc<NK, NR>& d, Tacc c, Tacc acc, Op op)
{
    if constexpr (NR == 1 && V > 1) {
        {
            const unsigned long long addr = XS_RED_ADDR(p + begin);
            long long head = (long long)(((16ull - (addr & 15ull)) & 15ull) / sizeof(Tin));
            if ((addr % sizeof(Tin)) != 0ull) head = end - begin;   // unaligned element: scalar
            if (head > end - begin) head = end - begin;
            for (long long i = begin + t; i < begin + head; i += nt)
                acc = op(acc, xs_transform<OP, Tacc>(p[i], c));
            const long long vbeg = begin + head;
            const long long nvec = (end - vbeg) / V;
            if constexpr (B > 1) {
                xs_batched<B, xs_vec<Tin, V>>(
                    (long long)t, nvec, (long long)nt,
                    [&](long long i, xs_vec<Tin, V>& w) { xs_load_vec<Tin, V>(p + vbeg + i * V, w.t); },
                    [&](const xs_vec<Tin, V>& w) {
#pragma unroll
                        for (int j = 0; j < V; ++j) acc = op(acc, xs_transform<OP, Tacc>(w.t[j], c));
                    });
            } else {
#pragma unroll 4
                for (long long i = t; i < nvec; i += nt) {
                    Tin v[V];
                    xs_load_vec<Tin, V>(p + vbeg + i * V, v);
#pragma unroll
                    for (int j = 0; j < V; ++j) acc = op(acc, xs_transform<OP, Tacc>(v[j], c));
                }
            }
            for (long long i = vbeg + nvec * V + t; i < end; i += nt)
                acc = op(acc, xs_transform<OP, Tacc>(p[i], c));
        }
    } else if constexpr (NR == 1) {
        const long long s = d.rstride[0];
        if constexpr (B > 1) {
            xs_batched<B, Tin>(begin + t, end, (long long)nt,
                               [&](long long i, Tin& w) { w = p[i * s]; },
                               [&](Tin w) { acc = op(acc, xs_transform<OP, Tacc>(w, c)); });
        } else {
#pragma unroll 4
            for (long long i = begin + t; i < end; i += nt)
                acc = op(acc, xs_transform<OP, Tacc>(p[i * s], c));
        }
    } else if constexpr (B > 1) {
        auto fold = [&](Tin w) { acc = op(acc, xs_transform<OP, Tacc>(w, c)); };
        if (d.nr == 2) {   // two reduced axes: the offset walked, up to 8 loads in flight
            // (32 one-byte loads and the walk spilled under ptxas 13)
            xs_walk2 o(begin + t, (long long)nt, d.rshape[1], d.rstride[0], d.rstride[1]);
            xs_batched<(B < 8 ? B : 8), Tin>(begin + t, end, (long long)nt,
                                             [&](long long, Tin& w) { w = p[o.off]; o.next(); }, fold);
        } else {
            // more reduced axes: a 64-bit division per axis and element; two loads in
            // flight (more would spill the offset arithmetic)
            xs_batched<2, Tin>(begin + t, end, (long long)nt,
                               [&](long long i, Tin& w) { w = p[xs_offset<NR>(i, d.rshape, d.rstride, d.nr)]; },
                               fold);
        }
    } else {
        for (long long i = begin + t; i < end; i += nt)
            acc = op(acc, xs_transform<OP, Tacc>(p[xs_offset<NR>(i, d.rshape, d.rstride, d.nr)], c));
    }
    return acc;
}

#endif  // XSTRIDE_DETAIL_FOLD_ROW_CUH
