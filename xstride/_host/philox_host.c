/* xstride/_host/philox_host.c -- compiled loops of the host Philox executor.
 *
 * Built at first use by xstride/_host/_philox_native.py with the system C compiler
 * (-O2 -fPIC -shared -ffp-contract=off -std=c99) and loaded with ctypes. Every value
 * comes from xstride/random.cuh, the header the device kernels use, so the results are
 * the NumPy executor's bit for bit (a test compares them).
 *
 * Each 64-bit argument is read as  p ? p[i * stride] : base + step * i  for flat index i
 * of the chunk: a uint64 array with an element stride (0 broadcasts one element), a
 * scalar (p = 0, step = 0) or the generator's affine counters (p = 0, step = 1; the sum
 * wraps modulo 2**64 like the counter words). Outputs are float64 with element strides.
 */
#include "xstride/random.cuh"

typedef unsigned long long xs_u64;
typedef long long xs_i64;
typedef unsigned int xs_u32;

#define XS_ARG(p, s, b, d, i) ((p) ? (p)[(i) * (s)] : (b) + (d) * (xs_u64)(i))

enum { XS_UNIFORM = 0, XS_UNIFORM2 = 1, XS_NORMAL = 2, XS_NORMAL2 = 3 };

/* One loop per kind over i = 0 .. n-1; SD, ST, CT read the three arguments. */
#define XS_LOOPS(SD, ST, CT)                                                              \
    switch (kind) {                                                                       \
    case XS_UNIFORM:                                                                      \
        for (i = 0; i < n; ++i)                                                           \
            out0[i * s0] = xstride_uniform(SD, ST, CT);                                   \
        break;                                                                            \
    case XS_UNIFORM2:                                                                     \
        for (i = 0; i < n; ++i)                                                           \
            xstride_uniform2(SD, ST, CT, &out0[i * s0], &out1[i * s1]);                   \
        break;                                                                            \
    case XS_NORMAL:                                                                       \
        for (i = 0; i < n; ++i)                                                           \
            out0[i * s0] = xstride_normal(SD, ST, CT);                                    \
        break;                                                                            \
    default:                                                                              \
        for (i = 0; i < n; ++i)                                                           \
            xstride_normal2(SD, ST, CT, &out0[i * s0], &out1[i * s1]);                    \
        break;                                                                            \
    }

/* kind: 0 uniform, 1 uniform2, 2 normal, 3 normal2. Returns 0, or -1 for a bad kind. */
int xstride_host_philox(
    int kind, xs_i64 n,
    const xs_u64 *sd_p, xs_i64 sd_s, xs_u64 sd_b, xs_u64 sd_d,
    const xs_u64 *st_p, xs_i64 st_s, xs_u64 st_b, xs_u64 st_d,
    const xs_u64 *ct_p, xs_i64 ct_s, xs_u64 ct_b, xs_u64 ct_d,
    double *out0, xs_i64 s0, double *out1, xs_i64 s1)
{
    xs_i64 i;
    if (kind < XS_UNIFORM || kind > XS_NORMAL2)
        return -1;
    if (!sd_p && !st_p && !sd_d && !st_d) {
        /* seed and stream fixed: the public functions' and the generator's usual case */
        if (ct_p) {
            XS_LOOPS(sd_b, st_b, ct_p[i * ct_s])
        } else {
            XS_LOOPS(sd_b, st_b, ct_b + ct_d * (xs_u64)i)
        }
        return 0;
    }
    XS_LOOPS(XS_ARG(sd_p, sd_s, sd_b, sd_d, i), XS_ARG(st_p, st_s, st_b, st_d, i),
             XS_ARG(ct_p, ct_s, ct_b, ct_d, i))
    return 0;
}

/* Raw Philox4x32-10: word j of element i is c_p[j][i * c_s[j]] (or c_b[j] when c_p[j]
 * is null), key words likewise; out is uint32 (n, 4), C order. */
