/* xstride/detail/row_words.cuh -- a thread's whole short dense rows in registers,
 * loaded as 16-byte words (xs_reduce_rowregs in xstride/_kernels/reductions_rows.cu,
 * xs_arg_rowregs in xstride/_kernels/argreductions.cu). Not part of the shipped header
 * API: names and contents may change in any release. Compiled by NVRTC: no standard
 * headers.
 */
#ifndef XSTRIDE_DETAIL_ROW_WORDS_CUH
#define XSTRIDE_DETAIL_ROW_WORDS_CUH

// E elements of type T that fill whole 16-byte words, as words or as elements.
template <typename T, int E>
union xs_row_words {
    static_assert((E * (int)sizeof(T)) % 16 == 0, "a thread's rows are whole 16-byte words");
    uint4 u[E * (int)sizeof(T) / 16];
    T t[E];
};

// The first n of the E elements at src: all E as words through the read-only data
// cache when n is E (src on a 16-byte boundary: the host checks the first row, and a
// thread's rows fill whole words), else element by element (the last, shorter group
// of rows); the elements past n stay unset.
template <typename T, int E>
__device__ __forceinline__ void xs_load_row_words(xs_row_words<T, E>& v, const T* src, int n)
{
    if (n == E) {
#pragma unroll
        for (int i = 0; i < E * (int)sizeof(T) / 16; ++i)
            v.u[i] = __ldg(reinterpret_cast<const uint4*>(src) + i);
    } else {
#pragma unroll
        for (int e = 0; e < E; ++e)
            if (e < n) v.t[e] = src[e];
    }
}

#endif  // XSTRIDE_DETAIL_ROW_WORDS_CUH
