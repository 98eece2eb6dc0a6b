// xstride/elementwise.cuh -- device side of the elementwise engine.
//
// The host plan (xstride/_plans/elementwise.py) packs one xstride_ew_params<CAP, NOPS>
// struct per launch; kernels take it BY VALUE as a __grid_constant__ parameter, so
// dynamic indexing into shape/strides reads the constant bank (no local copy, no
// device allocation). Operand 0..NOUT-1 are outputs, the rest inputs. All index
// arithmetic is 64-bit unless a kernel is instantiated with a 32-bit index type by
// the host after checking that every index fits.
//
// Byte layout (little-endian, 8-byte fields, in this order):
//   long long n;                 total number of elements
//   long long e0, e1;            extents of the inner axis and (tiled) the tile axis
//   long long ndim;              number of "outer" axes (rows/nd) or "rest" axes (tiled)
//   long long offset[NOPS];      element offset of each operand from its pointer
//   long long s0[NOPS];          element stride of each operand along the inner axis
//   long long s1[NOPS];          element stride along the tile axis (tiled only)
//   long long shape[CAP];        outer extents, outermost first
//   long long strides[NOPS][CAP] outer element strides
// No standard header is included (NVRTC ships none).
#ifndef XSTRIDE_ELEMENTWISE_CUH
#define XSTRIDE_ELEMENTWISE_CUH

template <int CAP, int NOPS>
struct xstride_ew_params {
    long long n;
    long long e0;
    long long e1;
    long long ndim;
    long long offset[NOPS];
    long long s0[NOPS];
    long long s1[NOPS];
    long long shape[CAP];
    long long strides[NOPS][CAP];
};

// Aligned vector of V elements of T, for 2..16-byte loads and stores.
template <typename T, int V>
struct alignas(sizeof(T) * V) xstride_vec {
    T v[V];
};

// Offsets of the outer coordinate `row` (C order over shape[0..ndim)) for every
// operand, added to off[]. IDX is the index type (unsigned int or long long).
template <int CAP, int NOPS, typename IDX>
__device__ __forceinline__ void xstride_ew_outer(const xstride_ew_params<CAP, NOPS>& p,
                                                 IDX row, long long* off) {
    // axes ndim-1 .. 1 by division; axis 0 takes what is left (row < shape[0])
    for (int d = (int)p.ndim - 1; d >= 1; --d) {
        const IDX n = (IDX)p.shape[d];
        const IDX q = row / n;
        const long long c = (long long)(row - q * n);
        row = q;
#pragma unroll
        for (int k = 0; k < NOPS; ++k) off[k] += c * p.strides[k][d];
    }
    if (p.ndim > 0) {
#pragma unroll
        for (int k = 0; k < NOPS; ++k) off[k] += (long long)row * p.strides[k][0];
    }
}

// Comparisons that are exact across signed/unsigned 64-bit operands (NumPy 2 loops
// int64 x uint64 -> bool compare values, not bit patterns).
template <typename A, typename B> __device__ __forceinline__ bool xstride_lt(A a, B b) { return a < b; }
template <typename A, typename B> __device__ __forceinline__ bool xstride_eq(A a, B b) { return a == b; }
__device__ __forceinline__ bool xstride_lt(long long a, unsigned long long b) {
    return a < 0 || (unsigned long long)a < b;
}
__device__ __forceinline__ bool xstride_lt(unsigned long long a, long long b) {
    return b >= 0 && a < (unsigned long long)b;
}
__device__ __forceinline__ bool xstride_eq(long long a, unsigned long long b) {
    return a >= 0 && (unsigned long long)a == b;
}
__device__ __forceinline__ bool xstride_eq(unsigned long long a, long long b) {
    return b >= 0 && a == (unsigned long long)b;
}

// NumPy's maximum/minimum: a NaN in either operand propagates.
template <typename T> __device__ __forceinline__ T xstride_max(T a, T b) {
    return (a >= b || a != a) ? a : b;
}
template <typename T> __device__ __forceinline__ T xstride_min(T a, T b) {
    return (a <= b || a != a) ? a : b;
}
template <typename T> __device__ __forceinline__ T xstride_abs(T a) { return a < 0 ? (T)-a : a; }
__device__ __forceinline__ float xstride_abs(float a) { return fabsf(a); }
__device__ __forceinline__ double xstride_abs(double a) { return fabs(a); }
__device__ __forceinline__ bool xstride_abs(bool a) { return a; }

#endif  // XSTRIDE_ELEMENTWISE_CUH
