// Stable LSD radix sort of integer keys with an int64 permutation, for sort_by_key on
// CuPy arrays. Launched by xstride/_kernels/sort.py. Compiled by NVRTC: no standard
// headers.
//
// Algorithm: the one-sweep radix sort of A. Adinets and D. Merrill (2022), "Onesweep:
// A Faster Least Significant Digit Radix Sort for GPUs", arXiv:2206.01784:
//   1. xs_radix_or (only when the caller does not say how many bits the keys carry):
//      the bitwise OR of every key, one 64-bit word read back by the host, which sorts
//      only the bits below the OR's highest set bit (or all bits when a signed key is
//      negative).
//   2. xs_radix_histogram: one pass over the keys counts the 8-bit digits of every
//      digit place at once (hist[place][digit]).
//   3. xs_radix_offsets: an exclusive scan of each place's 256 counts (one block per
//      place): the first output position of each digit value.
//   4. xs_radix_onesweep, once per digit place, least significant first: each block
//      takes the next tile of TILE = 256 * ITEMS keys (in index order, from an atomic
//      counter), ranks its keys by digit (warp multi-split: one ballot per digit bit),
//      publishes its per-digit counts and looks back across the tiles before it for
//      the per-digit counts of all earlier tiles (decoupled look-back, Merrill &
//      Garland, NVR-2016-002), then scatters the keys and the permutation through a
//      tile sorted in shared memory (so writes of one digit are contiguous), and the
//      rows of one value array with them: carried through every pass (CARRY) or
//      gathered by the permutation in the last pass.
//
// Keys are passed as the unsigned type K of their width (the host views signed keys
// as unsigned); a digit is taken from (key ^ flip), where flip is the sign bit for
// signed keys and 0 otherwise, so negative keys sort before non-negative ones. The keys
// written out are the input bits (unflipped).
//
// Stability: within a tile a key's slot is (digit start in the tile) + (count of equal
// digits in earlier warps) + (rank in its warp); a warp holds 32 * ITEMS consecutive
// keys, lane l taking key seg + j * 32 + l at step j, and ranks step after step, so
// equal digits keep index order. Across tiles, tile t's keys of digit d follow those of
// tiles 0..t-1 (the look-back sum). Every count is an integer: the result does not
// depend on timing.
#include <xstride/scan.cuh>

#define XS_RADIX_THREADS 256   // threads per block == digit values (one digit per thread)
#define XS_RADIX_BINS 256
#define XS_RADIX_WARPS (XS_RADIX_THREADS / 32)
#define XS_RADIX_MAX_PLACES 8
#define XS_RADIX_NONE 0xffffffffu   // no key (past n): matches no digit

// The digit of `key` at bit `shift` (mask: 0xff, or fewer bits for the top place).
template <typename K>
__device__ __forceinline__ unsigned xs_radix_digit(K key, K flip, unsigned shift, unsigned mask)
{
    const unsigned long long bits = (unsigned long long)(K)(key ^ flip);
    return (unsigned)(bits >> shift) & mask;
}

// Keys each thread loads before it uses any of them in the grid-stride kernels (OR,
// histogram): enough loads in flight to keep the memory busy.
#define XS_RADIX_UNROLL 4

// The bitwise OR of keys[0..n) into *out (which the host zeroes). Grid-stride loop,
// XS_RADIX_UNROLL keys per thread per step.
template <typename K>
__global__ void __launch_bounds__(256) xs_radix_or(const K* __restrict__ keys, long long n,
                                                   unsigned long long* __restrict__ out)
{
    unsigned long long acc = 0ull;
    const long long step = (long long)gridDim.x * blockDim.x * XS_RADIX_UNROLL;
#pragma unroll 1
    for (long long b = (long long)blockIdx.x * blockDim.x * XS_RADIX_UNROLL + threadIdx.x; b < n;
         b += step) {
        K k[XS_RADIX_UNROLL];
#pragma unroll
        for (int u = 0; u < XS_RADIX_UNROLL; ++u) {
            const long long i = b + (long long)u * blockDim.x;
            k[u] = i < n ? keys[i] : (K)0;
        }
#pragma unroll
        for (int u = 0; u < XS_RADIX_UNROLL; ++u) acc |= (unsigned long long)k[u];
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) acc |= __shfl_xor_sync(0xffffffffu, acc, o);
    __shared__ unsigned long long s_or[32];
    if ((threadIdx.x & 31u) == 0u) s_or[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t = 0ull;
        for (unsigned w = 0; w < (blockDim.x + 31u) / 32u; ++w) t |= s_or[w];
        if (t) atomicOr(out, t);
    }
}

