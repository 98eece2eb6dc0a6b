// var and std on the device besides the reductions' passes (launcher: reductions.py):
// the finish of the two-pass path (_var_finish) and short rows in one kernel
// (_var_rows). Compiled by NVRTC: no standard headers.
#include <xstride/detail/namespace_kernels.cuh>

// The last step of the two-pass path: each output is the float64 sum of squared
// deviations divided by the degrees of freedom, its square root for std, rounded once
// to the output type. Double division and sqrt are the IEEE operations (correctly
// rounded), so the bits are those of the three array operations this replaces
// (ss / dof, sqrt, astype), in one pass over the outputs.
template <typename T, bool ROOT>
__global__ void __launch_bounds__(256)
xs_var_finish(const double* __restrict__ ss, T* __restrict__ out, long long n, double dof)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        double v = ss[i] / dof;
        if (ROOT) v = sqrt(v);
        out[i] = (T)v;
    }
}

// Rows of at most R elements (R a power of two from 4 to 32, the host's smallest at
// least rowlen), one reduced axis of element stride d.rstride[0], many rows (MINB: the
// blocks per SM of the launch bounds, TUNING["var_rows"] in _reduce_common.py): one thread
// per output row, the rows in a grid-stride loop. The thread loads its row into
// registers once, every load issued before any is used (V > 1: whole 16-byte
// vectors, when the host found the rows contiguous, 16-byte aligned and a whole
// number of vectors long), then runs the two passes of the two-pass path on them, in
// float64 and in the order j = 0, 1, ..., rowlen - 1: the mean (the sum divided once
// by rowlen), then the sum of squared deviations from it, divided by dof (its square
// root for std) and rounded once to Tout. One read of the input instead of two, and no
// float64 mean and sums of squares between kernels (Welford's one-pass update is not
// used: the two-pass formula is the accurate one, Chan, Golub & LeVeque, "Algorithms
// for computing the sample variance", The American Statistician 37(3), 1983).
template <typename Tin, typename Tout, int NK, int R, int V, bool ROOT, int MINB>
__global__ void __launch_bounds__(256, MINB)
xs_var_rows(const Tin* __restrict__ x, Tout* __restrict__ out, const xs_red_desc<NK, 1> d,
            long long nrows, long long rowlen, double dof)
{
    static_assert(R % V == 0, "whole vectors per row");
    const long long step = (long long)gridDim.x * blockDim.x;
    const long long s = d.rstride[0];
    const int len = (int)rowlen;
    for (long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x; row < nrows;
         row += step) {
        const Tin* p = x + xs_offset<NK>(row, d.kshape, d.kstride, d.nk);
        Tin v[R];
        if constexpr (V > 1) {
#pragma unroll
            for (int j = 0; j < R; j += V) {
                if (j < len) {
                    union { uint4 u; Tin t[V]; } w;
                    w.u = __ldg(reinterpret_cast<const uint4*>(p + j));
#pragma unroll
                    for (int u = 0; u < V; ++u) v[j + u] = w.t[u];
                }
            }
        } else {
#pragma unroll
            for (int j = 0; j < R; ++j)
                if (j < len) v[j] = p[j * s];
        }
        double sum = 0.0;
#pragma unroll
        for (int j = 0; j < R; ++j)
            if (j < len) sum = sum + (double)v[j];
        const double c = sum / (double)rowlen;
        double ss = 0.0;
#pragma unroll
        for (int j = 0; j < R; ++j) {
            if (j < len) {
                const double t = (double)v[j] - c;
                ss = ss + t * t;
            }
        }
        double r = ss / dof;
        if (ROOT) r = sqrt(r);
        out[row] = (Tout)r;
    }
}

// (count, mean, M2) of a set of values, M2 the sum of squared deviations from the mean.
struct xs_moments {
    double n, mean, m2;
};

// The moments of the union of two disjoint sets (Chan, Golub & LeVeque, "Updating
// formulae and a pairwise algorithm for computing sample variances", Stanford
// STAN-CS-79-773, 1979: delta = mean_b - mean_a, M2 = M2_a + M2_b + delta^2 n_a n_b / n).
// An empty side leaves the other as it is.
__device__ __forceinline__ xs_moments xs_moments_merge(xs_moments a, xs_moments b)
{
    if (b.n == 0.0) return a;
    if (a.n == 0.0) return b;
    const double n = a.n + b.n;
    const double d = b.mean - a.mean;
    xs_moments r;
    r.n = n;
    r.mean = a.mean + d * (b.n / n);
    r.m2 = a.m2 + b.m2 + d * d * (a.n * (b.n / n));
    return r;
}

