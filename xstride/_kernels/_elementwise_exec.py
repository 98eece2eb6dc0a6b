"""The CUDA executor of the elementwise engine: plan -> cached kernel -> launch.

:func:`launch` takes CuPy outputs (already allocated and checked) and inputs (CuPy
arrays or NumPy scalars of their loop type), plans the loop over their layouts
(:mod:`xstride._plans.elementwise`; launch geometry: :mod:`._geometry`), and launches the kernel of the plan's path. Every
launch-relevant fact (shapes, strides, dtypes, pointer alignment) is part of a cache
key, so a repeated call costs one dict lookup plus the launch: kernels are never
recompiled per call and plans are not recomputed.

Overlap rules (NumPy's answer for in-place updates): an input whose bytes overlap an
output's bytes, and that is not element-for-element the same view as that output, is
copied to a fresh buffer first. An output that overlaps itself is refused.

Two caches (``docs/elementwise.md``, "Host cost"):

- ``_launch_cache``: launch key (kernel tag, body, operand specs, every array's shape,
  strides, dtype and data pointer modulo 16, the tiled kernel variant and grid limit)
  -> ``(function, grid, block, leading arguments, path)``.
- ``CALLS``: the prepared calls (:mod:`._prepared`) of the registered functions
  (:func:`call_key`: function, current device, every argument's dtype, shape, strides,
  pointer modulo 16 and device or scalar type, the same facts of ``out``) -> a :class:`_Call`
  (the launch entry plus what the call needs besides it: how to allocate the output,
  how to convert scalars, the byte extents for the overlap test), whose ``run``
  replays it; only pointer facts are checked per call.

``CACHE = False`` (or ``XSTRIDE_EW_CACHE=0`` in the environment at import) turns both
off: every call plans, and looks the compiled kernel up by its source
(:func:`xstride._kernels._compile.function`), again.

Imports CuPy only when called.
"""

from __future__ import annotations

import sys

import numpy as np

from .._core.settings import env_flag
from .._plans import elementwise as _plan
from . import _geometry as _geo
from ._compile import function
from ._cupy import empty_maker
from ._devices import check as check_devices   # for the engine's users (user kernels)
from ._launch import Launch, i32, i64, slot64, slot_scalar, struct
from ._lru import Bounded
from ._prepared import GATE, PY_SCALARS, Store
from ._elementwise_source import BLOCK, ROW_TILE_ROWS, ROW_TILE_STEPS, kernel_source
from ._elementwise_memory import (ORDER_CACHE, alloc_like_inputs, byte_range, rel_bytes,
                                  resolve_overlap as _resolve_overlap)
from ._elementwise_operands import ctype, operand
from ._elementwise_vectors import row_tables, vector_unroll, vector_width

__all__ = ["launch", "alloc_like_inputs", "byte_range", "ctype", "call_key", "remember",
           "repeat", "repeat1", "repeat2", "clear_caches", "check_devices", "CACHE", "CALLS",
           "operand"]

#: Cache switch: False plans every call again (``XSTRIDE_EW_CACHE=0``, or off, no,
#: false, at import; a value neither on nor off is an error naming the variable).
CACHE = env_flag("XSTRIDE_EW_CACHE", "keep the elementwise engine's call caches",
                 default=True)
#: Bound on the entries of each cache (the oldest entry goes first when full).
_CACHE_MAX = 8192
#: call key -> the ``run`` of a :class:`_Call` (the prepared calls, :mod:`._prepared`)
CALLS = Store(_CACHE_MAX)


class _LaunchCache(Bounded):
    """``dict`` of launch entries; ``clear()`` also empties the call cache built on it."""

    def clear(self):
        super().clear()
        CALLS.clear()