// The mask of digit place p when `bits` bits are sorted (the top place may be narrower).
__device__ __forceinline__ unsigned xs_radix_mask(int bits, int place)
{
    const int left = bits - 8 * place;
    return left >= 8 ? 0xffu : ((1u << left) - 1u);
}

// hist[p * 256 + d] += the number of keys whose digit at place p is d, p < places
// (hist zeroed by the host; counts of one block kept in 32-bit shared counters, which
// the host keeps below 2**32 by its grid size). Grid-stride loop, 256 threads,
// XS_RADIX_UNROLL keys per thread per step.
template <typename K>
__global__ void __launch_bounds__(XS_RADIX_THREADS)
xs_radix_histogram(const K* __restrict__ keys, long long n, unsigned long long flip64, int places,
                   int bits, unsigned long long* __restrict__ hist)
{
    __shared__ unsigned s_hist[XS_RADIX_MAX_PLACES * XS_RADIX_BINS];
    const K flip = (K)flip64;
    for (int i = threadIdx.x; i < places * XS_RADIX_BINS; i += XS_RADIX_THREADS) s_hist[i] = 0u;
    __syncthreads();
    const long long step = (long long)gridDim.x * XS_RADIX_THREADS * XS_RADIX_UNROLL;
#pragma unroll 1
    for (long long b = (long long)blockIdx.x * XS_RADIX_THREADS * XS_RADIX_UNROLL + threadIdx.x;
         b < n; b += step) {
        K k[XS_RADIX_UNROLL];
#pragma unroll
        for (int u = 0; u < XS_RADIX_UNROLL; ++u) {
            const long long i = b + (long long)u * XS_RADIX_THREADS;
            k[u] = i < n ? keys[i] : (K)0;
        }
#pragma unroll
        for (int u = 0; u < XS_RADIX_UNROLL; ++u) {
            if (b + (long long)u * XS_RADIX_THREADS >= n) break;
            for (int p = 0; p < places; ++p)
                atomicAdd(&s_hist[p * XS_RADIX_BINS + xs_radix_digit(k[u], flip, 8u * p,
                                                                     xs_radix_mask(bits, p))],
                          1u);
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < places * XS_RADIX_BINS; i += XS_RADIX_THREADS) {
        const unsigned c = s_hist[i];
        if (c) atomicAdd(hist + i, (unsigned long long)c);
    }
}

// hist[p * 256 + d] <- sum of hist[p * 256 + e] for e < d: one block of 256 threads per
// place (grid = places).
__global__ void __launch_bounds__(XS_RADIX_THREADS) xs_radix_offsets(unsigned long long* hist)
{
    unsigned long long* h = hist + (long long)blockIdx.x * XS_RADIX_BINS;
    const unsigned long long v = h[threadIdx.x];
    const unsigned long long e = xstride_block_exclusive_sum(v);
    h[threadIdx.x] = e;
}

// ---------------------------------------------------------------- look-back words
// status[tile * 256 + d] holds one 64-bit word per tile and digit:
//   bits 63..60: tag = pass + 1 (a word left by an earlier pass of the same sort, or
//                the host's zero, reads as "not ready");
//   bits 59..58: 1 = aggregate (this tile's count of d), 2 = inclusive (the count of d
//                in tiles 0..tile);
//   bits 57..0:  the count.
// Flag and count travel in one word, written by one st.relaxed.gpu and read by one
// ld.relaxed.gpu (single-copy atomic for an aligned 64-bit access): a reader never sees
// a flag without its count, so no __threadfence() is needed between them, and no other
// memory is communicated through the flags (the scattered keys are read only by the
// next launch, which the stream orders after this one). The asm volatile loads are
// re-issued on every turn of the spin loop.
#define XS_RADIX_AGG 1ull
#define XS_RADIX_INCL 2ull
#define XS_RADIX_COUNT_MASK ((1ull << 58) - 1ull)

__device__ __forceinline__ void xs_radix_publish(unsigned long long* p, unsigned tag,
                                                 unsigned long long flag,
                                                 unsigned long long count)
{
    const unsigned long long w = ((unsigned long long)tag << 60) | (flag << 58) | count;
    asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" :: "l"(p), "l"(w) : "memory");
}

__device__ __forceinline__ unsigned long long xs_radix_peek(const unsigned long long* p)
{
    unsigned long long w;
    asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(w) : "l"(p) : "memory");
    return w;
}

