// xstride/index.cuh -- thread indices, grid-stride loops and index arithmetic.
//
// Part of xstride (docs/cuda-headers.md). Includes no standard header: NVRTC ships none.
//
// Conventions
//   * Every index is a 64-bit `long long`, so arrays of more than 2**31 elements work.
//   * Multi-dimensional indices are in C order (last axis fastest), as in NumPy.
//   * In 2-D and 3-D launches the LAST array axis follows threadIdx.x / blockIdx.x (the
//     fast CUDA axis), so neighbouring threads touch neighbouring elements of a
//     C-contiguous array: XSTRIDE_KERNEL_2D(row, col, ...) takes col from x, row from y.
//   * Functions marked XSTRIDE_HD are `__host__ __device__`; with a host C++17 compiler
//     (no __CUDACC__) they are plain `inline` functions, and the device-only parts of
//     this header (thread indices, macros reading threadIdx) are left out.
#ifndef XSTRIDE_INDEX_CUH
#define XSTRIDE_INDEX_CUH

#if defined(__CUDACC__) || defined(__HIPCC__)
#define XSTRIDE_GPU_COMPILER 1
#define XSTRIDE_HD __host__ __device__ __forceinline__
#define XSTRIDE_DEVICE __device__ __forceinline__
#else
#define XSTRIDE_HD inline
#endif

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define XSTRIDE_DEVICE_PASS 1
#endif

// ---------------------------------------------------------------- host and device math

// ceil(a / b) for a >= 0, b > 0: the number of blocks of `b` threads covering `a` items.
XSTRIDE_HD long long xstride_ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// Number of elements of a shape (1 for ndim == 0).
XSTRIDE_HD long long xstride_size(int ndim, const long long* shape) {
    long long s = 1;
    for (int d = 0; d < ndim; ++d) s *= shape[d];
    return s;
}

// Flat C-order index -> multi-index (like numpy.unravel_index). Writes ndim values.
XSTRIDE_HD void xstride_unravel_index(long long flat, int ndim, const long long* shape,
                                      long long* index) {
    for (int d = ndim - 1; d >= 0; --d) {
        const long long n = shape[d];
        index[d] = flat % n;
        flat /= n;
    }
}

// Multi-index -> flat C-order index (like numpy.ravel_multi_index).
XSTRIDE_HD long long xstride_ravel_index(int ndim, const long long* shape,
                                         const long long* index) {
    long long flat = 0;
    for (int d = 0; d < ndim; ++d) flat = flat * shape[d] + index[d];
    return flat;
}

// Multi-index -> element offset in a strided layout (strides in elements).
XSTRIDE_HD long long xstride_offset(int ndim, const long long* strides,
                                    const long long* index) {
    long long off = 0;
    for (int d = 0; d < ndim; ++d) off += index[d] * strides[d];
    return off;
}

// Flat C-order index -> element offset in a strided layout, without a temporary
// multi-index: the n-th element a C-order walk over the view visits.
XSTRIDE_HD long long xstride_flat_to_offset(long long flat, int ndim, const long long* shape,
                                            const long long* strides) {
    long long off = 0;
    for (int d = ndim - 1; d >= 0; --d) {
        const long long n = shape[d];
        off += (flat % n) * strides[d];
        flat /= n;
    }
    return off;
}

// Offsets into C-contiguous 2-D (n0, n1) and 3-D (n0, n1, n2) arrays; n0 is not needed.
XSTRIDE_HD long long xstride_c_offset_2d(long long n1, long long i, long long j) {
    return i * n1 + j;
}
XSTRIDE_HD long long xstride_c_offset_3d(long long n1, long long n2, long long i,
                                         long long j, long long k) {
    return (i * n1 + j) * n2 + k;
}

// ---------------------------------------------------------------- device only
#if defined(XSTRIDE_GPU_COMPILER)

// Global 1-D thread index and thread count, as 64-bit integers (the 32-bit product
// blockIdx.x * blockDim.x overflows beyond 2**31 threads).
XSTRIDE_DEVICE long long xstride_global_thread_id() {
    return (long long)blockIdx.x * (long long)blockDim.x + (long long)threadIdx.x;
}
XSTRIDE_DEVICE long long xstride_global_thread_count() {
    return (long long)gridDim.x * (long long)blockDim.x;
}
XSTRIDE_DEVICE long long xstride_global_thread_id_y() {
    return (long long)blockIdx.y * (long long)blockDim.y + (long long)threadIdx.y;
}
XSTRIDE_DEVICE long long xstride_global_thread_id_z() {
    return (long long)blockIdx.z * (long long)blockDim.z + (long long)threadIdx.z;
}

// Declare `i`, the global 1-D index, and return from the kernel when i >= n.
#define XSTRIDE_KERNEL_1D(i, n)                         \
    const long long i = xstride_global_thread_id();     \
    if (i >= (long long)(n)) return

// Declare `row` (from y) and `col` (from x); return outside an (nrows, ncols) array.
#define XSTRIDE_KERNEL_2D(row, col, nrows, ncols)                                   \
    const long long col = xstride_global_thread_id();                               \
    const long long row = xstride_global_thread_id_y();                             \
    if (row >= (long long)(nrows) || col >= (long long)(ncols)) return

// Declare `i` (from z), `j` (from y), `k` (from x); return outside an (n0, n1, n2) array.
#define XSTRIDE_KERNEL_3D(i, j, k, n0, n1, n2)                                      \
    const long long k = xstride_global_thread_id();                                 \
    const long long j = xstride_global_thread_id_y();                               \
    const long long i = xstride_global_thread_id_z();                               \
    if (i >= (long long)(n0) || j >= (long long)(n1) || k >= (long long)(n2)) return

// for (i = global id; i < n; i += total threads): any grid size covers any n.
#define XSTRIDE_GRID_STRIDE_LOOP(i, n)                                              \
    for (long long i = xstride_global_thread_id(); i < (long long)(n);              \
         i += xstride_global_thread_count())

#endif  // XSTRIDE_GPU_COMPILER

#endif  // XSTRIDE_INDEX_CUH
