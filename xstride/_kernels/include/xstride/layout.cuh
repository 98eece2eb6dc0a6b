// xstride/layout.cuh -- the device side of xstride.layout.Layout.pack().
//
// A layout travels to a kernel BY VALUE (declare the parameter
// `const __grid_constant__ xstride_layout_t<N> lay`), never through device memory.
// Byte layout (little-endian, 8-byte aligned, 16 + 16*N bytes):
//   long long offset;      element offset of index (0, ..., 0)
//   int       ndim;        rank (<= N)
//   int       itemsize;    bytes per element
//   long long shape[N];    extents; unused entries are 1
//   long long strides[N];  element strides (any sign); unused entries are 0
// No standard header is included (NVRTC ships none).
#ifndef XSTRIDE_LAYOUT_CUH
#define XSTRIDE_LAYOUT_CUH

#define XSTRIDE_MAX_NDIM 64

template <int N>
struct xstride_layout_t {
    long long offset;
    int ndim;
    int itemsize;
    long long shape[N];
    long long strides[N];
};

typedef xstride_layout_t<XSTRIDE_MAX_NDIM> xstride_layout;

// Element offset of the linear C-order index `i` (0 <= i < size) of the layout.
// 64-bit throughout; the loop runs over the first `ndim` entries only.
template <int N>
__device__ __forceinline__ long long xstride_layout_offset(const xstride_layout_t<N>& lay,
                                                           long long i) {
    long long off = lay.offset;
    for (int d = lay.ndim - 1; d >= 0; --d) {
        const long long n = lay.shape[d];
        const long long q = i / n;
        off += (i - q * n) * lay.strides[d];
        i = q;
    }
    return off;
}

#endif  // XSTRIDE_LAYOUT_CUH