// The count of digit d in tiles 0..tile-1, by looking back from tile - 1: add the
// aggregates of tiles that have published only their own count, stop at the first
// inclusive count. Spins while a tile has not published yet: tiles are handed out by
// an atomic counter in index order, so every earlier tile belongs to a block that has
// started (is resident or done) and publishes its aggregate before it waits on anything
// itself: the wait ends.
__device__ __forceinline__ unsigned long long xs_radix_lookback(const unsigned long long* status,
                                                                long long tile, unsigned d,
                                                                unsigned tag)
{
    unsigned long long excl = 0ull;
    long long k = tile - 1;
    while (k >= 0) {
        const unsigned long long w = xs_radix_peek(status + k * XS_RADIX_BINS + d);
        const unsigned long long flag = (w >> 58) & 3ull;
        if ((unsigned)(w >> 60) != tag || flag == 0ull) continue;   // not ready: spin
        excl += w & XS_RADIX_COUNT_MASK;
        if (flag == XS_RADIX_INCL) break;
        --k;
    }
    return excl;
}

// The lanes of the warp whose digit equals this lane's (valid lanes only; an invalid
// lane gets itself alone, and no valid lane counts it): one ballot per digit bit, each
// lane keeping the lanes that agree with it on that bit (the multi-split of Adinets &
// Merrill, 2022, section 3). Against __match_any_sync on the H200 (2026-12-02, one
// lease, two rounds): the four passes of 2**26 30-bit Morton keys 4.14-4.22 against
// 4.50-4.59 ms, a 64-bit sort of random keys 10.8-11.0 against 11.7-11.9 ms; slower
// only where a warp holds one digit value (the four all-zero top bytes of 30-bit keys
// sorted on 64 bits: 8.57-8.62 against 8.31-8.42 ms for the eight passes).
__device__ __forceinline__ unsigned xs_radix_peers(unsigned d, bool valid)
{
    unsigned peers = __ballot_sync(0xffffffffu, valid);
#pragma unroll
    for (int b = 0; b < 8; ++b) {
        const bool bit = (d >> b) & 1u;
        const unsigned vote = __ballot_sync(0xffffffffu, bit);
        peers &= bit ? vote : ~vote;
    }
    return valid ? peers : (1u << (threadIdx.x & 31u));
}

// The unsigned type of VBYTES bytes: a value row moved as one word (bits unchanged).
template <int VBYTES> struct xs_radix_word;
template <> struct xs_radix_word<1> { typedef unsigned char type; };
template <> struct xs_radix_word<2> { typedef unsigned short type; };
template <> struct xs_radix_word<4> { typedef unsigned int type; };
template <> struct xs_radix_word<8> { typedef unsigned long long type; };

// ---------------------------------------------------------------- one digit pass
// keys_in: (n,) keys as KIN; keys_out: (n,) keys as KOUT; K: the type the pass ranks and
// stages in shared memory. All three are the key's unsigned type, except that K may be
// narrower when every sorted bit fits it: the host then narrows in the first pass
// (KIN wide, K = KOUT narrow), moves narrow keys between passes, and widens in the last
// (K narrow, KOUT wide), so 64-bit Morton keys of 30 bits move as 32-bit keys (every
// key is in [0, 2**bits): nothing is lost); idx_in/idx_out: (n,) permutation as IIN /
// IOUT (idx_in null: the identity, first pass): long long, or unsigned int between
// passes when n <= 2**32 (the host then narrows in the first pass and widens to int64
// in the last, as for the keys); shift/mask: this place's digit; bin_offsets: (256,) the
// place's exclusive digit offsets (xs_radix_offsets); status: (ntiles * 256,) look-back
// words, zeroed by the host before the first pass; tile_counter: this pass's own
// counter, zeroed by the host; tag: pass + 1; vals_in/vals_out: with VBYTES > 0, (n,)
// value rows of VBYTES bytes, else null. Without CARRY (the last or only pass) vals_in
// is in the input's order and vals_out[j] = vals_in[idx_out[j]] (the gather of
// sort_by_key's first value array, done here instead of by a launch of its own: one
// random read a row). With CARRY (every pass of the sort) vals_in is in this pass's
// input order and its rows move with the keys, read in order and written through the
// same slots of the tile: no random read, at the cost of a pass over the values each
// pass. Grid: ntiles = ceil(n / TILE) blocks of 256 threads. MINB: blocks per SM the
// compiler must fit (__launch_bounds__; 3 caps a thread at 80 registers, which a pass
// that moves values exceeds: it takes 2), tuning knobs of xstride/_plans/radix_sort.py.
template <typename KIN, typename K, typename KOUT, typename IIN, typename IOUT, int ITEMS,
          int MINB, int VBYTES = 0, bool CARRY = false>
