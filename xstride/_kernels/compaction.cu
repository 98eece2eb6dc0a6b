// Stream compaction and bin offsets for xstride.algorithms on CuPy arrays (launcher:
// compaction.py): run_length_encode and reduce_by_key's runs, compact, the long
// segments of segment_reduce, bin_offsets.
//
// Determinism: nothing here depends on the order in which threads or blocks run; the
// only atomics are integer minima (the first unsorted key, the first bin outside).
// The compaction is a reduce-then-scan over tiles of XS_SEG_TILE elements: a count per
// tile, one block scanning the counts, then each tile writing its selected rows at its
// offset plus the rank of the row in the tile (ballots and a scan of their counts):
// the output order is the input order, exactly.
#include <xstride/scan.cuh>
#include <xstride/detail/on_request.cuh>
#include <xstride/detail/segment_common.cuh>

#define XS_SEG_ITEMS 16
#define XS_SEG_TILE (XS_SEG_THREADS * XS_SEG_ITEMS)

// ------------------------------------------------------------------ bin_offsets
// One pass over the bins, each read once. Element i of [0, n] (bins[-1] = -1,
// bins[n] = n_bins) writes out[b] = i for each b in (bins[i-1], bins[i]]: for sorted
// bins, i is the first position whose bin is >= b. rec (3 x u64, 0xFF bytes before):
// [0] the first i with bins[i] < bins[i-1], [1] the first i with bins[i] outside
// [0, n_bins) (then the offsets are not used, and a bin outside counts as -1 here so
// that no write leaves [0, n_bins]), [2] 0 when some gap exceeds XS_SEG_GAP bins: those
// are not written and the caller fills every offset by xs_seg_bins_fill. A gap of up
// to 4 bins is written by its thread, a longer one by the whole warp, one lane's gap
// after another (32 stores a step, so that a few long gaps do not leave one thread
// with all their bins). Nothing is written where out is null (the check alone).
// A warp walks 32 * XS_SEG_WALK_ITEMS consecutive elements, element i = its start +
// j * 32 + lane: lane l - 1 holds element i - 1, lane 31 of item j - 1 the one before
// lane 0's, both by a shuffle; lane 0 of item 0 loads its predecessor itself. (A
// 16-element walk that passed lane 31's bin through shared memory held 93 registers,
// 2 blocks an SM: 434 us, 1.28 TB/s, for 2**26 int64 bins on the H200, 2026-12-04.)
#define XS_SEG_GAP (1ll << 16)
// elements a thread of the walk takes (a tile: XS_SEG_THREADS of them)
#define XS_SEG_WALK_ITEMS 8
#define XS_SEG_WALK_TILE (XS_SEG_THREADS * XS_SEG_WALK_ITEMS)
template <typename K>
__device__ __forceinline__ long long xs_seg_bin_in(K b, long long n_bins)
{
    return (b < (K)0 || (unsigned long long)b >= (unsigned long long)n_bins) ? -1 : (long long)b;
}

// bins[i] as the walk reads it: -1 before the start, n_bins from the end on, -1 for a
// bin outside [0, n_bins)
template <typename K>
__device__ __forceinline__ long long xs_seg_bin_at(const K* __restrict__ bins, long long i,
                                                   long long n, long long n_bins)
{
    if (i < 0) return -1;
    return i < n ? xs_seg_bin_in(bins[i], n_bins) : n_bins;
}

