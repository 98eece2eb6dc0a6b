/* xstride/detail/scan_segments.cuh -- private helpers of the look-back scan
 * (xstride/_kernels/scans.cu): warp segments of the tile staged in shared memory.
 * Not part of the shipped header API: names and contents may change in any release.
 * Included by scans.cu after its own load helpers (xs_aligned16),
 * which it uses. Compiled by NVRTC: no standard headers.
 */
#ifndef XSTRIDE_DETAIL_SCAN_SEGMENTS_CUH
#define XSTRIDE_DETAIL_SCAN_SEGMENTS_CUH

// ---- warp segments in shared memory: the segment of 32 * ITEMS elements of a warp
// is kept as 16-byte chunks with 16 bytes of padding after every 128 bytes (chunk c at
// byte xs_chunk_at(c)). Lanes then read and write their ITEMS consecutive elements as
// 16-byte vectors without bank conflicts (a quarter warp touches 8 different 4-bank
// groups), and the global loads and stores stay coalesced 16-byte vectors.
__device__ __forceinline__ constexpr int xs_chunk_at(int c) { return (c + (c >> 3)) * 16; }

template <typename T, int ITEMS>
__device__ __forceinline__ constexpr int xs_seg_bytes()
{
    return xs_chunk_at(32 * ITEMS * (int)sizeof(T) / 16);
}

// Copy elements seg0 .. seg0 + 32*ITEMS - 1 of a row into the warp's chunks (0 past
// `len`); 16-byte loads, all issued before any is stored, when the segment is full,
// unit-stride and aligned.
template <typename T, int ITEMS>
__device__ __forceinline__ void xs_seg_load(const T* __restrict__ p, long long seg0, long long len,
                                            long long s, unsigned char* sw, unsigned lane)
{
    constexpr int VI = 16 / (int)sizeof(T);
    constexpr int K = ITEMS / VI;                      // chunks per lane
    if (s == 1 && seg0 + 32 * ITEMS <= len && xs_aligned16(p + seg0)) {
        const uint4* src = reinterpret_cast<const uint4*>(p + seg0);
        uint4 w[K];
#pragma unroll
        for (int i = 0; i < K; ++i) w[i] = __ldg(src + i * 32 + lane);
#pragma unroll
        for (int i = 0; i < K; ++i)
            *reinterpret_cast<uint4*>(sw + xs_chunk_at(i * 32 + (int)lane)) = w[i];
    } else {
        T w[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const long long k = seg0 + j * 32 + lane;
            w[j] = k < len ? p[k * s] : T(0);
        }
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const int e = j * 32 + (int)lane;
            *reinterpret_cast<T*>(sw + xs_chunk_at(e / VI) + (e % VI) * (int)sizeof(T)) = w[j];
        }
    }
    __syncwarp();
}

// Lane l's elements l*ITEMS + p*P .. + P - 1 of the segment (part p of P elements),
// as 16-byte reads.
template <typename T, int ITEMS, int P>
__device__ __forceinline__ void xs_seg_read(const unsigned char* sw, unsigned lane, int p,
                                            T (&v)[P])
{
    constexpr int VI = 16 / (int)sizeof(T);
    union U { uint4 u; T t[VI]; };
#pragma unroll
    for (int k = 0; k < P / VI; ++k) {
        U w;
        w.u = *reinterpret_cast<const uint4*>(
            sw + xs_chunk_at((int)lane * (ITEMS / VI) + p * (P / VI) + k));
#pragma unroll
        for (int j = 0; j < VI; ++j) v[k * VI + j] = w.t[j];
    }
}

// Address of element e (0 .. ITEMS - 1) of lane `lane`'s elements in the segment.
template <typename T, int ITEMS>
__device__ __forceinline__ T* xs_lane_elem(unsigned char* sw, unsigned lane, int e)
{
    constexpr int VI = 16 / (int)sizeof(T);
    return reinterpret_cast<T*>(sw + xs_chunk_at((int)lane * (ITEMS / VI) + e / VI)
                                + (e % VI) * (int)sizeof(T));
}

// Store the warp's chunks to elements seg0 .. of a row (nothing past `len`): 16-byte
// coalesced stores when full, unit-stride and aligned.
template <typename T, int ITEMS>
__device__ __forceinline__ void xs_seg_store(T* __restrict__ q, long long seg0, long long len,
                                             long long s, const unsigned char* sw, unsigned lane)
{
    constexpr int VI = 16 / (int)sizeof(T);
    constexpr int K = ITEMS / VI;
    if (s == 1 && seg0 + 32 * ITEMS <= len && xs_aligned16(q + seg0)) {
        uint4* dst = reinterpret_cast<uint4*>(q + seg0);
#pragma unroll
        for (int i = 0; i < K; ++i)
            dst[i * 32 + lane] = *reinterpret_cast<const uint4*>(sw + xs_chunk_at(i * 32 + (int)lane));
        return;
    }
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const int e = j * 32 + (int)lane;
        const long long k = seg0 + e;
        if (k < len)
            q[k * s] = *reinterpret_cast<const T*>(sw + xs_chunk_at(e / VI) + (e % VI) * (int)sizeof(T));
    }
}

#endif  // XSTRIDE_DETAIL_SCAN_SEGMENTS_CUH
