// Short rows sorted in registers: sort and argsort along a last axis of at most
// XS_SR_MAX elements (xstride/_backends/cupy_sort_rows.py; launcher: sort_rows.py).
//
// One thread a row: its k elements are loaded into registers and sorted by odd-even
// transposition (k passes of compare-exchanges of neighbours; a pair swaps only when
// the second element goes strictly before the first, so equal elements keep their
// order: the sort is stable). Every loop runs to the compile-time XS_SR_MAX with the
// row's k as a guard, so the arrays stay in registers for any k. The order is NumPy's:
// ascending with NaN last; descending with NaN first and equal elements in their order
// (NumPy's flip(sort(flip(x))), the standard's stable descending sort). Source: the
// odd-even transposition sort, D. E. Knuth, The Art of Computer Programming, vol. 3,
// 5.3.4, exercise 37 (a network of n levels sorts n elements).

#define XS_SR_MAX 16

template <typename T>
__device__ __forceinline__ bool xs_sr_nan(T v)
{
    return v != v;   // false for integers and bool
}

// Whether a goes strictly before b.
template <typename T>
__device__ __forceinline__ bool xs_sr_before(T a, T b, bool desc)
{
    if (desc) {
        return a > b || (xs_sr_nan(a) && !xs_sr_nan(b));
    }
    return a < b || (xs_sr_nan(b) && !xs_sr_nan(a));
}

// x: m rows of k elements, C-ordered; out: the sorted rows (ARG false) or idx: each
// element's index in its row, int64 (ARG true).
template <typename T, bool ARG>
__global__ void __launch_bounds__(256) xs_sort_rows(const T* __restrict__ x, long long m,
                                                    int k, int desc, T* __restrict__ out,
                                                    long long* __restrict__ idx)
{
    const long long step = (long long)blockDim.x * gridDim.x;
    const bool d = desc != 0;
    for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < m; r += step) {
        const T* row = x + r * k;
        T v[XS_SR_MAX];
        int ix[XS_SR_MAX];
#pragma unroll
        for (int j = 0; j < XS_SR_MAX; ++j) {
            if (j < k) {
                v[j] = row[j];
            }
            ix[j] = j;
        }
#pragma unroll
        for (int p = 0; p < XS_SR_MAX; ++p) {
            if (p < k) {
#pragma unroll
                for (int i = p & 1; i + 1 < XS_SR_MAX; i += 2) {
                    if (i + 1 < k && xs_sr_before(v[i + 1], v[i], d)) {
                        const T a = v[i];
                        v[i] = v[i + 1];
                        v[i + 1] = a;
                        const int t = ix[i];
                        ix[i] = ix[i + 1];
                        ix[i + 1] = t;
                    }
                }
            }
        }
#pragma unroll
        for (int j = 0; j < XS_SR_MAX; ++j) {
            if (j < k) {
                if (ARG) {
                    idx[r * k + j] = ix[j];
                } else {
                    out[r * k + j] = v[j];
                }
            }
        }
    }
}
