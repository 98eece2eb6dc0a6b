"""``CudaKernel``: a user's CUDA kernel, compiled lazily through CuPy, with every
argument checked against the kernel's C signature before it is launched.

See ``docs/cuda-kernels.md``. Nothing here imports CuPy before the first compile or
launch.
"""

from __future__ import annotations

import numbers
import os
from pathlib import Path

import numpy as np

from .._backends.select import load_cupy
from .._core.errors import error, type_error, unavailable_error, value_error
from .._core.csource import non_ascii_note
from .._core.settings import env_flag
from . import _executors
from . import _hip_gate
from ._args import check_device, pack_value
from .._core.includes import (IncludeGraph, defines_from_options, include_dirs_from_options,
                              pre_includes_from_options, scan_includes)
from ._launch_config import Limits, launch_config
from ._namespaces import split_name
from ._params import macro_names, parse_signature
from ._signature import Param, find_aliases, find_structs, merge_aliases, merge_structs
from ._struct_defs import packing_beyond, stringized_packing

__all__ = ["CudaKernel", "CudaCompileError", "debug_from_env"]

_DEBUG_ENV = "XSTRIDE_CUDA_DEBUG"
_BOUNDS = "-DXSTRIDE_BOUNDS_CHECK"
HEADERS_DEFINE = "-DXSTRIDE_HEADERS_SHA256="


class CudaCompileError(RuntimeError):
    """A kernel failed to compile.

    Attributes
    ----------
    kernel : str
        The kernel's name.
    log : str
        The compiler's (NVRTC's) log.
    options : tuple of str
        The options it was compiled with, ``-I`` folders included.
    """

    def __init__(self, message: str, *, kernel: str, log: str, options: tuple):
        super().__init__(message)
        self.kernel = kernel
        self.log = log
        self.options = options


def debug_from_env() -> bool:
    """``True`` when ``XSTRIDE_CUDA_DEBUG`` is 1/true/yes/on, ``False`` when it is unset,
    empty or 0/false/no/off (case-insensitive); anything else is a ``ValueError`` naming
    the variable (a misspelt switch is not read as off)."""
    return env_flag(_DEBUG_ENV, "compile CudaKernels with bounds checks and synchronize "
                                "after each launch")


# ---------------------------------------------------------------- device hooks
# Small functions so that the CPU tests can stand in for a device.
def _current_device() -> int:
    return int(load_cupy().cuda.runtime.getDevice())


def _device_for(label: str) -> int:
    """The current device; without CuPy or a device, ``RuntimeError`` naming ``label``."""
    try:
        return _current_device()
    except RuntimeError as exc:
        raise unavailable_error(label, exc) from None


_limits_cache: dict[int, Limits] = {}


def _device_limits(device: int) -> Limits:
    lim = _limits_cache.get(device)
    if lim is None:
        props = load_cupy().cuda.runtime.getDeviceProperties(device)
        shared = max(int(props.get("sharedMemPerBlockOptin", 0) or 0),
                     int(props.get("sharedMemPerBlock", 48 * 1024)))
        lim = Limits(int(props.get("maxThreadsPerBlock", 1024)),
                     tuple(int(v) for v in props.get("maxThreadsDim", (1024, 1024, 64))),
                     tuple(int(v) for v in props.get("maxGridSize", (2**31 - 1, 65535, 65535))),
                     shared)
        _limits_cache[device] = lim
    return lim


def _build(source: str, options: tuple[str, ...], name: str):
    """Compile through CuPy (NVRTC) and return the kernel function for the device (the
    compile is recorded: :func:`xstride.cuda.compiled_kernels`)."""
    return _executors.compiler().raw_function(source, options, name)


def _launch_function(fn, grid, block, args, shared_mem, stream):
    if shared_mem > 48 * 1024:
        try:
            if fn.max_dynamic_shared_size_bytes < shared_mem:
                fn.max_dynamic_shared_size_bytes = shared_mem
        except AttributeError:  # pragma: no cover - very old CuPy
            pass
    if stream is None:  # CuPy launches on its current stream
        fn(grid, block, args, shared_mem=shared_mem)
    else:
        fn(grid, block, args, shared_mem=shared_mem, stream=stream)


