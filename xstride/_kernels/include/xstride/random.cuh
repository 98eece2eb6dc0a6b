/* xstride/random.cuh -- Philox4x32-10 counter-based random numbers.
 *
 * Bit-identical to xstride.rng on the host (NumPy): the same (seed, stream, counter)
 * gives the same uniform AND the same normal, bit for bit, on the host and on the
 * device. Compiles as C (C99 or later) and as C++, with a host compiler, nvcc or
 * NVRTC; includes no standard header.
 *
 * Mapping of the three 64-bit inputs (docs/rng.md):
 *   counter words = (lo32(counter), hi32(counter), lo32(stream), hi32(stream))
 *   key           = (lo32(seed), hi32(seed))
 *   uniform       = (((w0 << 32) | w1) >> 11) * 2^-53            in [0, 1)
 *   uniform2      = that, and the same from (w2, w3)
 *   normal        = r cos(theta), normal2 adds r sin(theta), with
 *                   r = sqrt(-2 log(1 - u0)), theta = 2 pi u1
 *
 * Philox4x32-10: J. K. Salmon, M. A. Moraes, R. O. Dror, D. E. Shaw, "Parallel random
 * numbers: as easy as 1, 2, 3", SC'11. Multipliers 0xD2511F53 (word 0), 0xCD9E8D57
 * (word 2); key increments 0x9E3779B9, 0xBB67AE85; ten rounds, the first with the
 * unbumped key.
 *
 * Normals: the log and sin/cos are xstride's own, made of IEEE-754 double
 * +, -, *, / and sqrt only, each rounded once, in one fixed order. On the device every
 * operation is an explicit round-to-nearest intrinsic (__dadd_rn, __dmul_rn, ...), so
 * no fused multiply-add can be contracted. On the host the plain operators are used:
 * compile host code without FMA contraction (gcc/clang: -ffp-contract=off) when the
 * target has FMA instructions. The log is log(x) = e ln2 + 2 atanh((f-1)/(f+1)) with
 * x = m 2^-53 split exactly (f in [sqrt(1/2), sqrt(2)]); sin/cos use the exact
 * reduction 4 u1 = q + f (q integer, |f| <= 1/2), then Taylor series on |a| <= pi/4.
 * Accuracy against a correctly rounded reference: see docs/rng.md.
 */
#ifndef XSTRIDE_RANDOM_CUH
#define XSTRIDE_RANDOM_CUH

#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__HIPCC__)
#define XSTRIDE_RNG_FN static __host__ __device__ __forceinline__
#else
#define XSTRIDE_RNG_FN static inline
#endif

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define XSTRIDE_RNG_ADD(a, b) __dadd_rn((a), (b))
#define XSTRIDE_RNG_SUB(a, b) __dsub_rn((a), (b))
#define XSTRIDE_RNG_MUL(a, b) __dmul_rn((a), (b))
#define XSTRIDE_RNG_DIV(a, b) __ddiv_rn((a), (b))
#define XSTRIDE_RNG_SQRT(a) __dsqrt_rn(a)
#define XSTRIDE_RNG_MULHI(a, b) __umulhi((a), (b))
#else
#define XSTRIDE_RNG_ADD(a, b) ((a) + (b))
#define XSTRIDE_RNG_SUB(a, b) ((a) - (b))
#define XSTRIDE_RNG_MUL(a, b) ((a) * (b))
#define XSTRIDE_RNG_DIV(a, b) ((a) / (b))
#if defined(__GNUC__) || defined(__clang__)
#define XSTRIDE_RNG_SQRT(a) __builtin_sqrt(a)
#else
double sqrt(double); /* correctly rounded in every IEEE-754 C library */
#define XSTRIDE_RNG_SQRT(a) sqrt(a)
#endif
#define XSTRIDE_RNG_MULHI(a, b) \
    ((unsigned int)(((unsigned long long)(a) * (unsigned long long)(b)) >> 32))
#endif

/* Four 32-bit output words of one Philox4x32-10 block. */
typedef struct xstride_philox4x32_out {
    unsigned int w[4];
} xstride_philox4x32_out;

