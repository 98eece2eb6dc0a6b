// Morton key kernels for xstride.algorithms on CuPy arrays (launcher: morton.py).
//
// Positions are read through element strides (row stride rs, column stride cs), so any
// strided (n, ndim) view works without a copy. A row with a NaN or infinite coordinate
// is recorded in *bad (atomicMin of its row index; the launcher initialises it to
// 2**64 - 1 and raises ValueError naming the row); its key is computed as if the bad
// coordinates were in cell 0.
#include <xstride/morton.cuh>

#define XSTRIDE_MORTON_KEYS_KERNELS(T, SUFFIX)                                                   \
extern "C" __global__ void xstride_morton_keys2_##SUFFIX(                                        \
    const T* __restrict__ pos, long long n, long long rs, long long cs,                          \
    double l0, double l1, double s0, double s1, int levels,                                      \
    unsigned long long* __restrict__ keys, unsigned long long* __restrict__ bad)                 \
{                                                                                                \
    const long long step = (long long)gridDim.x * blockDim.x;                                    \
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {     \
        const double x = (double)pos[i * rs];                                                    \
        const double y = (double)pos[i * rs + cs];                                               \
        if (!(xstride_morton_isfinite(x) && xstride_morton_isfinite(y))) {                       \
            atomicMin(bad, (unsigned long long)i);                                               \
        }                                                                                        \
        keys[i] = xstride_morton_key2(x, y, l0, l1, s0, s1, levels);                             \
    }                                                                                            \
}                                                                                                \
extern "C" __global__ void xstride_morton_keys3_##SUFFIX(                                        \
    const T* __restrict__ pos, long long n, long long rs, long long cs,                          \
    double l0, double l1, double l2, double s0, double s1, double s2, int levels,                \
    unsigned long long* __restrict__ keys, unsigned long long* __restrict__ bad)                 \
{                                                                                                \
    const long long step = (long long)gridDim.x * blockDim.x;                                    \
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {     \
        const double x = (double)pos[i * rs];                                                    \
        const double y = (double)pos[i * rs + cs];                                               \
        const double z = (double)pos[i * rs + 2 * cs];                                           \
        if (!(xstride_morton_isfinite(x) && xstride_morton_isfinite(y)                           \
              && xstride_morton_isfinite(z))) {                                                  \
            atomicMin(bad, (unsigned long long)i);                                               \
        }                                                                                        \
        keys[i] = xstride_morton_key3(x, y, z, l0, l1, l2, s0, s1, s2, levels);                  \
    }                                                                                            \
}

XSTRIDE_MORTON_KEYS_KERNELS(double, f64)
XSTRIDE_MORTON_KEYS_KERNELS(float, f32)

// Keys of cells given as contiguous uint64 arrays (already range-checked).
extern "C" __global__ void xstride_morton_encode2_u64(const unsigned long long* __restrict__ ix,
                                                      const unsigned long long* __restrict__ iy,
                                                      long long n,
                                                      unsigned long long* __restrict__ keys)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        keys[i] = xstride_morton_encode2(ix[i], iy[i]);
    }
}

extern "C" __global__ void xstride_morton_encode3_u64(const unsigned long long* __restrict__ ix,
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
extern "C" __global__ void xstride_morton_decode2_u64(const unsigned long long* __restrict__ keys,
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

extern "C" __global__ void xstride_morton_decode3_u64(const unsigned long long* __restrict__ keys,
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
