/* xstride/detail/scan_desc.cuh -- the descriptor and operators of the namespace's
 * scan kernels (xstride/_kernels/scans.cu and scans_short.cu). Not part of the
 * shipped header API: names and contents may change in any release.
 * Compiled by NVRTC: no standard headers.
 */
#ifndef XSTRIDE_DETAIL_SCAN_DESC_CUH
#define XSTRIDE_DETAIL_SCAN_DESC_CUH

#include <xstride/scan.cuh>
#include <xstride/detail/namespace_kernels.cuh>

// Row axes of a scan (coalesced, at most NK of them): extents, input and output
// element strides; the scan axis's input and output strides; init = 1 when the
// output starts with the identity (include_initial).
template <int NK>
struct xs_scan_desc {
    long long kshape[NK];
    long long kstride[NK];
    long long kout[NK];
    long long nk;
    long long s_in;
    long long s_out;
    long long init;
};

template <int OP> struct xs_scan_op { typedef xstride_sum_op type; };
template <> struct xs_scan_op<1> { typedef xs_prod_op type; };

#endif  // XSTRIDE_DETAIL_SCAN_DESC_CUH
