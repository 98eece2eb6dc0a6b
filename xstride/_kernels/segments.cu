// Segment primitives for xstride.algorithms on CuPy arrays (launcher: segments.py).
//
// Determinism: nothing here depends on the order in which threads or blocks run.
// Reductions fold rows in a fixed order (one thread per segment in row order, or one
// warp per fixed chunk of CHUNK_ROWS rows: each lane in row order, the lanes in lane
// slots by a fixed binary tree of shuffles, the chunks in chunk order in a second pass); the only atomics are
// integer minima of positions (the first bad offset), whose result is the same
// whatever order they land in. The compaction and bin_offsets: compaction.cu.
#include <xstride/detail/on_request.cuh>
#include <xstride/detail/segment_int128.cuh>
#include <xstride/detail/segment_common.cuh>

// ------------------------------------------------------------------ limits and ops
template <typename T> struct xs_seg_lim;
#define XS_SEG_LIM(T, LO, HI)                                   \
    template <> struct xs_seg_lim<T> {                          \
        static __device__ __forceinline__ T lo() { return LO; } \
        static __device__ __forceinline__ T hi() { return HI; } \
    };
XS_SEG_LIM(signed char, (signed char)-128, (signed char)127)
XS_SEG_LIM(short, (short)-32768, (short)32767)
XS_SEG_LIM(int, (int)(-2147483647 - 1), 2147483647)
XS_SEG_LIM(long long, (long long)(-9223372036854775807LL - 1), 9223372036854775807LL)
XS_SEG_LIM(unsigned char, (unsigned char)0, (unsigned char)255)
XS_SEG_LIM(unsigned short, (unsigned short)0, (unsigned short)65535)
XS_SEG_LIM(unsigned int, 0u, 4294967295u)
XS_SEG_LIM(unsigned long long, 0ull, 18446744073709551615ull)
XS_SEG_LIM(float, -__int_as_float(0x7f800000), __int_as_float(0x7f800000))
XS_SEG_LIM(double, -__longlong_as_double(0x7ff0000000000000LL),
           __longlong_as_double(0x7ff0000000000000LL))

// OP: 0 sum, 1 prod, 2 min, 3 max. T: the values' type (the identity of min/max is
// T's range), A: the accumulator.
template <int OP, typename T, typename A>
__device__ __forceinline__ A xs_seg_identity()
{
    if (OP == 0) return (A)0;
    if (OP == 1) return (A)1;
    if (OP == 2) return (A)xs_seg_lim<T>::hi();
    return (A)xs_seg_lim<T>::lo();
}

// min and max propagate NaN (b != b only for a float NaN); ties keep a. (A sum may be
// of xs_seg_i128, which has + only.)
template <int OP, typename A>
__device__ __forceinline__ A xs_seg_fold(A a, A b)
{
    if constexpr (OP == 0) {
        return a + b;
    } else if constexpr (OP == 1) {
        return a * b;
    } else {
        if (b != b) return b;
        if (OP == 2) return b < a ? b : a;
        return b > a ? b : a;
    }
}

// The mean: the sum, rounded once to double, over the count (integer means sum in
// xs_seg_i128, exactly, so the sum is the same whatever the order of the folds).
template <typename R, bool MEAN, typename A>
__device__ __forceinline__ R xs_seg_finish(A acc, long long count)
{
    if (MEAN) {
        if (count == 0) return (R)__longlong_as_double(0x7ff8000000000000LL);
        return (R)((double)acc / (double)count);
    }
    return (R)acc;
}

// min/max/mean of an empty segment of floats: NaN (integers are refused on the host)
template <int OP, typename T, typename A, typename R, bool MEAN>
__device__ __forceinline__ R xs_seg_result(A acc, long long count)
{
    if (OP >= 2 && count == 0) return (R)__longlong_as_double(0x7ff8000000000000LL);
    return xs_seg_finish<R, MEAN>(acc, count);
}

