// Host stand-ins for the CUDA built-ins that the elementwise engine's generated kernels
// use, so that g++ compiles a kernel's source as written (tests/_host_kernels.py): a
// block's threads are std::threads, __syncthreads a std::barrier, __shared__ arrays
// statics shared by the threads of the block that runs.
#include <barrier>
#include <cmath>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __global__
#define __launch_bounds__(...)
#define __grid_constant__
#define __restrict__
#define __shared__ static
struct xs_host_dim3 { unsigned int x = 0, y = 0, z = 0; };
static thread_local xs_host_dim3 threadIdx, blockIdx;
static xs_host_dim3 gridDim, blockDim;
static std::barrier<>* xs_host_barrier;
static thread_local int xs_host_syncs = 0;
inline void __syncthreads() { ++xs_host_syncs; xs_host_barrier->arrive_and_wait(); }
// A warp's lanes meet at their own barrier (set per block by the entry, one a warp of
// 32 threads or of the block's last few) and swap values through 32 slots a warp: the
// warp-wide operations of builtins.h, which every lane of the warp must call.
static std::unique_ptr<std::barrier<>>* xs_host_warp_bars;
static unsigned long long xs_host_lanes[32][32];
inline void xs_host_warp_sync() { xs_host_warp_bars[threadIdx.x >> 5]->arrive_and_wait(); }
// After each __shared__ declaration (tests/_host_kernels.py inserts the call): the
// array filled with 0xA5 bytes by thread 0, the block's threads waiting for it (not
// counted as a __syncthreads), so that no block reads what the block before left there
// (on the device every block's shared memory starts undefined).
template <typename T> inline void xs_host_poison(T& a)
{
    if (threadIdx.x == 0) std::memset((void*)&a, 0xA5, sizeof(a));
    xs_host_barrier->arrive_and_wait();
}