template <typename K>
__global__ void __launch_bounds__(XS_SEG_THREADS)
xs_seg_bins_walk(const K* __restrict__ bins, long long n, long long n_bins,
                 long long* __restrict__ out, unsigned long long* __restrict__ rec)
{
    const unsigned lane = threadIdx.x & 31u;
    const long long start = (long long)blockIdx.x * XS_SEG_WALK_TILE
                            + (long long)(threadIdx.x >> 5) * (32 * XS_SEG_WALK_ITEMS);
    const long long base = start + lane;
    long long v[XS_SEG_WALK_ITEMS];
    unsigned long long bad = ~0ull, outside = ~0ull;
    int gap_over = 0;
#pragma unroll
    for (int j = 0; j < XS_SEG_WALK_ITEMS; ++j) v[j] = xs_seg_bin_at(bins, base + j * 32, n, n_bins);
    long long last = lane == 0u ? xs_seg_bin_at(bins, start - 1, n, n_bins) : 0;  // lane 0's
#pragma unroll
    for (int j = 0; j < XS_SEG_WALK_ITEMS; ++j) {
        const long long i = base + j * 32;
        long long prev = __shfl_up_sync(XS_SEG_FULL, v[j], 1);
        if (lane == 0u) prev = last;
        last = __shfl_sync(XS_SEG_FULL, v[j], 31);
        if (i < n && v[j] < 0) outside = outside < (unsigned long long)i ? outside : (unsigned long long)i;
        if (i > 0 && i < n && v[j] < prev) bad = bad < (unsigned long long)i ? bad : (unsigned long long)i;
        long long gap = out != nullptr && i <= n && v[j] > prev ? v[j] - prev : 0;
        if (gap > XS_SEG_GAP) {
            gap_over = 1;
            gap = 0;
        }
        if (gap <= 4) {
            for (long long t = 1; t <= gap; ++t) out[prev + t] = i;
            gap = 0;
        }
        for (unsigned want = __ballot_sync(XS_SEG_FULL, gap > 0); want != 0u; want &= want - 1u) {
            const int src = __ffs(want) - 1;
            const long long lo = __shfl_sync(XS_SEG_FULL, prev, src);
            const long long g = __shfl_sync(XS_SEG_FULL, gap, src);
            const long long at = __shfl_sync(XS_SEG_FULL, i, src);
            for (long long t = 1 + lane; t <= g; t += 32) out[lo + t] = at;
        }
    }
    bad = xs_seg_warp_min(bad);
    outside = xs_seg_warp_min(outside);
    gap_over = __any_sync(XS_SEG_FULL, gap_over);
    if (lane == 0) {
        if (bad != ~0ull) atomicMin(rec, bad);
        if (outside != ~0ull) atomicMin(rec + 1, outside);
        if (gap_over) atomicMin(rec + 2, 0ull);
    }
}

// Checked sorted bins in [0, n_bins), where a gap is longer than the walk writes:
// thread b in [0, n_bins] writes offsets[b], the first i with bins[i] >= b (n when
// there is none), by binary search: at most log2(n) + 1 reads a thread whatever the
// gaps between the bins.
template <typename K>
__global__ void __launch_bounds__(XS_SEG_THREADS)
xs_seg_bins_fill(const K* __restrict__ bins, long long n, long long n_bins,
                 long long* __restrict__ out)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x; b <= n_bins; b += step) {
        long long lo = 0, hi = n;
        while (lo < hi) {
            const long long mid = lo + ((hi - lo) >> 1);
            if ((long long)bins[mid] < b) lo = mid + 1; else hi = mid;
        }
        out[b] = lo;
    }
}

// ------------------------------------------------------------------ compaction
// FLAG 0: src is a bool mask (1 byte per element); FLAG 1: src holds keys and element
// i is selected when it starts a run (i == 0 or src[i] != src[i - 1]); FLAG 2: src
// holds n + 1 offsets and segment i is selected when it has more than thr rows.
template <int FLAG, typename K>
__device__ __forceinline__ int xs_seg_flag(const K* __restrict__ src, long long i, long long n,
                                           long long thr)
{
    if (i >= n) return 0;
    if (FLAG == 0) return src[i] != (K)0;
    if (FLAG == 2) return (long long)(src[i + 1] - src[i]) > thr;
    return i == 0 || src[i] != src[i - 1];
}

#define XS_SEG_WARPS (XS_SEG_THREADS / 32)
// A tile's selected items in index order (element i = base + j * THREADS + warp * 32 +
// lane: the order (item j, warp, lane) is the index order): pre[j * WARPS + warp] holds
// the popcount of that warp's ballot of item j; warp 0 (all lanes) turns pre into the
// exclusive counts and returns the tile's total in every lane.
__device__ __forceinline__ int xs_seg_rank_scan(int* pre, unsigned lane)
{
    const int per = XS_SEG_ITEMS * XS_SEG_WARPS / 32;
    int c[per], sum = 0;
#pragma unroll
    for (int q = 0; q < per; ++q) {
        c[q] = pre[lane * per + q];
        sum += c[q];
    }
    int incl = sum;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const int y = __shfl_up_sync(XS_SEG_FULL, incl, o);
        if ((int)lane >= o) incl += y;
    }
    int ex = incl - sum;
#pragma unroll
    for (int q = 0; q < per; ++q) {
        pre[lane * per + q] = ex;
        ex += c[q];
    }
    return __shfl_sync(XS_SEG_FULL, incl, 31);
}

