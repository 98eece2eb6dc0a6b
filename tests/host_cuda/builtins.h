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
// Warp shuffles of values of up to 8 bytes, as the CUDA C++ Programming Guide
// ("Warp Shuffle Functions") and PTX's shfl define them: a source lane outside the
// caller's segment of `width` lanes gives the caller's own value, except that the xor
// form reads lanes of earlier segments (every lane of the warp calls them).
template <typename T> T xs_host_from_lane(T v, int src)
{
    static_assert(sizeof(T) <= 8, "host shuffles move up to 8 bytes");
    const unsigned w = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    std::memcpy(&xs_host_lanes[w][lane], &v, sizeof(T));
    xs_host_warp_sync();
    T r;
    std::memcpy(&r, &xs_host_lanes[w][src], sizeof(T));
    xs_host_warp_sync();
    return r;
}
inline int xs_host_lane() { return (int)(threadIdx.x & 31u); }
template <typename T> T __shfl_sync(unsigned, T v, int src, int width = 32)
{
    const int base = xs_host_lane() & ~(width - 1);
    return xs_host_from_lane(v, base + (src & (width - 1)));
}
template <typename T> T __shfl_down_sync(unsigned, T v, unsigned delta, int width = 32)
{
    const int lane = xs_host_lane(), s = lane + (int)delta;
    return xs_host_from_lane(v, (s & ~(width - 1)) == (lane & ~(width - 1)) ? s : lane);
}
template <typename T> T __shfl_up_sync(unsigned, T v, unsigned delta, int width = 32)
{
    const int lane = xs_host_lane(), s = lane - (int)delta;
    return xs_host_from_lane(v, s >= (lane & ~(width - 1)) ? s : lane);
}
template <typename T> T __shfl_xor_sync(unsigned, T v, int mask, int width = 32)
{
    // PTX shfl.bfly: a source lane past the caller's group of `width` gives the
    // caller's value; one in an earlier group is read
    const int lane = xs_host_lane(), s = lane ^ mask;
    return xs_host_from_lane(v, s <= (lane | (width - 1)) ? s : lane);
}
template <typename T> T atomicAdd(T* p, T v) { return std::atomic_ref<T>(*p).fetch_add(v); }
template <typename T> T atomicMin(T* p, T v)
{
    std::atomic_ref<T> a(*p);
    T old = a.load();
    while (v < old && !a.compare_exchange_weak(old, v)) {}
    return old;
}
inline double __ull2double_rn(unsigned long long x) { return (double)x; }
inline unsigned __ballot_sync(unsigned mask, int pred)
{
    const unsigned w = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    xs_host_lanes[w][lane] = pred ? 1ull : 0ull;
    xs_host_warp_sync();
    unsigned bits = 0;
    for (unsigned l = 0; l < 32; ++l) {
        if (((mask >> l) & 1u) && xs_host_lanes[w][l]) bits |= 1u << l;
    }
    xs_host_warp_sync();
    return bits;
}
// the lanes of mask whose value equals the caller's
template <typename T> unsigned __match_any_sync(unsigned mask, T v)
{
    static_assert(sizeof(T) <= 8, "host matches compare up to 8 bytes");
    const unsigned w = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    unsigned long long mine = 0;
    std::memcpy(&mine, &v, sizeof(T));
    xs_host_lanes[w][lane] = mine;
    xs_host_warp_sync();
    unsigned bits = 0;
    for (unsigned l = 0; l < 32; ++l) {
        if (((mask >> l) & 1u) && xs_host_lanes[w][l] == mine) bits |= 1u << l;
    }
    xs_host_warp_sync();
    return bits;
}
inline int __any_sync(unsigned mask, int pred) { return __ballot_sync(mask, pred) != 0u; }
inline int __all_sync(unsigned mask, int pred) { return __ballot_sync(mask, pred) == mask; }
// per byte: 0xFF where the bytes of a and b differ, else 0
inline unsigned __vcmpne4(unsigned a, unsigned b)
{
    unsigned r = 0;
    for (int i = 0; i < 4; ++i) {
        if (((a >> (8 * i)) & 0xFFu) != ((b >> (8 * i)) & 0xFFu)) r |= 0xFFu << (8 * i);
    }
    return r;
}
// __syncthreads that also gives whether any thread of the block passed a non-zero
// predicate
inline int __syncthreads_or(int pred)
{
    static std::atomic<int> any{0};
    xs_host_barrier->arrive_and_wait();
    if (pred) any.fetch_or(1);
    xs_host_barrier->arrive_and_wait();
    const int r = any.load();
    xs_host_barrier->arrive_and_wait();
    if (threadIdx.x == 0) any.store(0);
    xs_host_barrier->arrive_and_wait();
    return r;
}
using std::isfinite;
unsigned __activemask();
// the warp's lanes meet (every lane of the warp calls it, as the kernels here do)
inline void __syncwarp(unsigned = 0xffffffffu) { xs_host_warp_sync(); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
#define __align__(n) __attribute__((aligned(n)))
struct alignas(16) uint4 { unsigned x, y, z, w; };
struct alignas(8) uint2 { unsigned x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(16) longlong2 { long long x, y; };
struct alignas(16) double2 { double x, y; };
