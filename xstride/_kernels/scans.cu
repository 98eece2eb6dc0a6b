// Scan kernels of the xstride namespace (cumulative_sum, cumulative_prod). Launched by
// xstride/_kernels/scans.py from a plan of xstride/_reduction_plan.py. Compiled by
// NVRTC: no standard headers.
//
// Template parameters: OP (0 sum, 1 prod), Tin, Tacc (accumulator), Tout, NK (capacity
// of the row-axis arrays of the descriptor). Rows are scanned independently; the
// output position of element k of a row is k + init (include_initial), and position 0
// then holds the identity. Index arithmetic is 64-bit. Every combination order is fixed
// by the data layout alone: results are deterministic run to run.
#include <xstride/scan.cuh>

template <int NK>
struct xs_scan_desc {
    long long kshape[NK];
    long long kstride[NK];
    long long kout[NK];
    long long nk;
    long long s_in;
    long long s_out;
    long long init;
};

struct xs_prod_op {
    template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return a * b; }
    template <typename T> static __device__ __forceinline__ T identity() { return T(1); }
};
template <int OP> struct xs_scan_op { typedef xstride_sum_op type; };
template <> struct xs_scan_op<1> { typedef xs_prod_op type; };

template <int N>
__device__ __forceinline__ long long xs_offset(long long i, const long long (&shape)[N],
                                               const long long (&stride)[N], long long n)
{
    if (n == 1) return i * stride[0];
    long long off = 0;
#pragma unroll
    for (int d = N - 1; d >= 0; --d) {
        if (d < n) {
            long long s = shape[d];
            long long q = i / s;
            off += (i - q * s) * stride[d];
            i = q;
        }
    }
    return off;
}

__device__ __forceinline__ bool xs_aligned16(const void* p)
{
    return (((unsigned long long)p) & 15ull) == 0ull;
}

// N consecutive elements (N * sizeof(T) a multiple of 16) from / to 16-byte aligned
// addresses, through 128-bit accesses.
template <typename T, int N, typename Tacc>
__device__ __forceinline__ void xs_load_items(const T* p, Tacc (&v)[N])
{
    constexpr int PER = 16 / sizeof(T);
#pragma unroll
    for (int b = 0; b < N / PER; ++b) {
        union { uint4 u; T t[PER]; } w;
        w.u = __ldg(reinterpret_cast<const uint4*>(p) + b);
#pragma unroll
        for (int j = 0; j < PER; ++j) v[b * PER + j] = (Tacc)w.t[j];
    }
}

template <typename T, int N>
__device__ __forceinline__ void xs_store_items(T* q, const T (&v)[N])
{
    constexpr int PER = 16 / sizeof(T);
#pragma unroll
    for (int b = 0; b < N / PER; ++b) {
        union { uint4 u; T t[PER]; } w;
#pragma unroll
        for (int j = 0; j < PER; ++j) w.t[j] = v[b * PER + j];
        reinterpret_cast<uint4*>(q)[b] = w.u;
    }
}

template <typename T>
__device__ __forceinline__ constexpr bool xs_vector_type()
{
    return sizeof(T) == 4 || sizeof(T) == 8;
}

// Load N elements k0..k0+N-1 of a row (identity past `len`), as Tacc.
template <typename Tin, typename Tacc, int N, typename Op>
__device__ __forceinline__ void xs_load_row(const Tin* __restrict__ p, long long k0, long long len,
                                            long long s, Tacc (&v)[N])
{
    if constexpr (xs_vector_type<Tin>() && (N * sizeof(Tin)) % 16 == 0) {
        if (s == 1 && k0 + N <= len && xs_aligned16(p + k0)) {
            xs_load_items<Tin, N, Tacc>(p + k0, v);
            return;
        }
    }
#pragma unroll
    for (int j = 0; j < N; ++j)
        v[j] = k0 + j < len ? (Tacc)p[(k0 + j) * s] : Op::template identity<Tacc>();
}

// Store out[j] = op(pre, v[j]) for the elements k0+j < len.
template <typename Tout, typename Tacc, int N, typename Op>
__device__ __forceinline__ void xs_store_row(Tout* __restrict__ q, long long k0, long long len,
                                             long long s, Tacc pre, const Tacc (&v)[N], Op op)
{
    if constexpr (xs_vector_type<Tout>() && (N * sizeof(Tout)) % 16 == 0) {
        if (s == 1 && k0 + N <= len && xs_aligned16(q + k0)) {
            Tout o[N];
#pragma unroll
            for (int j = 0; j < N; ++j) o[j] = (Tout)op(pre, v[j]);
            xs_store_items<Tout, N>(q + k0, o);
            return;
        }
    }
#pragma unroll
    for (int j = 0; j < N; ++j)
        if (k0 + j < len) q[(k0 + j) * s] = (Tout)op(pre, v[j]);
}