// ------------------------------------------------------------------ segment_reduce
// Rows folded per batch: a batch issues all its loads before the first fold (the loads
// do not depend on the accumulator), so a short segment costs one memory latency, not
// one per row; the folds stay in row order, so the batch size changes no result. The
// warp walk runs at most 48 registers a thread (5 blocks of 256 an SM; ptxas for sm_90:
// no spill for float values, 16 bytes for 64-bit integers): 4 batched row slots, 40
// warps an SM, where 8 slots took 77 registers (24 warps).
#define XS_SEG_BATCH_THREAD 4
#define XS_SEG_BATCH_WARP 4

// a / b of non-negative a, b: a 32-bit division where both fit (the common case; a
// 64-bit division is a long instruction sequence).
__device__ __forceinline__ long long xs_seg_div(long long a, long long b)
{
    if (((unsigned long long)(a | b) >> 32) == 0ull) {
        return (long long)((unsigned)a / (unsigned)b);
    }
    return a / b;
}

// The fold, in order, of rows r0, r0 + G, r0 + 2G, ... < r1 of one column (x[r * k]),
// from the identity.
template <int OP, typename T, typename A, int U>
__device__ __forceinline__ A xs_seg_fold_rows(const T* __restrict__ x, long long r0,
                                              long long r1, long long G, long long k)
{
    A acc = xs_seg_identity<OP, T, A>();
    const long long stride = G * k;
    const T* __restrict__ q = x + r0 * k;
    for (long long r = r0; r < r1; r += U * G, q += U * stride) {
        T b[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (r + u * G < r1) b[u] = q[u * stride];
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            if (r + u * G < r1) acc = xs_seg_fold<OP, A>(acc, (A)b[u]);
        }
    }
    return acc;
}

// The thread walk stages a block's segments in shared memory: their offsets, then their
// rows, each by one pass of coalesced copies (4- and 8-byte values: asynchronous copies
// to shared memory, all of a group in flight; 1- and 2-byte ones: XS_SEG_STAGE_LOADS
// loads in flight a thread), then each thread folds its (segment, column) from the tile. Read straight from
// global memory, as the fold does when a group's rows do not fit, a warp's threads are
// spread over ten or more segments and keep one short batch of loads in flight each.
// Element e of the group sits at e + e / 32 (one pad slot per 32): the threads of a
// warp read the same column of segments of equal length, which would otherwise fall
// into one bank.
#define XS_SEG_STAGE_BYTES 32768
#define XS_SEG_STAGE_LOADS 16
#define XS_SEG_STAGE_SEGMENTS 512

__device__ __forceinline__ int xs_seg_pad(int e) { return e + (e >> 5); }

// An offset clamped into [lo, n]. The short walks run before the host has read the
// offsets' check (segments.py launches them in its shadow): on offsets the check will
// refuse they must still read no row outside [0, n); on valid offsets this changes
// nothing.
__device__ __forceinline__ long long xs_seg_clamp(long long o, long long lo, long long n)
{
    return o < lo ? lo : (o > n ? n : o);
}

