/* xstride/detail/complex.cuh -- complex64 and complex128 as the namespace's reduction
 * kernels read, fold and write them (xstride/_kernels/reductions.cu: sum, prod, mean,
 * all, any). Not part of the shipped header API: names and contents may change in any
 * release. Compiled by NVRTC: no standard headers.
 */
#ifndef XSTRIDE_DETAIL_COMPLEX_CUH
#define XSTRIDE_DETAIL_COMPLEX_CUH

// Real and imaginary parts, NumPy's layout. Every operation rounds each product and
// sum on its own (the _rn intrinsics: no contraction into fused multiply-adds), so a
// fold gives the same bits on every launch and every device.
template <typename R>
struct xs_complex {
    R re, im;
    xs_complex() = default;
    xs_complex(const xs_complex&) = default;
    xs_complex& operator=(const xs_complex&) = default;
    // a partial read back through a volatile pointer (the last block's fold)
    __device__ __forceinline__ xs_complex(const volatile xs_complex& o) : re(o.re), im(o.im) {}
    __device__ __forceinline__ xs_complex(R r, R i) : re(r), im(i) {}
    // a real value of any type the kernels load (integers, bool, float, double,
    // xs_half): its value converted to R, imaginary part 0
    template <typename S>
    __device__ __forceinline__ xs_complex(S r) : re((R)r), im((R)0) {}
    template <typename S>
    __device__ __forceinline__ explicit xs_complex(xs_complex<S> o) : re((R)o.re), im((R)o.im) {}
};
typedef xs_complex<float> xs_complex64;
typedef xs_complex<double> xs_complex128;

__device__ __forceinline__ float xs_add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double xs_add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float xs_sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double xs_sub_rn(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float xs_mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double xs_mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float xs_div_rn(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double xs_div_rn(double a, double b) { return __ddiv_rn(a, b); }

template <typename R>
__device__ __forceinline__ xs_complex<R> operator+(xs_complex<R> a, xs_complex<R> b)
{ return xs_complex<R>(xs_add_rn(a.re, b.re), xs_add_rn(a.im, b.im)); }

template <typename R>
__device__ __forceinline__ xs_complex<R> operator*(xs_complex<R> a, xs_complex<R> b)
{
    return xs_complex<R>(xs_sub_rn(xs_mul_rn(a.re, b.re), xs_mul_rn(a.im, b.im)),
                         xs_add_rn(xs_mul_rn(a.re, b.im), xs_mul_rn(a.im, b.re)));
}

// Smith's division (R. L. Smith, "Algorithm 116: Complex division", CACM 5(8), 1962),
// the form NumPy's complex divide takes: a mean's sum divided by its count (b = n +
// 0i) is each part plus the other times 0, times 1/n: NumPy's bits.
template <typename R>
__device__ __forceinline__ xs_complex<R> operator/(xs_complex<R> a, xs_complex<R> b)
{
    const R br = b.re < (R)0 ? -b.re : b.re, bi = b.im < (R)0 ? -b.im : b.im;
    if (br >= bi) {
        if (br == (R)0 && bi == (R)0) return xs_complex<R>(xs_div_rn(a.re, br), xs_div_rn(a.im, bi));
        const R rat = xs_div_rn(b.im, b.re);
        const R scl = xs_div_rn((R)1, xs_add_rn(b.re, xs_mul_rn(b.im, rat)));
        return xs_complex<R>(xs_mul_rn(xs_add_rn(a.re, xs_mul_rn(a.im, rat)), scl),
                             xs_mul_rn(xs_sub_rn(a.im, xs_mul_rn(a.re, rat)), scl));
    }
    const R rat = xs_div_rn(b.re, b.im);
    const R scl = xs_div_rn((R)1, xs_add_rn(b.im, xs_mul_rn(b.re, rat)));
    return xs_complex<R>(xs_mul_rn(xs_add_rn(xs_mul_rn(a.re, rat), a.im), scl),
                         xs_mul_rn(xs_sub_rn(xs_mul_rn(a.im, rat), a.re), scl));
}

// Unequal when either part is (NaN included: NumPy's truth value of a complex NaN).
template <typename R>
__device__ __forceinline__ bool operator!=(xs_complex<R> a, xs_complex<R> b)
{ return a.re != b.re || a.im != b.im; }

// The warp shuffles of reduce.cuh, part by part.
template <typename R>
__device__ __forceinline__ xs_complex<R> __shfl_xor_sync(unsigned mask, xs_complex<R> v, int lane_mask, int width = 32)
{ return xs_complex<R>(__shfl_xor_sync(mask, v.re, lane_mask, width), __shfl_xor_sync(mask, v.im, lane_mask, width)); }
template <typename R>
__device__ __forceinline__ xs_complex<R> __shfl_down_sync(unsigned mask, xs_complex<R> v, unsigned delta, int width = 32)
{ return xs_complex<R>(__shfl_down_sync(mask, v.re, delta, width), __shfl_down_sync(mask, v.im, delta, width)); }
template <typename R>
__device__ __forceinline__ xs_complex<R> __shfl_sync(unsigned mask, xs_complex<R> v, int src, int width = 32)
{ return xs_complex<R>(__shfl_sync(mask, v.re, src, width), __shfl_sync(mask, v.im, src, width)); }

#endif  // XSTRIDE_DETAIL_COMPLEX_CUH
