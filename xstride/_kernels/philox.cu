// Philox4x32-10 kernels of xstride.rng on the device (launched by philox.py).
// Each argument (seed, stream, counter, key words) is read in one of the modes
// documented in philox.py: 0 scalar, 1 linear, 2 strided, 3 affine.
#include <xstride/random.cuh>
#include <xstride/detail/on_request.cuh>


template <typename T>
__device__ __forceinline__ unsigned long long xs_load(
    int mode, unsigned long long v, const T* p, long long lin, long long i,
    int ndim, const long long* dims, const long long* st)
{
    if (mode == 0) return v;
    if (mode == 3) return v + (unsigned long long)i;
    if (mode == 1) return (unsigned long long)p[i * lin];
    long long off = 0;
    for (int d = ndim - 1; d >= 0; --d) {
        const long long e = dims[d];
        const long long q = i / e;
        off += (i - q * e) * st[d];
        i = q;
    }
    return (unsigned long long)p[off];
}

#define XS_SRC(T, x) const T* p##x, unsigned long long v##x, long long l##x, int m##x
#define XS_LOAD(x, slot) xs_load(m##x, v##x, p##x, l##x, i, ndim, geo, geo + (slot) * ndim)

template <int KIND>
__device__ __forceinline__ void xs_real(
    double* out0, double* out1, long long n,
    XS_SRC(unsigned long long, s), XS_SRC(unsigned long long, t),
    XS_SRC(unsigned long long, c), int ndim, const long long* geo)
{
    const long long step = (long long)blockDim.x * gridDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const unsigned long long seed = XS_LOAD(s, 1);
        const unsigned long long stream = XS_LOAD(t, 2);
        const unsigned long long counter = XS_LOAD(c, 3);
        if (KIND == 0) {
            out0[i] = xstride_uniform(seed, stream, counter);
        } else if (KIND == 1) {
            double a, b;
            xstride_uniform2(seed, stream, counter, &a, &b);
            out0[i] = a;
            out1[i] = b;
        } else if (KIND == 2) {
            out0[i] = xstride_normal(seed, stream, counter);
        } else {
            double a, b;
            xstride_normal2(seed, stream, counter, &a, &b);
            out0[i] = a;
            out1[i] = b;
        }
    }
}

#define XS_REAL_KERNEL(name, kind)                                                          \
XS_ON_REQUEST __global__ void name(                                                         \
    double* out0, double* out1, long long n,                                                \
    XS_SRC(unsigned long long, s), XS_SRC(unsigned long long, t),                           \
    XS_SRC(unsigned long long, c), int ndim, const long long* geo)                          \
{                                                                                           \
    xs_real<kind>(out0, out1, n, ps, vs, ls, ms, pt, vt, lt, mt, pc, vc, lc, mc,            \
                  ndim, geo);                                                               \
}

XS_REAL_KERNEL(xstride_philox_uniform_k, 0)
XS_REAL_KERNEL(xstride_philox_uniform2_k, 1)
XS_REAL_KERNEL(xstride_philox_normal_k, 2)
XS_REAL_KERNEL(xstride_philox_normal2_k, 3)

