// xstride/array_view.cuh -- strided array views passed to kernels by value.
//
// Part of xstride (docs/cuda-headers.md). Includes no standard header: NVRTC ships none.
//
//   xstride_array<T, N>   (aliases Array1D<T> ... Array16D<T>)
//       T* data; long long shape[N]; long long strides[N];   strides in ELEMENTS
//       sizeof == 8 * (1 + 2N)
//   xstride_carray<T, N>  (aliases CArray1D<T> ... CArray16D<T>), C-contiguous only
//       T* data; long long shape[N];                           sizeof == 8 * (1 + N)
//
// xstride.cuda.CudaKernel packs a CuPy array into these structs when a kernel parameter
// has one of these types (pointer, then shape, then strides; every field 8 bytes, so
// there is no padding). The layout is checked below with static_assert.
//
// Indexing: v(i0, i1, ..., iN-1) -> T&, C order, no negative indices, no wrap-around.
// With XSTRIDE_BOUNDS_CHECK defined (xstride's debug mode), every index is checked on
// the device: an out-of-bounds index prints the axis, index and size, then traps (the
// launch fails and CudaKernel raises). Host builds never check.
#ifndef XSTRIDE_ARRAY_VIEW_CUH
#define XSTRIDE_ARRAY_VIEW_CUH

#include "index.cuh"

#if defined(XSTRIDE_BOUNDS_CHECK) && defined(XSTRIDE_DEVICE_PASS)
#define XSTRIDE_VIEW_CHECK(index, axis, size)                                         \
    do {                                                                              \
        if ((index) < 0 || (index) >= (size)) {                                       \
            printf("xstride: index %lld is out of bounds for axis %d with size %lld "  \
                   "(block %u,%u,%u thread %u,%u,%u)\n",                               \
                   (long long)(index), (int)(axis), (long long)(size), blockIdx.x,    \
                   blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);    \
            __trap();                                                                 \
        }                                                                             \
    } while (0)
#else
#define XSTRIDE_VIEW_CHECK(index, axis, size) ((void)0)
#endif

// Whether a pack of index arguments has exactly N members (no <type_traits> in NVRTC).
template <int N, typename... I>
struct xstride_rank_matches {
    static constexpr bool value = (sizeof...(I) == (unsigned long long)N);
};

template <typename T, int N>
struct xstride_array {
    static_assert(N >= 1 && N <= 16, "xstride_array supports 1 to 16 dimensions");
    T* data;
    long long shape[N];
    long long strides[N];  // in elements, may be negative or zero

    static constexpr int ndim = N;

    XSTRIDE_HD long long size() const { return xstride_size(N, shape); }

    // Element offset of a multi-index held in an array of N values.
    XSTRIDE_HD long long offset_of(const long long* index) const {
        return xstride_offset(N, strides, index);
    }

    XSTRIDE_HD bool in_bounds(const long long* index) const {
        for (int d = 0; d < N; ++d)
            if (index[d] < 0 || index[d] >= shape[d]) return false;
        return true;
    }

    template <typename... I>
    XSTRIDE_HD long long offset(I... index) const {
        static_assert(xstride_rank_matches<N, I...>::value,
                      "a view of N dimensions takes exactly N indices");
        const long long idx[N] = {(long long)index...};
        long long off = 0;
        for (int d = 0; d < N; ++d) {
            XSTRIDE_VIEW_CHECK(idx[d], d, shape[d]);
            off += idx[d] * strides[d];
        }
        return off;
    }

    template <typename... I>
    XSTRIDE_HD T& operator()(I... index) const { return data[offset(index...)]; }

    // The element a C-order walk over the view visits at step `flat` (0 <= flat < size()).
    XSTRIDE_HD T& at_flat(long long flat) const {
        XSTRIDE_VIEW_CHECK(flat, -1, size());
        return data[xstride_flat_to_offset(flat, N, shape, strides)];
    }
};

template <typename T, int N>
struct xstride_carray {
    static_assert(N >= 1 && N <= 16, "xstride_carray supports 1 to 16 dimensions");
    T* data;
    long long shape[N];  // strides are implied: C-contiguous

    static constexpr int ndim = N;

    XSTRIDE_HD long long size() const { return xstride_size(N, shape); }

    // Stride of axis d in elements (product of the later extents).
    XSTRIDE_HD long long stride(int d) const {
        long long s = 1;
        for (int e = N - 1; e > d; --e) s *= shape[e];
        return s;
    }

    template <typename... I>
    XSTRIDE_HD long long offset(I... index) const {
        static_assert(xstride_rank_matches<N, I...>::value,
                      "a view of N dimensions takes exactly N indices");
        const long long idx[N] = {(long long)index...};
        long long off = 0;
        for (int d = 0; d < N; ++d) {
            XSTRIDE_VIEW_CHECK(idx[d], d, shape[d]);
            off = off * shape[d] + idx[d];
        }
        return off;
    }

    template <typename... I>
    XSTRIDE_HD T& operator()(I... index) const { return data[offset(index...)]; }

    // Flat C-order element (the memory order of a C-contiguous array).
    XSTRIDE_HD T& operator[](long long flat) const {
        XSTRIDE_VIEW_CHECK(flat, -1, size());
        return data[flat];
    }
};

// The by-value layout CudaKernel packs: 8-byte pointer, then 8-byte extents and strides.
template <int N>
struct xstride_view_layout_check {
    static_assert(sizeof(xstride_array<char, N>) == 8 * (1 + 2 * N),
                  "xstride_array<T, N> must be 8*(1+2N) bytes");
    static_assert(sizeof(xstride_carray<char, N>) == 8 * (1 + N),
                  "xstride_carray<T, N> must be 8*(1+N) bytes");
    static_assert(sizeof(xstride_array<double, N>) == 8 * (1 + 2 * N),
                  "xstride_array<T, N> must be 8*(1+2N) bytes");
    static constexpr bool ok = true;
};

#define XSTRIDE_DEFINE_VIEW_ALIASES(N)                                                \
    template <typename T> using Array##N##D = xstride_array<T, N>;                     \
    template <typename T> using CArray##N##D = xstride_carray<T, N>;                   \
    static_assert(xstride_view_layout_check<N>::ok, "view layout")

XSTRIDE_DEFINE_VIEW_ALIASES(1);
XSTRIDE_DEFINE_VIEW_ALIASES(2);
XSTRIDE_DEFINE_VIEW_ALIASES(3);
XSTRIDE_DEFINE_VIEW_ALIASES(4);
XSTRIDE_DEFINE_VIEW_ALIASES(5);
XSTRIDE_DEFINE_VIEW_ALIASES(6);
XSTRIDE_DEFINE_VIEW_ALIASES(7);
XSTRIDE_DEFINE_VIEW_ALIASES(8);
XSTRIDE_DEFINE_VIEW_ALIASES(9);
XSTRIDE_DEFINE_VIEW_ALIASES(10);
XSTRIDE_DEFINE_VIEW_ALIASES(11);
XSTRIDE_DEFINE_VIEW_ALIASES(12);
XSTRIDE_DEFINE_VIEW_ALIASES(13);
XSTRIDE_DEFINE_VIEW_ALIASES(14);
XSTRIDE_DEFINE_VIEW_ALIASES(15);
XSTRIDE_DEFINE_VIEW_ALIASES(16);

#undef XSTRIDE_DEFINE_VIEW_ALIASES

#endif  // XSTRIDE_ARRAY_VIEW_CUH
