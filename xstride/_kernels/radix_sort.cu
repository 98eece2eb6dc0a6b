// Stable LSD radix sort of (uint64 key, int32 index) pairs, 8 bits per pass
// (launcher: sort.py). One pass = upsweep (per-block digit histogram) + an inclusive
// scan of the histogram in digit-major order (CuPy) + downsweep (stable scatter).
//
// Tiles: a block of XSTRIDE_RS_WARPS warps owns XSTRIDE_RS_TILE consecutive elements;
// warp w of the block owns the sub-range [w * WARP_ITEMS, (w + 1) * WARP_ITEMS) of the
// tile and walks it in batches of 32 consecutive elements, one per lane.
//
// Stability: inside a batch, equal digits are ranked by lane (__match_any_sync +
// popcount of the lower lanes); batches of a warp are walked in order with per-warp
// running counters in shared memory; warps of a block are ordered by an exclusive scan
// of their counts per digit; blocks by the global scan of hist[digit][block]. So an
// element's output position is
//   (elements with a smaller digit) + (same digit in earlier blocks)
//   + (same digit in earlier warps of the block) + (earlier batches) + (lower lanes).
//
// The digit of key k in a pass is ((k ^ flip) >> shift) & 255; flip = 2**63 sorts
// two's-complement keys (sign-extended to 64 bits) in signed order.
// Needs __match_any_sync (sm_70 or newer, CUDA).

#define XSTRIDE_RS_RADIX 256
#define XSTRIDE_RS_WARPS 8
#define XSTRIDE_RS_THREADS (32 * XSTRIDE_RS_WARPS)
#define XSTRIDE_RS_BATCHES 16
#define XSTRIDE_RS_WARP_ITEMS (32 * XSTRIDE_RS_BATCHES)
#define XSTRIDE_RS_TILE (XSTRIDE_RS_WARPS * XSTRIDE_RS_WARP_ITEMS)
#define XSTRIDE_RS_FULL 0xFFFFFFFFu

static_assert(XSTRIDE_RS_THREADS == XSTRIDE_RS_RADIX, "one thread per digit in the downsweep");

__device__ __forceinline__ unsigned xstride_rs_digit(unsigned long long k, unsigned long long flip,
                                                     int shift)
{
    return (unsigned)(((k ^ flip) >> shift) & (unsigned long long)(XSTRIDE_RS_RADIX - 1));
}

// hist[d * nblocks + b] = number of elements of block b whose digit is d.
extern "C" __global__ void __launch_bounds__(XSTRIDE_RS_THREADS)
xstride_radix_upsweep(const unsigned long long* __restrict__ keys, long long n, int shift,
                      unsigned long long flip, int* __restrict__ hist, int nblocks)
{
    __shared__ int counts[XSTRIDE_RS_WARPS][XSTRIDE_RS_RADIX + 1];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    for (int i = threadIdx.x; i < XSTRIDE_RS_WARPS * (XSTRIDE_RS_RADIX + 1); i += XSTRIDE_RS_THREADS) {
        (&counts[0][0])[i] = 0;
    }
    __syncthreads();
    const long long start = (long long)blockIdx.x * XSTRIDE_RS_TILE + (long long)warp * XSTRIDE_RS_WARP_ITEMS;
#pragma unroll 4
    for (int b = 0; b < XSTRIDE_RS_BATCHES; ++b) {
        const long long j = start + b * 32 + lane;
        const unsigned d = (j < n) ? xstride_rs_digit(keys[j], flip, shift) : (unsigned)XSTRIDE_RS_RADIX;
        const unsigned peers = __match_any_sync(XSTRIDE_RS_FULL, d);
        if (lane == __ffs(peers) - 1) {
            counts[warp][d] += __popc(peers);
        }
        __syncwarp();
    }
    __syncthreads();
    int total = 0;
    for (int w = 0; w < XSTRIDE_RS_WARPS; ++w) {
        total += counts[w][threadIdx.x];
    }
    hist[(long long)threadIdx.x * nblocks + blockIdx.x] = total;
}

// Stable scatter of one pass. scan is the inclusive scan of hist (digit-major).
// first != 0: the input indices are 0..n-1 (idx_in is not read).
extern "C" __global__ void __launch_bounds__(XSTRIDE_RS_THREADS)
xstride_radix_downsweep(const unsigned long long* __restrict__ keys_in,
                        const int* __restrict__ idx_in, int first,
                        unsigned long long* __restrict__ keys_out, int* __restrict__ idx_out,
                        long long n, int shift, unsigned long long flip,
                        const int* __restrict__ hist, const int* __restrict__ scan, int nblocks)
{
    __shared__ int counts[XSTRIDE_RS_WARPS][XSTRIDE_RS_RADIX + 1];
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const unsigned lower_lanes = (1u << lane) - 1u;
    for (int i = threadIdx.x; i < XSTRIDE_RS_WARPS * (XSTRIDE_RS_RADIX + 1); i += XSTRIDE_RS_THREADS) {
        (&counts[0][0])[i] = 0;
    }
    const long long start = (long long)blockIdx.x * XSTRIDE_RS_TILE + (long long)warp * XSTRIDE_RS_WARP_ITEMS;

    unsigned long long k[XSTRIDE_RS_BATCHES];
    unsigned d[XSTRIDE_RS_BATCHES];
#pragma unroll
    for (int b = 0; b < XSTRIDE_RS_BATCHES; ++b) {
        const long long j = start + b * 32 + lane;
        k[b] = (j < n) ? keys_in[j] : 0ull;
        d[b] = (j < n) ? xstride_rs_digit(k[b], flip, shift) : (unsigned)XSTRIDE_RS_RADIX;
    }
    __syncthreads();

    // 1. counts of this warp per digit
#pragma unroll
    for (int b = 0; b < XSTRIDE_RS_BATCHES; ++b) {
        const unsigned peers = __match_any_sync(XSTRIDE_RS_FULL, d[b]);
        if (lane == __ffs(peers) - 1) {
            counts[warp][d[b]] += __popc(peers);
        }
        __syncwarp();
    }
    __syncthreads();

    // 2. per digit: global start of this block, then exclusive scan over the warps
    {
        const int digit = threadIdx.x;  // XSTRIDE_RS_THREADS == XSTRIDE_RS_RADIX
        const long long at = (long long)digit * nblocks + blockIdx.x;
        int run = scan[at] - hist[at];
        for (int w = 0; w < XSTRIDE_RS_WARPS; ++w) {
            const int c = counts[w][digit];
            counts[w][digit] = run;
            run += c;
        }
    }
    __syncthreads();

    // 3. scatter, batch by batch, lanes in order
#pragma unroll
    for (int b = 0; b < XSTRIDE_RS_BATCHES; ++b) {
        const long long j = start + b * 32 + lane;
        const unsigned peers = __match_any_sync(XSTRIDE_RS_FULL, d[b]);
        const int leader = __ffs(peers) - 1;
        int base = 0;
        if (lane == leader) {
            base = counts[warp][d[b]];
            counts[warp][d[b]] = base + __popc(peers);
        }
        base = __shfl_sync(XSTRIDE_RS_FULL, base, leader);
        if (j < n) {
            const int pos = base + __popc(peers & lower_lanes);
            keys_out[pos] = k[b];
            idx_out[pos] = first ? (int)j : idx_in[j];
        }
        __syncwarp();
    }
}