// ---- fast path: scalar seed and stream, counters dense (CM 1) or start + i (CM 3).
// U items per thread per step: the U counter loads are issued before any block is
// computed; the round keys are loop invariants (hoisted out of the loop).
// KIND 0..3 as above (one counter per output element); KIND 4/5: the generator's
// pairs, counter j gives elements 2j and 2j + 1 of out0 (uniforms from (w0, w1) and
// (w2, w3); normals z0, z1), written as one 16-byte store (out0 16-byte aligned).
template <int KIND, int CM, int U>
__device__ __forceinline__ void xs_fast(
    double* __restrict__ out0, double* __restrict__ out1, long long n,
    unsigned long long seed, unsigned long long stream,
    const unsigned long long* __restrict__ ctr, unsigned long long start)
{
    const long long items = KIND >= 4 ? (n + 1) / 2 : n;
    const unsigned int s0 = (unsigned int)stream, s1 = (unsigned int)(stream >> 32);
    const unsigned int k0 = (unsigned int)seed, k1 = (unsigned int)(seed >> 32);
    const long long tile = (long long)blockDim.x * U;
    const long long step = tile * gridDim.x;
    for (long long base = (long long)blockIdx.x * tile + threadIdx.x; base < items;
         base += step) {
        unsigned long long c[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const long long i = base + (long long)u * blockDim.x;
            if (CM == 3) {
                c[u] = start + (unsigned long long)i;
            } else {
                c[u] = i < items ? ctr[i] : 0ull;
            }
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const long long i = base + (long long)u * blockDim.x;
            if (i < items) {
                const xstride_philox4x32_out w = xstride_philox4x32_10(
                    (unsigned int)c[u], (unsigned int)(c[u] >> 32), s0, s1, k0, k1);
                const unsigned long long a = xstride_rng_bits53_(w.w[0], w.w[1]);
                const unsigned long long b = xstride_rng_bits53_(w.w[2], w.w[3]);
                double x, y;
                if (KIND == 0 || KIND == 1 || KIND == 4) {
                    x = xstride_rng_unit_(a);
                    y = xstride_rng_unit_(b);
                } else {
                    double cs, sn;
                    const double r = xstride_rng_radius_(a);
                    xstride_rng_cossin_(b, &cs, &sn);
                    x = XSTRIDE_RNG_MUL(r, cs);
                    y = XSTRIDE_RNG_MUL(r, sn);
                }
                if (KIND == 0 || KIND == 2) {
                    out0[i] = x;
                } else if (KIND == 1 || KIND == 3) {
                    out0[i] = x;
                    out1[i] = y;
                } else if (2 * i + 1 < n) {
                    reinterpret_cast<double2*>(out0)[i] = make_double2(x, y);
                } else {
                    out0[2 * i] = x;
                }
            }
        }
    }
}

#define XS_FAST_KERNEL(name, kind, cm, u)                                                   \
XS_ON_REQUEST __global__ void __launch_bounds__(256) name(                                  \
    double* out0, double* out1, long long n, unsigned long long seed,                       \
    unsigned long long stream, const unsigned long long* ctr, unsigned long long start)     \
{                                                                                           \
    xs_fast<kind, cm, u>(out0, out1, n, seed, stream, ctr, start);                          \
}

XS_FAST_KERNEL(xstride_philox_uniform_f1, 0, 1, 4)
XS_FAST_KERNEL(xstride_philox_uniform2_f1, 1, 1, 4)
XS_FAST_KERNEL(xstride_philox_normal_f1, 2, 1, 2)
XS_FAST_KERNEL(xstride_philox_normal2_f1, 3, 1, 2)
XS_FAST_KERNEL(xstride_philox_uniform_f3, 0, 3, 4)
XS_FAST_KERNEL(xstride_philox_uniform2_f3, 1, 3, 4)
XS_FAST_KERNEL(xstride_philox_normal_f3, 2, 3, 2)
XS_FAST_KERNEL(xstride_philox_normal2_f3, 3, 3, 2)
XS_FAST_KERNEL(xstride_philox_upairs_u1, 4, 3, 1)
XS_FAST_KERNEL(xstride_philox_npairs_u2, 5, 3, 2)

// ---- grid path: the broadcast output coalesced to R x C (R may be 1). Argument x is
// the scalar v (m == 0) or p[r * rs + j * cs] (m == 1; strides 0 on broadcast axes),
// so a (R, 1) stream and a (C,) counter are read without any index division.
#define XS_SRC2(x) const unsigned long long* p##x, unsigned long long v##x, long long r##x, \
    long long c##x, int m##x
#define XS_LOAD2(x) (m##x ? p##x[r * r##x + j * c##x] : v##x)

// A one-dimensional launch (blockDim.y == gridDim.y == 1) whose blocks have more than
// C / 4 lanes takes the short-row path, xs_grid2_rows: philox.py's _grid2_geometry
// launches it so where it keeps more lanes busy than a lane a column does (every C < 64,
// most C < 1024). Its other launches are two-dimensional, or a single block.

