// Morton key kernels for xstride.algorithms on CuPy arrays (launcher: morton.py).
//
// Positions are read through element strides (row stride rs, column stride cs), so any
// strided (n, ndim) view works without a copy. A row with a NaN or infinite coordinate
// is recorded in *bad (atomicMin of its row index; the launcher initialises it to
// 2**64 - 1 and raises ValueError naming the row); its key is computed as if the bad
// coordinates were in cell 0.
#include <xstride/morton.cuh>
#include <xstride/detail/on_request.cuh>

#define XSTRIDE_MORTON_KEYS_KERNELS(T, SUFFIX)                                                \
XS_ON_REQUEST __global__ void xstride_morton_keys2_##SUFFIX(                                  \
    const T* __restrict__ pos, long long n, long long rs, long long cs,                       \
    double l0, double l1, double s0, double s1, int levels,                                   \
    unsigned long long* __restrict__ keys, unsigned long long* __restrict__ bad)              \
{                                                                                             \
    const long long step = (long long)gridDim.x * blockDim.x;                                 \
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {  \
        const double x = (double)pos[i * rs];                                                 \
        const double y = (double)pos[i * rs + cs];                                            \
        if (!(xstride_morton_isfinite(x) && xstride_morton_isfinite(y))) {                    \
            atomicMin(bad, (unsigned long long)i);                                            \
        }                                                                                     \
        keys[i] = xstride_morton_key2(x, y, l0, l1, s0, s1, levels);                          \
    }                                                                                         \
}                                                                                             \
XS_ON_REQUEST __global__ void xstride_morton_keys3_##SUFFIX(                                  \
    const T* __restrict__ pos, long long n, long long rs, long long cs,                       \
    double l0, double l1, double l2, double s0, double s1, double s2, int levels,             \
    unsigned long long* __restrict__ keys, unsigned long long* __restrict__ bad)              \
{                                                                                             \
    const long long step = (long long)gridDim.x * blockDim.x;                                 \
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {  \
        const double x = (double)pos[i * rs];                                                 \
        const double y = (double)pos[i * rs + cs];                                            \
        const double z = (double)pos[i * rs + 2 * cs];                                        \
        if (!(xstride_morton_isfinite(x) && xstride_morton_isfinite(y)                        \
              && xstride_morton_isfinite(z))) {                                               \
            atomicMin(bad, (unsigned long long)i);                                            \
        }                                                                                     \
        keys[i] = xstride_morton_key3(x, y, z, l0, l1, l2, s0, s1, s2, levels);               \
    }                                                                                         \
}

XSTRIDE_MORTON_KEYS_KERNELS(double, f64)
XSTRIDE_MORTON_KEYS_KERNELS(float, f32)

// ---- contiguous rows: (n, NDIM) C-ordered, base 16-byte aligned.
// Each block stages a tile of XS_MK_PTS points (XS_MK_PTS * NDIM consecutive elements)
// in shared memory with vector loads (xs_mk_vec: every warp reads 256 or 512 contiguous
// bytes per instruction), then each thread reads its points' coordinates from shared memory
// (rows of 24 B: no bank conflicts for 8-byte reads) and writes its keys (coalesced).
// The NaN/inf check is fused: a bad row is recorded by atomicMin as above.
#define XS_MK_THREADS 256
#define XS_MK_PPT 2
#define XS_MK_PTS (XS_MK_THREADS * XS_MK_PPT)

// The staging loads: 16 bytes, except float32 3-D rows, whose tile of XS_MK_PTS points
// (6144 bytes) is 384 16-byte loads for 256 threads but 768 8-byte loads, three a thread.
template <typename T, int NDIM> struct xs_mk_vec;
template <int NDIM> struct xs_mk_vec<double, NDIM> { typedef double2 type; };
template <> struct xs_mk_vec<float, 2> { typedef float4 type; };
template <> struct xs_mk_vec<float, 3> { typedef float2 type; };

