// Host stand-ins for the CUDA built-ins and vector types that xstride's reduction
// and segment sources name (tests/test_arg_interleave_host_kernel.py compiles
// argreductions.cu with them, after prelude.h; tests/test_segments_host_kernel.py
// segments.cu). Only what a host run reaches has a body (atomics and fences
// as the host's, the block's threads being threads); warp shuffles and ballots are
// declared so that templates nobody instantiates here parse.
#include <atomic>
#include <cstdint>
#include <cstring>
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
inline double __longlong_as_double(long long i) { double f; std::memcpy(&f, &i, 8); return f; }
inline long long __double_as_longlong(double f) { long long i; std::memcpy(&i, &f, 8); return i; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline double __dadd_rn(double a, double b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
template <typename T> T __ldg(const T* p) { return *p; }
template <typename T> T __shfl_xor_sync(unsigned, T v, int, int = 32);
template <typename T> T __shfl_sync(unsigned, T v, int, int = 32);
template <typename T> T __shfl_up_sync(unsigned, T v, unsigned, int = 32);
template <typename T> T __shfl_down_sync(unsigned, T v, unsigned, int = 32);
template <typename T> T atomicAdd(T* p, T v) { return std::atomic_ref<T>(*p).fetch_add(v); }
template <typename T> T atomicMin(T* p, T v)
{
    std::atomic_ref<T> a(*p);
    T old = a.load();
    while (v < old && !a.compare_exchange_weak(old, v)) {}
    return old;
}
inline double __ull2double_rn(unsigned long long x) { return (double)x; }
unsigned __ballot_sync(unsigned, int);
unsigned __activemask();
void __syncwarp(unsigned = 0xffffffffu);
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
#define __align__(n) __attribute__((aligned(n)))
struct alignas(16) uint4 { unsigned x, y, z, w; };
struct alignas(8) uint2 { unsigned x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(16) longlong2 { long long x, y; };
struct alignas(16) double2 { double x, y; };
