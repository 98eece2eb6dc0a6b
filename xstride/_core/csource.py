"""C/C++ source text: identifiers (what a kernel, struct, field or parameter may be
called) and comments. Shared by the CUDA toolkit and the internal kernels' header scan."""

from __future__ import annotations

import re

__all__ = ["CXX_KEYWORDS", "is_c_identifier", "strip_comments"]

_IDENT = re.compile(r"[A-Za-z_]\w*")

#: Reserved words of C++17 and CUDA's own type and qualifier words; none may name
#: a kernel, a struct or a field.
CXX_KEYWORDS = frozenset("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char16_t
char32_t class compl const constexpr const_cast continue decltype default delete do
double dynamic_cast else enum explicit export extern false float for friend goto if
inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq
private protected public register reinterpret_cast return short signed sizeof static
static_assert static_cast struct switch template this thread_local throw true try
typedef typeid typename union unsigned using virtual void volatile wchar_t while xor
xor_eq __global__ __device__ __host__ __shared__ __constant__ __restrict__
__forceinline__ __noinline__ __launch_bounds__ __grid_constant__
""".split())


def is_c_identifier(name) -> bool:
    """True for a string that can name a C/C++ function, struct or variable."""
    return isinstance(name, str) and bool(_IDENT.fullmatch(name)) and name not in CXX_KEYWORDS


def strip_comments(text: str) -> str:
    """``text`` without ``/* */`` and ``//`` comments (line breaks kept)."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)
