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

// Short dense rows scanned in registers (plan strategy "tile", inputs and outputs of
// one size, 2 or 4 bytes, at most 48 bytes a thread, no initial element:
// scan_regs_rows in _scan_geometry.py): thread g takes Q consecutive rows (Q * L elements,
// a whole number of 16-byte words: Q = 16 / gcd(L * sizeof(Tin), 16), chosen by the
// host), loads them with 16-byte loads issued together, scans each row in
// element order with one running value in Tacc (the fold of xs_scan_tile and
// xs_scan_columns, so the same bits), and stores the outputs as 16-byte words. A warp's
// words are 32 spans of Q * L elements side by side: each load instruction reads every
// third or fourth word of the warp's span and the L1 cache holds the lines for the
// next ones. No shared memory, no barrier: the staged tile kernel above spent its issue
// slots on the staging (0.74-0.78 warps issued a cycle per scheduler, H200, Nsight
// Compute), this one spends a few instructions an element. REV: the rows' elements are
// reversed in memory (x[:, ::-1]; x is the lowest address of the first row); the
// outputs are written in scan order. A span not on 16-byte boundaries (a view's
// offset) or the last, shorter group of rows is read and written element by element.
template <typename T>
__device__ __forceinline__ T xs_rowregs_word(unsigned w)
{
    union { unsigned u; T t; } c;
    c.u = w;
    return c.t;
}

template <int OP, typename Tin, typename Tacc, typename Tout, int L, int Q, int REV, int MINB>
__global__ void __launch_bounds__(256, MINB) xs_scan_rowregs(const Tin* __restrict__ x,
                                                             Tout* __restrict__ out,
                                                             long long nrows)
{
    static_assert(sizeof(Tin) == sizeof(Tout) && (sizeof(Tin) == 2 || sizeof(Tin) == 4),
                  "inputs and outputs of one size, 2 or 4 bytes");
    constexpr int PER = 16 / (int)sizeof(Tout);   // elements (in and out) a 16-byte word
    static_assert((L * Q) % PER == 0, "a thread's rows are whole 16-byte words");
    constexpr int E = L * Q;                      // elements of a thread's rows
    typedef typename xs_scan_op<OP>::type Op;
    Op op;
    const long long r0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * Q;
    if (r0 >= nrows) return;
    const int ne = (int)(nrows - r0 < Q ? nrows - r0 : Q) * L;
    const Tin* src = x + r0 * L;
    Tout* dst = out + r0 * L;
    const bool vec = ne == E && ((reinterpret_cast<unsigned long long>(src) |
                                  reinterpret_cast<unsigned long long>(dst)) & 15ull) == 0;
    Tin v[E];
    if (vec) {
        const uint4* s4 = reinterpret_cast<const uint4*>(src);
        union { uint4 u; Tin t[PER]; } w[E / PER];
#pragma unroll
        for (int i = 0; i < E / PER; ++i) w[i].u = s4[i];
#pragma unroll
        for (int i = 0; i < E / PER; ++i)
#pragma unroll
            for (int p = 0; p < PER; ++p) v[i * PER + p] = w[i].t[p];
    } else {
#pragma unroll
        for (int e = 0; e < E; ++e)
            if (e < ne) v[e] = src[e];
    }
    Tout o[E];
#pragma unroll
    for (int r = 0; r < Q; ++r) {
        Tacc acc = Op::template identity<Tacc>();
#pragma unroll
        for (int j = 0; j < L; ++j) {
            acc = op(acc, (Tacc)v[r * L + (REV ? L - 1 - j : j)]);
            o[r * L + j] = (Tout)acc;
        }
    }
    if (vec) {
        union { uint4 u; Tout t[PER]; } w;
        uint4* d4 = reinterpret_cast<uint4*>(dst);
#pragma unroll
        for (int i = 0; i < E / PER; ++i) {
#pragma unroll
            for (int p = 0; p < PER; ++p) w.t[p] = o[i * PER + p];
            d4[i] = w.u;
        }
    } else {
#pragma unroll
        for (int e = 0; e < E; ++e)
            if (e < ne) dst[e] = o[e];
    }
}

