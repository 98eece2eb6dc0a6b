// Scan kernels of the xstride namespace for many series too few to give each its own
// thread and keep the memory busy (plan strategy "columns_chunks": a scan over an axis
// that is not the innermost, e.g. cumulative_sum(x, axis=0) of a (4096, 24576) array).
// Launched by xstride/_kernels/scans.py; the chunk count C comes from the shape alone
// (xstride/_plans/scan_chunks.py), so the results have the same bits on every device.
// Compiled by NVRTC: no standard headers.
//
// Series s (a row of the plan: all axes but the scanned one) is cut into C chunks of R
// consecutive elements (the last may be shorter). Thread (s, c): s = blockIdx.x * 256 +
// threadIdx.x, c = blockIdx.y, so neighbouring threads take neighbouring series and
// every step reads and writes coalesced, as in xs_scan_columns (scans.cu).
//   1. xs_chunks_fold: partials[c * nrows + s] = the fold of chunk c of series s, in
//      element order, from the identity.
//   2. xs_chunks_scan: the carry of chunk c is the fold of partials 0..c-1 of its
//      series, in chunk order; the chunk is then scanned from the carry in element
//      order (output element k at k + init; chunk 0 writes the identity at 0 when
//      init).
// Each order is fixed by the shape and C: the results are deterministic run to run.
#include <xstride/detail/scan_desc.cuh>

// This thread's series s and the elements [k0, k1) of its chunk; false past the last
// series.
__device__ __forceinline__ bool xs_chunk_of_thread(long long nrows, long long len,
                                                   long long chunk, long long& s,
                                                   long long& k0, long long& k1)
{
    s = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    k0 = (long long)blockIdx.y * chunk;
    k1 = len - k0 < chunk ? len : k0 + chunk;
    return s < nrows;
}

template <int OP, typename Tin, typename Tacc, int NK>
__global__ void __launch_bounds__(256) xs_chunks_fold(const Tin* __restrict__ x,
                                                       Tacc* __restrict__ partials,
                                                       const xs_scan_desc<NK> d, long long nrows,
                                                       long long len, long long chunk)
{
    typedef typename xs_scan_op<OP>::type Op;
    Op op;
    long long s, k0, k1;
    if (!xs_chunk_of_thread(nrows, len, chunk, s, k0, k1)) return;
    const Tin* p = x + xs_offset<NK>(s, d.kshape, d.kstride, d.nk);
    Tacc acc = Op::template identity<Tacc>();
#pragma unroll 8
    for (long long k = k0; k < k1; ++k) acc = op(acc, (Tacc)p[k * d.s_in]);
    partials[(long long)blockIdx.y * nrows + s] = acc;
}

template <int OP, typename Tin, typename Tacc, typename Tout, int NK>
__global__ void __launch_bounds__(256) xs_chunks_scan(const Tin* __restrict__ x,
                                                       Tout* __restrict__ out,
                                                       const Tacc* __restrict__ partials,
                                                       const xs_scan_desc<NK> d, long long nrows,
                                                       long long len, long long chunk)
{
    typedef typename xs_scan_op<OP>::type Op;
    Op op;
    long long s, k0, k1;
    if (!xs_chunk_of_thread(nrows, len, chunk, s, k0, k1)) return;
    const long long c = blockIdx.y;
    Tacc acc = Op::template identity<Tacc>();
    for (long long j = 0; j < c; ++j) acc = op(acc, partials[j * nrows + s]);
    const Tin* p = x + xs_offset<NK>(s, d.kshape, d.kstride, d.nk);
    Tout* q = out + xs_offset<NK>(s, d.kshape, d.kout, d.nk);
    if (d.init && c == 0) q[0] = (Tout)Op::template identity<Tacc>();
    q += d.init * d.s_out;
#pragma unroll 8
    for (long long k = k0; k < k1; ++k) {
        acc = op(acc, (Tacc)p[k * d.s_in]);
        q[k * d.s_out] = (Tout)acc;
    }
}
