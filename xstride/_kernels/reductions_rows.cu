// Reduction kernel of the xstride namespace for short dense rows folded in registers
// (plan strategies "tile", "lanes", "short" whose rows are stored one after another, 1-, 2- or 4-byte
// elements: Q rows of at most 48 bytes a thread, or one row of whole 16-byte words of
// at most 192 bytes of 1- and 2-byte elements or 96 of 4-byte ones (regs_q and
// ONE_ROW_MOST_BYTES in reduce_rows.py); e.g. sum(x, axis=1) of a float32 (n, 3) array,
// all(b, axis=1) of a bool (n, 16) one, max(x, axis=1) of an int8 (n, 128) one). Launched by
// xstride/_kernels/reductions.py in place of xs_reduce_tile (reductions.cu), whose
// staging in shared memory spent the issue slots (Nsight Compute, H200: bool rows of 16
// bytes 0.39 warps issued a cycle per scheduler and DRAM 39 % busy). Compiled by NVRTC:
// no standard headers. Template parameters as in reductions.cu; L the row length, Q the
// rows of a thread.
//
// Thread g takes rows g * Q .. g * Q + Q - 1 (Q * L elements: whole 16-byte words,
// loaded together when the rows are on 16-byte boundaries, which the host checks for
// the first row, and element by element for the last, shorter group), folds each row
// in element order from the identity (the fold of xs_reduce_short and xs_reduce_tile,
// so the same bits) and stores the Q outputs, as one word where they fill one. With C
// = 2 (a "lanes" plan's rows of two 16-byte chunks) each half is folded from the
// identity and the halves then combined, as xs_reduce_lanes's two lanes fold them: the
// same bits as that kernel too (a float sum of a row whose halves cancel depends on
// it).
#include <xstride/reduce.cuh>
#include <xstride/detail/namespace_kernels.cuh>
#include <xstride/detail/reduce_ops.cuh>
#include <xstride/detail/row_words.cuh>

template <int OP, typename Tin, typename Tacc, typename Tout, int L, int Q, int C, int MINB>
__global__ void __launch_bounds__(256, MINB) xs_reduce_rowregs(const Tin* __restrict__ x,
                                                               Tout* __restrict__ out,
                                                               const Tacc* __restrict__ center,
                                                               long long nrows)
{
    static_assert(!xs_centered<OP>, "no center: var's passes of short rows run xs_var_rows");
    static_assert((C == 1 || C == 2) && L % C == 0, "a row folded whole or as two halves");
    constexpr int E = L * Q;
    constexpr int OB = Q * (int)sizeof(Tout);     // bytes of a thread's outputs
    typedef typename xs_op_of<OP>::type Op;
    Op op;
    const long long r0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * Q;
    if (r0 >= nrows) return;
    const int rows = nrows - r0 < Q ? (int)(nrows - r0) : Q;
    const Tin* src = x + r0 * L;
    xs_row_words<Tin, E> v;
    xs_load_row_words(v, src, rows * L);
    union { Tout t[Q]; unsigned w[OB % 4 == 0 ? OB / 4 : 1]; } o;
#pragma unroll
    for (int r = 0; r < Q; ++r) {
        Tacc part[C];
#pragma unroll
        for (int c = 0; c < C; ++c) {
            part[c] = Op::template identity<Tacc>();
#pragma unroll
            for (int j = c * (L / C); j < (c + 1) * (L / C); ++j)
                part[c] = op(part[c], xs_transform<OP, Tacc>(v.t[r * L + j], Tacc(0)));
        }
        o.t[r] = xs_final<OP, Tout>(C == 1 ? part[0] : op(part[0], part[C - 1]), L);
    }
    Tout* dst = out + r0;
    if constexpr (OB % 16 == 0) {
        if (rows == Q) {
#pragma unroll
            for (int i = 0; i < OB / 16; ++i)
                reinterpret_cast<uint4*>(dst)[i] = make_uint4(o.w[4 * i], o.w[4 * i + 1],
                                                             o.w[4 * i + 2], o.w[4 * i + 3]);
            return;
        }
    } else if constexpr (OB == 8) {
        if (rows == Q) {
            *reinterpret_cast<uint2*>(dst) = make_uint2(o.w[0], o.w[1]);
            return;
        }
    } else if constexpr (OB == 4) {
        if (rows == Q) {
            *reinterpret_cast<unsigned*>(dst) = o.w[0];
            return;
        }
    }
#pragma unroll
    for (int r = 0; r < Q; ++r)
        if (r < rows) dst[r] = o.t[r];
}
