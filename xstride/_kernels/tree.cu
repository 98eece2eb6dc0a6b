// Every level of a Morton quadtree/octree from sorted keys, in one pass over the keys
// (xstride.algorithms.morton_tree on CuPy arrays; launcher: tree.py).
//
// The idea is Karras's ("Maximizing parallelism in the construction of BVHs, octrees,
// and k-d trees", HPG 2012): in sorted keys, point i starts a node of level l exactly
// when its l-level key (the key shifted right by ndim * (levels - l) bits) differs from
// that of point i - 1, that is when the highest bit in which keys i and i - 1 differ
// lies in the top ndim * l bits. So one small number per point, its START LEVEL
//     c_i = the coarsest level at which key i differs from key i - 1
//         = levels - floor(h / ndim), h the highest set bit of k[i] ^ k[i - 1],
// with c_0 = 0 (point 0 starts a node at every level) and c_i = levels + 1 for a key
// equal to its predecessor (no node at any level), says at which levels the point
// starts a node: at every level l >= c_i. Node p of level l is the p-th point with
// c <= l; its parent is the node of level l - 1 that holds the point, i.e. the number
// of points j <= i with c_j <= l - 1, minus one.
//
// Four launches, over tiles of XS_TREE_TILE consecutive points:
//   xs_tree_count<K>  per tile and level l, the points with c <= l (a histogram of c in
//                     shared memory, then cumulative); validates the keys into rec.
//   xs_tree_scan      one block per level: exclusive prefix sums of those counts over
//                     the tiles (each tile's first node index per level) and each
//                     level's node count m_l into rec.
//   (the host reads rec back once: errors are raised, the outputs allocated)
//   xs_tree_build<K>  per tile, level by level: the rank of each starting point among
//                     the tile's (one ballot per warp and item, one scan of the ballot
//                     counts by warp 0), hence its node index; writes the node's key,
//                     first point and parent into flat buffers (level l at the sum of
//                     m_0..m_{l-1}).
//   xs_tree_counts    count = the next node's first point minus this one's (n after the
//                     last node of a level: the next level's first node starts at 0).
//
// Determinism: every output is an integer fixed by the keys; the only atomics are a
// minimum of positions and integer additions to a histogram, whose results do not
// depend on the order in which they land.
#include <xstride/scan.cuh>
#include <xstride/detail/on_request.cuh>

#define XS_TREE_THREADS 256
#define XS_TREE_ITEMS 8
#define XS_TREE_TILE (XS_TREE_THREADS * XS_TREE_ITEMS)
#define XS_TREE_WARPS (XS_TREE_THREADS / 32)
#define XS_TREE_MAX_LEVELS 32          // 2-D keys: 32 levels (levels + 2 start levels)
#define XS_TREE_FULL 0xffffffffu

// The record (unsigned long long words), read back by the host after xs_tree_scan.
#define XS_TREE_REC_UNSORTED 0         // first i with k[i] < k[i - 1] (all bits set: none)
#define XS_TREE_REC_FIRST 1            // k[0], converted to unsigned long long
#define XS_TREE_REC_LAST 2             // k[n - 1], idem
#define XS_TREE_REC_NODES 3            // m_0 .. m_levels

// The start level of a point whose key is a, after a point whose key is b (see the top).
// Keys wider than ndim * levels bits (refused by the host after the first passes) would
// give a negative level: clamped to 0 so that the shared histogram stays in range.
__device__ __forceinline__ int xs_tree_start(unsigned long long a, unsigned long long b,
                                             int ndim, int levels)
{
    const unsigned long long x = a ^ b;
    if (x == 0ull) return levels + 1;
    const int h = 63 - __clzll((long long)x);
    const int c = levels - h / ndim;
    return c < 0 ? 0 : c;
}

// The start level of point i < n (keys read with a stride in elements).
template <typename K>
__device__ __forceinline__ int xs_tree_start_of(const K* __restrict__ keys, long long stride,
                                                long long i, K k, int ndim, int levels)
{
    if (i == 0) return 0;
    return xs_tree_start((unsigned long long)k, (unsigned long long)keys[(i - 1) * stride],
                         ndim, levels);
}

