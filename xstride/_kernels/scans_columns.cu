// Scan kernels of the xstride namespace for a few long columns (plan strategy
// "columns_split": a contiguous (n, k) array, 2 <= k <= 256, scanned over its rows, e.g.
// cumulative_sum(x, axis=0) of an (n, 3) array). Launched by xstride/_kernels/scans.py
// with the geometry of colsplit_geometry (xstride/_kernels/_colsplit_geometry.py). Compiled by
// NVRTC: no standard headers.
//
// Row r of the input starts at x + r * rs: rs = k (rows forward) or -k (reversed,
// x[::-1]); the output is always forward, row r at out + (r + init) * k.
// A reduce-then-scan in two launches over C chunks of whole rows (chunk b: rows
// [b * chunk_rows, (b + 1) * chunk_rows), chunk_rows a multiple of the tile's rows):
//   1. xs_colsplit_fold: block b reads its chunk as one flat array (the k columns
//      interleaved; row by row from the last when rs = -k, each row forward); with
//      blockDim.x = m * k, thread t's elements all fall in column
//      t % k. Each thread folds its elements in order, then thread c < k folds threads
//      c, c + k, ... in order into partials[b * k + c].
//   2. xs_colsplit_scan: block b first folds the partials of chunks 0..b-1 of each
//      column (thread (j, c) = (t / k, t % k) folds chunks j, j + m, ..., then a
//      block scan over j), the chunk's carry. It then walks its chunk in tiles of
//      R = m * L rows: the tile is staged in shared memory with coalesced loads,
//      thread (j, c) takes rows j * L .. j * L + L - 1 of column c (a run), the m run
//      totals of each column are scanned (block_scan below), each run is rescanned
//      from carry + the runs before it, and the tile is written back coalesced
//      (output row r + init; row 0 holds the identity when init). The carry then
//      grows by the tile's column totals.
// Each thread computes the staged positions of its L elements of a tile once (they
// are the same in every tile), and whole tiles (all but a chunk's last) run without
// bounds tests: the scan pass issued an instruction nearly every cycle.
// Every combination order is fixed by n, k, the chunking and the tile's (m, L): the
// results are deterministic run to run (the chunking depends on the SM count).
// Shared-memory layout of a tile: element f = row * k + column of the tile at
// position f + (f / U) * pad, U = L * k the elements of one run; pad is the fewest
// (colsplit_pad in _colsplit_geometry.py) that puts the threads of a warp reading step i of
// their runs on distinct banks ((L - 1) * k + pad a multiple of 32 always does). A thread reads its run
// from shared memory twice (fold, then rescan) instead of holding it in registers
// (128 registers for float32 runs of 16 when it did; ptxas 13.0, sm_90).
#include <xstride/detail/scan_desc.cuh>

template <bool B> struct xs_const_bool { static constexpr bool value = B; };

// Loads each thread of the fold keeps in flight.
#define XS_COLSPLIT_B 8

template <int OP, typename Tin, typename Tacc>
__global__ void __launch_bounds__(256) xs_colsplit_fold(const Tin* __restrict__ x,
                                                         Tacc* __restrict__ partials,
                                                         long long n, long long k,
                                                         long long chunk_rows, long long rs)
{
    typedef typename xs_scan_op<OP>::type Op;
    Op op;
    __shared__ Tacc sm[256];
    const long long r0 = (long long)blockIdx.x * chunk_rows;
    const long long r1 = r0 + chunk_rows < n ? r0 + chunk_rows : n;
    const long long end = r1 * k;
    const long long T = blockDim.x;
    const unsigned t = threadIdx.x;
    Tacc acc = Op::template identity<Tacc>();
    // flat element i = row * k + column is at row * rs + column; a step of T flat
    // elements is T / k rows
    long long i = r0 * k + t;
    const long long ps = (T / k) * rs;
    const Tin* p = x + (r0 + (long long)t / k) * rs + (long long)t % k;
    for (; i + (XS_COLSPLIT_B - 1) * T < end; i += XS_COLSPLIT_B * T, p += XS_COLSPLIT_B * ps) {
        Tin v[XS_COLSPLIT_B];
#pragma unroll
        for (int s = 0; s < XS_COLSPLIT_B; ++s) v[s] = p[s * ps];
#pragma unroll
        for (int s = 0; s < XS_COLSPLIT_B; ++s) acc = op(acc, (Tacc)v[s]);
    }
    for (; i < end; i += T, p += ps) acc = op(acc, (Tacc)*p);
    sm[t] = acc;
    __syncthreads();
    if ((long long)t < k) {
        Tacc a = Op::template identity<Tacc>();
        for (long long u = t; u < T; u += k) a = op(a, sm[u]);
        partials[(long long)blockIdx.x * k + t] = a;
    }
}

