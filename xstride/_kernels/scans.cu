// Scan kernels of the xstride namespace (cumulative_sum, cumulative_prod). Launched by
// xstride/_kernels/scans.py from a plan of xstride/_plans/scan.py. Compiled by
// NVRTC: no standard headers.
//
// Template parameters: OP (0 sum, 1 prod), Tin, Tacc (accumulator), Tout, NK (capacity
// of the row-axis arrays of the descriptor). Rows are scanned independently; the
// output position of element k of a row is k + init (include_initial), and position 0
// then holds the identity. Index arithmetic is 64-bit. Every combination order is fixed
// by the data layout alone: results are deterministic run to run.
#include <xstride/scan.cuh>
#include <xstride/detail/namespace_kernels.cuh>
#include <xstride/detail/scan_desc.cuh>
#include <xstride/detail/scan_row_io.cuh>

// One thread per row; neighbouring threads take neighbouring rows (the innermost row
// axis), so each step of the sequential scan reads and writes coalesced.
// V > 1 (the host's choice, when the rows are adjacent in input and output: one row
// axis of stride 1 in both, nrows, s_in and s_out multiples of V, V * sizeof(Tin) = 16
// bytes): a thread takes V adjacent rows and moves each step's V elements as one 16-byte
// access, the rows still folded one element at a time in order (the bits of V = 1). An
// input that is not 16-byte aligned takes the V = 1 walk.
template <int OP, typename Tin, typename Tacc, typename Tout, int NK, int V>
__global__ void xs_scan_columns(const Tin* __restrict__ x, Tout* __restrict__ out,
                                const xs_scan_desc<NK> d, long long nrows, long long len)
{
    typedef typename xs_scan_op<OP>::type Op;
    Op op;
    const long long stride = (long long)gridDim.x * blockDim.x;
    const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if constexpr (V > 1) {
        static_assert(V * sizeof(Tin) == 16 && sizeof(Tin) == sizeof(Tout), "16-byte rows of V");
        if (xs_aligned16(x) && xs_aligned16(out)) {
            const Tacc ident = Op::template identity<Tacc>();
            for (long long r = first; r < nrows / V; r += stride) {
                const Tin* p = x + r * V;
                Tout* q = out + r * V;
                Tout o[V];
                if (d.init) {
#pragma unroll
                    for (int u = 0; u < V; ++u) o[u] = (Tout)ident;
                    xs_store_items<Tout, V>(q, o);
                }
                q += d.init * d.s_out;
                Tacc acc[V];
#pragma unroll
                for (int u = 0; u < V; ++u) acc[u] = ident;
#pragma unroll 4
                for (long long k = 0; k < len; ++k) {
                    Tacc v[V];
                    xs_load_items<Tin, V, Tacc>(p + k * d.s_in, v);
#pragma unroll
                    for (int u = 0; u < V; ++u) {
                        acc[u] = op(acc[u], v[u]);
                        o[u] = (Tout)acc[u];
                    }
                    xs_store_items<Tout, V>(q + k * d.s_out, o);
                }
            }
            return;
        }
    }
    for (long long row = first; row < nrows; row += stride) {
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

// ----------------------------------------------------------------------------------
// Single-pass scan with decoupled look-back (Merrill & Garland, NVR-2016-002), made
// deterministic (the third version; the first two, with one flag per tile, were
// slower and are gone). Tiles of THREADS threads x ITEMS are taken by block index:
// blocks are dispatched in index order (the assumption CUB's single-pass scan
// makes), so a spinning block only waits on blocks that are resident or finished.
// The look-back costs one round trip to L2 and a fold of at most G + GW + D values.
// The tile's input waits in shared memory (padded 16-byte chunks, see xs_seg_load),
// not in registers, so 4 blocks fit on an SM. Each lane folds its elements into one
// running value that starts from its exclusive prefix (the first element of a row
// starts from itself: -0.0 stays -0.0).
//
// Determinism: a tree over a window of predecessors, as in CUB, would make float
// results depend on which predecessors the timing found published. Here every value
// is DEFINED by the data layout alone, and any route to it reproduces the same bits:
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
// Direct groups (D >= 1): every tile publishes A[i], and a tile also reads the A of
// the tiles of the D groups before its own and forms their GA itself with the same
// warp scan (the same bits as the GA their last tile publishes); the descriptors
// then serve only groups g-1-D and older. This saves the round trip in which a
// group's last tile turns its group's aggregates into GA: the newest groups are the
// ones whose GA is least likely to be out yet.
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

// Warp segments in shared memory (xs_chunk_at, xs_seg_load/read/store, ...).
#include <xstride/detail/scan_segments.cuh>

// The exclusive prefix of one tile by the grouped look-back (described above).
// Called by warp 0 of the tile's block (all 32 lanes); the value is meaningful in lane 0.
// `agg` is the tile's aggregate, `s_win` 32 shared slots owned by the warp.
// Not inlined: its registers are then allocated apart from the kernel's element loops
// (which stay free of spills), and only warp 0 pays for the call. Measured on the H200:
// 0.78 -> 0.80 of a copy for the flat float32 scan (docs/reductions.md).
template <typename Op, typename Tacc, int G, int GW, int D>
__device__ __noinline__ Tacc xs_lookback_prefix(
    Op op, long long tile, long long row, long long t, long long tiles_per_row,
    long long groups_per_row, Tacc agg, ulonglong2* tdesc, ulonglong2* gdesc, unsigned epoch,
    Tacc* s_win)
{
    static_assert(D >= 0 && D <= 4, "D in 0..4");
    const unsigned lane = threadIdx.x & 31u;
    const Tacc ident = Op::template identity<Tacc>();
    const long long g = t / G;
    const int r = (int)(t - g * G);
    const long long rest = tiles_per_row - g * G;
    const int last = (rest < G ? (int)rest : G) - 1;
    ulonglong2* grow = gdesc + row * groups_per_row;   // this row's group descriptors
    const unsigned e4 = epoch << 2;
    // every tile's aggregate: read by the later tiles of its group, and by the tiles of
    // the D groups after it, which rebuild GA of this group themselves
    if (lane == 0 && (D > 0 || r < last)) xs_desc_store(tdesc + tile, e4 | 1u, xs_to_bits(agg));

    // issue all look-ups before waiting on any: the group's earlier aggregates (lane =
    // position), the aggregates of the D groups before it (lane = position; their GA is
    // formed here with the same warp scan as their last tile uses, so the same bits,
    // one round trip sooner), and the descriptors of the GW groups before those
    unsigned long long ab = 0ull;
    int ast = 1;
    if ((int)lane < r) ast = xs_desc_load(tdesc + (tile - r + lane), epoch, ab);
    unsigned long long db[D > 0 ? D : 1];
    int dst[D > 0 ? D : 1];
#pragma unroll
    for (int d = 0; d < D; ++d) {
        db[d] = 0ull;
        dst[d] = 1;
        if (g - 1 - d >= 0 && (int)lane < G)
            dst[d] = xs_desc_load(tdesc + (tile - r - (long long)(d + 1) * G + lane), epoch, db[d]);
    }
    const long long gd = g - D;                         // groups [0, gd) via descriptors
    long long top = gd - 1;                             // newest group of the window
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
    if (gd > 0) poll_group(top - (long long)lane);

    // ---- the group's earlier aggregates -> S_g; the direct groups' aggregates
    auto waiting = [&]() {
        bool w = ast == 0;
#pragma unroll
        for (int d = 0; d < D; ++d) w = w || dst[d] == 0;
        return w;
    };
    while (__any_sync(XSTRIDE_FULL_WARP_MASK, waiting())) {
        if (ast == 0) ast = xs_desc_load(tdesc + (tile - r + lane), epoch, ab);
#pragma unroll
        for (int d = 0; d < D; ++d)
            if (dst[d] == 0)
                dst[d] = xs_desc_load(tdesc + (tile - r - (long long)(d + 1) * G + lane), epoch, db[d]);
    }
    const Tacc a = (int)lane < r ? xs_from_bits<Tacc>(ab) : ((int)lane == r ? agg : ident);
    const Tacc sg = xstride_detail_warp_scan_first(a, 32u, op);
    const Tacc sin = __shfl_sync(XSTRIDE_FULL_WARP_MASK, sg, r > 0 ? r - 1 : 0);   // S_g(r-1)
    const Tacc sgr = __shfl_sync(XSTRIDE_FULL_WARP_MASK, sg, r);                   // S_g(r)
    if (lane == 0 && r == last) {
        if (g == 0) xs_desc_store(grow, e4 | 2u, xs_to_bits(op(ident, sgr)));
        else xs_desc_store(grow + g, e4 | 1u, xs_to_bits(sgr));
    }
    Tacc ga[D > 0 ? D : 1];                              // ga[d] = GA[g - 1 - d]
#pragma unroll
    for (int d = 0; d < D; ++d) {
        const Tacc v = (int)lane < G ? xs_from_bits<Tacc>(db[d]) : ident;
        ga[d] = __shfl_sync(XSTRIDE_FULL_WARP_MASK, xstride_detail_warp_scan_first(v, 32u, op),
                            G - 1);
    }

    // ---- GP[g-1]: nearest published group prefix + in-order fold of the aggregates
    Tacc gprev = ident;
    if (g > 0) {
        while (gd > 0) {
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
                // windows passed over (groups top+1 .. gd-1), oldest first
                for (long long b = top + 1; b < gd; b += GW) {
                    const long long gj = b + (long long)lane;
                    const bool in = (int)lane < GW && gj < gd;
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
                        const int cnt = gd - b < GW ? (int)(gd - b) : GW;
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
        // then the direct groups, oldest first: GP[g-1]
        if (lane == 0) {
#pragma unroll
            for (int d = D - 1; d >= 0; --d)
                if (g - 1 - d >= 0) gprev = op(gprev, ga[d]);
        }
        if (lane == 0 && r == last) xs_desc_store(grow + g, e4 | 2u, xs_to_bits(op(gprev, sgr)));
    }
    return g == 0 ? (r == 0 ? ident : sin) : (r == 0 ? gprev : op(gprev, sin));
}

template <typename A, typename B> struct xs_same { static constexpr bool value = false; };
template <typename A> struct xs_same<A, A> { static constexpr bool value = true; };

// Float32 runs (R = 1; float32 sums only): a thread sums its ITEMS elements in
// float32, in order, and forms each output as phi + (plo + run) from the float64 prefix
// P of its run split into two floats (phi = (float)P, plo = (float)(P - phi)): no
// float32 <-> float64 conversion per element, which the SM issues at an eighth of the
// float32 add rate. The run's total that enters the block scan is compensated, so
// nearly exact: the block scan, the look-back and every prefix stay in float64, and a
// run's float32 rounding reaches its own outputs only (see docs/reductions.md). The
// first thread of a row starts from phi = plo = -0.0f, which keeps a leading -0.0.
// R = 2: the same compensated float32 totals (no conversion before the aggregate is
// published), outputs from a float64 running value as with R = 0 (two conversions
// per element, after the look-back): the accuracy of R = 0 at part of R = 1's speed.
template <int OP, typename Tin, typename Tacc, typename Tout, int NK, int ITEMS, int MINB, int G,
          int GW, int D, int R, int THREADS>
__global__ void __launch_bounds__(THREADS, MINB)
xs_scan_lookback(const Tin* __restrict__ x, Tout* __restrict__ out, const xs_scan_desc<NK> d,
                  long long len, long long tiles_per_row, long long groups_per_row,
                  ulonglong2* tdesc, ulonglong2* gdesc, unsigned epoch)
{
    static_assert(sizeof(Tacc) == 8, "the look-back packs 8-byte accumulators");
    static_assert(THREADS % 32 == 0 && THREADS >= 64 && THREADS <= 1024, "whole warps, at least two");
    static_assert(G >= 1 && G <= 32 && GW >= 1 && GW <= 32, "G and GW must be in 1..32");
    typedef typename xs_scan_op<OP>::type Op;
    Op op;
    static_assert((ITEMS * sizeof(Tin)) % 16 == 0 && (ITEMS * sizeof(Tout)) % 16 == 0,
                  "a lane's elements fill whole 16-byte chunks");
    constexpr int SEG = 32 * ITEMS;
    constexpr int WSB = xs_seg_bytes<Tin, ITEMS>() > xs_seg_bytes<Tout, ITEMS>()
                            ? xs_seg_bytes<Tin, ITEMS>() : xs_seg_bytes<Tout, ITEMS>();
    // A lane works through its elements in parts of P (64 bytes), so at most P inputs
    // sit in registers. Outputs overwrite the chunks in place, part by part, which is
    // safe only when they have the input's size; otherwise one part (ITEMS * size <=
    // 128, see _lookback_items in scans.py). The parts change no result: each lane
    // folds its elements in the same order whatever P is.
    constexpr bool SAME = sizeof(Tin) == sizeof(Tout);
    constexpr int P = SAME && ITEMS * (int)sizeof(Tin) > 64 ? 64 / (int)sizeof(Tin) : ITEMS;
    static_assert(ITEMS % P == 0 && (P * sizeof(Tin)) % 16 == 0, "whole parts of chunks");
    extern __shared__ __align__(16) unsigned char s_raw[];   // THREADS / 32 * WSB bytes (host)
    __shared__ Tacc s_prefix;
    __shared__ Tacc s_win[32];

    const long long tile = blockIdx.x;
    const long long row = tile / tiles_per_row;
    const long long t = tile - row * tiles_per_row;
    const Tin* p = x + xs_offset<NK>(row, d.kshape, d.kstride, d.nk);
    Tout* q = out + xs_offset<NK>(row, d.kshape, d.kout, d.nk);
    __shared__ const Tin* s_row;   // p, for the rare float64 redo of a float32 run
    if (R == 1 && threadIdx.x == 0) s_row = p;
    if (d.init && t == 0 && threadIdx.x == 0) q[0] = (Tout)Op::template identity<Tacc>();
    q += d.init * d.s_out;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const long long seg0 = t * (long long)(THREADS * ITEMS) + (long long)warp * SEG;

    // The input stays in shared memory through the look-back (it is read twice), so no
    // register holds it while the block waits: more blocks fit on an SM.
    unsigned char* sw = s_raw + warp * WSB;
    xs_seg_load<Tin, ITEMS>(p, seg0, len, d.s_in, sw, lane);
    constexpr bool F32T = R >= 1 && OP == 0 && xs_same<Tin, float>::value
                          && xs_same<Tout, float>::value;   // float32 run totals
    constexpr bool F32 = F32T && R == 1;                      // and float32 outputs
    const long long kt = seg0 + (long long)lane * ITEMS;
    Tacc tot = Op::template identity<Tacc>();
    // F32T: the run's total, with its rounding errors carried in flo (TwoSum, Knuth,
    // TAOCP vol. 2; Ogita, Rump & Oishi 2005, "Sum2"), so that it is nearly exact
    float ftot = 0.0f, flo = 0.0f;   // element 0 past len reads as 0 (xs_seg_load)
#pragma unroll
    for (int part = 0; part < ITEMS / P; ++part) {
        Tin raw[P];
        xs_seg_read<Tin, ITEMS, P>(sw, lane, part, raw);
        const long long k0 = kt + part * P;
        if (F32T) {
#pragma unroll
            for (int j = 0; j < P; ++j) {
                const float v = (float)raw[j];
                if (part == 0 && j == 0) {
                    ftot = v;
                } else if (k0 + P <= len || k0 + j < len) {
                    const float sum = ftot + v, bv = sum - ftot;
                    flo += (ftot - (sum - bv)) + (v - bv);
                    ftot = sum;
                }
            }
        } else if (k0 + P <= len) {
#pragma unroll
            for (int j = 0; j < P; ++j) tot = op(tot, (Tacc)raw[j]);
        } else {
#pragma unroll
            for (int j = 0; j < P; ++j)
                if (k0 + j < len) tot = op(tot, (Tacc)raw[j]);
        }
    }
    // A run that did not stay finite (an inf or NaN among its elements, or a partial
    // sum past float32's range while the true values may be in it, or a TwoSum step
    // whose own difference overflowed, next to +-FLT_MAX) is summed again in
    // float64, as with R = 0 (rare; one element at a time from global memory, not
    // unrolled, which measured cheapest for the common path); its outputs are redone in
    // float64 after the common loop below.
    if (F32T) {
        tot = (Tacc)ftot + (Tacc)flo;   // flo is NaN when a TwoSum step overflowed inside
        if (!(tot - tot == (Tacc)0)) {
            tot = Op::template identity<Tacc>();
#pragma unroll 1
            for (int e = 0; e < ITEMS; ++e)
                if (kt + e < len) tot = op(tot, (Tacc)p[(kt + e) * d.s_in]);
        }
    }
    Tacc agg;
    const Tacc texcl = xstride_detail_block_scan(tot, true, &agg, op);

    if (threadIdx.x < 32) {
        const Tacc pre = xs_lookback_prefix<Op, Tacc, G, GW, D>(op, tile, row, t, tiles_per_row,
                                                              groups_per_row, agg, tdesc,
                                                              gdesc, epoch, s_win);
        if (lane == 0) s_prefix = pre;
    }
    __syncthreads();

    const bool first = t == 0 && threadIdx.x == 0;
    Tacc run = first ? Op::template identity<Tacc>() : op(s_prefix, texcl);
    float phi = -0.0f, plo = -0.0f, frun = 0.0f;   // F32
    float omax = 0.0f;   // F32: largest |output| of the run
    if (F32 && !first) {
        const double pd = (double)run;
        phi = (float)pd;
        plo = (phi - phi == 0.0f) ? (float)(pd - (double)phi) : 0.0f;   // inf/NaN: phi
    }
    constexpr int VO = 16 / (int)sizeof(Tout);
    union UO { uint4 u; Tout t[VO]; };
#pragma unroll
    for (int part = 0; part < ITEMS / P; ++part) {
        Tin raw[P];
        xs_seg_read<Tin, ITEMS, P>(sw, lane, part, raw);
        if (!SAME) __syncwarp();   // every lane has its input before outputs overwrite it
#pragma unroll
        for (int k = 0; k < P / VO; ++k) {
            UO w;
#pragma unroll
            for (int j = 0; j < VO; ++j) {
                const int e = k * VO + j;
                if (F32) {
                    const float v = (float)raw[e];
                    frun = (part == 0 && e == 0) ? v : frun + v;
                    const float o = phi + (plo + frun);
                    omax = fmaxf(omax, fabsf(o));
                    w.t[j] = (Tout)o;
                } else {
                    run = (first && part == 0 && e == 0) ? (Tacc)raw[0]
                                                         : op(run, (Tacc)raw[e]);
                    w.t[j] = (Tout)run;
                }
            }
            *reinterpret_cast<uint4*>(
                sw + xs_chunk_at((int)lane * (ITEMS / VO) + part * (P / VO) + k)) = w.u;
        }
    }
    // A thread whose float32 run did not stay finite (frun went through the same
    // partial sums as ftot, plus zeros past len), whose prefix is past float32's range
    // (or inf, NaN), or one of whose outputs came out infinite (the run's rounding can
    // carry a true value just under FLT_MAX past it), redoes its outputs from a float64
    // running value, reading
    // its input again from global memory (the chunks now hold outputs); `run` still
    // holds its float64 prefix. Rare, and after the common loop, so that loop is
    // scheduled as if the case did not exist.
    if (F32 && !(frun - frun == 0.0f && phi - phi == 0.0f && omax - omax == 0.0f)) {
        const Tin* pr = s_row;   // (from shared memory: no register holds p until here)
#pragma unroll 1
        for (int e = 0; e < ITEMS; ++e) {
            const long long k = kt + e;
            const Tacc v = k < len ? (Tacc)pr[k * d.s_in] : Tacc(0);
            run = (first && e == 0) ? v : op(run, v);
            *xs_lane_elem<Tout, ITEMS>(sw, lane, e) = (Tout)run;
        }
    }
    __syncwarp();
    xs_seg_store<Tout, ITEMS>(q, seg0, len, d.s_out, sw, lane);
}

