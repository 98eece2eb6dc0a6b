// Scan kernel of the xstride namespace for short, dense rows (plan strategy "tile":
// rows of at most 32 elements stored one after another, e.g. cumulative_sum(x,
// axis=1) of an (n, k) array). Launched by xstride/_kernels/scans.py. Compiled by
// NVRTC: no standard headers.
//
// A block stages R consecutive rows (R * len input elements, one contiguous span) in
// shared memory (rows whose elements are reversed in memory, as in x[:, ::-1], are the
// same span, each row read from its end; rows of C short series side by side, as axis
// 1 of an (m, L, C) array, are spans of L * C), thread t scans rows (series, for C > 1)
// t, t + blockDim.x, ... of the tile into a second
// shared array of R * (len + init) outputs, in element order with one running value
// in Tacc (the fold of xs_scan_columns, so the two give the same bits), and the block
// writes the outputs back as one contiguous span. One element of padding after every
// 32 keeps the row accesses off a single bank. R is chosen by the host so that both
// arrays fit TB bytes; blocks loop over the tiles (grid-stride, past SHORT_MAX_BLOCKS
// tiles). Each thread loads its at most NV elements of a tile into registers with
// coalesced loads, all issued together; a block with a next tile issues its loads as
// soon as the current one is staged, so they are in flight while it scans and stores.
// With both (on the H200 10-25% faster than one load after another and each tile
// loaded after the last one's store, e.g. (2**25, 3) float32 0.308 -> 0.260 ms; at
// that size every block has one tile, so the batched loads made the difference).
#include <xstride/detail/scan_desc.cuh>

// Padded position of element e of a staged array.
__device__ __forceinline__ int xs_pad32(int e) { return e + (e >> 5); }

// WALK: how a series lies in a staged row of the tile: 0 forward (the row itself), 1
// reversed (d.s_in == -1, x[:, ::-1]: x is the lowest address of the first row, and
// element j of a row is at L - 1 - j), 2 interleaved: C = d.kshape[1] series side by
// side (d.s_in == C, e.g. axis 1 of an (m, L, C) array), element j of series c of a
// row at j * C + c. The tile's rows are then the outer rows (nrows of them).
// NV: loads a thread makes of one tile; the host sets it to cover the largest input
// span of a tile (a tile's input and outputs share TB bytes, so at most TB / (sizeof(Tin)
// + sizeof(Tout)) input elements, over 256 threads); a span past NV * blockDim.x
// elements would still be staged, by the loop after the registers'.
template <int OP, typename Tin, typename Tacc, typename Tout, int NK, int NV, int TB, int WALK>
__global__ void __launch_bounds__(256) xs_scan_tile(const Tin* __restrict__ x, Tout* __restrict__ out,
                                                    const xs_scan_desc<NK> d, long long nrows,
                                                    long long len, long long rows_per_tile,
                                                    long long out_offset)
{
    typedef typename xs_scan_op<OP>::type Op;
    Op op;
    __shared__ __align__(16) unsigned char raw[TB];
    const int L = (int)len;
    const int Lo = L + (int)d.init;
    const int C = WALK == 2 ? (int)d.kshape[1] : 1;   // series per staged row
    const int LC = L * C, LoC = Lo * C;
    const long long R = rows_per_tile;
    Tin* sx = reinterpret_cast<Tin*>(raw);
    Tout* so = reinterpret_cast<Tout*>(raw + out_offset);
    const int step = (int)blockDim.x;
    const int t0 = (int)threadIdx.x;
    const long long gstep = (long long)gridDim.x * R;
    const int dj = WALK == 1 ? -C : C;      // from one element of a series to the next
    const int first = WALK == 1 ? L - 1 : 0;
    Tin v[NV];
    auto load = [&](long long r) {
        const int nt = (int)(nrows - r < R ? nrows - r : R);
        const Tin* src = x + r * d.kstride[0];
        const int span = nt * LC;
#pragma unroll
        for (int s = 0; s < NV; ++s)
            if (t0 + s * step < span) v[s] = src[t0 + s * step];
    };
    long long r0 = (long long)blockIdx.x * R;
    if (r0 < nrows) load(r0);
    for (; r0 < nrows; r0 += gstep) {
        const int nt = (int)(nrows - r0 < R ? nrows - r0 : R);
        Tout* dst = out + r0 * d.kout[0];
        const int span_in = nt * LC;
#pragma unroll
        for (int s = 0; s < NV; ++s)
            if (t0 + s * step < span_in) sx[xs_pad32(t0 + s * step)] = v[s];
        for (int i = t0 + NV * step; i < span_in; i += step)   // past NV loads a thread
            sx[xs_pad32(i)] = x[r0 * d.kstride[0] + i];
        __syncthreads();
        if (r0 + gstep < nrows) load(r0 + gstep);   // in flight through the scan and store
        for (int t = t0; t < nt * C; t += step) {   // series t: row i, position c
            const int i = WALK == 2 ? t / C : t, c = t - i * C;
            const int bi = i * LC + c + first;
            int bo = i * LoC + c;
            if (d.init) {
                so[xs_pad32(bo)] = (Tout)Op::template identity<Tacc>();
                bo += C;
            }
            Tacc acc = Op::template identity<Tacc>();
            for (int j = 0; j < L; ++j) {
                acc = op(acc, (Tacc)sx[xs_pad32(bi + j * dj)]);
                so[xs_pad32(bo + j * C)] = (Tout)acc;
            }
        }
        __syncthreads();
        const int span_out = nt * LoC;
        for (int e = t0; e < span_out; e += step) dst[e] = so[xs_pad32(e)];
        __syncthreads();
    }
}
