// A kernel's call from 64-bit words (tests/test_segments_host_pipeline.py): each word
// becomes the kernel's parameter of that place, a pointer from its address, an integer
// by conversion, as a launch's argument buffer would hold them.
#include <cstddef>
#include <type_traits>
#include <utility>
template <typename T> T xs_host_arg(unsigned long long v)
{
    if constexpr (std::is_pointer_v<T>) {
        return reinterpret_cast<T>(v);
    } else {
        return (T)(long long)v;
    }
}
template <typename... P, std::size_t... I>
void xs_host_call_words(void (*k)(P...), const unsigned long long* a, std::index_sequence<I...>)
{
    k(xs_host_arg<P>(a[I])...);
}
template <typename... P> void xs_host_call(void (*k)(P...), const unsigned long long* a)
{
    xs_host_call_words(k, a, std::index_sequence_for<P...>{});
}