// One thread per (segment, column): rows in order. Block g takes segments g * per_block
// ... (g + 1) * per_block - 1 (per_block <= XS_SEG_STAGE_SEGMENTS; item t = local
// segment * k + column); segments of more than max_rows rows are left to the long
// walk. The folds run in row order whether the group was staged or not: per_block
// changes no result. n: the rows of v (offsets are clamped to it, see xs_seg_clamp;
// a segment outside the group's staged rows, which only unchecked offsets give, is
// read from global memory).
template <typename T, typename A, typename R, int OP, bool MEAN>
__global__ void __launch_bounds__(XS_SEG_THREADS)
xs_seg_thread(const T* __restrict__ v, const long long* __restrict__ off, long long n,
              long long n_seg, long long k, long long max_rows, long long per_block,
              R* __restrict__ out)
{
    __shared__ __align__(16) unsigned char raw[XS_SEG_STAGE_BYTES];
    __shared__ long long so[XS_SEG_STAGE_SEGMENTS + 1];
    T* const stage = reinterpret_cast<T*>(raw);
    constexpr long long CAP = XS_SEG_STAGE_BYTES / sizeof(T);
    const int step = (int)blockDim.x;
    const long long groups = (n_seg + per_block - 1) / per_block;
    for (long long g = blockIdx.x; g < groups; g += gridDim.x) {
        const long long sa = g * per_block;
        const int ns = (int)(sa + per_block < n_seg ? per_block : n_seg - sa);
        for (int i = (int)threadIdx.x; i <= ns; i += step) so[i] = xs_seg_clamp(off[sa + i], 0, n);
        __syncthreads();
        const long long e0 = so[0] * k, m = so[ns] * k - e0;
        const bool staged = m >= 0 && m + (m >> 5) <= CAP;        // block-uniform
        if (staged) {
            const int mm = (int)m;
            if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
                // asynchronous copies, global to shared: every row of the group in flight
                // at once, no register holds them (a load a register, 16 at a time, took
                // two round trips a group and 64 registers: 378 us at 0.47 of DRAM
                // throughput for 2**26 (n, 3) float32 rows, H200, 2026-12-03)
                for (int e = (int)threadIdx.x; e < mm; e += step) {
                    xs_async_copy<(int)sizeof(T)>(stage + xs_seg_pad(e), v + e0 + e);
                }
                xs_async_wait_all();
            } else {       // 1- and 2-byte values: loads to registers, 16 in flight
                for (int e = (int)threadIdx.x; e < mm; e += XS_SEG_STAGE_LOADS * step) {
                    T b[XS_SEG_STAGE_LOADS];
#pragma unroll
                    for (int u = 0; u < XS_SEG_STAGE_LOADS; ++u) {
                        if (e + u * step < mm) b[u] = v[e0 + e + u * step];
                    }
#pragma unroll
                    for (int u = 0; u < XS_SEG_STAGE_LOADS; ++u) {
                        if (e + u * step < mm) stage[xs_seg_pad(e + u * step)] = b[u];
                    }
                }
            }
            __syncthreads();
        }
        const long long items = ns * k;
        for (long long t = threadIdx.x; t < items; t += step) {
            const long long sl = xs_seg_div(t, k), c = t - sl * k;
            const long long r0 = so[sl], r1 = so[sl + 1] < r0 ? r0 : so[sl + 1];
            if (r1 - r0 > max_rows) continue;
            A acc;
            if (staged && r0 >= so[0] && r1 <= so[ns]) {
                acc = xs_seg_identity<OP, T, A>();
                const int kk = (int)k, rows = (int)(r1 - r0);
                int e = (int)(r0 * k - e0 + c);
                int r = 0;
                for (; r + XS_SEG_BATCH_THREAD <= rows; r += XS_SEG_BATCH_THREAD) {
                    T b[XS_SEG_BATCH_THREAD];
#pragma unroll
                    for (int u = 0; u < XS_SEG_BATCH_THREAD; ++u) {
                        b[u] = stage[xs_seg_pad(e + u * kk)];
                    }
#pragma unroll
                    for (int u = 0; u < XS_SEG_BATCH_THREAD; ++u) {
                        acc = xs_seg_fold<OP, A>(acc, (A)b[u]);
                    }
                    e += XS_SEG_BATCH_THREAD * kk;
                }
                for (; r < rows; ++r, e += kk) {
                    acc = xs_seg_fold<OP, A>(acc, (A)stage[xs_seg_pad(e)]);
                }
            } else {
                acc = xs_seg_fold_rows<OP, T, A, XS_SEG_BATCH_THREAD>(v + c, r0, r1, 1, k);
            }
            out[(sa + sl) * k + c] = xs_seg_result<OP, T, A, R, MEAN>(acc, r1 - r0);
        }
        __syncthreads();
    }
}