// Pass 1: the number of selected elements of tile blockIdx.x into counts[blockIdx.x];
// with FLAG 1 and check != 0 also the first i with src[i] < src[i-1] into rec[0], and
// two tests of the run lengths (sorted keys), with L1 = thr & 0xffffffff, which must be
// XS_SEG_THREADS (the kernel compares with the thread's next item; a test checks),
// and L2 = thr >> 32 >= L1: rec[2] = 0 when some src[i] == src[i + L1], exactly when a run
// is longer than L1 (src[i + L1] is this thread's next item, but in the last row);
// rec[3] = 0 when some i, a multiple of L1, has src[i] == src[i + L2 - L1]: every run
// longer than L2 holds such an i (the first multiple of L1 from its head), and a run of
// L2 - L1 + 1 to L2 rows may also (a false alarm: the caller then measures). One load
// per L1 elements, so the keys are not read twice. (The tests spare reduce_by_key the
// pass over the offsets that finds the longest run, and its read-back.)
// With FLAG 1 and stage_pos not null, a tile of at most XS_SEG_STAGE run heads also
// writes each head's position and key, in order, to its XS_SEG_STAGE slots of
// stage_pos and stage_key: the scatter then moves those and does not read the keys
// again.
#define XS_SEG_STAGE 256
// FLAG 1 reads each key once: the tile's keys (and the XS_SEG_THREADS after it, for the
// first run test, which compares each key with the one L1 = XS_SEG_THREADS rows on)
// are copied to shared memory, all in flight at once, and the flags read them there;
// the key before the tile is one load by thread 0. (Loading keys[i], keys[i - 1] and
// keys[i + L1] from global memory, 8 items at a time, moved 2.5 times the keys through
// L2: 293 us, 0.42 of DRAM throughput, for 2**26 uint64 keys on the H200; with a
// shuffle for keys[i - 1] 280 us, its registers leaving 4 items in flight a thread,
// 2026-12-03.) FLAG 0 (a mask) counts 16 bytes a thread from one 16-byte load where the
// tile is whole and aligned (a tile's count is the same whatever the order).
template <int FLAG, typename K>
__device__ __forceinline__ unsigned xs_seg_count_mask16(const K* __restrict__ src, long long t0,
                                                        long long n)
{
    const long long i0 = t0 + (long long)threadIdx.x * 16;
    if (t0 + XS_SEG_TILE <= n && (((unsigned long long)src) & 15ull) == 0ull) {
        const uint4 w = *reinterpret_cast<const uint4*>(src + i0);
        return (unsigned)((__popc(__vcmpne4(w.x, 0u)) + __popc(__vcmpne4(w.y, 0u))
                           + __popc(__vcmpne4(w.z, 0u)) + __popc(__vcmpne4(w.w, 0u))) >> 3);
    }
    unsigned c = 0u;
#pragma unroll
    for (int b = 0; b < 16; ++b) c += (i0 + b < n && src[i0 + b] != (K)0) ? 1u : 0u;
    return c;
}