_launch_cache: dict = _LaunchCache(_CACHE_MAX)
#: Path of the most recent launch ("flat", "flat2d", "rows", "tiled", "nd", "empty"): for tests
#: and the benchmark.
last_kind: str | None = None
#: The tiled path's kernel: the grid-walk kernel
#: (``_elementwise_source._tiled_walk_body``) with 32 x 32 tiles, groups of at most
#: ``ga`` x ``gb`` = 4 x 4 tiles, ``r`` = 1 rest index per block, and ``minb`` = 8
#: resident blocks per SM asked of the compiler
#: (``xstride._kernels._geometry.tiled_geometry`` gives the grid). The fastest of 13
#: kernels measured on the H200 (docs/elementwise.md, "Tiled path").
_TILE, _GA, _GB, _R = _geo.TILE, 4, 4, 1
#: ``__launch_bounds__`` minimum blocks per SM of the tiled kernel by its number of
#: arrays (outputs and inputs) of at most 4 bytes: 8 blocks cap a kernel at 32
#: registers, 6 at 40, spill-free by ptxas (sm_90) for up to three arrays and for four
#: (two of them transposed, or one and a broadcast). More arrays, or wider elements:
#: the compiler's choice. On the H200 (2026-12-02) the 512**3 update
#: ``0.9*f + 0.5*permute_dims(g, (2, 0, 1)) - h[:, None, :]`` ran 0.447 ms at 6 against
#: 0.483 ms at the compiler's 48 registers (5 blocks) and 0.72 ms at 8 (spills).
_MINB_OF_ARRAYS = {1: 8, 2: 8, 3: 8, 4: 6}
#: Largest grid y/z extent the tiled kernel is launched with (CUDA allows 65535; the
#: tests lower it to exercise the kernel's grid loops).
_MAX_GRID_YZ = 65535
_INT32_LIMIT = (1 << 31) - 1
_SMEM_LIMIT = 48 * 1024


def clear_caches() -> None:
    """Empty the launch and call caches (after changing ``_MAX_GRID_YZ``)."""
    _launch_cache.clear()
    CALLS.clear()
    ORDER_CACHE.clear()


def launch(tag: str, body: str, specs, outs, ins, *, keep_order: bool = False,
           preamble: str = "", resolve_overlap: bool = True, index_var: bool = False,
           row_reuse: bool = False, options: tuple = ()):
    """Run ``body`` elementwise over ``outs`` (CuPy arrays) and ``ins``.

    Parameters
    ----------
    tag : str
        Short name for the kernel (appears in the kernel name).
    body : str
        C++ statements assigning the outputs from the inputs (see
        :func:`~xstride._kernels._elementwise_source.kernel_source`).
    specs : sequence of Operand
        Outputs first, then inputs, matching ``outs + ins``.
    outs : list of cupy.ndarray
        Outputs, all of one shape, checked by the caller.
    ins : list of cupy.ndarray or NumPy scalars
        Arrays broadcast to the output shape; scalars are passed by value.
    row_reuse : bool
        Some inputs read one buffer at least a row apart (a stencil's rows above and
        below): the row tiles then take :data:`ROW_TILE_ROWS` rows a work item.
    options : tuple of str
        Extra NVRTC options (a user kernel's, with the digest of its own headers).

    Returns
    -------
    entry : tuple
        ``(function or None, grid, block, leading arguments, path)``, the launch entry.
    copied : bool
        An input overlapped an output and was copied first.
    """
    cupy = sys.modules["cupy"]
    copied = False
    if resolve_overlap:
        fixed = _resolve_overlap(cupy, outs, ins)
        copied = any(a is not b for a, b in zip(fixed, ins))
        ins = fixed
    arrays = list(outs) + [x for x in ins if isinstance(x, cupy.ndarray)]
    if CACHE:
        key = (tag, body, tuple(specs), keep_order, preamble, index_var, row_reuse, options,
               _MAX_GRID_YZ, cupy.cuda.runtime.getDevice(),
               tuple((a.shape, a.strides, a.dtype.char, a.data.ptr % 16) for a in arrays))
        entry = _launch_cache.get(key)
        if entry is None:
            entry = _prepare(tag, body, specs, outs, arrays, keep_order, preamble,
                             index_var, row_reuse, options)
            _launch_cache.put(key, entry)
    else:
        entry = _prepare(tag, body, specs, outs, arrays, keep_order, preamble, index_var,
                         row_reuse, options)
    fn, grid, block, args, kind = entry
    global last_kind
    last_kind = kind
    if fn is not None:
        fn(grid, block, (*args, *outs, *ins))
    return entry, copied


# ------------------------------------------------------------------ prepared calls
def call_key(tag, args, out, nd, dev):
    """Key of a call of a registered function in :data:`CALLS`, or None when it is not
    prepared.

    ``tag`` names the function (and anything else its result depends on that is not
    an argument); ``nd`` is the CuPy array type and ``dev`` the current device
    (``_prepared.GATE``). Arrays (exactly ``nd``, not subclasses) contribute dtype,
    shape, byte strides, ``data.ptr % 16`` (all the alignment facts a plan reads:
    vector widths are at most 16 bytes) and their device (``data.device_id``: an array
    of another device than the one the call was prepared with misses, and the checked
    path refuses it, :mod:`._devices`); Python scalars (``_prepared.PY_SCALARS``)
    their type (their value is converted per call); ``out`` the same facts, or None.
    The tiled kernel's grid limit is part of the key too.
    """
    if out is None:
        key = [tag, _MAX_GRID_YZ, dev, None]
    elif type(out) is nd:
        mem = out.data
        key = [tag, _MAX_GRID_YZ, dev, out.dtype, out.shape, out.strides,
               mem.ptr & 15, mem.device_id]
    else:
        return None
    for v in args:
        t = type(v)
        if t is nd:
            mem = v.data
            key += (v.dtype, v.shape, v.strides, mem.ptr & 15, mem.device_id)
        elif t in PY_SCALARS:
            key.append(t)
        else:
            return None
    return tuple(key)