def _synchronize(stream):
    if stream is not None:
        stream.synchronize()
    else:
        load_cupy().cuda.get_current_stream().synchronize()


def _compile_log(exc: BaseException) -> str | None:
    """The compiler log of CuPy's ``CompileException``, else ``None``."""
    if type(exc).__name__ != "CompileException":
        return None
    get = getattr(exc, "get_message", None)
    return get() if callable(get) else str(exc)


def _sequence_of(label: str, arg: str, value, types: tuple, allowed: str, *,
                 blank: bool = True) -> tuple:
    """``value`` as a tuple, read once (an iterator or generator is consumed here and
    kept); ``TypeError`` naming ``arg`` for a str, bytes, a path, a non-iterable
    (``None``), a set (its order, which is the compiler's order of the options and
    folders and part of the cache key, changes from one process to the next) or an item
    that is not one of ``types``; ``ValueError`` for an empty or blank str where not
    ``blank`` (an option: NVRTC reads ``""`` as the name of a source file)."""
    if isinstance(value, (str, bytes, os.PathLike)):
        raise type_error(label, arg, value, allowed)
    if isinstance(value, (set, frozenset)):
        raise type_error(label, arg, value, allowed + " in a fixed order (a set's order "
                         "changes from one process to the next)")
    try:
        items = tuple(value)
    except TypeError:
        raise type_error(label, arg, value, allowed) from None
    for item in items:
        if not isinstance(item, types):
            raise type_error(label, arg, items, allowed + f" (item {item!r} is a "
                             f"{type(item).__name__})")
        if not blank and isinstance(item, str) and not item.strip():
            raise value_error(label, arg, f"holds the empty or blank item {item!r}")
    return items


def scan_user_source(source: str, options, include_dirs=()) -> IncludeGraph:
    """The include graph of a user's source (a :class:`CudaKernel`'s, an
    ``ElementwiseKernel``'s preamble): the headers of ``--pre-include`` options first,
    then the source's own, searched in the shipped folder, the options' ``-I`` folders
    and ``include_dirs``, in that order: the order of the ``-I`` options the compiler
    is given (:func:`user_options`, after the shipped ``-I`` that the compiler layer
    puts first), so a header named like a shipped one is the shipped one, as compiled;
    a computed include (``#include HDR``) is read through the object-like macros of
    the sources, headers and ``-D`` options."""
    dirs = [_executors.include_dir()] + include_dirs_from_options(options) + list(include_dirs)
    pre = defines_from_options(options)   # "-DHDR=<a.h>" for a computed "#include HDR"
    pre += "".join(f"#include <{h}>\n" for h in pre_includes_from_options(options))
    return scan_includes(pre + source, dirs)


_PRE_FLAGS = ("--pre-include", "-include")


def pin_pre_includes(options: tuple[str, ...]) -> tuple[str, ...]:
    """``options`` with each ``--pre-include``/``-include`` header of a relative name
    that the current folder holds given by its absolute path: NVRTC finds such a name
    there first, before any ``-I`` folder (libnvrtc 13; a new-user probe: a ``./mine.h``
    was compiled and read by no scan, so neither the HIP gate nor the cache key saw it).
    Pinned once, when a kernel is made, so its signature, scans, cache key and compiles
    read one file whatever the folder later (a ``chdir`` between made a kernel read
    ``float`` from one ``real.h`` and compile ``double`` from another)."""
    try:
        here = Path.cwd()
    except OSError:   # a folder since removed: none to look in
        return options
    out = list(options)
    for i, opt in enumerate(out):
        for flag in _PRE_FLAGS:
            if opt.startswith(flag + "="):
                out[i] = flag + "=" + _pinned(here, opt[len(flag) + 1:])
            elif opt == flag and i + 1 < len(out):
                out[i + 1] = _pinned(here, out[i + 1])
    return tuple(out)