template <int FLAG, typename K>
__global__ void __launch_bounds__(XS_SEG_THREADS)
xs_seg_count(const K* __restrict__ src, long long n, long long thr,
             long long* __restrict__ counts, int check, unsigned long long* __restrict__ rec,
             long long* __restrict__ stage_pos, K* __restrict__ stage_key)
{
    const long long t0 = (long long)blockIdx.x * XS_SEG_TILE;
    const long long base = t0 + threadIdx.x;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    unsigned mine = 0u;
    unsigned long long bad = ~0ull;
    const long long len2 = thr >> 32;
    int over1 = 0, over2 = 0;
    // FLAG 1: the tile's keys (and, for the first run test, the XS_SEG_THREADS after it)
    __shared__ __align__(16) K s_key[FLAG == 1 ? XS_SEG_TILE + XS_SEG_THREADS : 1];
    if constexpr (FLAG == 0) {
        long long total;
        xstride_block_inclusive_sum((long long)xs_seg_count_mask16<FLAG, K>(src, t0, n), &total);
        if (threadIdx.x == 0) counts[blockIdx.x] = total;
        return;
    } else if constexpr (FLAG == 1) {
        // the tile's keys (and, for the first run test, the XS_SEG_THREADS after it) in
        // shared memory, every copy in flight at once; row t0 + q of item j is q = j *
        // THREADS + tid
        const long long rem64 = n - t0;
        const int span = check ? XS_SEG_TILE + XS_SEG_THREADS : XS_SEG_TILE;
        const int rem = rem64 < span ? (int)rem64 : span;
        const K* __restrict__ tile = src + t0;
        // loads whose latency the tile's copies cover: the key before the tile (thread 0)
        // and, for the second run test, keys[i + L2 - L1] for i = t0 + j * THREADS
        // (thread j < XS_SEG_ITEMS)
        const K before = (threadIdx.x == 0 && t0 > 0) ? src[t0 - 1] : (K)0;
        const int far_q = (int)threadIdx.x * XS_SEG_THREADS;
        const bool has_far = check && threadIdx.x < XS_SEG_ITEMS && far_q < rem
                             && len2 - XS_SEG_THREADS < rem64 - far_q;
        const K far = has_far ? tile[far_q + len2 - XS_SEG_THREADS] : (K)0;
        if constexpr (sizeof(K) >= 4) {
            if (rem == span && (((unsigned long long)tile) & 15ull) == 0ull) {
                const int chunks = span * (int)sizeof(K) / 16;
                for (int c = (int)threadIdx.x; c < chunks; c += XS_SEG_THREADS) {
                    xs_async_copy<16>(reinterpret_cast<unsigned char*>(s_key) + 16 * c,
                                      reinterpret_cast<const unsigned char*>(tile) + 16 * c);
                }
            } else {
                for (int q = (int)threadIdx.x; q < rem; q += XS_SEG_THREADS) {
                    xs_async_copy<(int)sizeof(K)>(s_key + q, tile + q);
                }
            }
            xs_async_wait_all();
        } else {
            for (int q = (int)threadIdx.x; q < rem; q += XS_SEG_THREADS) s_key[q] = tile[q];
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < XS_SEG_ITEMS; ++j) {
            const int q = j * XS_SEG_THREADS + (int)threadIdx.x;
            if (q < rem) {
                const K key = s_key[q];
                const K prev = q > 0 ? s_key[q - 1] : before;
                const bool first = t0 == 0 && q == 0;
                mine |= (unsigned)(first || key != prev) << j;
                if (check) {
                    if (!first && key < prev) {
                        const unsigned long long i = (unsigned long long)(t0 + q);
                        bad = i < bad ? i : bad;
                    }
                    if (q + XS_SEG_THREADS < rem && key == s_key[q + XS_SEG_THREADS]) over1 = 1;
                }
            }
        }
        // keys[i] == keys[i + L2 - L1] for i a multiple of L1: one row a thread of the
        // first XS_SEG_ITEMS, its far key loaded before the copies were waited for
        if (has_far && s_key[far_q] == far) over2 = 1;
    } else {
#pragma unroll
        for (int j = 0; j < XS_SEG_ITEMS; ++j) {
            mine |= (unsigned)xs_seg_flag<FLAG, K>(src, base + j * XS_SEG_THREADS, n, thr) << j;
        }
    }
    if (FLAG == 1 && stage_pos != nullptr) {
        __shared__ int pre[XS_SEG_ITEMS * XS_SEG_WARPS];
        __shared__ unsigned bal[XS_SEG_ITEMS * XS_SEG_WARPS];
        __shared__ int s_total;
#pragma unroll
        for (int j = 0; j < XS_SEG_ITEMS; ++j) {
            const unsigned b = __ballot_sync(XS_SEG_FULL, (mine >> j) & 1u);
            if (lane == 0) {
                bal[j * XS_SEG_WARPS + warp] = b;
                pre[j * XS_SEG_WARPS + warp] = __popc(b);
            }
        }
        __syncthreads();
        if (warp == 0) {
            const int t = xs_seg_rank_scan(pre, lane);
            if (lane == 0) s_total = t;
        }
        __syncthreads();
        const int total = s_total;
        if (threadIdx.x == 0) counts[blockIdx.x] = total;
        if (total <= XS_SEG_STAGE) {
            const unsigned lt = (1u << lane) - 1u;
            long long* __restrict__ sp = stage_pos + (long long)blockIdx.x * XS_SEG_STAGE;
            K* __restrict__ sk = stage_key + (long long)blockIdx.x * XS_SEG_STAGE;
#pragma unroll
            for (int j = 0; j < XS_SEG_ITEMS; ++j) {
                if ((mine >> j) & 1u) {
                    const long long i = base + j * XS_SEG_THREADS;
                    const int r = pre[j * XS_SEG_WARPS + warp] + __popc(bal[j * XS_SEG_WARPS + warp] & lt);
                    sp[r] = i;
                    sk[r] = s_key[j * XS_SEG_THREADS + (int)threadIdx.x];
                }
            }
        }
    } else {
        long long total;
        xstride_block_inclusive_sum((long long)__popc(mine), &total);
        if (threadIdx.x == 0) counts[blockIdx.x] = total;
    }
    if (FLAG == 1 && check) {
        bad = xs_seg_warp_min(bad);
        over1 = __any_sync(XS_SEG_FULL, over1);
        over2 = __any_sync(XS_SEG_FULL, over2);
        if (lane == 0) {
            if (bad != ~0ull) atomicMin(rec, bad);
            if (over1) atomicMin(rec + 2, 0ull);
            if (over2) atomicMin(rec + 3, 0ull);
        }
    }
}

