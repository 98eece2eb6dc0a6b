/* xstride/_host/partition_host.c -- the host grouping of one chunk's rows by output
 * partition for the dask backend's sample sort (xstride/_chunked/sample_sort.py,
 * called through xstride/_host/partition.py). Built at first use by
 * xstride/_host/_partition_native.py with the system C compiler and loaded with
 * ctypes; NumPy (a binary search per key, then a stable sort of the partition numbers)
 * is the fallback. Plain C99, no headers of the project.
 *
 * A counting sort by partition, stable, in two passes over the keys:
 *   1. each key's partition: the number of splitters below it (a branch-free lower
 *      bound over the sorted splitters, 16 keys side by side; partition j takes the
 *      keys in (s[j-1], s[j]]), kept in a uint32 array, and the count of each
 *      partition;
 *   2. the counts' exclusive scan gives each partition's first output row (cuts); a
 *      cursor per partition then places every row, in row order, so that each
 *      partition's rows keep their order (stable): order[d] is the input row of
 *      output row d, and the keys are written beside it.
 * Each value array is then gathered by order, a row of row_bytes bytes at a time
 * (the common row sizes by copies of a constant size, any other by memcpy). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* memcpy of a constant size compiles to plain loads and stores of any alignment */
#define XS_GATHER_ROWS(RB)                                                             \
    for (d = 0; d < m; ++d)                                                            \
        memcpy(out + d * (RB), in + order[d] * (RB), (RB))

static void xs_gather(const char* in, char* out, const long long* order, long long m,
                      long long rb)
{
    long long d;
    switch (rb) {
    case 0: break;
    case 1: XS_GATHER_ROWS(1); break;
    case 2: XS_GATHER_ROWS(2); break;
    case 4: XS_GATHER_ROWS(4); break;
    case 8: XS_GATHER_ROWS(8); break;
    case 12: XS_GATHER_ROWS(12); break;
    case 16: XS_GATHER_ROWS(16); break;
    case 24: XS_GATHER_ROWS(24); break;
    case 32: XS_GATHER_ROWS(32); break;
    default:
        for (d = 0; d < m; ++d)
            memcpy(out + d * rb, in + order[d] * rb, (size_t)rb);
    }
}

/* Returns 0, or -1 where the scratch memory (4 bytes a row, 8 a partition) could not
 * be had (nothing written then). cuts: n_split + 2 entries, [0, ..., m]. The value
 * arrays are C-contiguous, vals_in[v] and vals_out[v] of m rows of row_bytes[v]
 * bytes, of any alignment. */
/* keys searched side by side: the searches of one block share their steps (the step
 * sizes depend only on n_split), so their loads overlap instead of waiting in turn */
#define XS_LANES 16

#define XS_PARTITION(NAME, T)                                                          \
    long long NAME(const T* keys, long long m, const T* spl, long long n_split,        \
                   long long* cuts, long long* order, T* keys_out, long long n_vals,   \
                   char* const* vals_in, char* const* vals_out,                        \
                   const long long* row_bytes)                                         \
    {                                                                                  \
        const long long parts = n_split + 1;                                           \
        uint32_t* part = (uint32_t*)malloc((size_t)(m > 0 ? m : 1) * sizeof(uint32_t)); \
        long long* cursor = (long long*)malloc((size_t)parts * sizeof(long long));     \
        long long i, j;                                                                \
        if (part == NULL || cursor == NULL) {                                          \
            free(part);                                                                \
            free(cursor);                                                              \
            return -1;                                                                 \
        }                                                                              \
        memset(cursor, 0, (size_t)parts * sizeof(long long));                          \
        for (i = 0; i < m; i += XS_LANES) {                                            \
            const long long lanes = m - i < XS_LANES ? m - i : XS_LANES;               \
            long long at[XS_LANES];                                                    \
            T k[XS_LANES];                                                             \
            long long len = n_split, u;                                                \
            for (u = 0; u < XS_LANES; ++u) {                                           \
                at[u] = 0;                                                             \
                k[u] = keys[i + (u < lanes ? u : 0)];                                  \
            }                                                                          \
            while (len > 1) {                                                          \
                const long long half = len / 2;                                        \
                for (u = 0; u < XS_LANES; ++u)                                         \
                    at[u] += (long long)(spl[at[u] + half - 1] < k[u]) * half;         \
                len -= half;                                                           \
            }                                                                          \
            for (u = 0; u < lanes; ++u) {                                              \
                j = at[u] + (len == 1 && spl[at[u]] < k[u]);                           \
                part[i + u] = (uint32_t)j;                                             \
                ++cursor[j];                                                           \
            }                                                                          \
        }                                                                              \
        cuts[0] = 0;                                                                   \
        for (j = 0; j < parts; ++j) {                                                  \
            cuts[j + 1] = cuts[j] + cursor[j];                                         \
            cursor[j] = cuts[j];                                                       \
        }                                                                              \
        for (i = 0; i < m; ++i) {                                                      \
            const long long d = cursor[part[i]]++;                                     \
            order[d] = i;                                                              \
            keys_out[d] = keys[i];                                                     \
        }                                                                              \
        free(part);                                                                    \
        free(cursor);                                                                  \
        for (j = 0; j < n_vals; ++j)                                                   \
            xs_gather(vals_in[j], vals_out[j], order, m, row_bytes[j]);                \
        return 0;                                                                      \
    }

XS_PARTITION(xstride_host_partition_i32, int32_t)
XS_PARTITION(xstride_host_partition_u32, uint32_t)
XS_PARTITION(xstride_host_partition_i64, int64_t)
XS_PARTITION(xstride_host_partition_u64, uint64_t)