// var/std over the rows of ncols <= 32 contiguous columns of rows of stride rs >=
// ncols (the reductions' plan strategy "interleave": var(x, axis=0) of an (n, 3)
// array), read once. The walk is xs_reduce_interleave's (reductions.cu): block b takes
// the flat elements [b * chunk, (b + 1) * chunk) of the rows' columns, thread t the
// elements of column t % ncols, b * chunk + t, + blockDim.x, ... (blockDim.x a
// multiple of ncols), B = 8 loads in flight. Each batch of up to 8 values gets its
// exact two-pass moments in registers (float64: the mean, then the squared deviations
// from it), merged into the thread's moments by Chan's formula; the block merges each
// column's threads in thread order, and with several blocks the last block to finish
// (one atomic count) merges the blocks' moments in block order, then divides M2 by
// dof (its square root for std) and rounds once to Tout. Every merge order is fixed by
// the geometry: deterministic run to run. Partials: 3 doubles per (block, column).
template <typename Tin, typename Tout, bool ROOT>
__global__ void __launch_bounds__(256)
xs_var_interleave(const Tin* __restrict__ x, Tout* __restrict__ out, double* partials,
                  unsigned* counters, long long ncols, long long nred, long long rs,
                  long long chunk, long long nchunks, double dof)
{
    constexpr int B = 8;
    __shared__ double sn[256], smean[256], sm2[256];
    __shared__ int s_last;
    const long long total = ncols * nred;
    const long long begin = (long long)blockIdx.x * chunk;
    const long long end = begin + chunk < total ? begin + chunk : total;
    const unsigned t = threadIdx.x;
    const long long bd = (long long)blockDim.x;
    const int col = (int)(t % (unsigned)ncols);
    const long long first = begin + (long long)t;
    const long long count = end > first ? (end - first + bd - 1) / bd : 0;
    const Tin* base = x + (first / ncols) * rs + col;
    const long long rstep = (bd / ncols) * rs;
    xs_moments acc = {0.0, 0.0, 0.0};
    for (long long u = 0; u < count; u += B) {
        const int nb = count - u < B ? (int)(count - u) : B;
        double v[B];
#pragma unroll
        for (int k = 0; k < B; ++k)
            if (k < nb) v[k] = (double)base[(u + k) * rstep];
        double s = 0.0;
#pragma unroll
        for (int k = 0; k < B; ++k)
            if (k < nb) s = s + v[k];
        xs_moments b;
        b.n = (double)nb;
        b.mean = s / b.n;
        b.m2 = 0.0;
#pragma unroll
        for (int k = 0; k < B; ++k) {
            if (k < nb) {
                const double d = v[k] - b.mean;
                b.m2 = b.m2 + d * d;
            }
        }
        acc = xs_moments_merge(acc, b);
    }
    sn[t] = acc.n;
    smean[t] = acc.mean;
    sm2[t] = acc.m2;
    __syncthreads();
    xs_moments a = {0.0, 0.0, 0.0};
    if ((long long)t < ncols) {
        for (unsigned u = t; u < blockDim.x; u += (unsigned)ncols)
            a = xs_moments_merge(a, xs_moments{sn[u], smean[u], sm2[u]});
        if (nchunks == 1) {
            double r = a.m2 / dof;
            if (ROOT) r = sqrt(r);
            out[t] = (Tout)r;
        } else {
            double* p = partials + 3 * ((long long)blockIdx.x * ncols + t);
            p[0] = a.n;
            p[1] = a.mean;
            p[2] = a.m2;
        }
    }
    if (nchunks == 1) return;
    __threadfence();
    __syncthreads();
    if (t == 0) {
        const unsigned prev = atomicAdd(counters, 1u);
        s_last = prev == (unsigned)(nchunks - 1);
    }
    __syncthreads();
    if (!s_last || (long long)t >= ncols) return;
    __threadfence();
    const volatile double* vp = partials;
    xs_moments f = {0.0, 0.0, 0.0};
    for (long long ch = 0; ch < nchunks; ++ch) {
        const long long i = 3 * (ch * ncols + t);
        f = xs_moments_merge(f, xs_moments{vp[i], vp[i + 1], vp[i + 2]});
    }
    double r = f.m2 / dof;
    if (ROOT) r = sqrt(r);
    out[t] = (Tout)r;
    if (t == 0) counters[0] = 0u;
}
