// Scan kernel of the xstride namespace for short, dense rows (plan strategy "tile":
// rows of at most 32 elements stored one after another, e.g. cumulative_sum(x,
// axis=1) of an (n, k) array). Launched by xstride/_kernels/scans.py. Compiled by
// NVRTC: no standard headers.
//
// A block stages R consecutive rows (R * len input elements, one contiguous span) in
// shared memory with coalesced loads (B loads issued before any is stored), thread t
// scans rows t, t + blockDim.x, ... of the tile into a second shared array of
// R * (len + init) outputs, in element order with one running value in Tacc (the
// fold of xs_scan_columns, so the two give the same bits), and the block writes the
// outputs back as one contiguous span. One element of padding after every 32 keeps
// the row accesses off a single bank. R is chosen by the host so that both arrays
// fit TB bytes; blocks loop over the tiles (grid-stride).
#include <xstride/detail/scan_desc.cuh>

// Padded position of element e of a staged array.
__device__ __forceinline__ int xs_pad32(int e) { return e + (e >> 5); }

template <int OP, typename Tin, typename Tacc, typename Tout, int NK, int B, int TB>
__global__ void __launch_bounds__(256) xs_scan_tile(const Tin* __restrict__ x, Tout* __restrict__ out,
                                                    const xs_scan_desc<NK> d, long long nrows,
                                                    long long len, long long rows_per_tile,
                                                    long long out_offset)
{
    typedef typename xs_scan_op<OP>::type Op;
    Op op;
    __shared__ __align__(16) unsigned char raw[TB];
    const int L = (int)len;
    const int Lo = L + (int)d.init;
    const long long R = rows_per_tile;
    Tin* sx = reinterpret_cast<Tin*>(raw);
    Tout* so = reinterpret_cast<Tout*>(raw + out_offset);
    const int step = (int)blockDim.x;
    for (long long r0 = (long long)blockIdx.x * R; r0 < nrows; r0 += (long long)gridDim.x * R) {
        const int nt = (int)(nrows - r0 < R ? nrows - r0 : R);
        const Tin* src = x + r0 * d.kstride[0];
        Tout* dst = out + r0 * d.kout[0];
        const int span_in = nt * L;
        int i = (int)threadIdx.x;
        for (; i + (B - 1) * step < span_in; i += B * step) {
            Tin v[B];
#pragma unroll
            for (int k = 0; k < B; ++k) v[k] = src[i + k * step];
#pragma unroll
            for (int k = 0; k < B; ++k) sx[xs_pad32(i + k * step)] = v[k];
        }
        for (; i < span_in; i += step) sx[xs_pad32(i)] = src[i];
        __syncthreads();
        for (int t = (int)threadIdx.x; t < nt; t += step) {
            const int bi = t * L;
            int bo = t * Lo;
            if (d.init) so[xs_pad32(bo++)] = (Tout)Op::template identity<Tacc>();
            Tacc acc = Op::template identity<Tacc>();
            for (int j = 0; j < L; ++j) {
                acc = op(acc, (Tacc)sx[xs_pad32(bi + j)]);
                so[xs_pad32(bo + j)] = (Tout)acc;
            }
        }
        __syncthreads();
        const int span_out = nt * Lo;
        for (int e = (int)threadIdx.x; e < span_out; e += step) dst[e] = so[xs_pad32(e)];
        __syncthreads();
    }
}
