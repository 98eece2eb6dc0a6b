/* xstride/detail/scan_row_io.cuh -- private helpers of the scan kernels
 * (xstride/_kernels/scans.cu, scans_rows.cu): elements of a row loaded and stored as
 * 16-byte words where the address and the stride allow, else one at a time.
 * Not part of the shipped header API: names and contents may change in any release.
 * Compiled by NVRTC: no standard headers.
 */
#ifndef XSTRIDE_DETAIL_SCAN_ROW_IO_CUH
#define XSTRIDE_DETAIL_SCAN_ROW_IO_CUH

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

#endif  // XSTRIDE_DETAIL_SCAN_ROW_IO_CUH
