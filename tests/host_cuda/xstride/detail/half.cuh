// Host stand-in of include/xstride/detail/half.cuh (tests/_host_kernels.py): float16 as
// its bits, converted through the compiler's _Float16 (round to nearest even, as the
// device's cvt.rn) instead of the device's PTX.
#ifndef XSTRIDE_DETAIL_HALF_CUH
#define XSTRIDE_DETAIL_HALF_CUH
struct xs_half {
    unsigned short bits;
    xs_half() = default;
    xs_half(float f) { _Float16 h = (_Float16)f; __builtin_memcpy(&bits, &h, 2); }
    xs_half(double d) { _Float16 h = (_Float16)d; __builtin_memcpy(&bits, &h, 2); }
    xs_half(int i) : xs_half((float)i) {}
    operator float() const { _Float16 h; __builtin_memcpy(&h, &bits, 2); return (float)h; }
    explicit operator double() const { return (double)(float)*this; }
};
inline bool operator!=(xs_half a, xs_half b) { return (float)a != (float)b; }
inline bool operator==(xs_half a, xs_half b) { return (float)a == (float)b; }
#endif