void xstride_host_words(
    xs_i64 n, const xs_u32 *const *c_p, const xs_i64 *c_s, const xs_u32 *c_b,
    const xs_u32 *k0_p, xs_i64 k0_s, xs_u32 k0_b,
    const xs_u32 *k1_p, xs_i64 k1_s, xs_u32 k1_b, xs_u32 *out)
{
    xs_i64 i;
    for (i = 0; i < n; ++i) {
        const xs_u32 c0 = c_p[0] ? c_p[0][i * c_s[0]] : c_b[0];
        const xs_u32 c1 = c_p[1] ? c_p[1][i * c_s[1]] : c_b[1];
        const xs_u32 c2 = c_p[2] ? c_p[2][i * c_s[2]] : c_b[2];
        const xs_u32 c3 = c_p[3] ? c_p[3][i * c_s[3]] : c_b[3];
        const xs_u32 k0 = k0_p ? k0_p[i * k0_s] : k0_b;
        const xs_u32 k1 = k1_p ? k1_p[i * k1_s] : k1_b;
        const xstride_philox4x32_out w = xstride_philox4x32_10(c0, c1, c2, c3, k0, k1);
        out[4 * i] = w.w[0];
        out[4 * i + 1] = w.w[1];
        out[4 * i + 2] = w.w[2];
        out[4 * i + 3] = w.w[3];
    }
}

/* High 64 bits of x * r, the low 64 bits to *lo: 32-bit halves, as
 * xstride._plans.philox.mul_hi_lo computes them for every backend (C99 has no
 * 128-bit type). */
static xs_u64 xs_mul_hi(xs_u64 x, xs_u64 r, xs_u64 *lo)
{
    const xs_u64 m = 0xFFFFFFFFull;
    const xs_u64 xl = x & m, xh = x >> 32, rl = r & m, rh = r >> 32;
    const xs_u64 ll = xl * rl, lh = xl * rh, hl = xh * rl, hh = xh * rh;
    const xs_u64 mid = (ll >> 32) + (lh & m) + (hl & m);
    *lo = (mid << 32) | (ll & m);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* The first round of Philox.integers (xstride/rng/_generator.py): element i takes
 * counter base + i (counter words: its low and high 32 bits, then the stream's; key:
 * the seed's low and high 32 bits) and Lemire's multiply-and-reject on the candidates
 * (w0 << 32) | w1, then (w2 << 32) | w3: out[i] is the high 64 bits of the first
 * candidate times r whose low 64 bits are >= thresh. full != 0: r is 2**64 and the first
 * candidate is the value. Elements with both candidates rejected are written, in
 * order, to rejected (i); returns their count. */
xs_i64 xstride_host_integers(xs_i64 n, xs_u64 seed, xs_u64 stream, xs_u64 base, xs_u64 r,
                             xs_u64 thresh, int full, xs_u64 *out, xs_i64 *rejected)
{
    xs_i64 i, nrej = 0;
    const xs_u32 s0 = (xs_u32)stream, s1 = (xs_u32)(stream >> 32);
    const xs_u32 k0 = (xs_u32)seed, k1 = (xs_u32)(seed >> 32);
    for (i = 0; i < n; ++i) {
        const xs_u64 c = base + (xs_u64)i;
        const xstride_philox4x32_out w =
            xstride_philox4x32_10((xs_u32)c, (xs_u32)(c >> 32), s0, s1, k0, k1);
        const xs_u64 x0 = ((xs_u64)w.w[0] << 32) | w.w[1];
        xs_u64 lo, hi;
        if (full) {
            out[i] = x0;
            continue;
        }
        hi = xs_mul_hi(x0, r, &lo);
        if (lo >= thresh) {
            out[i] = hi;
            continue;
        }
        hi = xs_mul_hi(((xs_u64)w.w[2] << 32) | w.w[3], r, &lo);
        if (lo >= thresh) {
            out[i] = hi;
            continue;
        }
        rejected[nrej++] = i;
    }
    return nrej;
}
