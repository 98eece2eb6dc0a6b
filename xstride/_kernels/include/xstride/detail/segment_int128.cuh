/* xstride/detail/segment_int128.cuh -- private helper of the segment reductions
 * (xstride/_kernels/segments.cu): the exact accumulator of integer means.
 * Not part of the shipped header API: names and contents may change in any release.
 * Compiled by NVRTC: no standard headers.
 */
#ifndef XSTRIDE_DETAIL_SEGMENT_INT128_CUH
#define XSTRIDE_DETAIL_SEGMENT_INT128_CUH

// A 128-bit two's-complement integer, hi * 2**64 + lo: the sum of the rows of one
// segment of integer values, exact for any segment of fewer than 2**63 rows (|sum| <
// 2**63 * 2**64). Integer addition is associative, so the sum -- and the mean made
// from it -- is the same bits whatever order the walks fold the rows in: equal to the
// host's (xstride/_host/segments.py:integer_mean), which sums in another order. The
// value converts to double rounded once, to nearest with ties to even, as the host
// rounds the same sum.
struct xs_seg_i128 {
    unsigned long long lo;
    long long hi;

    xs_seg_i128() = default;
    // any integer, sign-extended when V is signed ((V)-1 > (V)0 only when unsigned)
    template <typename V>
    __device__ __forceinline__ xs_seg_i128(V v)
        : lo((unsigned long long)(long long)v),
          hi((V)-1 > (V)0 ? 0LL : ((long long)v >> 63)) {}

    __device__ __forceinline__ xs_seg_i128 operator+(xs_seg_i128 b) const
    {
        xs_seg_i128 r;
        r.lo = lo + b.lo;
        r.hi = (long long)((unsigned long long)hi + (unsigned long long)b.hi +
                           (r.lo < lo ? 1ull : 0ull));
        return r;
    }

    // Rounded once to nearest, ties to even: |x| < 2**64 converts directly; else the
    // 64 leading bits of |x|, the lowest of them ORed with whether any bit below is
    // set (the sticky bit: it decides a tie, and lies far below the 53 kept bits), are
    // converted and scaled by 2**shift (exact).
    __device__ __forceinline__ explicit operator double() const
    {
        const bool neg = hi < 0;
        unsigned long long ml = lo, mh = (unsigned long long)hi;
        if (neg) {   // |x| = -x = ~x + 1 (2**127 for the most negative is fine unsigned)
            ml = ~lo + 1ull;
            mh = ~mh + (ml == 0ull ? 1ull : 0ull);
        }
        double r;
        if (mh == 0ull) {
            r = __ull2double_rn(ml);
        } else {
            const int shift = 64 - __clzll((long long)mh);   // 1 .. 64
            unsigned long long top, sticky;
            if (shift == 64) {
                top = mh;
                sticky = ml != 0ull;
            } else {
                top = (mh << (64 - shift)) | (ml >> shift);
                sticky = (ml << (64 - shift)) != 0ull;
            }
            const double scale = __longlong_as_double((long long)(1023 + shift) << 52);
            r = __dmul_rn(__ull2double_rn(top | sticky), scale);
        }
        return neg ? -r : r;
    }
};

// __shfl_down_sync of the two words (every lane of the full warp calls it)
__device__ __forceinline__ xs_seg_i128 xs_seg_shfl_down(xs_seg_i128 x, unsigned delta)
{
    xs_seg_i128 r;
    r.lo = __shfl_down_sync(0xffffffffu, x.lo, delta);
    r.hi = __shfl_down_sync(0xffffffffu, x.hi, delta);
    return r;
}

template <typename A>
__device__ __forceinline__ A xs_seg_shfl_down(A x, unsigned delta)
{
    return __shfl_down_sync(0xffffffffu, x, delta);
}

#endif  // XSTRIDE_DETAIL_SEGMENT_INT128_CUH