// Pass 2 (one block of 1024 threads): counts[0..n_tiles) becomes its exclusive prefix
// sum; the total goes to rec[1], and rec[4] becomes 0 when some tile counted more than
// XS_SEG_STAGE (then not every tile's run heads were staged). A chunk of
// XS_SEG_SCAN_ITEMS * 1024 counts is loaded and stored coalesced (thread t the counts
// t, t + 1024, ...), through shared memory as 32-bit words (a count is at most a
// tile, XS_SEG_TILE, so a chunk's prefix fits), where each thread scans its
// XS_SEG_SCAN_ITEMS consecutive ones around the block's scan of their sums. (Each
// thread loading its 16 consecutive counts from global memory, 32 lines a warp's
// load: 29 us for 16384 tiles on the H200, 2026-12-04.)
#define XS_SEG_SCAN_ITEMS 8
#define XS_SEG_SCAN_CHUNK (1024 * XS_SEG_SCAN_ITEMS)
// a chunk's slot q in shared memory: one word of padding every 32, so that the
// threads of a warp reading slots t * ITEMS + k hit 32 banks
#define XS_SEG_SCAN_SLOT(q) ((q) + ((q) >> 5))
XS_ON_REQUEST __global__ void __launch_bounds__(1024)
xs_seg_scan_tiles(long long* __restrict__ counts, long long n_tiles,
                  unsigned long long* __restrict__ rec)
{
    static_assert((long long)XS_SEG_SCAN_CHUNK * XS_SEG_TILE < (1ll << 32),
                  "a chunk's prefix fits 32 bits");
    __shared__ unsigned s_c[XS_SEG_SCAN_SLOT(XS_SEG_SCAN_CHUNK)];
    long long carry = 0;
    int over = 0;
    const int t = (int)threadIdx.x;
    for (long long b = 0; b < n_tiles; b += XS_SEG_SCAN_CHUNK) {
        long long v[XS_SEG_SCAN_ITEMS];
#pragma unroll
        for (int k = 0; k < XS_SEG_SCAN_ITEMS; ++k) {
            const long long i = b + k * 1024 + t;
            v[k] = i < n_tiles ? counts[i] : 0;
        }
#pragma unroll
        for (int k = 0; k < XS_SEG_SCAN_ITEMS; ++k) {
            over |= v[k] > XS_SEG_STAGE;
            s_c[XS_SEG_SCAN_SLOT(k * 1024 + t)] = (unsigned)v[k];
        }
        __syncthreads();
        unsigned mine[XS_SEG_SCAN_ITEMS];
        unsigned sum = 0u;
#pragma unroll
        for (int k = 0; k < XS_SEG_SCAN_ITEMS; ++k) {
            mine[k] = s_c[XS_SEG_SCAN_SLOT(t * XS_SEG_SCAN_ITEMS + k)];
            sum += mine[k];
        }
        unsigned total;
        unsigned ex = xstride_block_exclusive_sum(sum, &total);  // its barriers order the reads
#pragma unroll
        for (int k = 0; k < XS_SEG_SCAN_ITEMS; ++k) {
            s_c[XS_SEG_SCAN_SLOT(t * XS_SEG_SCAN_ITEMS + k)] = ex;
            ex += mine[k];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < XS_SEG_SCAN_ITEMS; ++k) {
            const long long i = b + k * 1024 + t;
            if (i < n_tiles) counts[i] = carry + (long long)s_c[XS_SEG_SCAN_SLOT(k * 1024 + t)];
        }
        carry += (long long)total;
        __syncthreads();   // the next chunk's stores wait for these reads
    }
    over = __syncthreads_or(over);
    if (threadIdx.x == 0) {
        rec[1] = (unsigned long long)carry;
        if (over) rec[4] = 0ull;
    }
}