template <typename T, int NDIM>
__device__ __forceinline__ void xs_morton_rows(
    const T* __restrict__ pos, long long n, const double* lo, const double* sc, int levels,
    unsigned long long* __restrict__ keys, unsigned long long* __restrict__ bad)
{
    typedef typename xs_mk_vec<T, NDIM>::type V;
    const int per_vec = (int)(sizeof(V) / sizeof(T));
    const int tile_elems = XS_MK_PTS * NDIM;  // a multiple of per_vec
    const int tile_vecs = tile_elems / per_vec;
    // whole vector loads per thread
    static_assert((XS_MK_PTS * NDIM * sizeof(T)) % (sizeof(V) * XS_MK_THREADS) == 0,
                  "tile must be a whole number of vector loads per thread");
    __shared__ V sh_v[XS_MK_PTS * NDIM * sizeof(T) / sizeof(V)];
    const T* sh = reinterpret_cast<const T*>(sh_v);
    const unsigned long long max_cell = (1ull << levels) - 1ull;
    for (long long t0 = (long long)blockIdx.x * XS_MK_PTS; t0 < n;
         t0 += (long long)gridDim.x * XS_MK_PTS) {
        const long long left = n - t0;
        const int cnt = left < XS_MK_PTS ? (int)left : XS_MK_PTS;
        if (cnt == XS_MK_PTS) {
            const V* src = reinterpret_cast<const V*>(pos + t0 * NDIM);
#pragma unroll
            for (int k = 0; k < tile_vecs / XS_MK_THREADS; ++k) {
                sh_v[k * XS_MK_THREADS + threadIdx.x] = src[k * XS_MK_THREADS + threadIdx.x];
            }
        } else {
            const T* src = pos + t0 * NDIM;
            T* shw = reinterpret_cast<T*>(sh_v);
            for (int e = threadIdx.x; e < cnt * NDIM; e += XS_MK_THREADS) {
                shw[e] = src[e];
            }
        }
        __syncthreads();
#pragma unroll
        for (int p = 0; p < XS_MK_PPT; ++p) {
            const int q = p * XS_MK_THREADS + threadIdx.x;
            if (q < cnt) {
                const double x = (double)sh[q * NDIM];
                const double y = (double)sh[q * NDIM + 1];
                const double z = NDIM == 3 ? (double)sh[q * NDIM + 2] : 0.0;
                if (!(xstride_morton_isfinite(x) && xstride_morton_isfinite(y)
                      && xstride_morton_isfinite(z))) {
                    atomicMin(bad, (unsigned long long)(t0 + q));
                }
                unsigned long long key;
                if (NDIM == 3) {
                    key = xstride_morton_encode3(xstride_morton_cell(x, lo[0], sc[0], max_cell),
                                                 xstride_morton_cell(y, lo[1], sc[1], max_cell),
                                                 xstride_morton_cell(z, lo[2], sc[2], max_cell));
                } else {
                    key = xstride_morton_encode2(xstride_morton_cell(x, lo[0], sc[0], max_cell),
                                                 xstride_morton_cell(y, lo[1], sc[1], max_cell));
                }
                keys[t0 + q] = key;
            }
        }
        __syncthreads();
    }
}

#define XSTRIDE_MORTON_ROWS2_KERNEL(T, SUFFIX)                                                \
XS_ON_REQUEST __global__ void __launch_bounds__(XS_MK_THREADS) xstride_morton_rows2_##SUFFIX( \
    const T* __restrict__ pos, long long n, double l0, double l1, double s0, double s1,       \
    int levels, unsigned long long* __restrict__ keys, unsigned long long* __restrict__ bad)  \
{                                                                                             \
    const double lo[2] = {l0, l1}, sc[2] = {s0, s1};                                          \
    xs_morton_rows<T, 2>(pos, n, lo, sc, levels, keys, bad);                                  \
}
#define XSTRIDE_MORTON_ROWS3_KERNEL(T, SUFFIX)                                                \
XS_ON_REQUEST __global__ void __launch_bounds__(XS_MK_THREADS) xstride_morton_rows3_##SUFFIX( \
    const T* __restrict__ pos, long long n, double l0, double l1, double l2, double s0,       \
    double s1, double s2, int levels, unsigned long long* __restrict__ keys,                  \
    unsigned long long* __restrict__ bad)                                                     \
{                                                                                             \
    const double lo[3] = {l0, l1, l2}, sc[3] = {s0, s1, s2};                                  \
    xs_morton_rows<T, 3>(pos, n, lo, sc, levels, keys, bad);                                  \
}

XSTRIDE_MORTON_ROWS2_KERNEL(double, f64)
XSTRIDE_MORTON_ROWS3_KERNEL(double, f64)
XSTRIDE_MORTON_ROWS2_KERNEL(float, f32)
XSTRIDE_MORTON_ROWS3_KERNEL(float, f32)

// Keys of cells given as contiguous uint64 arrays (already range-checked).
XS_ON_REQUEST __global__ void xstride_morton_encode2_u64(
    const unsigned long long* __restrict__ ix,
    const unsigned long long* __restrict__ iy,
    long long n,
    unsigned long long* __restrict__ keys)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        keys[i] = xstride_morton_encode2(ix[i], iy[i]);
    }
}

XS_ON_REQUEST __global__ void xstride_morton_encode3_u64(
    const unsigned long long* __restrict__ ix,
    const unsigned long long* __restrict__ iy,
    const unsigned long long* __restrict__ iz,
    long long n,
    unsigned long long* __restrict__ keys)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        keys[i] = xstride_morton_encode3(ix[i], iy[i], iz[i]);
    }
}

// Cells (n, ndim) row-major of contiguous uint64 keys.
XS_ON_REQUEST __global__ void xstride_morton_decode2_u64(
    const unsigned long long* __restrict__ keys,
    long long n,
    unsigned long long* __restrict__ cells)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const unsigned long long k = keys[i];
        cells[2 * i] = xstride_morton_compact2(k);
        cells[2 * i + 1] = xstride_morton_compact2(k >> 1);
    }
}

XS_ON_REQUEST __global__ void xstride_morton_decode3_u64(
    const unsigned long long* __restrict__ keys,
    long long n,
    unsigned long long* __restrict__ cells)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const unsigned long long k = keys[i];
        cells[3 * i] = xstride_morton_compact3(k);
        cells[3 * i + 1] = xstride_morton_compact3(k >> 1);
        cells[3 * i + 2] = xstride_morton_compact3(k >> 2);
    }
}