// Inclusive scan over j of v held by thread (j, c) = (t / k, t % k), m values per column
// (Hillis & Steele, "Data parallel algorithms", CACM 29(12), 1986: ceil(log2 m) steps,
// each combining with the value d = 1, 2, 4, ... places before). Every thread of the
// block calls it. Returns the inclusive value; `excl` gets the exclusive one (the
// identity for j = 0) and `total` the column's total (thread (m - 1, c)'s inclusive).
template <typename Op, typename Tacc>
__device__ __forceinline__ Tacc xs_colsplit_block_scan(Tacc v, int t, int j, int c, int k, int m,
                                                       Tacc (*buf)[256], Tacc& excl, Tacc& total)
{
    Op op;
    __syncthreads();                      // earlier readers of buf are done
    int cur = 0;
    buf[0][t] = v;
    __syncthreads();
    for (int d = 1; d < m; d <<= 1) {
        Tacc w = buf[cur][t];
        if (j >= d) w = op(buf[cur][t - d * k], w);
        buf[cur ^ 1][t] = w;
        cur ^= 1;
        __syncthreads();
    }
    excl = j > 0 ? buf[cur][t - k] : Op::template identity<Tacc>();
    total = buf[cur][(m - 1) * k + c];
    return buf[cur][t];
}

// Padded position of staged element f (see the top of this file), advanced from one
// element of a thread to the next (t, t + T, t + 2T, ...) without a division.
struct xs_colsplit_pos {
    int q, r;                 // f = q * U + r
    const int U, Up, dq, dr;  // U = L * k, Up = U + pad, T = dq * U + dr
    __device__ __forceinline__ xs_colsplit_pos(int t, int U_, int Up_, int T)
        : q(t / U_), r(t % U_), U(U_), Up(Up_), dq(T / U_), dr(T % U_) {}
    __device__ __forceinline__ int at() const { return q * Up + r; }
    __device__ __forceinline__ void next()
    {
        q += dq;
        r += dr;
        if (r >= U) { r -= U; ++q; }
    }
};