/* Philox4x32-10 of counter words (c0, c1, c2, c3) under key (k0, k1). */
XSTRIDE_RNG_FN xstride_philox4x32_out xstride_philox4x32_10(
    unsigned int c0, unsigned int c1, unsigned int c2, unsigned int c3,
    unsigned int k0, unsigned int k1)
{
    xstride_philox4x32_out r;
    int i;
    for (i = 0; i < 10; ++i) {
        const unsigned int hi0 = XSTRIDE_RNG_MULHI(0xD2511F53u, c0);
        const unsigned int lo0 = 0xD2511F53u * c0;
        const unsigned int hi1 = XSTRIDE_RNG_MULHI(0xCD9E8D57u, c2);
        const unsigned int lo1 = 0xCD9E8D57u * c2;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    r.w[0] = c0;
    r.w[1] = c1;
    r.w[2] = c2;
    r.w[3] = c3;
    return r;
}

/* The block of (seed, stream, counter) with xstride's mapping. */
XSTRIDE_RNG_FN xstride_philox4x32_out xstride_philox_block(
    unsigned long long seed, unsigned long long stream, unsigned long long counter)
{
    return xstride_philox4x32_10(
        (unsigned int)counter, (unsigned int)(counter >> 32),
        (unsigned int)stream, (unsigned int)(stream >> 32),
        (unsigned int)seed, (unsigned int)(seed >> 32));
}

/* 53-bit integer (((hi << 32) | lo) >> 11). */
XSTRIDE_RNG_FN unsigned long long xstride_rng_bits53_(unsigned int hi, unsigned int lo)
{
    return (((unsigned long long)hi << 32) | (unsigned long long)lo) >> 11;
}

XSTRIDE_RNG_FN double xstride_rng_unit_(unsigned long long bits53)
{
    return (double)bits53 * 0x1p-53; /* exact: both factors are exact */
}

/* Uniform double in [0, 1): multiples of 2^-53, never 1.0. */
XSTRIDE_RNG_FN double xstride_uniform(
    unsigned long long seed, unsigned long long stream, unsigned long long counter)
{
    const xstride_philox4x32_out w = xstride_philox_block(seed, stream, counter);
    return xstride_rng_unit_(xstride_rng_bits53_(w.w[0], w.w[1]));
}

/* Two uniforms of one counter: *u0 from (w0, w1), *u1 from (w2, w3). */
XSTRIDE_RNG_FN void xstride_uniform2(
    unsigned long long seed, unsigned long long stream, unsigned long long counter,
    double *u0, double *u1)
{
    const xstride_philox4x32_out w = xstride_philox_block(seed, stream, counter);
    *u0 = xstride_rng_unit_(xstride_rng_bits53_(w.w[0], w.w[1]));
    *u1 = xstride_rng_unit_(xstride_rng_bits53_(w.w[2], w.w[3]));
}

/* ---- IEEE-only log and sin/cos (same constants as xstride/_host/philox_normals.py) ---- */

/* Number of significant bits of m (0 for m == 0). */
XSTRIDE_RNG_FN int xstride_rng_bitlen_(unsigned long long m)
{
#if defined(__CUDA_ARCH__)
    return 64 - __clzll((long long)m);
#else
    int n = 0;
    if (m >> 32) { m >>= 32; n += 32; }
    if (m >> 16) { m >>= 16; n += 16; }
    if (m >> 8) { m >>= 8; n += 8; }
    if (m >> 4) { m >>= 4; n += 4; }
    if (m >> 2) { m >>= 2; n += 2; }
    if (m >> 1) { m >>= 1; n += 1; }
    return n + (int)m;
#endif
}

/* sqrt(-2 log(1 - a 2^-53)) for a < 2^53. */
XSTRIDE_RNG_FN double xstride_rng_radius_(unsigned long long a)
{
    const unsigned long long m = (1ULL << 53) - a; /* 1 <= m <= 2^53, x = m 2^-53 */
#if defined(__CUDA_ARCH__)
    /* m = f 2^k read off the bits of (double)m (exact: m <= 2^53): the same f and k as
     * the division below, without a division. */
    const long long mb = __double_as_longlong((double)m);
    const int k = (int)(mb >> 52) - 1023;
    double f = __longlong_as_double((mb & 0x000FFFFFFFFFFFFFLL) | 0x3FF0000000000000LL);
#else
    const int k = xstride_rng_bitlen_(m) - 1;
    double f = XSTRIDE_RNG_DIV((double)m, (double)(1ULL << k)); /* exact, in [1, 2) */
#endif
    double e = (double)(k - 53);
    double s, z, p, t, lf, l;
    if (f > 0x1.6a09e667f3bcdp+0) {
        f = XSTRIDE_RNG_MUL(f, 0.5);
        e = XSTRIDE_RNG_ADD(e, 1.0);
    }
    s = XSTRIDE_RNG_DIV(XSTRIDE_RNG_SUB(f, 1.0), XSTRIDE_RNG_ADD(f, 1.0));
    z = XSTRIDE_RNG_MUL(s, s);
    p = 0x1.8618618618618p-5;
    p = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(p, z), 0x1.af286bca1af28p-5);
    p = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(p, z), 0x1.e1e1e1e1e1e1ep-5);
    p = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(p, z), 0x1.1111111111111p-4);
    p = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(p, z), 0x1.3b13b13b13b14p-4);
    p = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(p, z), 0x1.745d1745d1746p-4);
    p = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(p, z), 0x1.c71c71c71c71cp-4);
    p = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(p, z), 0x1.2492492492492p-3);
    p = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(p, z), 0x1.999999999999ap-3);
    p = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(p, z), 0x1.5555555555555p-2);
    p = XSTRIDE_RNG_MUL(z, p);
    t = XSTRIDE_RNG_ADD(s, s);
    lf = XSTRIDE_RNG_ADD(t, XSTRIDE_RNG_MUL(t, p));
    l = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(e, 0x1.62e42fee00000p-1),
                        XSTRIDE_RNG_ADD(lf, XSTRIDE_RNG_MUL(e, 0x1.a39ef35793c76p-33)));
    return XSTRIDE_RNG_SQRT(XSTRIDE_RNG_MUL(l, -2.0));
}

