/* xstride/detail/segment_common.cuh -- private helper of the segment kernels
 * (xstride/_kernels/segments.cu, compaction.cu, voxels.cu): their block size, the warp
 * minimum of the checks' records, and the asynchronous copies that stage rows in shared
 * memory.
 * Not part of the shipped header API: names and contents may change in any release.
 * Compiled by NVRTC: no standard headers.
 */
#ifndef XSTRIDE_DETAIL_SEGMENT_COMMON_CUH
#define XSTRIDE_DETAIL_SEGMENT_COMMON_CUH

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

// A copy of N bytes (4, 8 or 16; both addresses aligned to N) from global to shared
// memory that stays in flight, without a register, until xs_seg_async_wait: cp.async
// on sm_80 and later (16 bytes bypass L1: .cg), a load and a store before.
template <int N>
__device__ __forceinline__ void xs_seg_async_copy(void* dst, const void* src)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    if constexpr (N == 16) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(d), "l"(src) : "memory");
    } else {
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" :: "r"(d), "l"(src), "n"(N)
                     : "memory");
    }
#else
    if constexpr (N == 16) {
        *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
    } else if constexpr (N == 8) {
        *reinterpret_cast<unsigned long long*>(dst) = *reinterpret_cast<const unsigned long long*>(src);
    } else {
        *reinterpret_cast<unsigned*>(dst) = *reinterpret_cast<const unsigned*>(src);
    }
#endif
}

// Wait for this thread's xs_seg_async_copy calls (the block's need a barrier after).
__device__ __forceinline__ void xs_seg_async_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

#endif
