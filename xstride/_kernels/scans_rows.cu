// Row scans of the xstride namespace (cumulative_sum, cumulative_prod) along an
// innermost axis of rows longer than the short-row kernels take (plan strategy "rows",
// xstride/_plans/scan.py). Launched by xstride/_kernels/scans.py. Compiled by NVRTC: no
// standard headers. Template parameters as in scans.cu; the output position of element
// k of a row is k + init (include_initial), position 0 then the identity. Each row is
// folded in a fixed order set by its length and the group size: deterministic run to
// run.
#include <xstride/scan.cuh>
#include <xstride/detail/namespace_kernels.cuh>
#include <xstride/detail/scan_desc.cuh>
#include <xstride/detail/scan_row_io.cuh>

// One warp per row: steps of 32 lanes x 4 elements, a warp scan of the lanes' sums,
// and a carry from step to step.
template <int OP, typename Tin, typename Tacc, typename Tout, int NK, int MINB>
__global__ void __launch_bounds__(256, MINB) xs_scan_rows(const Tin* __restrict__ x, Tout* __restrict__ out,
                             const xs_scan_desc<NK> d, long long nrows, long long len)
{
    typedef typename xs_scan_op<OP>::type Op;
    Op op;
    const unsigned lane = threadIdx.x & 31u;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; row < nrows;
         row += nwarps) {
        const Tin* p = x + xs_offset<NK>(row, d.kshape, d.kstride, d.nk);
        Tout* q = out + xs_offset<NK>(row, d.kshape, d.kout, d.nk);
        if (d.init && lane == 0u) q[0] = (Tout)Op::template identity<Tacc>();
        q += d.init * d.s_out;
        Tacc carry = Op::template identity<Tacc>();
        Tacc v[4], nxt[4];
        xs_load_row<Tin, Tacc, 4, Op>(p, lane * 4, len, d.s_in, nxt);
        for (long long base = 0; base < len; base += 128) {
            const long long k0 = base + lane * 4;
#pragma unroll
            for (int j = 0; j < 4; ++j) v[j] = nxt[j];
            if (base + 128 < len)   // prefetch the next step before the shuffles
                xs_load_row<Tin, Tacc, 4, Op>(p, k0 + 128, len, d.s_in, nxt);
#pragma unroll
            for (int j = 1; j < 4; ++j) v[j] = op(v[j - 1], v[j]);
            Tacc incl = xstride_detail_warp_scan_first(v[3], 32u, op);
            Tacc lex = xstride_detail_warp_shift(incl, XSTRIDE_FULL_WARP_MASK, op);
            Tacc wtot = __shfl_sync(XSTRIDE_FULL_WARP_MASK, incl, 31);
            xs_store_row<Tout, Tacc, 4>(q, k0, len, d.s_out, op(carry, lex), v, op);
            carry = op(carry, wtot);
        }
    }
}

// Inclusive scan of v over the g lanes of the calling lane's group (lanes g * i ..
// g * i + g - 1; g a power of two up to 32): Kogge-Stone, log2(g) width-g shuffles,
// the same tree as xstride_detail_warp_scan_first for g = 32.
template <typename T, typename Op>
__device__ __forceinline__ T xs_group_scan(T v, unsigned g, unsigned sub, Op op)
{
#pragma unroll
    for (unsigned o = 1; o < 32u; o <<= 1) {
        if (o >= g) break;
        const T t = __shfl_up_sync(XSTRIDE_FULL_WARP_MASK, v, o, (int)g);
        if (sub >= o) v = op(t, v);
    }
    return v;
}

// Rows of up to 4 * 16 * U elements (128 at the default U = 2): `group` lanes a row (a
// power of two below 32, the host's choice: scans.py, _scan_geometry.scan_row_group), 32 /
// group rows side by side in a warp. A step covers 4 * group elements of a row, lane
// j of the group elements 4j .. 4j + 3; U steps are loaded together (all in flight)
// and then scanned one after another as xs_scan_rows scans its steps: the lane's 4
// elements in order, the group's Kogge-Stone scan of the lanes' sums, the carry from
// step to step. A row of at most 4 * group * U elements is thus one round trip to
// memory; with a warp a row (xs_scan_rows) a row of 33 float32 elements kept 9 lanes
// busy and one row's loads in flight a warp.
template <int OP, typename Tin, typename Tacc, typename Tout, int NK, int MINB, int U>
__global__ void __launch_bounds__(256, MINB) xs_scan_rows_group(const Tin* __restrict__ x,
                                                                Tout* __restrict__ out,
                                                                const xs_scan_desc<NK> d,
                                                                long long nrows, long long len,
                                                                long long group)
{
    typedef typename xs_scan_op<OP>::type Op;
    Op op;
    const Tacc id = Op::template identity<Tacc>();
    const unsigned g = (unsigned)group, lane = threadIdx.x & 31u, sub = lane & (g - 1u);
    const long long per = 32 / group, span = 4 * group;
    const long long step = (((long long)gridDim.x * blockDim.x) >> 5) * per;
    for (long long row0 = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) * per;
         row0 < nrows; row0 += step) {   // warp-uniform: every lane shuffles below
        const long long row = row0 + lane / g;
        const long long n = row < nrows ? len : 0;   // a row past the end: no loads or stores
        const Tin* p = x;
        Tout* q = out;
        if (n) {
            p = x + xs_offset<NK>(row, d.kshape, d.kstride, d.nk);
            q = out + xs_offset<NK>(row, d.kshape, d.kout, d.nk);
            if (d.init && sub == 0u) q[0] = (Tout)id;
            q += d.init * d.s_out;
        }
        Tacc carry = id;
        for (long long base = 0; base < len; base += U * span) {
            Tacc v[U][4];
#pragma unroll
            for (int u = 0; u < U; ++u)
                xs_load_row<Tin, Tacc, 4, Op>(p, base + u * span + sub * 4, n, d.s_in, v[u]);
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if (base + u * span >= len) break;
#pragma unroll
                for (int j = 1; j < 4; ++j) v[u][j] = op(v[u][j - 1], v[u][j]);
                const Tacc incl = xs_group_scan(v[u][3], g, sub, op);
                const Tacc left = __shfl_up_sync(XSTRIDE_FULL_WARP_MASK, incl, 1, (int)g);
                const Tacc total = __shfl_sync(XSTRIDE_FULL_WARP_MASK, incl, (int)(g - 1u), (int)g);
                xs_store_row<Tout, Tacc, 4>(q, base + u * span + sub * 4, n, d.s_out,
                                            op(carry, sub == 0u ? id : left), v[u], op);
                carry = op(carry, total);
            }
        }
    }
}