// Short dense rows scanned by warps over 16-byte words (plan strategy "tile": rows of
// L >= 4 elements one after another, forward, no initial element, 4-byte inputs and
// outputs, x and out on 16-byte boundaries: scans.py, _warp_rows): the rows that
// xs_scan_rowregs does not take because whole words of rows are too many bytes for a
// thread (float32 rows of 5, 7, 9-11, 13-32 elements), and the dense rows of 33 to 63
// such elements of a "rows" plan (WARP_ROWS_LONGEST).
// Warp c takes chunk c of `chunk_words` words (a whole number of rows: the host makes
// 4 * chunk_words a multiple of L), U steps of 32 words at a time, their loads issued
// together: lane l holds word s + l of a step, 4 consecutive elements, so every load and
// store of a warp is one coalesced span. A row crosses lanes, so a lane's first elements
// continue the row of the lanes before it. Each lane folds its word from its row head
// (the element of column 0) if it holds one; a lane without one ("headless", inside a
// longer row) needs the running value the lane before it ends with. `rounds` passes of
// __shfl_up hand each lane that value, and a headless lane refolds its 4 elements from
// it: after round r every lane up to r lanes past a head holds its end value, and rows
// of L elements leave at most (L - 1) / 4 headless lanes in a row (the host passes that
// count). A last shuffle gives every lane the value its first element continues, lane 0
// the carry out of lane 31 of the step before. Every output is thus its row folded in
// element order from the identity, in Tacc, as xs_scan_tile and xs_scan_rowregs make it:
// the same bits, whatever the lanes and chunks.
template <int OP, typename Tin, typename Tacc, typename Tout, int U, int MINB>
__global__ void __launch_bounds__(256, MINB) xs_scan_warprows(const Tin* __restrict__ x,
                                                              Tout* __restrict__ out,
                                                              long long total,
                                                              long long chunk_words,
                                                              long long len,
                                                              long long rounds)
{
    static_assert(sizeof(Tin) == 4 && sizeof(Tout) == 4, "4-byte inputs and outputs");
    typedef typename xs_scan_op<OP>::type Op;
    Op op;
    const unsigned full = 0xffffffffu;
    const Tacc id = Op::template identity<Tacc>();
    const int L = (int)len;
    const int lane = (int)(threadIdx.x & 31);
    const long long nwords = (total + 3) / 4;
    const long long nchunks = (nwords + chunk_words - 1) / chunk_words;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    const int inc = 128 % L;   // a lane's column moves by this from step to step
    for (long long c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; c < nchunks;
         c += nwarps) {
        const long long w0 = c * chunk_words;
        const long long w1 = w0 + chunk_words < nwords ? w0 + chunk_words : nwords;
        Tacc carry = id;
        int col = (lane * 4) % L;   // the column of the lane's first element
        for (long long s = w0; s < w1; s += 32 * U) {
            Tin v[U][4];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const long long w = s + u * 32 + lane;
                const long long e0 = w * 4;
                if (w < w1 && e0 + 4 <= total) {
                    const uint4 word = reinterpret_cast<const uint4*>(x)[w];
                    v[u][0] = xs_rowregs_word<Tin>(word.x);
                    v[u][1] = xs_rowregs_word<Tin>(word.y);
                    v[u][2] = xs_rowregs_word<Tin>(word.z);
                    v[u][3] = xs_rowregs_word<Tin>(word.w);
                } else {
#pragma unroll
                    for (int i = 0; i < 4; ++i)
                        v[u][i] = w < w1 && e0 + i < total ? x[e0 + i] : (Tin)0;
                }
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const long long w = s + u * 32 + lane;
                const int h = col == 0 ? 0 : L - col;   // the word's row head; 4 or more: none
                Tacc end = id;
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    if (i >= h) end = op(end, (Tacc)v[u][i]);
                for (int r = 0; r < (int)rounds; ++r) {
                    const Tacc left = __shfl_up_sync(full, end, 1);
                    if (h >= 4) {
                        Tacc a = lane == 0 ? carry : left;
#pragma unroll
                        for (int i = 0; i < 4; ++i) a = op(a, (Tacc)v[u][i]);
                        end = a;
                    }
                }
                const Tacc left = __shfl_up_sync(full, end, 1);
                Tacc a = lane == 0 ? carry : left;
                Tout o[4];
#pragma unroll
                for (int i = 0; i < 4; ++i) {
                    a = op(i == h ? id : a, (Tacc)v[u][i]);
                    o[i] = (Tout)a;
                }
                carry = __shfl_sync(full, end, 31);
                const long long e0 = w * 4;
                if (w < w1 && e0 + 4 <= total) {
                    union { uint4 u; Tout t[4]; } word;
#pragma unroll
                    for (int i = 0; i < 4; ++i) word.t[i] = o[i];
                    reinterpret_cast<uint4*>(out)[w] = word.u;
                } else if (w < w1) {
#pragma unroll
                    for (int i = 0; i < 4; ++i)
                        if (e0 + i < total) out[e0 + i] = o[i];
                }
                col += inc;
                if (col >= L) col -= L;
            }
        }
    }
}