class _Call:
    """A prepared call: the launch entry and what the call does around it; :meth:`run`
    (stored in :data:`CALLS`) repeats it."""

    __slots__ = ("fn", "grid", "block", "pre", "kind", "ashape", "perm", "dtype", "oalign",
                 "olo", "ohi", "checks", "conv", "empty", "launch", "nptr", "isptr")

    def run(self, args, out):
        """Repeat the call on ``args`` into ``out`` (None: a fresh output): the output,
        or None on a miss.

        Per call this allocates a fresh output (and checks its pointer modulo 16), or,
        for a given ``out``, tests every input's byte range against the output's (an
        input that overlaps without being the same view is a miss: the checked path
        copies it), converts Python scalars, and launches.
        """
        if out is None:
            out = self.empty(self.ashape, self.dtype)
            if self.perm is not None:
                out = out.transpose(self.perm)
            if out.data.ptr & 15 != self.oalign:
                return None
        elif self.checks:
            p = out.data.ptr
            lo, hi = p + self.olo, p + self.ohi
            for i, xlo, xhi, same in self.checks:
                q = args[i].data.ptr
                if q + xlo < hi and lo < q + xhi and not (same and q == p):
                    return None
        conv = self.conv
        if conv is not None:
            args = [v if cv is None else cv[0](v, cv[1]) for v, cv in zip(args, conv)]
        global last_kind
        last_kind = self.kind
        # every operand an array (the common case): their addresses straight to the
        # launcher, without the entry's generic argument walk
        n = self.nptr
        if n == 2:
            self.launch(out.data.ptr, args[0].data.ptr)
        elif n == 3:
            self.launch(out.data.ptr, args[0].data.ptr, args[1].data.ptr)
        elif self.isptr is not None:   # Python scalars among the inputs: their values
            self.launch(out.data.ptr, *[a.data.ptr if p else a
                                        for a, p in zip(args, self.isptr)])
        elif self.fn is not None:
            self.fn(self.grid, self.block, (*self.pre, out, *args))
        return out


def remember(tag, entry, out, args, conv, alloc=None) -> None:
    """Prepare the call of ``tag`` after a successful checked run (nothing when
    :data:`CACHE` is off or the call has no key).

    Parameters
    ----------
    tag : str or tuple
        As for :func:`call_key`.
    entry : tuple
        The launch entry :func:`launch` returned.
    out : cupy.ndarray
        The output the call wrote.
    args : sequence
        The call's arguments (arrays and Python scalars), in kernel order.
    conv : sequence
        Per argument: None for an array, else ``(function, dtype)`` that converts the
        Python scalar (``function(value, dtype)``).
    alloc : tuple, optional
        ``(allocation shape, transpose axes or None)`` when the call allocated ``out``
        (:func:`alloc_like_inputs`); None when ``out`` was given.
    """
    if not CACHE:
        return
    cupy = sys.modules["cupy"]
    key = call_key(tag, args, None if alloc is not None else out, cupy.ndarray,
                   cupy.cuda.runtime.getDevice())
    if key is None:
        return
    c = _Call()
    c.fn, c.grid, c.block, c.pre, c.kind = entry
    # the array constructor (C order, as ``cupy.empty``), without ``cupy.ndarray``'s
    # Python ``__new__`` and ``__init__`` where this CuPy allows (_cupy.empty_maker)
    c.empty = empty_maker(cupy)
    # the fast launch of run(): one output and one or two array inputs, no scalar
    packed = c.fn
    whole = (packed is not None and len(packed.isptr) == 1 + len(args)
             and packed.isptr[0])   # one output, then an operand per argument
    c.nptr = len(packed.isptr) if whole and all(packed.isptr) and len(args) in (1, 2) else 0
    # scalars among the inputs: the bound launch too, each scalar's slot set per call
    c.isptr = packed.isptr[1:] if whole and not c.nptr else None
    c.launch = packed.launch.bind() if c.nptr or c.isptr is not None else None
    c.conv = tuple(conv) if any(cv is not None for cv in conv) else None
    c.dtype = out.dtype
    c.oalign = out.data.ptr & 15
    c.olo = c.ohi = 0
    c.checks = ()
    if alloc is not None:
        c.ashape, c.perm = alloc
    else:
        c.ashape = c.perm = None
        if out.size:
            c.olo, c.ohi = rel_bytes(out)
            checks = []
            for i, x in enumerate(args):
                if (c.conv is not None and c.conv[i] is not None) or not x.size:
                    continue
                same = (x.dtype == out.dtype and x.shape == out.shape
                        and x.strides == out.strides)
                checks.append((i, *rel_bytes(x), same))
            c.checks = tuple(checks)
    CALLS.prepare(key, c.run, cupy)