/* cos and sin of 2 pi b 2^-53 for b < 2^53. */
XSTRIDE_RNG_FN void xstride_rng_cossin_(unsigned long long b, double *c, double *s)
{
    unsigned long long q = (b + (1ULL << 50)) >> 51; /* 0..4 */
    const long long d = (long long)b - (long long)(q << 51);
    const double f = XSTRIDE_RNG_MUL((double)d, 0x1p-51); /* exact, |f| <= 1/2 */
    const double a = XSTRIDE_RNG_MUL(f, 0x1.921fb54442d18p+0);
    const double z = XSTRIDE_RNG_MUL(a, a);
    double ps, pc, sa, ca;
    ps = 0x1.952c77030ad4ap-49;
    ps = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(ps, z), -0x1.ae7f3e733b81fp-41);
    ps = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(ps, z), 0x1.6124613a86d09p-33);
    ps = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(ps, z), -0x1.ae64567f544e4p-26);
    ps = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(ps, z), 0x1.71de3a556c734p-19);
    ps = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(ps, z), -0x1.a01a01a01a01ap-13);
    ps = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(ps, z), 0x1.1111111111111p-7);
    ps = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(ps, z), -0x1.5555555555555p-3);
    sa = XSTRIDE_RNG_ADD(a, XSTRIDE_RNG_MUL(XSTRIDE_RNG_MUL(a, z), ps));
    pc = 0x1.ae7f3e733b81fp-45;
    pc = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(pc, z), -0x1.93974a8c07c9dp-37);
    pc = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(pc, z), 0x1.1eed8eff8d898p-29);
    pc = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(pc, z), -0x1.27e4fb7789f5cp-22);
    pc = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(pc, z), 0x1.a01a01a01a01ap-16);
    pc = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(pc, z), -0x1.6c16c16c16c17p-10);
    pc = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(pc, z), 0x1.5555555555555p-5);
    pc = XSTRIDE_RNG_ADD(XSTRIDE_RNG_MUL(pc, z), -0x1.0000000000000p-1);
    ca = XSTRIDE_RNG_ADD(1.0, XSTRIDE_RNG_MUL(z, pc));
    q &= 3u;
    if (q == 0) { *c = ca; *s = sa; }
    else if (q == 1) { *c = -sa; *s = ca; }
    else if (q == 2) { *c = -ca; *s = -sa; }
    else { *c = sa; *s = -ca; }
}

/* Standard normal (Box-Muller, cosine branch) of one counter. */
XSTRIDE_RNG_FN double xstride_normal(
    unsigned long long seed, unsigned long long stream, unsigned long long counter)
{
    const xstride_philox4x32_out w = xstride_philox_block(seed, stream, counter);
    double c, s;
    const double r = xstride_rng_radius_(xstride_rng_bits53_(w.w[0], w.w[1]));
    xstride_rng_cossin_(xstride_rng_bits53_(w.w[2], w.w[3]), &c, &s);
    return XSTRIDE_RNG_MUL(r, c);
}

/* Two independent standard normals of one counter: *z0 = r cos, *z1 = r sin. */
XSTRIDE_RNG_FN void xstride_normal2(
    unsigned long long seed, unsigned long long stream, unsigned long long counter,
    double *z0, double *z1)
{
    const xstride_philox4x32_out w = xstride_philox_block(seed, stream, counter);
    double c, s;
    const double r = xstride_rng_radius_(xstride_rng_bits53_(w.w[0], w.w[1]));
    xstride_rng_cossin_(xstride_rng_bits53_(w.w[2], w.w[3]), &c, &s);
    *z0 = XSTRIDE_RNG_MUL(r, c);
    *z1 = XSTRIDE_RNG_MUL(r, s);
}

#endif /* XSTRIDE_RANDOM_CUH */
