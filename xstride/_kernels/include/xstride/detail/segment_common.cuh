/* xstride/detail/segment_common.cuh -- private helper of the segment kernels
 * (xstride/_kernels/segments.cu, compaction.cu, voxels.cu): their block size, the warp
 * minimum of the checks' records; the asynchronous copies that stage rows in shared
 * memory are async_copy.cuh's.
 * Not part of the shipped header API: names and contents may change in any release.
 * Compiled by NVRTC: no standard headers.
 */
#ifndef XSTRIDE_DETAIL_SEGMENT_COMMON_CUH
#define XSTRIDE_DETAIL_SEGMENT_COMMON_CUH

#include <xstride/detail/async_copy.cuh>

#define XS_SEG_THREADS 256
#define XS_SEG_FULL 0xffffffffu

// The minimum of x over the warp (every lane gets it).
__device__ __forceinline__ unsigned long long xs_seg_warp_min(unsigned long long x)
{
    for (int o = 16; o > 0; o >>= 1) {
        unsigned long long y = __shfl_xor_sync(XS_SEG_FULL, x, o);
        x = y < x ? y : x;
    }
    return x;
}

#endif