// The warp walk with TILE (segments.py sets it where the columns fit one slab, k <= 32,
// and the values have 4 or 8 bytes) stages its rows in shared memory, a piece at a
// time: every copy of a piece is in
// flight at once (asynchronous copies, no register holds them), then the lanes fold from
// the tile. Loaded straight from global memory, a warp kept 4 rows a lane in flight, 480
// bytes for (n, 3) float32 rows: the walk read 256-row segments at 0.62 of copy (H100,
// 2026-12-05). XS_SEG_WARP_STAGE_BYTES a warp: 32 KiB a block of 256.
#define XS_SEG_WARP_STAGE_BYTES 4096

// Lane (g, c) of a warp whose kk <= 32 columns sit in one slab (G = 32 / kk row slots,
// lane = g * kk + c): the fold, from the identity and in order, of rows r0 + g, r0 + g + G, ... <
// r1 of column c, read through the warp's tile st (cap elements). A piece holds R rows,
// the most that fit and a multiple of G, so every piece gives a lane the same row slots:
// its folds are those of xs_seg_fold_rows, in the same order, to the same bits. Every
// lane of the warp calls it (all copy; lanes g >= G fold nothing).
template <int OP, typename T, typename A, int U>
__device__ __forceinline__ A xs_seg_fold_staged(const T* __restrict__ v, long long r0,
                                                long long r1, int kk, int G, int g, int c,
                                                T* st, int cap)
{
    A acc = xs_seg_identity<OP, T, A>();
    const int lane = (int)(threadIdx.x & 31u);
    const int R = (cap / kk) / G * G;
    const T* __restrict__ src = v + r0 * kk;
    for (long long left = r1 - r0; left > 0; left -= R, src += (long long)R * kk) {
        const int rows = left < R ? (int)left : R;
        const int m = rows * kk;
        for (int e = lane; e < m; e += 32) xs_async_copy<(int)sizeof(T)>(st + e, src + e);
        xs_async_wait_all();
        __syncwarp();
        if (g < G) {
            const T* q = st + g * kk + c;
            int r = g;
            for (; r + (U - 1) * G < rows; r += U * G, q += U * G * kk) {
                T b[U];
#pragma unroll
                for (int u = 0; u < U; ++u) b[u] = q[u * G * kk];
#pragma unroll
                for (int u = 0; u < U; ++u) acc = xs_seg_fold<OP, A>(acc, (A)b[u]);
            }
            for (; r < rows; r += G, q += G * kk) acc = xs_seg_fold<OP, A>(acc, (A)*q);
        }
        __syncwarp();             // the tile is read before the next piece lands in it
    }
    return acc;
}

// Lane (g, c)'s fold of its G row slots into lane c < kk, as a fixed binary tree
// (ceil(log2 G) shuffles: at step h, slot g, a multiple of 2h, takes slot g + h), and
// the store of lane c's result: to out where the item is one chunk, else its partial.
template <typename T, typename A, typename R, int OP, bool MEAN>
__device__ __forceinline__ void xs_seg_warp_store(A acc, int kk, int G, int g, long long col,
                                                  long long s, long long len, long long k,
                                                  long long slot, long long chunks,
                                                  R* __restrict__ out, A* __restrict__ part)
{
    A res = acc;
    for (int h = 1; h < G; h <<= 1) {   // every lane shuffles
        A other = xs_seg_shfl_down(res, (unsigned)(h * kk));
        if ((g & (2 * h - 1)) == 0 && g + h < G) res = xs_seg_fold<OP, A>(res, other);
    }
    if ((int)(threadIdx.x & 31u) < kk) {
        if (chunks == 1) {
            out[s * k + col] = xs_seg_result<OP, T, A, R, MEAN>(res, len);
        } else {
            part[slot * k + col] = res;
        }
    }
}

