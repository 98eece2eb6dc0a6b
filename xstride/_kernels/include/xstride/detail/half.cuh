/* xstride/detail/half.cuh -- float16 as the namespace's reduction kernels read and
 * write it (xstride/_kernels/reductions.cu, argreductions.cu). Not part of the shipped
 * header API: names and contents may change in any release.
 * Compiled by NVRTC: no standard headers (cuda_fp16.h is not among NVRTC's built-in
 * headers), so the conversions are PTX's cvt (PTX ISA, "cvt"): exact widening to
 * float32 or float64, and one round-to-nearest-even narrowing from either.
 */
#ifndef XSTRIDE_DETAIL_HALF_CUH
#define XSTRIDE_DETAIL_HALF_CUH

// The bits of an IEEE 754 binary16 value (NumPy's float16): loaded and stored as they
// are, widened before any arithmetic (sums and products fold in float64, min/max and
// arg-reductions in float32: both hold every float16 exactly), narrowed once to store
// a result.
struct xs_half {
    unsigned short bits;
    xs_half() = default;
    __device__ __forceinline__ xs_half(float f) { asm("cvt.rn.f16.f32 %0, %1;" : "=h"(bits) : "f"(f)); }
    __device__ __forceinline__ xs_half(double d) { asm("cvt.rn.f16.f64 %0, %1;" : "=h"(bits) : "d"(d)); }
    __device__ __forceinline__ xs_half(int i) : xs_half((float)i) {}
    __device__ __forceinline__ operator float() const
    {
        float f;
        asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
        return f;
    }
    __device__ __forceinline__ explicit operator double() const { return (double)(float)*this; }
};

// Compared as numbers (NaN unequal to everything, -0 equal to +0), as NumPy does.
__device__ __forceinline__ bool operator!=(xs_half a, xs_half b) { return (float)a != (float)b; }
__device__ __forceinline__ bool operator==(xs_half a, xs_half b) { return (float)a == (float)b; }

#endif  // XSTRIDE_DETAIL_HALF_CUH