// Pass 1, one block per tile: counts[l * n_tiles + tile] = the points of the tile with
// c <= l, for l = 0..levels. Also the first unsorted position into rec[UNSORTED]
// (atomicMin; the host sets the word to all ones before), and k[0], k[n - 1] into
// rec[FIRST], rec[LAST] (the host checks the sign and the width of the keys from them,
// once it knows they are sorted). Point i of the tile is base + j * THREADS + thread.
template <typename K>
__global__ void __launch_bounds__(XS_TREE_THREADS)
xs_tree_count(const K* __restrict__ keys, long long stride, long long n, int ndim, int levels,
              long long n_tiles, long long* __restrict__ counts,
              unsigned long long* __restrict__ rec)
{
    __shared__ int hist[XS_TREE_MAX_LEVELS + 2];    // points per start level 0..levels+1
    const unsigned lane = threadIdx.x & 31u;
    if (threadIdx.x < XS_TREE_MAX_LEVELS + 2) hist[threadIdx.x] = 0;
    __syncthreads();
    const long long base = (long long)blockIdx.x * XS_TREE_TILE + threadIdx.x;
    unsigned long long bad = ~0ull;
#pragma unroll
    for (int j = 0; j < XS_TREE_ITEMS; ++j) {
        const long long i = base + (long long)j * XS_TREE_THREADS;
        int c = -1;                                  // past the end: counted nowhere
        if (i < n) {
            const K k = keys[i * stride];
            if (i == 0) rec[XS_TREE_REC_FIRST] = (unsigned long long)k;
            if (i == n - 1) rec[XS_TREE_REC_LAST] = (unsigned long long)k;
            if (i > 0 && k < keys[(i - 1) * stride]) {
                bad = bad < (unsigned long long)i ? bad : (unsigned long long)i;
            }
            c = xs_tree_start_of<K>(keys, stride, i, k, ndim, levels);
        }
        // lanes of equal start levels add once (warp multi-split)
        const unsigned peers = __match_any_sync(XS_TREE_FULL, c);
        if (c >= 0 && lane == (unsigned)(__ffs(peers) - 1)) atomicAdd(&hist[c], __popc(peers));
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const unsigned long long other = __shfl_xor_sync(XS_TREE_FULL, bad, o);
        bad = other < bad ? other : bad;
    }
    if (lane == 0u && bad != ~0ull) atomicMin(rec + XS_TREE_REC_UNSORTED, bad);
    __syncthreads();
    if ((int)threadIdx.x <= levels) {
        long long s = 0;
        for (int c = 0; c <= (int)threadIdx.x; ++c) s += hist[c];
        counts[(long long)threadIdx.x * n_tiles + blockIdx.x] = s;
    }
}

// Pass 2, block l per level l (1024 threads): counts[l * n_tiles + t] becomes the
// exclusive prefix sum over tiles 0..t-1 (the index of tile t's first node of level l)
// and rec[NODES + l] the level's total m_l.
XS_ON_REQUEST __global__ void __launch_bounds__(1024)
xs_tree_scan(long long* __restrict__ counts, long long n_tiles,
             unsigned long long* __restrict__ rec)
{
    long long* __restrict__ row = counts + (long long)blockIdx.x * n_tiles;
    long long carry = 0;
    for (long long b = 0; b < n_tiles; b += blockDim.x) {
        const long long i = b + threadIdx.x;
        const long long v = i < n_tiles ? row[i] : 0;
        long long total;
        const long long ex = xstride_block_exclusive_sum(v, &total);
        if (i < n_tiles) row[i] = carry + ex;
        carry += total;
    }
    if (threadIdx.x == 0) rec[XS_TREE_REC_NODES + blockIdx.x] = (unsigned long long)carry;
}

