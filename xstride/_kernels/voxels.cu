// The voxel passes of xstride.algorithms.voxel_downsample on CuPy arrays (launcher:
// voxel_passes.py): the points' bounds and each point's voxel key.
#include <xstride/morton.cuh>
#include <xstride/detail/segment_common.cuh>

// Points (n, D) of float or double, element (i, a) at pts[i * rs + a * cs] (strides in
// elements, possibly negative). A double d maps to an unsigned key that orders as d
// (flip every bit of a negative, the sign bit of a positive), so minima and maxima
// are integer atomicMin's: exact, whatever order they land in.
__device__ __forceinline__ unsigned long long xs_vox_ordered(double d)
{
    const unsigned long long b = (unsigned long long)__double_as_longlong(d);
    return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}

// Points a thread loads before it uses the first (its grid-stride walk unrolled): 3
// loads a thread left both passes waiting on memory (2**26 float32 points (n, 3) on
// the H200, 2026-12-04: bounds 345 us, 2.3 TB/s; keys 666 us, 2.0 TB/s).
#define XS_VOX_ITEMS 4

// rec (2 * D + 1 x u64, every byte 0xFF before the launch): [a] the ordered key of the
// minimum of column a, [D + a] the complement of the ordered key of its maximum, [2D]
// the first row with a NaN or infinite coordinate (such rows are left out of the
// extremes). Each warp folds its lanes by shuffles, each block its warps in shared
// memory, and one thread per entry and block does the global atomicMin.
template <typename T, int D>
__global__ void __launch_bounds__(XS_SEG_THREADS)
xs_vox_bounds(const T* __restrict__ pts, long long n, long long rs, long long cs,
              unsigned long long* __restrict__ rec)
{
    __shared__ unsigned long long sh[2 * D + 1];
    if (threadIdx.x < 2 * D + 1) sh[threadIdx.x] = ~0ull;
    __syncthreads();
    unsigned long long m[2 * D + 1];
#pragma unroll
    for (int e = 0; e < 2 * D + 1; ++e) m[e] = ~0ull;
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i0 = (long long)blockIdx.x * blockDim.x + threadIdx.x; i0 < n;
         i0 += step * XS_VOX_ITEMS) {
        double x[XS_VOX_ITEMS][D];
#pragma unroll
        for (int u = 0; u < XS_VOX_ITEMS; ++u) {
            const long long i = i0 + u * step;
#pragma unroll
            for (int a = 0; a < D; ++a) x[u][a] = i < n ? (double)pts[i * rs + a * cs] : 0.0;
        }
#pragma unroll
        for (int u = 0; u < XS_VOX_ITEMS; ++u) {
            const long long i = i0 + u * step;
            bool finite = i < n;
#pragma unroll
            for (int a = 0; a < D; ++a) finite = finite && isfinite(x[u][a]);
            if (!finite) {
                if (i < n && (unsigned long long)i < m[2 * D]) m[2 * D] = (unsigned long long)i;
                continue;
            }
#pragma unroll
            for (int a = 0; a < D; ++a) {
                const unsigned long long w = xs_vox_ordered(x[u][a]);
                m[a] = w < m[a] ? w : m[a];
                m[D + a] = ~w < m[D + a] ? ~w : m[D + a];
            }
        }
    }
#pragma unroll
    for (int e = 0; e < 2 * D + 1; ++e) {
        const unsigned long long w = xs_seg_warp_min(m[e]);
        if ((threadIdx.x & 31u) == 0 && w != ~0ull) atomicMin(sh + e, w);
    }
    __syncthreads();
    if (threadIdx.x < 2 * D + 1 && sh[threadIdx.x] != ~0ull) {
        atomicMin(rec + threadIdx.x, sh[threadIdx.x]);
    }
}

// The Morton key of each point's voxel, cell a = floor((x - lo[a]) / size[a]) - vmin[a]
// (each operation rounded in double, as NumPy does; the host checked that every cell
// fits the key), XS_VOX_ITEMS points a thread step, every load first. The doubles
// arrive as their bit patterns (long long launch arguments).
template <typename T, int D>
__global__ void __launch_bounds__(XS_SEG_THREADS)
xs_vox_keys(const T* __restrict__ pts, long long n, long long rs, long long cs,
            long long lo0, long long lo1, long long lo2, long long sz0, long long sz1,
            long long sz2, long long vm0, long long vm1, long long vm2,
            unsigned long long* __restrict__ keys)
{
    const double lo[3] = {__longlong_as_double(lo0), __longlong_as_double(lo1),
                          __longlong_as_double(lo2)};
    const double sz[3] = {__longlong_as_double(sz0), __longlong_as_double(sz1),
                          __longlong_as_double(sz2)};
    const double vm[3] = {__longlong_as_double(vm0), __longlong_as_double(vm1),
                          __longlong_as_double(vm2)};
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i0 = (long long)blockIdx.x * blockDim.x + threadIdx.x; i0 < n;
         i0 += step * XS_VOX_ITEMS) {
        T x[XS_VOX_ITEMS][D];
#pragma unroll
        for (int u = 0; u < XS_VOX_ITEMS; ++u) {
            const long long i = i0 + u * step;
#pragma unroll
            for (int a = 0; a < D; ++a) x[u][a] = i < n ? pts[i * rs + a * cs] : (T)0;
        }
#pragma unroll
        for (int u = 0; u < XS_VOX_ITEMS; ++u) {
            const long long i = i0 + u * step;
            if (i >= n) break;
            unsigned long long c[3] = {0ull, 0ull, 0ull};
#pragma unroll
            for (int a = 0; a < D; ++a) {
                const double d = __dsub_rn((double)x[u][a], lo[a]);
                c[a] = (unsigned long long)__dsub_rn(floor(__ddiv_rn(d, sz[a])), vm[a]);
            }
            keys[i] = D == 3 ? xstride_morton_encode3(c[0], c[1], c[2])
                             : xstride_morton_encode2(c[0], c[1]);
        }
    }
}