// Pass 3 of runs whose every tile staged its heads in the count pass: tile blockIdx.x's
// heads move from its XS_SEG_STAGE slots to their place, thread r the r-th (positions
// to idx, keys to dst). The total and whether every tile staged (rec[1] and rec[4] of
// the tile scan) are read here, not passed: the host launches this copy before it
// reads the record, into buffers of XS_SEG_STAGE entries a tile (the most a staged
// count can give), so the device does not wait for the host between the passes; where
// some tile did not stage (rec[4] is 0) the copy writes nothing and the host scatters
// instead. The scatter does the same inside its own launch, whose 92 registers a
// thread left 2 blocks an SM for this copy (60 us for 16384 tiles on the H200,
// 2026-12-03); this kernel needs few.
template <typename W>
__global__ void __launch_bounds__(XS_SEG_THREADS)
xs_seg_copy_staged(const long long* __restrict__ offsets, long long tiles,
                   const unsigned long long* __restrict__ rec,
                   const long long* __restrict__ stage_pos, const W* __restrict__ stage_key,
                   W* __restrict__ dst, long long* __restrict__ idx)
{
    static_assert(XS_SEG_STAGE <= XS_SEG_THREADS, "a thread a staged head");
    if (rec[4] != ~0ull) return;   // some tile counted more than it stages
    const long long total = (long long)rec[1];
    const long long t = blockIdx.x;
    const long long start = offsets[t];
    const long long cnt = (t + 1 < tiles ? offsets[t + 1] : total) - start;
    const int r = threadIdx.x;
    if (r < cnt) {
        const long long at = t * XS_SEG_STAGE + r;
        idx[start + r] = stage_pos[at];
        dst[start + r] = stage_key[at];
    }
}

// After the scatter of run heads: the end of the CSR offsets (offsets[total] = n) and,
// where lengths is not null, each run's length (the last one's from n, not from the
// entry this launch writes). With rec not null (the copy of staged heads launched
// before the host read the record), total is rec[1] and nothing is written unless
// every tile staged (rec[4] all ones), as in xs_seg_copy_staged.
XS_ON_REQUEST __global__ void __launch_bounds__(256)
xs_seg_close(long long* __restrict__ offsets, long long total, long long n,
             long long* __restrict__ lengths, const unsigned long long* __restrict__ rec)
{
    if (rec != nullptr) {
        if (rec[4] != ~0ull) return;
        total = (long long)rec[1];
    }
    const long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (first == 0) offsets[total] = n;
    if (lengths == nullptr) return;
    for (long long i = first; i < total; i += (long long)gridDim.x * blockDim.x)
        lengths[i] = (i + 1 < total ? offsets[i + 1] : n) - offsets[i];
}