// One thread per row; neighbouring threads take neighbouring rows (the innermost row
// axis), so each step of the sequential scan reads and writes coalesced.
template <int OP, typename Tin, typename Tacc, typename Tout, int NK>
__global__ void xs_scan_columns(const Tin* __restrict__ x, Tout* __restrict__ out,
                                const xs_scan_desc<NK> d, long long nrows, long long len)
{
    typedef typename xs_scan_op<OP>::type Op;
    Op op;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x; row < nrows;
         row += stride) {
        const Tin* p = x + xs_offset<NK>(row, d.kshape, d.kstride, d.nk);
        Tout* q = out + xs_offset<NK>(row, d.kshape, d.kout, d.nk);
        if (d.init) q[0] = (Tout)Op::template identity<Tacc>();
        q += d.init * d.s_out;
        Tacc acc = Op::template identity<Tacc>();
#pragma unroll 4
        for (long long k = 0; k < len; ++k) {
            acc = op(acc, (Tacc)p[k * d.s_in]);
            q[k * d.s_out] = (Tout)acc;
        }
    }
}

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

// Single-pass scan with decoupled look-back (Merrill & Garland, NVR-2016-002): tiles
// of 256 threads x 16 elements taken in launch order (atomic tile counter), each
// publishing its aggregate (flag 1) and then its inclusive prefix (flag 2). Warp 0
// inspects 32*Q predecessors per round (Q flags per lane, loaded together).
//
// Determinism: every inclusive prefix is defined as P[i] = op(P[i-1], A[i]). The
// look-back finds the nearest predecessor j with P[j] published and folds the
// aggregates A[j+1..i-1] onto it ONE AT A TIME, in tile order (lane 0, from shared
// memory); each step reproduces P[j+1], P[j+2], ... exactly, so P[i-1] has the same
// bits whichever j the timing picked. (A tree over the window, as in CUB, would make
// float results depend on timing.)
#define XS_TILE_THREADS 256
#define XS_TILE_ITEMS 16