def repeat2(tag, a, b):
    """``repeat(tag, (a, b), None)``, the commonest call: for two CuPy arrays, or an
    array and a Python scalar after it, the key of :func:`call_key` is built as one
    tuple, without its list and loop."""
    if not CACHE:
        return None
    nd = GATE.nd
    ta, tb = type(a), type(b)
    if ta is nd:
        ma = a.data
        if tb is nd:
            mb = b.data
            run = CALLS.get((tag, _MAX_GRID_YZ, GATE.getdev(), None,
                             a.dtype, a.shape, a.strides, ma.ptr & 15, ma.device_id,
                             b.dtype, b.shape, b.strides, mb.ptr & 15, mb.device_id))
        elif tb in PY_SCALARS:   # an array and a Python scalar (x + 1.0)
            run = CALLS.get((tag, _MAX_GRID_YZ, GATE.getdev(), None,
                             a.dtype, a.shape, a.strides, ma.ptr & 15, ma.device_id, tb))
        else:
            return None
        return None if run is None else run((a, b), None)
    return _repeat(tag, (a, b), None)


def repeat1(tag, x):
    """``repeat(tag, (x,), None)`` (as :func:`repeat2`, for one argument)."""
    if not CACHE:
        return None
    if type(x) is GATE.nd:
        mem = x.data
        run = CALLS.get((tag, _MAX_GRID_YZ, GATE.getdev(), None,
                         x.dtype, x.shape, x.strides, mem.ptr & 15, mem.device_id))
        return None if run is None else run((x,), None)
    return _repeat(tag, (x,), None)


def repeat(tag, args, out):
    """The result of the call of ``tag`` prepared before with the same key (see
    :func:`call_key`), else None (a miss: the checked path runs)."""
    if not CACHE:
        return None
    if out is None and len(args) == 2:
        return repeat2(tag, *args)
    return _repeat(tag, args, out)


def _repeat(tag, args, out):
    key = call_key(tag, args, out, GATE.nd, GATE.getdev())
    if key is None:
        return None
    run = CALLS.get(key)
    if run is None:
        return None
    return run(args, out)