template <int KIND>
__device__ __forceinline__ void xs_grid2_store(double* out0, double* out1, long long i,
                                               unsigned long long seed,
                                               unsigned long long stream,
                                               unsigned long long ctr)
{
    if (KIND == 0) {
        out0[i] = xstride_uniform(seed, stream, ctr);
    } else if (KIND == 1) {
        xstride_uniform2(seed, stream, ctr, out0 + i, out1 + i);
    } else if (KIND == 2) {
        out0[i] = xstride_normal(seed, stream, ctr);
    } else {
        xstride_normal2(seed, stream, ctr, out0 + i, out1 + i);
    }
}

// Short rows ((n, 3) positions: a (n, 1) counter column and a (1, 3) stream row): a
// block's step covers whole rows, its lanes consecutive outputs, so every lane of a
// warp works and the stores are contiguous (with a lane per column, 29 of 32 lanes of
// a row of 3 stayed idle: 97 ms for 2**28 x 3 uniforms on an H100, 4.6 ms flat). The
// row and column of an output come from a 32-bit division inside the step's span.
template <int KIND>
__device__ __forceinline__ void xs_grid2_rows(double* out0, double* out1, long long R,
                                              long long C, XS_SRC2(s), XS_SRC2(t),
                                              XS_SRC2(c))
{
    constexpr int U = 4;   // outputs per thread and step: their loads issue together
    const unsigned int cols = (unsigned int)C;
    const unsigned int rows_per = (blockDim.x * U) / cols;   // >= 1: C < blockDim.x * U
    const unsigned int span = rows_per * cols;
    const long long total = R * C;
    const long long steps = (R + rows_per - 1) / rows_per;
    for (long long step = blockIdx.x; step < steps; step += gridDim.x) {
        const long long r0 = step * (long long)rows_per;
        const long long base = r0 * C;
        unsigned long long vseed[U], vstream[U], vctr[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const unsigned int l = threadIdx.x + (unsigned int)u * blockDim.x;
            // past the span or the last row: load the step's first element, store nothing
            const unsigned int at = (l < span && base + l < total) ? l : 0u;
            const long long r = r0 + at / cols;
            const long long j = at % cols;
            vseed[u] = XS_LOAD2(s);
            vstream[u] = XS_LOAD2(t);
            vctr[u] = XS_LOAD2(c);
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const unsigned int l = threadIdx.x + (unsigned int)u * blockDim.x;
            if (l < span && base + l < total) {
                xs_grid2_store<KIND>(out0, out1, base + l, vseed[u], vstream[u], vctr[u]);
            }
        }
    }
}

template <int KIND>
__device__ __forceinline__ void xs_grid2(double* out0, double* out1, long long R, long long C,
                                         XS_SRC2(s), XS_SRC2(t), XS_SRC2(c))
{
    if (blockDim.y == 1 && gridDim.y == 1 && C < 4 * (long long)blockDim.x) {
        xs_grid2_rows<KIND>(out0, out1, R, C, ps, vs, rs, cs, ms, pt, vt, rt, ct, mt,
                            pc, vc, rc, cc, mc);
        return;
    }
    constexpr int U = 4;   // columns per thread and step: their loads issue together
    const long long step = (long long)blockDim.x * gridDim.x * U;
    const long long rstep = (long long)blockDim.y * gridDim.y;
    for (long long r = (long long)blockIdx.y * blockDim.y + threadIdx.y; r < R; r += rstep) {
        for (long long j0 = (long long)blockIdx.x * blockDim.x * U + threadIdx.x; j0 < C;
             j0 += step) {
            unsigned long long vseed[U], vstream[U], vctr[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const long long j = j0 + (long long)u * blockDim.x < C ? j0 + (long long)u * blockDim.x : j0;
                vseed[u] = XS_LOAD2(s);
                vstream[u] = XS_LOAD2(t);
                vctr[u] = XS_LOAD2(c);
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const long long j = j0 + (long long)u * blockDim.x;
                if (j >= C) break;
                xs_grid2_store<KIND>(out0, out1, r * C + j, vseed[u], vstream[u], vctr[u]);
            }
        }
    }
}