// Pass 3, one block per tile (the tiles of pass 1): for l = the tile's lowest start
// level .. levels, each point i with c_i <= l gets node index p = offsets[l][tile] + its
// exclusive rank among the tile's points with c <= l, and writes, at flat position
// (m_0 + ... + m_{l-1}) + p:
//     okeys   = k[i] >> ndim * (levels - l)   (0 for a shift of 64: level 0 of 2-D keys
//                                             of 32 levels; a shift by 64 is undefined)
//     ofirst  = i
//     oparent = -1 at level 0, else the node of level l - 1 holding point i:
//               offsets[l - 1][tile] + (points j <= i of the tile with c_j <= l - 1) - 1
//               = offsets[l - 1][tile] + prev - (c_i == l), prev = i's exclusive rank of
//               the level before (0 below the tile's lowest start level).
// The ranks: point i = base + j * THREADS + warp * 32 + lane, so the order (item, warp,
// lane) is the index order; one ballot per warp and item, an exclusive scan of the
// ITEMS * WARPS ballot counts by warp 0, two barriers per level (the shared arrays
// alternate between levels, so no third barrier guards their reuse).
template <typename K>
__global__ void __launch_bounds__(XS_TREE_THREADS)
xs_tree_build(const K* __restrict__ keys, long long stride, long long n, int ndim, int levels,
              long long n_tiles, const long long* __restrict__ offsets,
              const unsigned long long* __restrict__ rec, unsigned long long* __restrict__ okeys,
              long long* __restrict__ ofirst, long long* __restrict__ oparent)
{
    __shared__ long long level_base[XS_TREE_MAX_LEVELS + 1];
    __shared__ int pre[2][XS_TREE_ITEMS * XS_TREE_WARPS];
    __shared__ unsigned bal[2][XS_TREE_ITEMS * XS_TREE_WARPS];
    __shared__ int lowest;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if ((int)threadIdx.x <= levels) {
        long long s = 0;
        for (int l = 0; l < (int)threadIdx.x; ++l) s += (long long)rec[XS_TREE_REC_NODES + l];
        level_base[threadIdx.x] = s;
    }
    if (threadIdx.x == 0) lowest = levels + 1;
    __syncthreads();
    const long long base = (long long)blockIdx.x * XS_TREE_TILE + threadIdx.x;
    unsigned long long key[XS_TREE_ITEMS];
    int c[XS_TREE_ITEMS], prev[XS_TREE_ITEMS];
    int mine = levels + 1;
#pragma unroll
    for (int j = 0; j < XS_TREE_ITEMS; ++j) {
        const long long i = base + (long long)j * XS_TREE_THREADS;
        c[j] = levels + 1;                           // past the end: never a node
        key[j] = 0ull;
        prev[j] = 0;
        if (i < n) {
            const K k = keys[i * stride];
            key[j] = (unsigned long long)k;
            c[j] = xs_tree_start_of<K>(keys, stride, i, k, ndim, levels);
            mine = c[j] < mine ? c[j] : mine;
        }
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        const int other = __shfl_xor_sync(XS_TREE_FULL, mine, o);
        mine = other < mine ? other : mine;
    }
    if (lane == 0u) atomicMin(&lowest, mine);
    __syncthreads();
    const int first_level = lowest;                  // the same in every thread
    const unsigned lt = (1u << lane) - 1u;
    for (int l = first_level; l <= levels; ++l) {
        const int s = l & 1;
        unsigned f = 0u;
#pragma unroll
        for (int j = 0; j < XS_TREE_ITEMS; ++j) f |= (unsigned)(c[j] <= l) << j;
#pragma unroll
        for (int j = 0; j < XS_TREE_ITEMS; ++j) {
            const unsigned b = __ballot_sync(XS_TREE_FULL, (f >> j) & 1u);
            if (lane == 0u) {
                bal[s][j * XS_TREE_WARPS + warp] = b;
                pre[s][j * XS_TREE_WARPS + warp] = __popc(b);
            }
        }
        __syncthreads();
        if (warp == 0u) {   // exclusive scan of the counts in (item, warp) order
            const int per = XS_TREE_ITEMS * XS_TREE_WARPS / 32;
            int cnt[per], sum = 0;
#pragma unroll
            for (int q = 0; q < per; ++q) {
                cnt[q] = pre[s][lane * per + q];
                sum += cnt[q];
            }
            int incl = sum;
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                const int y = __shfl_up_sync(XS_TREE_FULL, incl, o);
                if ((int)lane >= o) incl += y;
            }
            int ex = incl - sum;
#pragma unroll
            for (int q = 0; q < per; ++q) {
                pre[s][lane * per + q] = ex;
                ex += cnt[q];
            }
        }
        __syncthreads();
        const long long at = level_base[l] + offsets[(long long)l * n_tiles + blockIdx.x];
        const long long up = l > 0 ? offsets[(long long)(l - 1) * n_tiles + blockIdx.x] : 0;
        const int shift = ndim * (levels - l);
#pragma unroll
        for (int j = 0; j < XS_TREE_ITEMS; ++j) {
            const int q = j * XS_TREE_WARPS + warp;
            const int ex = pre[s][q] + __popc(bal[s][q] & lt);
            if ((f >> j) & 1u) {
                const long long p = at + ex;
                okeys[p] = shift >= 64 ? 0ull : key[j] >> shift;
                ofirst[p] = base + (long long)j * XS_TREE_THREADS;
                oparent[p] = l == 0 ? -1LL : up + prev[j] - (c[j] == l ? 1 : 0);
            }
            prev[j] = ex;
        }
    }
}

// Pass 4: count[q] = first[q + 1] - first[q] over the flat buffer of every level, or
// n - first[q] for the last node of a level (the next entry is the first node of the
// next level, whose first point is 0, or the end of the buffer).
XS_ON_REQUEST __global__ void __launch_bounds__(256)
xs_tree_counts(const long long* __restrict__ first, long long total, long long n,
               long long* __restrict__ count)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x; q < total; q += step) {
        const long long next = q + 1 < total ? first[q + 1] : 0;
        count[q] = (next != 0 ? next : n) - first[q];
    }
}