__device__ __forceinline__ int xs_ld_acquire(const int* p)
{
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void xs_st_release(int* p, int v)
{
    asm volatile("st.release.gpu.global.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

template <int OP, typename Tin, typename Tacc, typename Tout, int NK, int Q>
__global__ void __launch_bounds__(XS_TILE_THREADS, 3)
xs_scan_lookback(const Tin* __restrict__ x, Tout* __restrict__ out, const xs_scan_desc<NK> d,
                 long long len, long long tiles_per_row, unsigned long long* tile_counter,
                 int* flags, Tacc* aggs, Tacc* incls)
{
    typedef typename xs_scan_op<OP>::type Op;
    Op op;
    __shared__ long long s_tile;
    __shared__ Tacc s_prefix;
    __shared__ Tacc s_win[32 * Q + 1];   // s_win[k]: value of tile (window top + 1 - k)
    if (threadIdx.x == 0) s_tile = (long long)atomicAdd(tile_counter, 1ull);
    __syncthreads();
    const long long tile = s_tile;
    const long long row = tile / tiles_per_row;
    const long long t = tile - row * tiles_per_row;
    const long long row_first = tile - t;
    const Tin* p = x + xs_offset<NK>(row, d.kshape, d.kstride, d.nk);
    Tout* q = out + xs_offset<NK>(row, d.kshape, d.kout, d.nk);
    if (d.init && t == 0 && threadIdx.x == 0) q[0] = (Tout)Op::template identity<Tacc>();
    q += d.init * d.s_out;

    const long long k0 = t * (XS_TILE_THREADS * XS_TILE_ITEMS) + (long long)threadIdx.x * XS_TILE_ITEMS;
    Tacc v[XS_TILE_ITEMS];
    xs_load_row<Tin, Tacc, XS_TILE_ITEMS, Op>(p, k0, len, d.s_in, v);
#pragma unroll
    for (int j = 1; j < XS_TILE_ITEMS; ++j) v[j] = op(v[j - 1], v[j]);
    Tacc agg;
    const Tacc texcl = xstride_detail_block_scan(v[XS_TILE_ITEMS - 1], true, &agg, op);

    if (threadIdx.x < 32) {
        const unsigned lane = threadIdx.x;
        const volatile Tacc* vaggs = aggs;
        const volatile Tacc* vincls = incls;
        Tacc prefix = Op::template identity<Tacc>();
        if (t == 0) {
            if (lane == 0) {
                incls[tile] = agg;
                xs_st_release(flags + tile, 2);
            }
        } else {
            if (lane == 0) {
                aggs[tile] = agg;
                xs_st_release(flags + tile, 1);
            }
            long long top = tile - 1;          // newest tile of the current window
            while (true) {
                int f[Q];
#pragma unroll
                for (int u = 0; u < Q; ++u) {
                    const long long pj = top - (long long)(lane + 32 * u);
                    f[u] = pj >= row_first ? xs_ld_acquire(flags + pj) : 2;
                }
                while (true) {
                    bool waiting = false;
#pragma unroll
                    for (int u = 0; u < Q; ++u) waiting |= f[u] == 0;
                    if (!__any_sync(XSTRIDE_FULL_WARP_MASK, waiting)) break;
#pragma unroll
                    for (int u = 0; u < Q; ++u) {
                        const long long pj = top - (long long)(lane + 32 * u);
                        if (f[u] == 0) f[u] = xs_ld_acquire(flags + pj);
                    }
                }
                // distance (1-based, within the window) of the nearest published prefix
                int dp = 0;
#pragma unroll
                for (int u = Q - 1; u >= 0; --u) {
                    const unsigned pm = __ballot_sync(XSTRIDE_FULL_WARP_MASK, f[u] == 2);
                    if (pm) dp = 1 + (__ffs(pm) - 1) + 32 * u;
                }
#pragma unroll
                for (int u = 0; u < Q; ++u) {
                    const int k = 1 + (int)lane + 32 * u;
                    const long long pj = top + 1 - k;
                    if (dp != 0 && k <= dp)
                        s_win[k] = pj < row_first ? Op::template identity<Tacc>()
                                 : (f[u] == 2 ? (Tacc)vincls[pj] : (Tacc)vaggs[pj]);
                }
                __syncwarp();
                if (dp != 0) {
                    if (lane == 0) {
                        Tacc acc = s_win[dp];
                        for (int k = dp - 1; k >= 1; --k) acc = op(acc, s_win[k]);
                        prefix = acc;              // == P[top]
                    }
                    // fold the windows already passed (tiles top+1 .. tile-1), in order
                    if (top + 1 < tile) __threadfence();   // their flags were acquired by other lanes
                    for (long long b = top + 1; b < tile; b += 32 * Q) {
                        __syncwarp();
#pragma unroll
                        for (int u = 0; u < Q; ++u) {
                            const long long jj = b + (long long)(lane + 32 * u);
                            if (jj < tile) s_win[1 + lane + 32 * u] = (Tacc)vaggs[jj];
                        }
                        __syncwarp();
                        if (lane == 0) {
                            const int cnt = tile - b < 32 * Q ? (int)(tile - b) : 32 * Q;
                            for (int k = 1; k <= cnt; ++k) prefix = op(prefix, s_win[k]);
                        }
                    }
                    break;
                }
                __syncwarp();
                top -= 32 * Q;
            }
            if (lane == 0) {
                incls[tile] = op(prefix, agg);
                xs_st_release(flags + tile, 2);
            }
        }
        if (lane == 0) s_prefix = prefix;
    }
    __syncthreads();
    const Tacc pre = t == 0 && threadIdx.x == 0 ? Op::template identity<Tacc>()
                                                : op(s_prefix, texcl);
    xs_store_row<Tout, Tacc, XS_TILE_ITEMS>(q, k0, len, d.s_out, pre, v, op);
}

// ----------------------------------------------------------------------------------
// Look-back scan, version 2 (same results contract as xs_scan_lookback; the local
// association differs, so the two are not bit-identical to each other):
//  * tile = blockIdx.x: blocks are dispatched in index order (the assumption CUB's
//    single-pass scan makes), so a spinning block only waits on blocks that are
//    resident or finished, and the loads start without a tile-counter atomic;
//  * each warp loads its segment of 32 x ITEMS elements with coalesced (16-byte
//    vector, where aligned and full) loads, all issued before any is used, and
//    transposes it through shared memory (one pad word per 32 elements: no bank
//    conflicts) so that each lane holds ITEMS consecutive elements; the results go
//    back the same way and leave with coalesced stores;
//  * flags carry an epoch (flag = 4 * epoch + status), so the flag array is reused
//    from launch to launch without being cleared;
//  * the look-back folds the window in tile order exactly as xs_scan_lookback does
//    (P[i] = P[i-1] + A[i] whichever predecessor's prefix was found): deterministic.
// Each lane folds its elements into one running value that starts from its exclusive
// prefix (the first element of a row starts from itself, so -0.0 stays -0.0).
template <typename T, int V> struct xs_scan_vec { T t[V]; };

__device__ __forceinline__ unsigned xs_ld_acquire_u(const unsigned* p)
{
    unsigned v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void xs_st_release_u(unsigned* p, unsigned v)
{
    asm volatile("st.release.gpu.global.b32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

// Status of a tile in this launch: 0 nothing yet, 1 aggregate, 2 inclusive prefix.
__device__ __forceinline__ int xs_flag_status(const unsigned* p, unsigned epoch)
{
    const unsigned f = xs_ld_acquire_u(p);
    return (f >> 2) == epoch ? (int)(f & 3u) : 0;
}

// A warp's segment of 32 x ITEMS consecutive row elements (from seg0), loaded with
// coalesced accesses (16-byte vectors, all issued before any is used, when the segment
// is full, unit-stride and aligned) and transposed through the warp's padded shared
// slots `sw` (one pad word per 32 elements: no bank conflicts) so that lane l gets
// elements seg0 + l*ITEMS .. + ITEMS-1 in raw[] (0 past the row's end).
template <typename Tin, int ITEMS>
__device__ __forceinline__ void xs_warp_load_transposed(const Tin* __restrict__ p, long long seg0,
                                                        long long len, long long s_in, Tin* sw,
                                                        unsigned lane, Tin (&raw)[ITEMS])
{
    constexpr int SEG = 32 * ITEMS;
    bool done = false;
    if constexpr (xs_vector_type<Tin>() && (ITEMS * sizeof(Tin)) % 16 == 0) {
        if (s_in == 1 && seg0 + SEG <= len && xs_aligned16(p + seg0)) {
            constexpr int VI = 16 / sizeof(Tin);
            constexpr int NB = ITEMS / VI;
            union U { uint4 u; Tin t[VI]; };
            U w[NB];
            const uint4* src = reinterpret_cast<const uint4*>(p + seg0);
#pragma unroll
            for (int b = 0; b < NB; ++b) w[b].u = __ldg(src + b * 32 + lane);
#pragma unroll
            for (int b = 0; b < NB; ++b)
#pragma unroll
                for (int j = 0; j < VI; ++j) {
                    const int e = (b * 32 + (int)lane) * VI + j;
                    sw[e + e / 32] = w[b].t[j];
                }
            done = true;
        }
    }
    if (!done) {
        Tin w[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const long long k = seg0 + j * 32 + lane;
            w[j] = k < len ? p[k * s_in] : Tin(0);
        }
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const int e = j * 32 + (int)lane;
            sw[e + e / 32] = w[j];
        }
    }
    __syncwarp();
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const int e = (int)lane * ITEMS + j;
        raw[j] = sw[e + e / 32];
    }
}

// The reverse of xs_warp_load_transposed: lane l has written its ITEMS results to the
// padded slots `so` (then __syncwarp); they leave with coalesced stores (16-byte
// vectors when full, unit-stride and aligned), nothing past the row's end.
template <typename Tout, int ITEMS>
__device__ __forceinline__ void xs_warp_store_transposed(Tout* __restrict__ q, long long seg0,
                                                         long long len, long long s_out,
                                                         const Tout* so, unsigned lane)
{
    constexpr int SEG = 32 * ITEMS;
    if constexpr (xs_vector_type<Tout>() && (ITEMS * sizeof(Tout)) % 16 == 0) {
        if (s_out == 1 && seg0 + SEG <= len && xs_aligned16(q + seg0)) {
            constexpr int VO = 16 / sizeof(Tout);
            constexpr int NB = ITEMS / VO;
            uint4* dst = reinterpret_cast<uint4*>(q + seg0);
#pragma unroll
            for (int b = 0; b < NB; ++b) {
                union { uint4 u; Tout t[VO]; } w;
#pragma unroll
                for (int j = 0; j < VO; ++j) {
                    const int e = (b * 32 + (int)lane) * VO + j;
                    w.t[j] = so[e + e / 32];
                }
                dst[b * 32 + lane] = w.u;
            }
            return;
        }
    }
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const int e = j * 32 + (int)lane;
        const long long k = seg0 + e;
        if (k < len) q[k * s_out] = so[e + e / 32];
    }
}

template <int OP, typename Tin, typename Tacc, typename Tout, int NK, int ITEMS, int Q, int MINB>
__global__ void __launch_bounds__(XS_TILE_THREADS, MINB)
xs_scan_lookback2(const Tin* __restrict__ x, Tout* __restrict__ out, const xs_scan_desc<NK> d,
                  long long len, long long tiles_per_row, unsigned* flags, Tacc* aggs,
                  Tacc* incls, unsigned epoch)
{
    typedef typename xs_scan_op<OP>::type Op;
    Op op;
    constexpr int SEG = 32 * ITEMS;                 // elements per warp
    constexpr int PAD = SEG + SEG / 32;             // shared slots per warp
    constexpr int ES = sizeof(Tin) > sizeof(Tout) ? (int)sizeof(Tin) : (int)sizeof(Tout);
    __shared__ __align__(16) unsigned char s_raw[(XS_TILE_THREADS / 32) * PAD * ES];
    __shared__ Tacc s_prefix;
    __shared__ Tacc s_win[32 * Q + 1];

    const long long tile = blockIdx.x;
    const long long row = tile / tiles_per_row;
    const long long t = tile - row * tiles_per_row;
    const long long row_first = tile - t;
    const Tin* p = x + xs_offset<NK>(row, d.kshape, d.kstride, d.nk);
    Tout* q = out + xs_offset<NK>(row, d.kshape, d.kout, d.nk);
    if (d.init && t == 0 && threadIdx.x == 0) q[0] = (Tout)Op::template identity<Tacc>();
    q += d.init * d.s_out;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const long long seg0 = t * (long long)(XS_TILE_THREADS * ITEMS) + (long long)warp * SEG;

    // ---- load the warp's segment, transpose through shared memory
    Tin* sw = reinterpret_cast<Tin*>(s_raw) + warp * PAD;
    Tin raw[ITEMS];
    xs_warp_load_transposed<Tin, ITEMS>(p, seg0, len, d.s_in, sw, lane, raw);
    const long long kt = seg0 + (long long)lane * ITEMS;   // row position of raw[0]
    Tacc tot = Op::template identity<Tacc>();
    if (kt + ITEMS <= len) {
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) tot = op(tot, (Tacc)raw[j]);
    } else {
#pragma unroll
        for (int j = 0; j < ITEMS; ++j)
            if (kt + j < len) tot = op(tot, (Tacc)raw[j]);
    }
    Tacc agg;
    const Tacc texcl = xstride_detail_block_scan(tot, true, &agg, op);

    // ---- decoupled look-back (warp 0), deterministic in-order fold
    if (threadIdx.x < 32) {
        const volatile Tacc* vaggs = aggs;
        const volatile Tacc* vincls = incls;
        Tacc prefix = Op::template identity<Tacc>();
        const unsigned e4 = epoch << 2;
        if (t == 0) {
            if (lane == 0) {
                incls[tile] = agg;
                xs_st_release_u(flags + tile, e4 | 2u);
            }
        } else {
            if (lane == 0) {
                aggs[tile] = agg;
                xs_st_release_u(flags + tile, e4 | 1u);
            }
            long long top = tile - 1;
            while (true) {
                int f[Q];
#pragma unroll
                for (int u = 0; u < Q; ++u) {
                    const long long pj = top - (long long)(lane + 32 * u);
                    f[u] = pj >= row_first ? xs_flag_status(flags + pj, epoch) : 2;
                }
                while (true) {
                    bool waiting = false;
#pragma unroll
                    for (int u = 0; u < Q; ++u) waiting |= f[u] == 0;
                    if (!__any_sync(XSTRIDE_FULL_WARP_MASK, waiting)) break;
#pragma unroll
                    for (int u = 0; u < Q; ++u) {
                        const long long pj = top - (long long)(lane + 32 * u);
                        if (f[u] == 0) f[u] = xs_flag_status(flags + pj, epoch);
                    }
                }
                int dp = 0;
#pragma unroll
                for (int u = Q - 1; u >= 0; --u) {
                    const unsigned pm = __ballot_sync(XSTRIDE_FULL_WARP_MASK, f[u] == 2);
                    if (pm) dp = 1 + (__ffs(pm) - 1) + 32 * u;
                }
#pragma unroll
                for (int u = 0; u < Q; ++u) {
                    const int k = 1 + (int)lane + 32 * u;
                    const long long pj = top + 1 - k;
                    if (dp != 0 && k <= dp)
                        s_win[k] = pj < row_first ? Op::template identity<Tacc>()
                                 : (f[u] == 2 ? (Tacc)vincls[pj] : (Tacc)vaggs[pj]);
                }
                __syncwarp();
                if (dp != 0) {
                    if (lane == 0) {
                        Tacc acc = s_win[dp];
                        for (int k = dp - 1; k >= 1; --k) acc = op(acc, s_win[k]);
                        prefix = acc;              // == P[top]
                    }
                    if (top + 1 < tile) __threadfence();
                    for (long long b = top + 1; b < tile; b += 32 * Q) {
                        __syncwarp();
#pragma unroll
                        for (int u = 0; u < Q; ++u) {
                            const long long jj = b + (long long)(lane + 32 * u);
                            if (jj < tile) s_win[1 + lane + 32 * u] = (Tacc)vaggs[jj];
                        }
                        __syncwarp();
                        if (lane == 0) {
                            const int cnt = tile - b < 32 * Q ? (int)(tile - b) : 32 * Q;
                            for (int k = 1; k <= cnt; ++k) prefix = op(prefix, s_win[k]);
                        }
                    }
                    break;
                }
                __syncwarp();
                top -= 32 * Q;
            }
            if (lane == 0) {
                incls[tile] = op(prefix, agg);
                xs_st_release_u(flags + tile, e4 | 2u);
            }
        }
        if (lane == 0) s_prefix = prefix;
    }
    __syncthreads();

    // ---- results: running value from the lane's exclusive prefix
    const bool first = t == 0 && threadIdx.x == 0;
    Tacc run = first ? Op::template identity<Tacc>() : op(s_prefix, texcl);
    Tout* so = reinterpret_cast<Tout*>(s_raw) + warp * PAD;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        run = (first && j == 0) ? (Tacc)raw[0] : op(run, (Tacc)raw[j]);
        const int e = (int)lane * ITEMS + j;
        so[e + e / 32] = (Tout)run;
    }
    __syncwarp();
    xs_warp_store_transposed<Tout, ITEMS>(q, seg0, len, d.s_out, so, lane);
}

// ----------------------------------------------------------------------------------
// Look-back scan, version 3: v2's tiles and I/O, with a look-back that costs one round
// trip to L2 and a fold of at most G + GW values, and stays deterministic.
//
// Tiles are grouped by G (G consecutive tiles of a row; the last group of a row may be
// shorter). With A[i] the aggregate of tile i, the values are DEFINED as
//   S_g(r)  = Kogge-Stone warp inclusive scan of A over the tiles of group g (lane r =
//             position in the group); lane r's value combines lanes <= r only, through
//             a fixed tree, so every tile that computes S_g(r) gets the same bits;
//   GA[g]   = S_g(last position of group g)                  (group aggregate)
//   GP[g]   = op(GP[g-1], GA[g]),  GP[-1] = identity          (group inclusive prefix)
//   prefix of tile (g, r) = GP[g-1] (r = 0),  op(GP[g-1], S_g(r-1)) (r > 0).
// Each tile publishes A[i] (status 1) for the later tiles of its group; the last tile of
// a group publishes GA[g] (status 1), then GP[g] (status 2) once it knows GP[g-1]. A
// tile reads its group's earlier aggregates (lane = position) and, in the same round
// trip, the descriptors of the GW groups before its own (lane l: group g-1-l). GP[g-1]
// is formed from the nearest published GP[k] by folding GA[k+1], ..., GA[g-1] one at a
// time in group order (lane 0, from shared memory): each step reproduces GP[k+1], ...
// exactly, so the value does not depend on which k the timing found. Passed windows
// (no GP among GW groups, rare) are re-read oldest first, restarting from any GP found.
//
// Descriptors are 16 bytes: two 64-bit words (tag << 32 | one half of the value's bits)
// written by one st.relaxed.v2.b64 and read by one ld.relaxed.v2.b64. PTX guarantees
// single-copy atomicity per 64-bit element only, so a reader accepts a descriptor when
// both tags agree and carry the launch's epoch (tag = 4 * epoch + status): a torn read
// shows two different tags and is read again. Value and status travel together, so
// there is no flag-then-value second round trip and no fence.
__device__ __forceinline__ void xs_desc_store(ulonglong2* p, unsigned tag, unsigned long long bits)
{
    const unsigned long long hi = (unsigned long long)tag << 32;
    const unsigned long long w0 = hi | (bits & 0xffffffffull), w1 = hi | (bits >> 32);
    asm volatile("st.relaxed.gpu.global.v2.b64 [%0], {%1, %2};" :: "l"(p), "l"(w0), "l"(w1)
                 : "memory");
}

// Status (0 absent / torn / older launch, 1 aggregate, 2 prefix); `bits` gets the value.
__device__ __forceinline__ int xs_desc_load(const ulonglong2* p, unsigned epoch,
                                            unsigned long long& bits)
{
    unsigned long long w0, w1;
    asm volatile("ld.relaxed.gpu.global.v2.b64 {%0, %1}, [%2];" : "=l"(w0), "=l"(w1) : "l"(p)
                 : "memory");
    const unsigned t0 = (unsigned)(w0 >> 32), t1 = (unsigned)(w1 >> 32);
    bits = (w0 & 0xffffffffull) | (w1 << 32);
    return (t0 == t1 && (t0 >> 2) == epoch) ? (int)(t0 & 3u) : 0;
}

template <typename T>
__device__ __forceinline__ unsigned long long xs_to_bits(T v)
{
    union { T t; unsigned long long u; } c;
    c.t = v;
    return c.u;
}

template <typename T>
__device__ __forceinline__ T xs_from_bits(unsigned long long u)
{
    union { T t; unsigned long long u; } c;
    c.u = u;
    return c.t;
}

template <int OP, typename Tin, typename Tacc, typename Tout, int NK, int ITEMS, int MINB, int G,
          int GW>
__global__ void __launch_bounds__(XS_TILE_THREADS, MINB)
xs_scan_lookback3(const Tin* __restrict__ x, Tout* __restrict__ out, const xs_scan_desc<NK> d,
                  long long len, long long tiles_per_row, long long groups_per_row,
                  ulonglong2* tdesc, ulonglong2* gdesc, unsigned epoch)
{
    static_assert(sizeof(Tacc) == 8, "look-back v3 packs 8-byte accumulators");
    static_assert(G >= 1 && G <= 32 && GW >= 1 && GW <= 32, "G and GW must be in 1..32");
    typedef typename xs_scan_op<OP>::type Op;
    Op op;
    constexpr int SEG = 32 * ITEMS;
    constexpr int PAD = SEG + SEG / 32;
    constexpr int ES = sizeof(Tin) > sizeof(Tout) ? (int)sizeof(Tin) : (int)sizeof(Tout);
    __shared__ __align__(16) unsigned char s_raw[(XS_TILE_THREADS / 32) * PAD * ES];
    __shared__ Tacc s_prefix;
    __shared__ Tacc s_win[32];

    const long long tile = blockIdx.x;
    const long long row = tile / tiles_per_row;
    const long long t = tile - row * tiles_per_row;
    const Tin* p = x + xs_offset<NK>(row, d.kshape, d.kstride, d.nk);
    Tout* q = out + xs_offset<NK>(row, d.kshape, d.kout, d.nk);
    if (d.init && t == 0 && threadIdx.x == 0) q[0] = (Tout)Op::template identity<Tacc>();
    q += d.init * d.s_out;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const long long seg0 = t * (long long)(XS_TILE_THREADS * ITEMS) + (long long)warp * SEG;

    Tin* sw = reinterpret_cast<Tin*>(s_raw) + warp * PAD;
    Tin raw[ITEMS];
    xs_warp_load_transposed<Tin, ITEMS>(p, seg0, len, d.s_in, sw, lane, raw);
    const long long kt = seg0 + (long long)lane * ITEMS;
    Tacc tot = Op::template identity<Tacc>();
    if (kt + ITEMS <= len) {
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) tot = op(tot, (Tacc)raw[j]);
    } else {
#pragma unroll
        for (int j = 0; j < ITEMS; ++j)
            if (kt + j < len) tot = op(tot, (Tacc)raw[j]);
    }
    Tacc agg;
    const Tacc texcl = xstride_detail_block_scan(tot, true, &agg, op);

    if (threadIdx.x < 32) {
        const Tacc ident = Op::template identity<Tacc>();
        const long long g = t / G;
        const int r = (int)(t - g * G);
        const long long rest = tiles_per_row - g * G;
        const int last = (rest < G ? (int)rest : G) - 1;
        ulonglong2* grow = gdesc + row * groups_per_row;   // this row's group descriptors
        const unsigned e4 = epoch << 2;
        if (lane == 0 && r < last) xs_desc_store(tdesc + tile, e4 | 1u, xs_to_bits(agg));

        // issue both look-ups before waiting on either
        unsigned long long ab = 0ull;
        int ast = 1;
        if ((int)lane < r) ast = xs_desc_load(tdesc + (tile - r + lane), epoch, ab);
        long long top = g - 1;                              // newest group of the window
        unsigned long long gb = 0ull;
        int gst = 1;                                        // lanes >= GW: never a prefix
        auto poll_group = [&](long long gi) {
            if ((int)lane < GW) {
                if (gi < 0) { gst = 2; gb = xs_to_bits(ident); }
                else gst = xs_desc_load(grow + gi, epoch, gb);
            } else {
                gst = 1;
            }
        };
        if (g > 0) poll_group(top - (long long)lane);

        // ---- the group's earlier aggregates -> S_g
        while (__any_sync(XSTRIDE_FULL_WARP_MASK, ast == 0))
            if (ast == 0) ast = xs_desc_load(tdesc + (tile - r + lane), epoch, ab);
        const Tacc a = (int)lane < r ? xs_from_bits<Tacc>(ab) : ((int)lane == r ? agg : ident);
        const Tacc sg = xstride_detail_warp_scan_first(a, 32u, op);
        const Tacc sin = __shfl_sync(XSTRIDE_FULL_WARP_MASK, sg, r > 0 ? r - 1 : 0);   // S_g(r-1)
        const Tacc sgr = __shfl_sync(XSTRIDE_FULL_WARP_MASK, sg, r);                   // S_g(r)
        if (lane == 0 && r == last) {
            if (g == 0) xs_desc_store(grow, e4 | 2u, xs_to_bits(op(ident, sgr)));
            else xs_desc_store(grow + g, e4 | 1u, xs_to_bits(sgr));
        }

        // ---- GP[g-1]: nearest published group prefix + in-order fold of the aggregates
        Tacc gprev = ident;
        if (g > 0) {
            while (true) {
                unsigned pm, zm;
                while (true) {
                    pm = __ballot_sync(XSTRIDE_FULL_WARP_MASK, gst == 2);
                    zm = __ballot_sync(XSTRIDE_FULL_WARP_MASK, gst == 0);
                    const unsigned need = pm ? ((pm & (0u - pm)) - 1u) : 0xffffffffu;
                    if ((zm & need) == 0u) break;
                    if (gst == 0) poll_group(top - (long long)lane);
                }
                if (pm) {
                    const int h = __ffs(pm) - 1;             // GP[top - h] published
                    s_win[lane] = xs_from_bits<Tacc>(gb);
                    __syncwarp();
                    if (lane == 0) {
                        Tacc acc = s_win[h];
                        for (int k = h - 1; k >= 0; --k) acc = op(acc, s_win[k]);
                        gprev = acc;                          // == GP[top]
                    }
                    // windows passed over (groups top+1 .. g-1), oldest first
                    for (long long b = top + 1; b < g; b += GW) {
                        const long long gj = b + (long long)lane;
                        const bool in = (int)lane < GW && gj < g;
                        int st = 1;
                        unsigned long long vb = 0ull;
                        if (in) st = xs_desc_load(grow + gj, epoch, vb);
                        while (__any_sync(XSTRIDE_FULL_WARP_MASK, st == 0))
                            if (st == 0) st = xs_desc_load(grow + gj, epoch, vb);
                        const unsigned qm = __ballot_sync(XSTRIDE_FULL_WARP_MASK, in && st == 2);
                        __syncwarp();
                        s_win[lane] = xs_from_bits<Tacc>(vb);
                        __syncwarp();
                        if (lane == 0) {
                            const int cnt = g - b < GW ? (int)(g - b) : GW;
                            int k0 = 0;
                            if (qm) { k0 = 32 - __clz(qm); gprev = s_win[k0 - 1]; }
                            for (int k = k0; k < cnt; ++k) gprev = op(gprev, s_win[k]);
                        }
                    }
                    break;
                }
                top -= GW;
                poll_group(top - (long long)lane);
            }
            if (lane == 0 && r == last) xs_desc_store(grow + g, e4 | 2u, xs_to_bits(op(gprev, sgr)));
        }
        if (lane == 0) s_prefix = g == 0 ? (r == 0 ? ident : sin) : (r == 0 ? gprev : op(gprev, sin));
    }
    __syncthreads();

    const bool first = t == 0 && threadIdx.x == 0;
    Tacc run = first ? Op::template identity<Tacc>() : op(s_prefix, texcl);
    Tout* so = reinterpret_cast<Tout*>(s_raw) + warp * PAD;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        run = (first && j == 0) ? (Tacc)raw[0] : op(run, (Tacc)raw[j]);
        const int e = (int)lane * ITEMS + j;
        so[e + e / 32] = (Tout)run;
    }
    __syncwarp();
    xs_warp_store_transposed<Tout, ITEMS>(q, seg0, len, d.s_out, so, lane);
}