#define XS_GRID2_KERNEL(name, kind)                                                         \
XS_ON_REQUEST __global__ void __launch_bounds__(256) name(                                  \
    double* out0, double* out1, long long R, long long C,                                   \
    XS_SRC2(s), XS_SRC2(t), XS_SRC2(c))                                                     \
{                                                                                           \
    xs_grid2<kind>(out0, out1, R, C, ps, vs, rs, cs, ms, pt, vt, rt, ct, mt,                \
                   pc, vc, rc, cc, mc);                                                     \
}

XS_GRID2_KERNEL(xstride_philox_uniform_g2, 0)
XS_GRID2_KERNEL(xstride_philox_uniform2_g2, 1)
XS_GRID2_KERNEL(xstride_philox_normal_g2, 2)
XS_GRID2_KERNEL(xstride_philox_normal2_g2, 3)

XS_ON_REQUEST __global__ void xstride_philox_words_k(
    unsigned int* out, long long n,
    XS_SRC(unsigned int, a), XS_SRC(unsigned int, b), XS_SRC(unsigned int, c),
    XS_SRC(unsigned int, d), XS_SRC(unsigned int, k), XS_SRC(unsigned int, j),
    int ndim, const long long* geo)
{
    const long long step = (long long)blockDim.x * gridDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const xstride_philox4x32_out w = xstride_philox4x32_10(
            (unsigned int)XS_LOAD(a, 1), (unsigned int)XS_LOAD(b, 2),
            (unsigned int)XS_LOAD(c, 3), (unsigned int)XS_LOAD(d, 4),
            (unsigned int)XS_LOAD(k, 5), (unsigned int)XS_LOAD(j, 6));
        out[4 * i + 0] = w.w[0];
        out[4 * i + 1] = w.w[1];
        out[4 * i + 2] = w.w[2];
        out[4 * i + 3] = w.w[3];
    }
}

// ---- Philox.integers' first round (xstride/rng/_generator.py; the host's is
// xstride_host_integers in xstride/_host/philox_host.c): element i takes counter
// start + i and Lemire's multiply-and-reject on the candidates (w0 << 32) | w1, then
// (w2 << 32) | w3: out[i] is the high 64 bits of the first candidate times r whose low
// 64 bits are >= thresh (full != 0: r is 2**64, the first candidate is the value). An
// element whose two candidates are rejected is counted in *nrej and, while fewer than
// cap came before it, its index written to rej (in no order: the caller sorts them).
__device__ __forceinline__ unsigned long long xs_mul_hi64(unsigned long long a,
                                                          unsigned long long b)
{
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#else
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
#endif
}

XS_ON_REQUEST __global__ void __launch_bounds__(256) xstride_philox_integers_first(
    unsigned long long* out, long long n, unsigned long long seed, unsigned long long stream,
    unsigned long long start, unsigned long long r, unsigned long long thresh, int full,
    long long* rej, long long cap, unsigned long long* nrej)
{
    const long long step = (long long)blockDim.x * gridDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const xstride_philox4x32_out w =
            xstride_philox_block(seed, stream, start + (unsigned long long)i);
        const unsigned long long x0 = ((unsigned long long)w.w[0] << 32) | w.w[1];
        if (full) {
            out[i] = x0;
            continue;
        }
        if (x0 * r >= thresh) {
            out[i] = xs_mul_hi64(x0, r);
            continue;
        }
        const unsigned long long x1 = ((unsigned long long)w.w[2] << 32) | w.w[3];
        if (x1 * r >= thresh) {
            out[i] = xs_mul_hi64(x1, r);
            continue;
        }
        const unsigned long long at = atomicAdd(nrej, 1ull);
        if (at < (unsigned long long)cap) {
            rej[at] = i;
        }
    }
}
