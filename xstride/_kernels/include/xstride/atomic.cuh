// xstride/atomic.cuh -- atomic adds that return the old value, and indexed helpers.
//
// Part of xstride (docs/cuda-headers.md). Includes no standard header: NVRTC ships none.
//
// xstride_atomic_add(T* address, T value) -> old value, for T in
//   double (sm_60 and later), float, int, unsigned int, long long, unsigned long long.
// Indexed helpers on C-contiguous arrays (raw pointer + extents, or a CArray2D/3D view):
//   xstride_atomic_add_2d(base, n1, i, j, v)         adds to base[i*n1 + j]
//   xstride_atomic_add_3d(base, n1, n2, i, j, k, v)  adds to base[(i*n1 + j)*n2 + k]
//   xstride_atomic_add_at(view, i, j[, k], v)        the same through a CArray view
// Float atomics make sums depend on thread order: results of float accumulation are not
// bit-reproducible run to run (xstride's own reductions do not use them).
#ifndef XSTRIDE_ATOMIC_CUH
#define XSTRIDE_ATOMIC_CUH

#include "index.cuh"
#include "array_view.cuh"

#if defined(XSTRIDE_GPU_COMPILER)

XSTRIDE_DEVICE double xstride_atomic_add(double* address, double value) {
    return atomicAdd(address, value);
}
XSTRIDE_DEVICE float xstride_atomic_add(float* address, float value) {
    return atomicAdd(address, value);
}
XSTRIDE_DEVICE int xstride_atomic_add(int* address, int value) {
    return atomicAdd(address, value);
}
XSTRIDE_DEVICE unsigned int xstride_atomic_add(unsigned int* address, unsigned int value) {
    return atomicAdd(address, value);
}
XSTRIDE_DEVICE unsigned long long xstride_atomic_add(unsigned long long* address,
                                                     unsigned long long value) {
    return atomicAdd(address, value);
}
// Two's complement: a signed 64-bit add is the unsigned add of the same bits.
XSTRIDE_DEVICE long long xstride_atomic_add(long long* address, long long value) {
    return (long long)atomicAdd((unsigned long long*)address, (unsigned long long)value);
}

template <typename T>
XSTRIDE_DEVICE T xstride_atomic_add_2d(T* base, long long n1, long long i, long long j,
                                       T value) {
    return xstride_atomic_add(base + xstride_c_offset_2d(n1, i, j), value);
}

template <typename T>
XSTRIDE_DEVICE T xstride_atomic_add_3d(T* base, long long n1, long long n2, long long i,
                                       long long j, long long k, T value) {
    return xstride_atomic_add(base + xstride_c_offset_3d(n1, n2, i, j, k), value);
}

template <typename T>
XSTRIDE_DEVICE T xstride_atomic_add_at(const xstride_carray<T, 2>& a, long long i,
                                       long long j, T value) {
    return xstride_atomic_add(&a(i, j), value);
}

template <typename T>
XSTRIDE_DEVICE T xstride_atomic_add_at(const xstride_carray<T, 3>& a, long long i,
                                       long long j, long long k, T value) {
    return xstride_atomic_add(&a(i, j, k), value);
}

#endif  // XSTRIDE_GPU_COMPILER

#endif  // XSTRIDE_ATOMIC_CUH