// out_offset: byte offset of the staged outputs in the dynamic shared memory; 0 when
// Tin and Tout have one size (each thread then overwrites its own inputs in place,
// after reading them), else past the staged inputs.
// The loads of the next tile are issued right after the current tile is staged, so
// they are in flight while the block scans and stores the current one (the register
// array v holds them until the next round stages them). MINB: blocks per SM of the
// launch bounds (the host launches about one wave, MINB blocks per SM).
template <int OP, typename Tin, typename Tacc, typename Tout, int L, int MINB>
__global__ void __launch_bounds__(256, MINB) xs_colsplit_scan(const Tin* __restrict__ x, Tout* __restrict__ out,
                                                         const Tacc* __restrict__ partials,
                                                         long long n, long long k_,
                                                         long long chunk_rows, long long pad_,
                                                         long long out_offset, long long init,
                                                         long long rs)
{
    typedef typename xs_scan_op<OP>::type Op;
    Op op;
    extern __shared__ __align__(16) unsigned char raw[];
    __shared__ Tacc buf[2][256];
    Tin* sx = reinterpret_cast<Tin*>(raw);
    Tout* so = reinterpret_cast<Tout*>(raw + out_offset);
    const int k = (int)k_;
    const int T = (int)blockDim.x;             // m * k
    const int m = T / k;
    const int t = (int)threadIdx.x;
    const int c = t % k, j = t / k;
    const int U = L * k;
    const int Up = U + (int)pad_;
    const int R = m * L;
    const long long r0 = (long long)blockIdx.x * chunk_rows;
    const long long r1 = r0 + chunk_rows < n ? r0 + chunk_rows : n;
    if (init && blockIdx.x == 0 && t < k) out[t] = (Tout)Op::template identity<Tacc>();
    // the carry: the fold of the chunks before this one, per column
    Tacc carry, excl, total;
    {
        Tacc a = Op::template identity<Tacc>();
        for (long long ch = j; ch < (long long)blockIdx.x; ch += m) a = op(a, partials[ch * k + c]);
        xs_colsplit_block_scan<Op, Tacc>(a, t, j, c, k, m, buf, excl, total);
        carry = total;
    }
    const int mine = j * Up + c;               // position of row j * L of column c
    int pos[L];                                // staged positions of t, t + T, ...: the
    {                                          // same in every tile
        xs_colsplit_pos p(t, U, Up, T);
#pragma unroll
        for (int s = 0; s < L; ++s, p.next()) pos[s] = p.at();
    }
    Tin v[L];                                  // the loads of the tile staged next
    const long long ps = (long long)m * rs;    // T flat elements: m rows
    auto load = [&](long long tr) {
        const Tin* src = x + (tr + j) * rs + c;   // flat element tr * k + t
        if (r1 - tr >= R) {                    // a whole tile: no bounds tests
#pragma unroll
            for (int s = 0; s < L; ++s) v[s] = src[s * ps];
        } else {
            const int ne = (int)(r1 - tr) * k;
#pragma unroll
            for (int s = 0; s < L; ++s)
                if (t + s * T < ne) v[s] = src[s * ps];
        }
    };
    // one tile at tr: staged, each run folded, the run totals scanned, each run
    // rescanned from the carry, written back; FULL: nt == R, no bounds tests
    auto tile = [&](long long tr, auto full) {
        constexpr bool FULL = decltype(full)::value;
        const int nt = FULL ? R : (int)(r1 - tr);
        const int ne = nt * k;
        const int rows = FULL ? L : (nt - j * L < L ? nt - j * L : L);   // of this run
#pragma unroll
        for (int s = 0; s < L; ++s)
            if (FULL || t + s * T < ne) sx[pos[s]] = v[s];
        __syncthreads();
        if (tr + R < r1) load(tr + R);         // in flight through this tile's scan
        Tacc run = Op::template identity<Tacc>();
#pragma unroll
        for (int i = 0; i < L; ++i)
            if (FULL || i < rows) run = op(run, (Tacc)sx[mine + i * k]);
        xs_colsplit_block_scan<Op, Tacc>(run, t, j, c, k, m, buf, excl, total);
        Tacc acc = op(carry, excl);
#pragma unroll
        for (int i = 0; i < L; ++i) {
            if (FULL || i < rows) {
                acc = op(acc, (Tacc)sx[mine + i * k]);
                so[mine + i * k] = (Tout)acc;
            }
        }
        carry = op(carry, total);
        __syncthreads();
        Tout* dst = out + (tr + init) * k + t;
#pragma unroll
        for (int s = 0; s < L; ++s)
            if (FULL || t + s * T < ne) dst[s * T] = so[pos[s]];
        __syncthreads();                       // so read before the next tile's loads
    };
    if (r0 < r1) load(r0);
    long long tr = r0;
    for (; tr + R <= r1; tr += R) tile(tr, xs_const_bool<true>());
    if (tr < r1) tile(tr, xs_const_bool<false>());
}