__global__ void __launch_bounds__(XS_RADIX_THREADS, MINB)
xs_radix_onesweep(const KIN* __restrict__ keys_in, KOUT* __restrict__ keys_out,
                  const IIN* __restrict__ idx_in, IOUT* __restrict__ idx_out,
                  long long n, unsigned long long flip64, unsigned shift, unsigned mask,
                  const unsigned long long* __restrict__ bin_offsets, unsigned long long* status,
                  unsigned* tile_counter, unsigned tag, const void* __restrict__ vals_in,
                  void* __restrict__ vals_out)
{
    static_assert(XS_RADIX_THREADS == XS_RADIX_BINS, "one digit value per thread");
    static_assert(!CARRY || VBYTES > 0, "carried values need their word size");
    constexpr int TILE = XS_RADIX_THREADS * ITEMS;
    constexpr int SEG = 32 * ITEMS;   // consecutive keys of one warp
    __shared__ __align__(16) unsigned long long s_buf[TILE];   // the tile, sorted by digit
    __shared__ unsigned s_warp[XS_RADIX_WARPS * XS_RADIX_BINS]; // [warp][digit] counts
    __shared__ unsigned s_start[XS_RADIX_BINS];    // first slot of each digit in the tile
    __shared__ long long s_base[XS_RADIX_BINS];    // output position of slot 0 of a digit
    __shared__ unsigned s_tile;

    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const K flip = (K)flip64;
    if (threadIdx.x == 0) s_tile = atomicAdd(tile_counter, 1u);
    for (int i = threadIdx.x; i < XS_RADIX_WARPS * XS_RADIX_BINS; i += XS_RADIX_THREADS)
        s_warp[i] = 0u;
    __syncthreads();
    const long long tile = (long long)s_tile;
    const long long t0 = tile * TILE;
    const long long seg = t0 + (long long)warp * SEG;

    // ---- load (coalesced: step j of a warp reads 32 consecutive keys) and rank; rd[j]
    // packs the digit (bits 31..16) and the rank among equal digits of the warp so far
    // (bits 15..0; a warp holds 32 * ITEMS < 2**16 keys), or is XS_RADIX_NONE past n.
    // The permutation's entries of the same keys are loaded here too, so that their
    // latency hides behind the ranking instead of stalling the scatter after it
    // (H200, 2026-12-03, 2**26 keys with an int64 payload: 30-bit sort 5.63-5.65 ->
    // 5.07-5.13 ms, 63-bit 10.53-10.55 -> 9.88-10.12 ms).
    K key[ITEMS];
    IOUT ix[ITEMS];
    unsigned rd[ITEMS];
    const unsigned lt = (1u << lane) - 1u;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const long long i = seg + j * 32 + lane;
        key[j] = i < n ? (K)keys_in[i] : (K)0;   // narrowing keeps the sorted bits
    }
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const long long i = seg + j * 32 + lane;
        ix[j] = i < n ? (idx_in != nullptr ? (IOUT)idx_in[i] : (IOUT)i) : (IOUT)0;
    }
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const bool valid = seg + j * 32 + lane < n;
        const unsigned d = valid ? xs_radix_digit(key[j], flip, shift, mask) : XS_RADIX_NONE;
        const unsigned peers = xs_radix_peers(d, valid);
        const unsigned leader = __ffs(peers) - 1u;
        unsigned base = 0u;
        if (valid && lane == leader)
            base = atomicAdd(&s_warp[warp * XS_RADIX_BINS + d], __popc(peers));
        // the shuffle also orders this step's counter updates before the next step's
        base = __shfl_sync(0xffffffffu, base, leader);
        rd[j] = valid ? (d << 16) | (base + __popc(peers & lt)) : XS_RADIX_NONE;
    }
    __syncthreads();

    // ---- thread d: counts of digit d over the warps -> exclusive per warp; tile count
    const unsigned d = threadIdx.x;
    unsigned count = 0u;
