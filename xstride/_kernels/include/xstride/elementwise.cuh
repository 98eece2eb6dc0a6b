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

// CuPy's operators //, %, ** on integer and float loops, as xp.fuse compiles them so
// that a fused kernel computes what CuPy's kernel computes for the unfused operator
// (cupy/_core: the ufuncs floor_divide, remainder, power; the same overloads, so that
// a narrow integer loop computes in int as there). Floor division: a zero divisor
// gives 0 for integers; the truncated quotient steps down by one where a remainder
// is left and the signs differ. Floats: floor of the rounded quotient.
template <typename T> __device__ __forceinline__ T xstride_fz_floordiv_signed(T x, T y) {
    if (y == 0) return 0;
    const T q = x / y;
    const T r = x - q * y;
    return (r != 0 && ((r < 0) != (y < 0))) ? (T)(q - 1) : q;
}
__device__ __forceinline__ int xstride_fz_floordiv(int x, int y) { return xstride_fz_floordiv_signed(x, y); }
__device__ __forceinline__ long long xstride_fz_floordiv(long long x, long long y) { return xstride_fz_floordiv_signed(x, y); }
__device__ __forceinline__ unsigned xstride_fz_floordiv(unsigned x, unsigned y) { return y == 0u ? 0u : x / y; }
__device__ __forceinline__ unsigned long long xstride_fz_floordiv(unsigned long long x, unsigned long long y) {
    return y == 0ull ? 0ull : x / y;
}
__device__ __forceinline__ float xstride_fz_floordiv(float x, float y) { return floorf(x / y); }
__device__ __forceinline__ double xstride_fz_floordiv(double x, double y) { return floor(x / y); }
// Integer power by repeated squaring in T; a negative exponent (NumPy refuses it,
// CuPy answers) gives 1 for base 1, +-1 for base -1 by the exponent's parity, else 0.
template <typename T> __device__ __forceinline__ T xstride_fz_ipow(T b, T e) {
    if constexpr (T(-1) < T(0)) {
        if (e < 0) return b == T(-1) ? ((e & 1) ? T(-1) : T(1)) : (b == T(1) ? T(1) : T(0));
    }
    T r = 1;
    for (; e > 0; e >>= 1) {
        if (e & 1) r *= b;
        b *= b;
    }
    return r;
}

#endif  // XSTRIDE_ELEMENTWISE_CUH