// Pass 3: each selected element i of the tile goes to position p = offsets[tile] + its
// rank among the tile's selected elements; row i of src (row_words words W) is copied
// to row p of dst (when src is not null) and i is written to idx[p] (when idx is not
// null). The ranks come from one ballot per warp and item (element i = base + j *
// THREADS + warp * 32 + lane: the order (item, warp, lane) is the index order) and one
// scan of the ITEMS * WARPS ballot counts by warp 0: two barriers per tile. The items
// go in two halves of 8 (flags, then the words of the rows: every load of a half
// before its first store): 64 registers, where all 16 at once took 155. A row moves
// XS_SEG_ROW_WORDS(W) words at a time: 4 of up to 4 bytes, 2 of 8 (4 of 8 bytes held
// 92 registers, 2 blocks an SM: 414 us for half of 2**26 int64 rows on the H200,
// against 336 us for their (n, 3) float32 rows, 2026-12-04).
#define XS_SEG_HALF (XS_SEG_ITEMS / 2)
#define XS_SEG_ROW_WORDS(W) (sizeof(W) >= 8 ? 2 : 4)
template <int FLAG, typename K, typename W>
__global__ void __launch_bounds__(XS_SEG_THREADS)
xs_seg_scatter(const K* __restrict__ flags, long long n, long long thr,
               const long long* __restrict__ offsets, const W* __restrict__ src,
               long long row_words, W* __restrict__ dst, long long* __restrict__ idx,
               const long long* __restrict__ stage_pos, const W* __restrict__ stage_key,
               long long total)
{
    if (FLAG == 1 && stage_pos != nullptr) {   // the heads the count pass staged
        const long long tiles = (n + XS_SEG_TILE - 1) / XS_SEG_TILE;
        const long long start = offsets[blockIdx.x];
        const long long cnt = (blockIdx.x + 1 < tiles ? offsets[blockIdx.x + 1] : total) - start;
        if (cnt <= XS_SEG_STAGE) {
            const long long at = (long long)blockIdx.x * XS_SEG_STAGE;
            for (int r = threadIdx.x; r < cnt; r += XS_SEG_THREADS) {
                idx[start + r] = stage_pos[at + r];
                dst[start + r] = stage_key[at + r];
            }
            return;
        }
    }
    __shared__ int pre[XS_SEG_ITEMS * XS_SEG_WARPS];
    __shared__ unsigned bal[XS_SEG_ITEMS * XS_SEG_WARPS];
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const long long base = (long long)blockIdx.x * XS_SEG_TILE + threadIdx.x;
    // the items in two halves (half the loads in flight, half the registers)
    unsigned mine = 0u;
#pragma unroll 1
    for (int h = 0; h < XS_SEG_ITEMS; h += XS_SEG_HALF) {
        unsigned f = 0u;
#pragma unroll
        for (int u = 0; u < XS_SEG_HALF; ++u) {
            f |= (unsigned)xs_seg_flag<FLAG, K>(flags, base + (h + u) * XS_SEG_THREADS, n, thr)
                 << u;
        }
#pragma unroll
        for (int u = 0; u < XS_SEG_HALF; ++u) {
            const unsigned b = __ballot_sync(XS_SEG_FULL, (f >> u) & 1u);
            if (lane == 0) {
                bal[(h + u) * XS_SEG_WARPS + warp] = b;
                pre[(h + u) * XS_SEG_WARPS + warp] = __popc(b);
            }
        }
        mine |= f << h;
    }
    __syncthreads();
    if (warp == 0) xs_seg_rank_scan(pre, lane);   // exclusive, in (item, warp) order
    __syncthreads();
    if (mine == 0u) return;
    const long long run = offsets[blockIdx.x];
    const unsigned lt = (1u << lane) - 1u;
    // the output position of item j (selected)
#define XS_SEG_POS(j)                                           \
    (run + pre[(j) * XS_SEG_WARPS + warp] + __popc(bal[(j) * XS_SEG_WARPS + warp] & lt))
    if (idx != nullptr) {
#pragma unroll
        for (int j = 0; j < XS_SEG_ITEMS; ++j) {
            if ((mine >> j) & 1u) idx[XS_SEG_POS(j)] = base + j * XS_SEG_THREADS;
        }
    }
    if (src == nullptr) return;
    // up to XS_SEG_ROW_WORDS words of each row at a time: every load of a half (its
    // rows' words) before its first store
    constexpr int RW = XS_SEG_ROW_WORDS(W);
    for (long long w0 = 0; w0 < row_words; w0 += RW) {
        const int nw = row_words - w0 < RW ? (int)(row_words - w0) : RW;
#pragma unroll 1
        for (int h = 0; h < XS_SEG_ITEMS; h += XS_SEG_HALF) {
            W word[XS_SEG_HALF][RW];
#pragma unroll
            for (int u = 0; u < XS_SEG_HALF; ++u) {
                if ((mine >> (h + u)) & 1u) {
                    const W* __restrict__ p = src + (base + (h + u) * XS_SEG_THREADS) * row_words + w0;
#pragma unroll
                    for (int q = 0; q < RW; ++q) {
                        if (q < nw) word[u][q] = p[q];
                    }
                }
            }
#pragma unroll
            for (int u = 0; u < XS_SEG_HALF; ++u) {
                if ((mine >> (h + u)) & 1u) {
                    W* __restrict__ p = dst + XS_SEG_POS(h + u) * row_words + w0;
#pragma unroll
                    for (int q = 0; q < RW; ++q) {
                        if (q < nw) p[q] = word[u][q];
                    }
                }
            }
        }
    }
#undef XS_SEG_POS
}