#pragma unroll
    for (int w = 0; w < XS_RADIX_WARPS; ++w) {
        const unsigned c = s_warp[w * XS_RADIX_BINS + d];
        s_warp[w * XS_RADIX_BINS + d] = count;
        count += c;
    }
    const unsigned start = xstride_block_exclusive_sum(count);   // (has barriers)
    s_start[d] = start;

    // ---- publish this tile's count of d, look back, publish the inclusive count
    unsigned long long* mine = status + tile * XS_RADIX_BINS + d;
    unsigned long long excl = 0ull;
    if (tile == 0) {
        xs_radix_publish(mine, tag, XS_RADIX_INCL, (unsigned long long)count);
    } else {
        xs_radix_publish(mine, tag, XS_RADIX_AGG, (unsigned long long)count);
        excl = xs_radix_lookback(status, tile, d, tag);
        xs_radix_publish(mine, tag, XS_RADIX_INCL, excl + count);
    }
    s_base[d] = (long long)(bin_offsets[d] + excl) - (long long)start;
    __syncthreads();

    // ---- the keys into their slots of the tile sorted by digit (rd[j] becomes the
    // slot), then out
    K* s_keys = reinterpret_cast<K*>(s_buf);
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        if (rd[j] != XS_RADIX_NONE) {
            const unsigned dj = rd[j] >> 16;
            rd[j] = (rd[j] & 0xffffu) + s_start[dj] + s_warp[warp * XS_RADIX_BINS + dj];
            s_keys[rd[j]] = key[j];
        }
    }
    // carried values: this pass's rows of the tile's keys, in order (issued now, when the
    // keys' registers are free; they arrive while the keys and the permutation go out)
    typedef typename xs_radix_word<VBYTES == 0 ? 8 : VBYTES>::type V;
    V val[CARRY ? ITEMS : 1];
    if constexpr (CARRY) {
        const V* __restrict__ vin = static_cast<const V*>(vals_in);
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const long long i = seg + j * 32 + lane;
            if (i < n) val[j] = vin[i];
        }
    }
    __syncthreads();
    const long long rem = n - t0;
    const int tile_n = rem < TILE ? (int)rem : TILE;
    unsigned dig[ITEMS];   // the digit of slot k * 256 + threadIdx.x
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
        const int i = k * XS_RADIX_THREADS + threadIdx.x;
        dig[k] = 0u;
        if (i < tile_n) {
            const K kk = s_keys[i];
            const unsigned dd = xs_radix_digit(kk, flip, shift, mask);
            dig[k] = dd;
            keys_out[s_base[dd] + i] = (KOUT)kk;
        }
    }
    __syncthreads();   // every key read from s_buf before the indices overwrite it

    // ---- the permutation (loaded with the keys), through the same slots
    IOUT* s_idx = reinterpret_cast<IOUT*>(s_buf);
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const long long i = seg + j * 32 + lane;
        if (i < n) s_idx[rd[j]] = ix[j];
    }
    __syncthreads();
    if constexpr (VBYTES == 0 || CARRY) {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const int i = k * XS_RADIX_THREADS + threadIdx.x;
            if (i < tile_n) idx_out[s_base[dig[k]] + i] = s_idx[i];
        }
    }
    if constexpr (CARRY) {
        // the carried values through the same slots
        __syncthreads();   // every index read from s_buf before the values overwrite it
        V* s_v = reinterpret_cast<V*>(s_buf);
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            if (rd[j] != XS_RADIX_NONE) s_v[rd[j]] = val[j];
        }
        __syncthreads();
        V* __restrict__ vout = static_cast<V*>(vals_out);
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const int i = k * XS_RADIX_THREADS + threadIdx.x;
            if (i < tile_n) vout[s_base[dig[k]] + i] = s_v[i];
        }
    } else if constexpr (VBYTES > 0) {
        // the last pass: the values' rows too, each gathered from its original index
        // (the permutation's entry) and written where the index goes; every load of
        // the tile is issued before the first store
        const V* __restrict__ vin = static_cast<const V*>(vals_in);
        V* __restrict__ vout = static_cast<V*>(vals_out);
        V v[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const int i = k * XS_RADIX_THREADS + threadIdx.x;
            if (i < tile_n) v[k] = vin[(long long)s_idx[i]];
        }
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const int i = k * XS_RADIX_THREADS + threadIdx.x;
            if (i < tile_n) {
                const long long at = s_base[dig[k]] + i;
                idx_out[at] = s_idx[i];
                vout[at] = v[k];
            }
        }
    }
}