// One warp per (item j, chunk p), item j being segment s = ids[j] (the long walk: ids
// lists the long segments) or s = j (ids null; the short walk, which leaves segments
// of more than max_rows rows to the long walk): rows off[s] + p*chunk_rows ... (at most
// chunk_rows of them). For each slab of up to 32 columns (kk of them), lane l folds
// column c0 + l % kk over the rows l / kk, l / kk + G, ... (G = 32 / kk row slots),
// then the G slots of each column are folded by a fixed binary tree into lane l < kk.
// chunks == 1: the result goes to out; else the partial goes to part[(j * chunks + p) *
// k + c] for xs_seg_combine. n: the rows of v (offsets clamped to it, as in
// xs_seg_thread). TILE: one slab of 4- or 8-byte values is read through the warp's
// tile (xs_seg_fold_staged: the same folds in the same order); without it the kernel
// holds no shared memory (a 32 KiB tile unused by 40 columns made their walk 1.7x
// slower, H100, 2026-12-06).
template <typename T, typename A, typename R, int OP, bool MEAN, bool TILE>
__global__ void __launch_bounds__(XS_SEG_THREADS, 5)
xs_seg_warp(const T* __restrict__ v, const long long* __restrict__ off, long long n,
            const long long* __restrict__ ids, long long n_items, long long k,
            long long chunks, long long chunk_rows, long long max_rows, R* __restrict__ out,
            A* __restrict__ part)
{
    const unsigned lane = threadIdx.x & 31u;
    const long long warps = n_items * chunks;
    const long long wstep = (long long)gridDim.x * (blockDim.x >> 5);
    const long long w0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    // the geometry of the last slab of columns (every other slab has 32: G = 1, g = 0)
    const int kk_last = (int)(k - ((k - 1) >> 5) * 32);
    const int G_last = 32 / kk_last;
    const int g_last = (int)lane / kk_last;
    if constexpr (TILE) {
        static_assert(sizeof(T) == 4 || sizeof(T) == 8, "the warp's tile takes 4- and 8-byte values");
        constexpr int CAPW = XS_SEG_WARP_STAGE_BYTES / (int)sizeof(T);
        __shared__ __align__(16) T tiles[(XS_SEG_THREADS / 32) * CAPW];
        if (k <= 32) {                                   // one slab: kk == k
            T* const stage = tiles + (threadIdx.x >> 5) * CAPW;
            const int col = (int)lane - g_last * kk_last;
            for (long long w = w0; w < warps; w += wstep) {
                const long long j = chunks == 1 ? w : xs_seg_div(w, chunks), p = w - j * chunks;
                const long long s = ids != nullptr ? ids[j] : j;
                const long long s0 = xs_seg_clamp(off[s], 0, n);
                const long long s1 = xs_seg_clamp(off[s + 1], s0, n);
                const long long r0 = s0 + p * chunk_rows;
                if (s1 - s0 > max_rows) continue;                     // warp-uniform
                if (r0 >= s1 && (p > 0 || chunks > 1)) continue;
                const long long r1 = r0 + chunk_rows < s1 ? r0 + chunk_rows : s1;
                const A acc = xs_seg_fold_staged<OP, T, A, XS_SEG_BATCH_WARP>(
                    v, r0, r1, kk_last, G_last, g_last, col, stage, CAPW);
                xs_seg_warp_store<T, A, R, OP, MEAN>(acc, kk_last, G_last, g_last, col, s,
                                                     s1 - s0, k, w, chunks, out, part);
            }
            return;
        }
    }
    for (long long w = w0; w < warps; w += wstep) {
        const long long j = chunks == 1 ? w : xs_seg_div(w, chunks), p = w - j * chunks;
        const long long s = ids != nullptr ? ids[j] : j;
        const long long s0 = xs_seg_clamp(off[s], 0, n), s1 = xs_seg_clamp(off[s + 1], s0, n);
        const long long r0 = s0 + p * chunk_rows;
        if (s1 - s0 > max_rows) continue;                     // warp-uniform
        if (r0 >= s1 && (p > 0 || chunks > 1)) continue;
        const long long r1 = r0 + chunk_rows < s1 ? r0 + chunk_rows : s1;
        for (long long c0 = 0; c0 < k; c0 += 32) {
            const bool last = c0 + 32 >= k;
            const int kk = last ? kk_last : 32;
            const int G = last ? G_last : 1;
            const int g = last ? g_last : 0;
            const long long col = c0 + (long long)((int)lane - g * kk);
            A acc = xs_seg_identity<OP, T, A>();
            if (g < G) {
                acc = xs_seg_fold_rows<OP, T, A, XS_SEG_BATCH_WARP>(v + col, r0 + g, r1, G, k);
            }
            xs_seg_warp_store<T, A, R, OP, MEAN>(acc, kk, G, g, col, s, s1 - s0, k, w,
                                                 chunks, out, part);
        }
    }
}