def _prepare(tag, body, specs, outs, arrays, keep_order, preamble, index_var, row_reuse,
             options=()):
    nout = len(outs)
    pl = _plan.plan_arrays(arrays, nout, keep_order=keep_order)
    tile = _TILE
    geo = None
    if pl.kind == "tiled":
        smem = sum(tile * (tile + 1) * a.itemsize for a, t in zip(arrays, pl.transposed) if t)
        geo = _geo.tiled_geometry(pl, tile, _GA, _GB, _R, max_yz=_MAX_GRID_YZ)
        if smem > _SMEM_LIMIT or geo is None:
            pl = _plan.plan_arrays(arrays, nout, allow_tiled=False)
    if pl.kind == "empty":
        return (None, None, None, None, "empty")
    cap, packed = _geo.pack_params(pl)
    params = np.frombuffer(packed, dtype=np.dtype((np.void, len(packed)))).copy()
    inner = len(pl.shape) - 1
    bcast = tuple(s[inner] == 0 for s in pl.strides)
    indexed = _plan.flat2d_indexed(pl.shape, pl.strides) if pl.kind == "flat2d" else ()
    vec = 1
    if pl.kind in ("flat", "rows", "flat2d"):
        vec = vector_width(pl, arrays, tuple(b or bool(indexed and indexed[k])
                                              for k, b in enumerate(bcast)))
    unroll = vector_unroll(vec)
    table = row_tables(indexed, pl.strides, vec, pl.shape[-1]) if pl.kind == "flat2d" else ()
    idx32 = pl.size <= _INT32_LIMIT
    kind = pl.kind
    name = f"xs_ew_{tag}_{kind}"
    walk = kind == "tiled"
    extra = {}
    if walk:
        # with no rest axis the kernel still adds rest * strides[k][0] (zero padding):
        # loop-invariant addresses would otherwise be hoisted into registers and spill
        # the minimum resident blocks: _MINB_OF_ARRAYS
        small = max(a.itemsize for a in arrays) <= 4
        extra = dict(off32=geo.off32, rest32=geo.rest + geo.r < (1 << 32),
                     rest_axes=min(max(len(pl.shape) - 2, 1), 2),
                     minb=_MINB_OF_ARRAYS.get(len(arrays), 0) if small else 0)
    if kind in ("rows", "nd"):
        nv = pl.shape[inner] // vec
        tiles, short = _geo.row_tiles_choice(nv, BLOCK, unroll, row_reuse)
        extra = dict(row_tiles=tiles, tile_rows=ROW_TILE_ROWS if tiles and row_reuse else 1,
                     tile_unroll=short,
                     unit=tuple(s[inner] == 1 for s in pl.strides) if kind == "rows" else ())
    src = kernel_source(name, kind, specs, body, vec=vec, bcast=bcast if vec > 1 else (),
                        idx32=idx32, cap=cap, trans=pl.transposed, tile=tile,
                        preamble=preamble, index_var=index_var, indexed=indexed,
                        unroll=unroll, table=table, **extra)
    fn = function(name, code=src, options=options)
    if walk and extra["minb"] and func_attribute(fn, "LOCAL_SIZE_BYTES") > 0:
        # the register cap of minb blocks per SM made the compiler spill: drop the cap
        extra["minb"] = 0
        src = kernel_source(name, kind, specs, body, cap=cap, trans=pl.transposed, tile=tile,
                            preamble=preamble, **extra)
        fn = function(name, code=src, options=options)
    if walk:
        args = (params, np.int64(geo.rest), np.int64(geo.nchunks), np.int32(geo.r),
                np.int32(geo.ga), np.int32(geo.nga), np.int32(geo.nz))
        grid, block = geo.grid, (32, 8)
    else:
        if kind in ("flat", "flat2d"):
            total = pl.size // vec
            grid = (max(1, min(-(-total // (BLOCK * unroll)), _INT32_LIMIT)),)
        elif extra.get("row_tiles"):   # one work item per tile of a row
            item = BLOCK * extra["tile_unroll"] if extra["tile_unroll"] else \
                BLOCK * unroll * ROW_TILE_STEPS
            tiles = -(-(pl.shape[inner] // vec) // item)
            groups = -(-(pl.size // pl.shape[inner]) // extra["tile_rows"])
            grid = (max(1, min(groups * tiles, _INT32_LIMIT)),)
        else:
            total = (pl.size // pl.shape[inner]) * (pl.shape[inner] // vec)
            grid = (max(1, min(-(-total // (BLOCK * unroll)), _INT32_LIMIT)),)
        block, args = (BLOCK,), (params,)
    return _Packed(fn, grid, block, args, specs), grid, block, args, kind


class _Packed:
    """An engine kernel behind the one launcher (:class:`._launch.Launch`): the entry's
    leading arguments (the plan struct, the tiled walk's counts) packed once, and one
    slot per operand — the device address of an array, or a by-value scalar of its loop
    type. Called like the ``RawKernel`` it wraps, ``fn(grid, block, (*leading,
    *operands))``; grid and block are its own."""

    __slots__ = ("launch", "npre", "isptr")

    def __init__(self, fn, grid, block, pre, specs):
        fixed = []
        for v in pre:
            if isinstance(v, np.ndarray):          # the plan struct, passed by value
                fixed.append(struct(v.tobytes()))
            elif v.dtype == np.int64:
                fixed.append(i64(int(v)))
            else:
                fixed.append(i32(int(v)))
        self.isptr = tuple(o.kind != "scalar" for o in specs)
        slots = [slot64() if p else slot_scalar(o.ctype) for o, p in zip(specs, self.isptr)]
        self.launch = Launch(fn, grid, block, fixed + slots)
        self.npre = len(pre)

    def __call__(self, grid, block, args):
        ops = args[self.npre:]
        self.launch(*[a.data.ptr if p else a for a, p in zip(ops, self.isptr)])


def func_attribute(fn, name: str) -> int:
    """``CU_FUNC_ATTRIBUTE_<name>`` of a compiled CuPy function (-1 when unavailable)."""
    # CUfunction_attribute values of cuda.h, for CuPy builds that do not export them
    codes = {"LOCAL_SIZE_BYTES": 3, "NUM_REGS": 4}
    try:
        drv = sys.modules["cupy"].cuda.driver
        attr = getattr(drv, "CU_FUNC_ATTRIBUTE_" + name, codes[name])
        return int(drv.funcGetAttribute(attr, fn.ptr))
    except Exception:  # a probe: CuPy versions differ in what they expose
        return -1
