// xstride/morton.cuh -- Morton (Z-order) keys, host and device.
//
// Bit convention (docs/morton.md, DESIGN.md "Morton"): bit ndim*b + a of a key is bit b
// of the cell index on axis a, axis 0 in the lowest bit. 2-D keys take cells of up to
// 32 bits per axis (levels 1..32), 3-D keys up to 21 bits per axis (levels 1..21).
//
// Cell of a coordinate: floor((x - lower) * scale) clipped to [0, 2**levels - 1], with
// scale = 2**levels / (upper - lower) computed in double precision on the host
// (xstride.algorithms.morton_scales). A point on a cell boundary goes to the upper cell,
// a point outside the box to the nearest face, lower > upper reverses the axis. The
// subtraction and the product are rounded separately (no fused multiply-add), so host
// (NumPy) and device give bit-identical keys for the same scales.
//
// Bit spreading uses the usual shift-and-mask sequence ("magic numbers"; see e.g.
// S. E. Anderson, "Bit Twiddling Hacks", Stanford, section "Interleave bits"), written
// out here for 32 -> 64 bits (2-D) and 21 -> 63 bits (3-D).
//
// No standard header is included: the file compiles standalone under NVRTC and nvcc.
#ifndef XSTRIDE_MORTON_CUH
#define XSTRIDE_MORTON_CUH

#define XSTRIDE_MORTON_MAX_LEVELS_2D 32
#define XSTRIDE_MORTON_MAX_LEVELS_3D 21

// Spread the low 32 bits of v so that bit b moves to bit 2b.
__host__ __device__ __forceinline__ unsigned long long xstride_morton_spread2(unsigned long long v)
{
    v &= 0x00000000FFFFFFFFull;
    v = (v | (v << 16)) & 0x0000FFFF0000FFFFull;
    v = (v | (v << 8)) & 0x00FF00FF00FF00FFull;
    v = (v | (v << 4)) & 0x0F0F0F0F0F0F0F0Full;
    v = (v | (v << 2)) & 0x3333333333333333ull;
    v = (v | (v << 1)) & 0x5555555555555555ull;
    return v;
}

// Inverse of xstride_morton_spread2: gather bits 0, 2, 4, ... into bits 0, 1, 2, ...
__host__ __device__ __forceinline__ unsigned long long xstride_morton_compact2(unsigned long long v)
{
    v &= 0x5555555555555555ull;
    v = (v | (v >> 1)) & 0x3333333333333333ull;
    v = (v | (v >> 2)) & 0x0F0F0F0F0F0F0F0Full;
    v = (v | (v >> 4)) & 0x00FF00FF00FF00FFull;
    v = (v | (v >> 8)) & 0x0000FFFF0000FFFFull;
    v = (v | (v >> 16)) & 0x00000000FFFFFFFFull;
    return v;
}

// Spread the low 21 bits of v so that bit b moves to bit 3b.
__host__ __device__ __forceinline__ unsigned long long xstride_morton_spread3(unsigned long long v)
{
    v &= 0x00000000001FFFFFull;
    v = (v | (v << 32)) & 0x001F00000000FFFFull;
    v = (v | (v << 16)) & 0x001F0000FF0000FFull;
    v = (v | (v << 8)) & 0x100F00F00F00F00Full;
    v = (v | (v << 4)) & 0x10C30C30C30C30C3ull;
    v = (v | (v << 2)) & 0x1249249249249249ull;
    return v;
}

// Inverse of xstride_morton_spread3: gather bits 0, 3, 6, ... into bits 0, 1, 2, ...
__host__ __device__ __forceinline__ unsigned long long xstride_morton_compact3(unsigned long long v)
{
    v &= 0x1249249249249249ull;
    v = (v | (v >> 2)) & 0x10C30C30C30C30C3ull;
    v = (v | (v >> 4)) & 0x100F00F00F00F00Full;
    v = (v | (v >> 8)) & 0x001F0000FF0000FFull;
    v = (v | (v >> 16)) & 0x001F00000000FFFFull;
    v = (v | (v >> 32)) & 0x00000000001FFFFFull;
    return v;
}

// Key of a 2-D cell (ix, iy < 2**32): ix in the even bits, iy in the odd bits.
__host__ __device__ __forceinline__ unsigned long long xstride_morton_encode2(unsigned long long ix,
                                                                             unsigned long long iy)
{
    return xstride_morton_spread2(ix) | (xstride_morton_spread2(iy) << 1);
}

// Key of a 3-D cell (ix, iy, iz < 2**21): bit 3b + a is bit b of axis a.
__host__ __device__ __forceinline__ unsigned long long xstride_morton_encode3(unsigned long long ix,
                                                                             unsigned long long iy,
                                                                             unsigned long long iz)
{
    return xstride_morton_spread3(ix) | (xstride_morton_spread3(iy) << 1)
           | (xstride_morton_spread3(iz) << 2);
}

// Cell index of one coordinate: floor((x - lower) * scale) clipped to [0, max_cell].
// Returns 0 for NaN (callers that must refuse non-finite input check isfinite first).
__host__ __device__ __forceinline__ unsigned long long xstride_morton_cell(double x, double lower,
                                                                          double scale,
                                                                          unsigned long long max_cell)
{
#ifdef __CUDA_ARCH__
    double t = __dmul_rn(__dsub_rn(x, lower), scale);  // never contracted into an FMA
#else
    double t = (x - lower) * scale;
#endif
    double c = floor(t);
    if (!(c >= 0.0)) {  // negative, or NaN
        return 0ull;
    }
    if (c >= (double)max_cell) {  // max_cell <= 2**32 - 1 is exact in double
        return max_cell;
    }
    return (unsigned long long)c;
}

// Whether a double is finite (not NaN, not +-inf), without the standard library.
__host__ __device__ __forceinline__ bool xstride_morton_isfinite(double x)
{
    return x - x == 0.0;  // inf - inf and NaN - NaN are NaN
}

// Key of a 2-D point. `levels` in 1..32; lower/scale per axis from morton_scales.
__host__ __device__ __forceinline__ unsigned long long xstride_morton_key2(double x, double y,
                                                                          double lower0, double lower1,
                                                                          double scale0, double scale1,
                                                                          int levels)
{
    const unsigned long long max_cell = (1ull << levels) - 1ull;
    return xstride_morton_encode2(xstride_morton_cell(x, lower0, scale0, max_cell),
                                  xstride_morton_cell(y, lower1, scale1, max_cell));
}

// Key of a 3-D point. `levels` in 1..21; lower/scale per axis from morton_scales.
__host__ __device__ __forceinline__ unsigned long long xstride_morton_key3(double x, double y, double z,
                                                                          double lower0, double lower1,
                                                                          double lower2, double scale0,
                                                                          double scale1, double scale2,
                                                                          int levels)
{
    const unsigned long long max_cell = (1ull << levels) - 1ull;
    return xstride_morton_encode3(xstride_morton_cell(x, lower0, scale0, max_cell),
                                  xstride_morton_cell(y, lower1, scale1, max_cell),
                                  xstride_morton_cell(z, lower2, scale2, max_cell));
}

#endif  // XSTRIDE_MORTON_CUH