// The chunks of each (item, column), in chunk order: t = j * k + c, segment s = ids[j]
// (or j where ids is null).
template <typename T, typename A, typename R, int OP, bool MEAN>
__global__ void __launch_bounds__(XS_SEG_THREADS)
xs_seg_combine(const A* __restrict__ part, const long long* __restrict__ off,
               const long long* __restrict__ ids, long long n_items, long long k,
               long long chunks, long long chunk_rows, R* __restrict__ out)
{
    const long long total = n_items * k;
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += step) {
        const long long j = t / k, c = t - j * k;
        const long long s = ids != nullptr ? ids[j] : j;
        const long long m = off[s + 1] - off[s];
        const long long used = (m + chunk_rows - 1) / chunk_rows;
        A acc = xs_seg_identity<OP, T, A>();
        for (long long p = 0; p < used; ++p) {
            acc = xs_seg_fold<OP, A>(acc, part[(j * chunks + p) * k + c]);
        }
        out[s * k + c] = xs_seg_result<OP, T, A, R, MEAN>(acc, m);
    }
}

// ------------------------------------------------------------------ checks
// rec (5 x u64, every byte 0xFF before the launch): [0] first i with off[i] < off[i-1],
// [1] first empty segment, [2] ~(longest segment), [3] off[0], [4] off[m - 1].
XS_ON_REQUEST __global__ void __launch_bounds__(XS_SEG_THREADS)
xs_seg_offsets_stats(const long long* __restrict__ off, long long m,
                     unsigned long long* __restrict__ rec)
{
    unsigned long long bad = ~0ull, empty = ~0ull, nlen = ~0ull;
    const long long step = (long long)gridDim.x * blockDim.x;
    const long long i0 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i0 == 0) {
        rec[3] = (unsigned long long)off[0];
        rec[4] = (unsigned long long)off[m - 1];
    }
    for (long long i = i0 + 1; i < m; i += step) {
        // compared, not subtracted: offsets far apart (0, 2**63 - 1, -2) would overflow
        const long long a = off[i - 1], b = off[i];
        if (b < a) {
            bad = bad < (unsigned long long)i ? bad : (unsigned long long)i;
        } else {
            const unsigned long long d = (unsigned long long)b - (unsigned long long)a;
            if (d == 0 && (unsigned long long)(i - 1) < empty) empty = (unsigned long long)(i - 1);
            const unsigned long long nd = ~d;
            nlen = nd < nlen ? nd : nlen;
        }
    }
    // the block's minima, then one atomic per entry and block (the longest segment is
    // found by every block: an atomic per warp, 65,536 of them on one address for 2**21
    // offsets, took 0.07 ms on the H200)
    __shared__ unsigned long long sh[3][XS_SEG_THREADS / 32];
    bad = xs_seg_warp_min(bad);
    empty = xs_seg_warp_min(empty);
    nlen = xs_seg_warp_min(nlen);
    if ((threadIdx.x & 31u) == 0) {
        sh[0][threadIdx.x >> 5] = bad;
        sh[1][threadIdx.x >> 5] = empty;
        sh[2][threadIdx.x >> 5] = nlen;
    }
    __syncthreads();
    if (threadIdx.x < 3) {
        unsigned long long x = ~0ull;
        for (unsigned w = 0; w < (blockDim.x >> 5); ++w) {
            x = sh[threadIdx.x][w] < x ? sh[threadIdx.x][w] : x;
        }
        if (x != ~0ull) atomicMin(rec + threadIdx.x, x);
    }
}
