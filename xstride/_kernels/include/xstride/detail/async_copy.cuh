/* xstride/detail/async_copy.cuh -- copies from global to shared memory that stay in
 * flight without a register until waited for: cp.async on sm_80 and later (PTX ISA,
 * "Data Movement and Conversion Instructions: cp.async"), a load and a store before.
 * Used by the segment kernels (segments.cu, compaction.cu) and xs_arg_tile
 * (argreductions.cu). Not part of the shipped header API: names and contents may
 * change in any release. Compiled by NVRTC: no standard headers.
 */
#ifndef XSTRIDE_DETAIL_ASYNC_COPY_CUH
#define XSTRIDE_DETAIL_ASYNC_COPY_CUH

// A copy of N bytes (4, 8 or 16; both addresses aligned to N) from global to shared
// memory (16 bytes bypass L1: .cg).
template <int N>
__device__ __forceinline__ void xs_async_copy(void* dst, const void* src)
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

// Close this thread's group of copies issued since the last commit.
__device__ __forceinline__ void xs_async_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

// Wait until at most N of this thread's committed groups are in flight (N = 0: all
// done); the block's copies need a barrier after.
template <int N>
__device__ __forceinline__ void xs_async_wait_prior()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory");
#endif
}

// Wait for every copy this thread issued, committed or not.
__device__ __forceinline__ void xs_async_wait_all()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

#endif  // XSTRIDE_DETAIL_ASYNC_COPY_CUH