def _pinned(here: Path, header: str) -> str:
    name = header.strip()
    if not name or Path(name).is_absolute() or not (here / name).is_file():
        return header
    return str((here / name).resolve())


def user_options(options, include_dirs=(), digest: str = "", *, debug: bool = False
                 ) -> tuple[str, ...]:
    """The NVRTC options of a user's kernel as handed to the compiler layer (which adds
    ``-std=c++17`` and the shipped ``-I``): ``options`` less a shipped ``-I``, an
    ``-I`` per folder of ``include_dirs``, ``-DXSTRIDE_BOUNDS_CHECK`` when ``debug``,
    and, when ``digest`` (hex SHA-256 of the included headers) is given,
    ``-DXSTRIDE_HEADERS_SHA256=0x<its first 16 digits>``: an edited header changes
    the options, and so CuPy's compile cache key."""
    shipped = _executors.include_dir()
    opts = [o for o in options if o not in (f"-I{shipped}",)]
    opts += [f"-I{d}" for d in include_dirs if str(d) != shipped]
    if debug and _BOUNDS not in opts:
        opts.append(_BOUNDS)
    if digest:
        opts.append(f"{HEADERS_DEFINE}0x{digest[:16]}")
    return tuple(opts)


# ---------------------------------------------------------------- the kernel
class CudaKernel:
    """A CUDA kernel from source, compiled on first use and launched with checks.

    Parameters
    ----------
    source : str
        CUDA C++ source holding ``__global__ void <name>(...)`` (``extern "C"`` or not;
        not a template; at global scope or in a namespace). Shipped headers are included
        as ``#include <xstride/...>``.
    name : str
        The kernel's name: a C identifier for a kernel at global scope; for one declared
        in a namespace, its qualified name as C++ finds it from global scope, ``"a::k"``
        or ``"a::b::k"`` (``namespace a::b {`` too; a leading ``::`` is the global
        namespace; an ``inline namespace`` may be named or left out; an anonymous
        namespace cannot be named and is left out: ``"k"`` for ``namespace { ... }``;
        a using-declaration or using-directive brings a kernel into the scope it is
        written in: ``"k"`` after ``using a::k;`` or ``using namespace a;``).
        It is the name expression handed to the compiler, which finds the kernel's
        (mangled, for a C++ kernel) name in the compiled module.
    options : iterable of str, optional
        Extra NVRTC options (``-DNAME=1``, ``-I<dir>``, ...). ``-std=c++17`` and
        ``-I<cuda_include_dir()>`` are always added, once.
    include_dirs : iterable of str or Path, optional
        Folders searched for included headers (``-I``), after the shipped folder and
        the ``-I`` folders of ``options`` (a header named like a shipped one,
        ``xstride/reduce.cuh``, is the shipped one).
        Both are read once (an iterator or generator is fine) and kept as tuples; each
        folder must exist (``ValueError`` otherwise; an empty or blank str too).
    block : int or tuple of int, optional
        Default block size (threads per dimension, x first), 128.
    debug : bool, optional
        Debug mode: views are bounds-checked (``-DXSTRIDE_BOUNDS_CHECK``) and every
        launch is followed by a synchronize that turns a device fault into an
        exception naming the kernel, grid and block. Default: the
        ``XSTRIDE_CUDA_DEBUG`` environment variable (1/true/yes/on; unset, empty or
        0/false/no/off is off).

    Raises
    ------
    TypeError
        A parameter of the wrong Python type.
    ValueError
        No such kernel in the source, a parameter of unknown C type (the message names
        the parameter), a bad name or block; ``debug=None`` while
        ``XSTRIDE_CUDA_DEBUG`` holds a value that is neither on nor off. A name that
        finds no kernel where a kernel of its last part is declared in a namespace (an
        unqualified ``"k"`` for ``namespace a { __global__ void k(...) }``), or in
        another one, is refused here, naming the namespace and the name to pass
        (``name='a::k'``), not by the compiler at the first launch; so is a name that
        finds kernels of two namespaces (ambiguous, as the compiler says), naming each.

    Notes
    -----
    Nothing is compiled until :meth:`compile` or the first launch. Binaries are cached
    per device, and the cache key holds a SHA-256 of every header the source includes
    (recursively, angle and quoted includes), so an edited header is recompiled.

    Examples
    --------
    >>> import xstride as xp
    >>> src = '''
    ... #include <xstride/index.cuh>
    ... extern "C" __global__ void scale(float* x, float a, long long n) {
    ...     XSTRIDE_KERNEL_1D(i, n);
    ...     x[i] *= a;
    ... }'''
    >>> k = xp.cuda.CudaKernel(src, "scale")
    >>> [p.name for p in k.params]
    ['x', 'a', 'n']
    >>> k(x, 2.0, x.size, n_threads=x.size)  # doctest: +SKIP
    """

    def __init__(self, source: str, name: str, *, options=(), include_dirs=(), block=128,
                 debug=None):
        if not isinstance(name, str):
            raise type_error("CudaKernel", "name", name, "a str (the kernel's name)")
        if split_name(name) is None:
            raise value_error("CudaKernel", "name", f"{name!r} is not a C identifier or the "
                              "qualified name of a kernel in a namespace ('a::k')")
        if non_ascii_note(name):
            raise value_error("CudaKernel", "name", f"{name!r} is not a C identifier "
                              f"NVRTC compiles{non_ascii_note(name)}")
        label = f"CudaKernel {name!r}"
        if not isinstance(source, str):
            raise type_error(label, "source", source, "a str of CUDA C++ source")
        options = pin_pre_includes(_sequence_of(label, "options", options, (str,),
                                                "a sequence of str", blank=False))
        # an empty str is no folder (Path("") would be the current one, unasked)
        include_dirs = _sequence_of(label, "include_dirs", include_dirs, (str, os.PathLike),
                                    "a sequence of folders (str or Path)", blank=False)
        if debug is not None and not isinstance(debug, bool):
            raise type_error(label, "debug", debug, "None, True or False")
        from ._launch_config import as_dims, check_block_threads

        check_block_threads(label, as_dims(label, "block", block, allow_zero=False))
        if isinstance(block, (tuple, list)):
            block = tuple(int(b) for b in block)
        self.source = source
        self.name = name
        self.options = options
        self.include_dirs = tuple(str(Path(d)) for d in include_dirs)
        for d in self.include_dirs:   # a missing folder showed later as "unknown C type"
            if not Path(d).is_dir():
                raise value_error(label, "include_dirs", f"names {d!r}, which is not a folder")
        self.block = block
        self.debug = debug_from_env() if debug is None else debug
        self._label = label
        graph = self._scan()
        macros = self._macros(graph)
        beyond = self._packing_beyond(graph)
        structs = self._struct_bodies(graph, beyond, macros | macro_names(source))
        self.signature = parse_signature(source, name, structs=structs,
                                         aliases=self._aliases(graph), macros=macros,
                                         packed_from_elsewhere=beyond[id(self.source)],
                                         label=label)
        self._functions: dict[int, tuple[str, object]] = {}

    def __repr__(self) -> str:
        params = ", ".join(f"{p.ctype.text} {p.name}" for p in self.params)
        return f"CudaKernel({self.name}({params}), block={self.block}, debug={self.debug})"

    @property
    def params(self) -> tuple[Param, ...]:
        """The kernel's parameters, parsed from its C signature."""
        return self.signature.params

    # ------------------------------------------------------------ compilation
    def _scan(self) -> IncludeGraph:
        return scan_user_source(self.source, self.options, self.include_dirs)

    def _macros(self, graph: IncludeGraph) -> set[str]:
        """The names the headers' and the options' ``#define``s define."""
        return set().union(*(macro_names(t) for t in graph.texts.values()),
                           macro_names(defines_from_options(self.options)))

    def _packing_beyond(self, graph: IncludeGraph) -> dict[int, str]:
        """``{id(text): packing}``: for each text (a header, a pre-included one, the
        source, the options' ``-D`` defines) a ``#pragma pack`` that another of them
        leaves in force at an ``#include`` or at its end, else ``""``. It packs this
        text's structs, which are then no plain field lists either (the order of the
        includes is not followed; a text's own pragmas are read where they stand)."""
        # the options' -D defines too: a macro that expands to _Pragma("pack(1)")
        texts = [*graph.texts.values(), self.source, defines_from_options(self.options)]
        leaks = [(id(t), p) for t, p in zip(texts, map(packing_beyond, texts)) if p]
        if stringized_packing(texts):   # "_Pragma(#x)" and a call "PRAGMA(pack(1))"
            return {id(t): "_Pragma(#x) with pack(...)" for t in texts}
        return {id(t): next((p for i, p in leaks if i != id(t)), "") for t in texts}

    def _struct_bodies(self, graph: IncludeGraph, beyond: dict | None = None,
                       macros=frozenset()) -> dict[str, str]:
        """Every struct of the headers and the source (``find_structs``, with the
        packing other files leave in force and the names ``macros`` defines anywhere)."""
        beyond = beyond or {}
        bodies: dict[str, str] = {}
        for text in graph.texts.values():   # a name defined twice: both (merge_structs)
            merge_structs(bodies, find_structs(text, beyond.get(id(text), ""), macros))
        return merge_structs(bodies, find_structs(self.source, beyond.get(id(self.source), ""),
                                                  macros))

    def _aliases(self, graph: IncludeGraph) -> dict[str, str]:
        aliases: dict[str, str] = {}
        for text in graph.texts.values():
            merge_aliases(aliases, find_aliases(text))
        return aliases

    def compile_options(self, digest: str = "") -> tuple[str, ...]:
        """The options passed to CuPy (``-std=c++17`` and the shipped ``-I`` are added
        by the compiler layer).

        Parameters
        ----------
        digest : str, optional
            Hex SHA-256 of the included headers' contents; when given, its first 16
            digits go into a ``-DXSTRIDE_HEADERS_SHA256`` define, so that an edited
            header changes the options and so CuPy's compile cache key.

        Raises
        ------
        TypeError
            ``digest`` is not a str.
        ValueError
            ``digest`` holds characters other than hex digits.
        """
        if not isinstance(digest, str):
            raise type_error(f"{self._label}.compile_options", "digest", digest,
                             "a str of hex digits (a SHA-256)")
        if digest.strip("0123456789abcdefABCDEF"):
            raise value_error(f"{self._label}.compile_options", "digest",
                              f"{digest!r} holds characters other than hex digits")
        return user_options(self.options, self.include_dirs, digest, debug=self.debug)

    def _gate(self, graph: IncludeGraph) -> None:
        _hip_gate.check(self._label, self.signature, graph, self.compile_options(),
                        self.source, self._struct_bodies(
                            graph, macros=self._macros(graph) | macro_names(self.source)))

    def compile(self) -> "CudaKernel":
        """Compile for the current device now (again if an included header changed).

        Returns
        -------
        CudaKernel
            ``self``.

        Raises
        ------
        NotImplementedError
            On a HIP build, the kernel breaks a rule of the HIP gate (the message
            names the rule).
        CudaCompileError
            The compiler rejected the source; the message and ``.log`` carry its log.
        RuntimeError
            CuPy or a device is unavailable.
        """
        graph = self._scan()
        self._gate(graph)
        device = _device_for(self._label)
        cached = self._functions.get(device)
        if cached is not None and cached[0] == graph.digest:
            return self
        opts = self.compile_options(graph.digest)
        try:
            fn = _build(self.source, opts, self.name)
        except Exception as exc:
            log = _compile_log(exc)
            if log is None:
                raise
            # as compiled: the compiler layer's -std and shipped -I first (module_options)
            opts = _executors.compiler().module_options(self.source, opts)
            raise CudaCompileError(
                f"{self._label}: compilation failed (options {' '.join(opts)}):\n{log}",
                kernel=self.name, log=log, options=opts) from None
        self._functions[device] = (graph.digest, fn)
        return self

    # ------------------------------------------------------------ launching
    def _pack(self, args, device: int | None = None) -> list[bytes]:
        params = self.params
        if len(args) != len(params):
            names = ", ".join(p.name for p in params) or "none"
            raise error(TypeError, self._label,
                        f"takes {len(params)} argument(s) ({names}), got {len(args)}",
                        subject=True)
        return [pack_value(p.ctype, a, self._label, p.name, device)
                for p, a in zip(params, args)]

    def __call__(self, *args, n_threads=None, grid=None, block=None, shared_mem=0,
                 stream=None, **by_name):
        """Check the arguments and launch the kernel.

        Parameters
        ----------
        *args
            One per kernel parameter: device arrays for pointers and views (never NumPy
            arrays), Python/NumPy scalars for scalars, CudaStruct values for structs.
        n_threads : int or tuple of int
            Threads wanted per dimension (x first); the grid is ``ceil(n / block)``.
        grid : int or tuple of int
            Blocks per dimension (x first). Exactly one of ``n_threads``/``grid``.
        block : int or tuple of int, optional
            Threads per block (x first); the kernel's default if omitted. At most 1024
            threads and what the device allows.
        shared_mem : int, optional
            Dynamic shared memory per block, bytes.
        stream : cupy.cuda.Stream, optional
            The stream to launch on (CuPy's current stream by default).

        Raises
        ------
        TypeError
            Wrong argument count, dtype, rank, a NumPy array for a device parameter,
            both or neither of ``n_threads``/``grid``.
        ValueError
            A non-contiguous array for a plain pointer or CArrayND, an array on another
            device, a launch larger than the device allows (raised before launching).
        OverflowError
            An integer outside its C type's range.
        RuntimeError
            CuPy or a device is unavailable (raised only after every check that needs
            no device has passed); in debug mode, a device fault during the launch
            (names kernel, grid, block).

        Notes
        -----
        The checks of the count, kinds, dtypes, ranks, layouts and values of the
        arguments and of the launch shape need no device and run before CuPy is
        imported; the device of each array and the device's own limits (block and grid
        sizes, shared memory) are checked next, still before compiling or launching.

        A launch with zero threads or blocks in any dimension runs every check and
        launches nothing (it does not compile the kernel).
        """
        # Every check that needs no device runs first, so a wrong call is reported
        # the same way with or without CuPy (and before CuPy is imported).
        if by_name:
            names = ", ".join(p.name for p in self.params) or "none"
            raise error(TypeError, self._label,
                        f"takes its arguments by position ({names}); got keyword "
                        f"argument(s) {', '.join(sorted(by_name))}", subject=True)
        packed = self._pack(args)
        launch_config(self._label, n_threads=n_threads, grid=grid,
                      block=self.block if block is None else block,
                      shared_mem=shared_mem, limits=None)
        if stream is not None and not isinstance(getattr(stream, "ptr", None), numbers.Integral):
            raise type_error(self._label, "stream", stream, "a cupy.cuda.Stream or None")
        device = _device_for(self._label)
        for p, a in zip(self.params, args):
            check_device(p.ctype, a, self._label, p.name, device)
        g, b, empty = launch_config(self._label, n_threads=n_threads, grid=grid,
                                    block=self.block if block is None else block,
                                    shared_mem=shared_mem, limits=_device_limits(device))
        if empty:
            self._gate(self._scan())
            return None
        if device not in self._functions:
            self.compile()
        fn = self._functions[device][1]
        values = tuple(np.frombuffer(p, dtype=np.dtype((np.void, len(p)))) for p in packed)
        try:
            _launch_function(fn, g, b, values, shared_mem, stream)
            if self.debug:
                _synchronize(stream)
        except Exception as exc:
            what = "failed on the device" if self.debug else "could not be launched"
            raise error(RuntimeError, self._label,
                        f"{what} (grid={g}, block={b}, shared_mem={shared_mem}): "
                        f"{type(exc).__name__}: {exc}", subject=True) from exc
        return None
