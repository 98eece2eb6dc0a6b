/* xstride/_host/segments_host.c -- the host bin_offsets of sorted bins in one pass
 * (xstride/_host/segments.py). Built at first use by xstride/_host/_segments_native.py
 * with the system C compiler and loaded with ctypes; NumPy is the fallback. Plain C99,
 * no headers of the project. */
#include <stdint.h>

/* One pass over the n bins (each bin read once into v, which the fill trusts only
 * after the range test: it never writes past offsets[n_bins], even if another thread
 * changes the bins meanwhile): the CSR offsets while every bin so far lies in
 * [0, n_bins) and is at least the one before it (offsets[b] is the first position
 * whose bin is b or more, b = 0 .. n_bins: n_bins + 1 entries, all written when the
 * bins pass); at the first bin that does not, a second loop finds the first position
 * outside the range (found[1], else -1) and, while there is none, the first position
 * whose bin is below the one before it (found[0], else -1). One unsigned comparison
 * tests both ends of the range (a negative bin becomes a huge unsigned one). */
#define XS_BIN_OFFSETS(NAME, T)                                                        \
    void NAME(const T* bins, long long n, long long n_bins, long long* offsets,        \
              long long* found)                                                        \
    {                                                                                  \
        const unsigned long long nb = (unsigned long long)n_bins;                      \
        long long next = 0, prev = 0, i = 0; /* next: the first bin whose start is unset */ \
        for (; i < n; ++i) {                                                           \
            const long long v = (long long)bins[i];                                    \
            if ((unsigned long long)v >= nb || v < prev) break;                        \
            while (next <= v) offsets[next++] = i;                                     \
            prev = v;                                                                  \
        }                                                                              \
        found[0] = -1;                                                                 \
        found[1] = -1;                                                                 \
        if (i == n) {                                                                  \
            while (next <= n_bins) offsets[next++] = n;                                \
            return;                                                                    \
        }                                                                              \
        for (; i < n; ++i) {                                                           \
            const long long v = (long long)bins[i];                                    \
            if ((unsigned long long)v >= nb) { found[1] = i; return; }                 \
            if (v < prev && found[0] < 0) found[0] = i;                                \
            prev = v;                                                                  \
        }                                                                              \
    }

XS_BIN_OFFSETS(xstride_host_bin_offsets_i64, int64_t)
XS_BIN_OFFSETS(xstride_host_bin_offsets_i32, int32_t)
