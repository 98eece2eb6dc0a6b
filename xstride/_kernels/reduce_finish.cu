// var and std on the device besides the reductions' passes (launcher: var_kernels.py):
// the finish of the two-pass path and short rows in one kernel (xs_var_rows;
// xs_var_rowregs for dense rows, xs_var_side for rows side by side), the one-pass
// path's shifts and finish (xs_var_center, xs_var_moments). Compiled by NVRTC: no standard headers.
#include <xstride/detail/namespace_kernels.cuh>
#include <xstride/detail/reduce_ops.cuh>
#include <xstride/detail/row_words.cuh>

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

// The finish of the one-pass path of float32 inputs (reductions.py, var): m[i] holds
// (S1, S2), the float64 sums of d and d * d over the N elements of output i, d = x - K,
// K the output's first element. The sum of squared deviations is S2 - S1 * S1 / N
// (exact algebra; clamped at 0 against rounding, a NaN kept), divided by dof, its
// square root for std, rounded once to T. Since K is one of the elements,
// (mean - K)^2 <= N * variance, so the cancellation costs at most a factor 1 + N of
// float64's rounding (below float32's for N < 2**27).
template <typename T, bool ROOT>
__global__ void __launch_bounds__(256)
xs_var_moments(const xs_complex128* __restrict__ m, T* __restrict__ out, long long n,
               double count, double dof)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const xs_complex128 s = m[i];
        double ss = s.im - s.re * s.re / count;
        if (ss < 0.0) ss = 0.0;
        double v = ss / dof;
        if (ROOT) v = sqrt(v);
        out[i] = (T)v;
    }
}

// The shifts of the one-pass path (variance.py): each output row's first element
// (its reduced axes at logical index 0), widened to float64 exactly, as the real part
// of a complex128 (imaginary part 0), in the kernels' row order. x points at row 0's
// first element; row i's is xs_offset(i) elements on, over the kept axes of the
// reduction's descriptor d (so the reduction kernel reads center[i] for its row i).
// One launch instead of the four array operations of a view, a transpose, a cast and a
// reshape.
template <typename Tin, int NK, int NR>
__global__ void __launch_bounds__(256)
xs_var_center(const Tin* __restrict__ x, xs_complex128* __restrict__ c,
              const xs_red_desc<NK, NR> d, long long nrows)
{
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nrows; i += step)
        c[i] = xs_complex128((double)x[xs_offset<NK>(i, d.kshape, d.kstride, d.nk)], 0.0);
}

// The variance of one row: the first n of the N values v (1 <= n <= N), the float64
// mean (their sum in index order, divided once by n), the float64 sum of the squared
// deviations from it in index order, divided by dof, its square root for std (ROOT),
// rounded once to Tout. The two passes of the two-pass path, on registers.
template <typename Tout, bool ROOT, int N, typename T>
__device__ __forceinline__ Tout xs_var_of_row(const T* v, int n, double dof)
{
    double sum = 0.0;
#pragma unroll
    for (int j = 0; j < N; ++j)
        if (j < n) sum = sum + (double)v[j];
    const double c = sum / (double)n;
    double ss = 0.0;
#pragma unroll
    for (int j = 0; j < N; ++j) {
        if (j < n) {
            const double t = (double)v[j] - c;
            ss = ss + t * t;
        }
    }
    double r = ss / dof;
    if (ROOT) r = sqrt(r);
    return (Tout)r;
}

// Rows of at most R elements (R a power of two from 4 to 32, the host's smallest at
// least rowlen), one reduced axis of element stride d.rstride[0], many rows (MINB: the
// blocks per SM of the launch bounds, TUNING["var_rows"] in _reduce_common.py): one thread
// per output row, Q rows a thread at once (rows row, row + step, ..., row + (Q - 1) *
// step of a grid-stride loop of step Q * step). The thread loads its Q rows into
// registers, every load issued before any is used (V > 1: whole 16-byte vectors, when
// the host found the rows contiguous, 16-byte aligned and a whole number of vectors
// long), then runs the two passes of the two-pass path on each row, in float64 and in
// the order j = 0, 1, ..., rowlen - 1: the mean (the sum divided once by rowlen), then
// the sum of squared deviations from it, divided by dof (its square root for std) and
// rounded once to Tout. One read of the input instead of two, and no float64 mean and
// sums of squares between kernels (Welford's one-pass update is not used: the two-pass
// formula is the accurate one, Chan, Golub & LeVeque, "Algorithms for computing the
// sample variance", The American Statistician 37(3), 1983). Q > 1 keeps the loads of
// several short rows in flight a thread (a row of 3 float32 is 12 bytes).
template <typename Tin, typename Tout, int NK, int R, int V, bool ROOT, int MINB, int Q>
__global__ void __launch_bounds__(256, MINB)
xs_var_rows(const Tin* __restrict__ x, Tout* __restrict__ out, const xs_red_desc<NK, 1> d,
            long long nrows, long long rowlen, double dof)
{
    static_assert(R % V == 0, "whole vectors per row");
    const long long step = (long long)gridDim.x * blockDim.x;
    const long long s = d.rstride[0];
    const int len = (int)rowlen;
    for (long long row0 = (long long)blockIdx.x * blockDim.x + threadIdx.x; row0 < nrows;
         row0 += Q * step) {
        Tin v[Q][R];
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            const long long row = row0 + q * step;
            if (row >= nrows) break;
            const Tin* p = x + xs_offset<NK>(row, d.kshape, d.kstride, d.nk);
            if constexpr (V > 1) {
#pragma unroll
                for (int j = 0; j < R; j += V) {
                    if (j < len) {
                        union { uint4 u; Tin t[V]; } w;
                        w.u = __ldg(reinterpret_cast<const uint4*>(p + j));
#pragma unroll
                        for (int u = 0; u < V; ++u) v[q][j + u] = w.t[u];
                    }
                }
            } else {
#pragma unroll
                for (int j = 0; j < R; ++j)
                    if (j < len) v[q][j] = p[j * s];
            }
        }
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            const long long row = row0 + q * step;
            if (row >= nrows) break;
            out[row] = xs_var_of_row<Tout, ROOT, R>(v[q], len, dof);
        }
    }
}

// Rows of L elements stored one after another (the reduced axis of stride 1, row i at
// x + i * L, x on a 16-byte boundary: the host checks), many of them: a thread takes
// rows g * Q .. g * Q + Q - 1, Q * L elements that fill whole 16-byte words, loaded as
// words together (xs_load_row_words; element by element for the last, shorter group),
// as xs_reduce_rowregs (reductions_rows.cu) loads its rows, then xs_var_of_row on each:
// the bits of xs_var_rows, whose rows of an odd length are read element by element
// (3 loads of 4 bytes a row of (n, 3) float32 against 3 words for 4 rows here). The Q
// outputs are stored as whole 16-byte words where they fill them. MINB: the blocks per
// SM of the launch bounds.
template <typename Tin, typename Tout, int L, int Q, bool ROOT, int MINB>
__global__ void __launch_bounds__(256, MINB)
xs_var_rowregs(const Tin* __restrict__ x, Tout* __restrict__ out, long long nrows, double dof)
{
    constexpr int E = L * Q;
    constexpr int OB = Q * (int)sizeof(Tout);     // bytes of a thread's outputs
    const long long r0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) * Q;
    if (r0 >= nrows) return;
    const int rows = nrows - r0 < Q ? (int)(nrows - r0) : Q;
    xs_row_words<Tin, E> v;
    xs_load_row_words(v, x + r0 * L, rows * L);
    union { Tout t[Q]; uint4 w[OB % 16 == 0 ? OB / 16 : 1]; } o;
#pragma unroll
    for (int r = 0; r < Q; ++r)
        o.t[r] = xs_var_of_row<Tout, ROOT, L>(v.t + r * L, L, dof);
    Tout* dst = out + r0;
    if constexpr (OB % 16 == 0) {
        if (rows == Q) {
#pragma unroll
            for (int i = 0; i < OB / 16; ++i)
                reinterpret_cast<uint4*>(dst)[i] = o.w[i];
            return;
        }
    }
#pragma unroll
    for (int r = 0; r < Q; ++r)
        if (r < rows) dst[r] = o.t[r];
}

// Rows that lie side by side (one kept axis of stride 1, the reduced axis of stride s;
// nrows and s multiples of W = 16 / sizeof(Tin), x on a 16-byte boundary: the host
// checks), rowlen <= R: thread g takes rows g * W .. g * W + W - 1, each of their
// rowlen elements one 16-byte load (all issued before any is used), then
// xs_var_of_row on each row (the bits of xs_var_rows, which loads such rows an element
// at a time); the W outputs stored as 16-byte words (out is a fresh allocation, on a
// 16-byte boundary, and W * sizeof(Tout) a multiple of 16). E.g. var(x, axis=1) of a
// float32 (3, n) array used as .T: 3 loads of 16 bytes for 4 rows.
template <typename Tin, typename Tout, int R, bool ROOT, int MINB>
__global__ void __launch_bounds__(256, MINB)
xs_var_side(const Tin* __restrict__ x, Tout* __restrict__ out, long long s, long long nrows,
            long long rowlen, double dof)
{
    constexpr int W = 16 / (int)sizeof(Tin);
    static_assert(W * (int)sizeof(Tin) == 16 && (W * (int)sizeof(Tout)) % 16 == 0,
                  "16-byte loads of W rows, their outputs whole 16-byte words");
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const int len = (int)rowlen;
    for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < nrows / W;
         g += nthreads) {
        const Tin* p = x + g * W;
        Tin v[R][W];
#pragma unroll
        for (int j = 0; j < R; ++j)
            if (j < len) xs_load_vec<Tin, W>(p + j * s, v[j]);
        xs_row_words<Tout, W> o;
#pragma unroll
        for (int u = 0; u < W; ++u) {
            Tin row[R];
#pragma unroll
            for (int j = 0; j < R; ++j) row[j] = v[j][u];
            o.t[u] = xs_var_of_row<Tout, ROOT, R>(row, len, dof);
        }
#pragma unroll
        for (int k = 0; k < W * (int)sizeof(Tout) / 16; ++k)
            reinterpret_cast<uint4*>(out + g * W)[k] = o.u[k];
    }
}
