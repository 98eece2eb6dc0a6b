"""The dask backend: ``dask.array`` arrays whose chunks are NumPy or CuPy arrays.

xstride's extensions run per chunk on the chunk backend's executors under dask's
scheduler (``xstride._chunked``); the standard's functions come from
``array_api_compat.dask.array``. dask is imported only when a user selects this
backend or hands xstride a dask array (then ``dask.array`` is in ``sys.modules``).

Options (``xp.set_backend("dask", chunks=..., chunk_backend=...)``) are held per
thread/context like the selection itself (:meth:`Backend.select_options`).
"""

from __future__ import annotations

import numbers
import operator
import re
import sys
from dataclasses import dataclass

from .._chunked import _config as _chunked_config
from .._chunked.chunks import fit_chunks, fit_option, lost_blocks, without_empty_chunks
from .._core.errors import backend_unavailable_error, error, type_error, value_error
from ._base import Backend

__all__ = ["DaskBackend", "DaskOptions", "CHUNK_BACKENDS"]

#: The backends whose arrays may be dask chunks (their executors run per chunk).
CHUNK_BACKENDS = ("numpy", "cupy")


@dataclass(frozen=True)
class DaskOptions:
    """The options of the dask backend.

    Attributes
    ----------
    chunks : int, str or tuple
        dask's ``chunks`` of new arrays: ``"auto"`` (dask's choice, about
        ``array.chunk-size`` bytes per chunk), an int (elements per chunk on every
        axis; ``-1``: one chunk), a byte size (``"64MiB"``), or one entry per axis
        (a 1-D array whose length is the sum of a tuple of ints takes them as its
        block lengths, as dask does; an array of lower rank than the tuple's length
        takes its leading entries, one of higher rank is a ``ValueError`` naming the
        function).
    chunk_backend : {"numpy", "cupy"}
        The backend of the chunks of new arrays.
    """

    chunks: object = "auto"
    chunk_backend: str = "numpy"


_DEFAULT = DaskOptions()
_OPTION_NAMES = ("chunks", "chunk_backend")


#: The longest chunk an int ``chunks`` entry may give (an int64 array length).
_MAX_CHUNK = 2**63 - 1


def _as_int(value):
    """``value`` as a Python int where it is an integer (a NumPy integer too, as
    ``arr.shape[0] // 4`` of an array's length gives), else ``value``; a bool stays a
    bool (refused by the callers; NumPy's bool is no ``Integral``)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return operator.index(value)
    return value


#: Why a byte size of ``chunks`` that dask parses is refused: under one byte ('0MiB',
#: '0.5B'), or past any finite count ('1e999MiB'); the demo's ``--chunks`` shows them.
CHUNK_BYTES_UNDER = "a byte size under one byte; a chunk holds at least one byte"
CHUNK_BYTES_PAST = "a byte size past any finite count of bytes"

#: A byte size starts with its number (blanks before it allowed, as dask allows them).
_NUMBER_FIRST = re.compile(r"\s*[+]?(\d|\.\d)")


def _check_chunk_entry(func: str, value, whole):
    """One entry of ``chunks``: a positive int, -1, None, "auto", a byte size, or (inside a
    per-axis tuple) a tuple of positive block lengths; returned with a NumPy integer
    made a Python int."""
    value = _as_int(value)
    if isinstance(value, bool):
        raise type_error(func, "chunks", whole, "'auto', an int, a byte size such as "
                                                "'64MiB', or a tuple of those per axis")
    if value is None:
        return value
    if isinstance(value, int):
        if value < 1 and value != -1:
            raise value_error(func, "chunks", f"must hold positive chunk lengths (or -1 for "
                                              f"one chunk); got {whole!r}")
        if value > _MAX_CHUNK:  # dask's arange failed on it: "ufunc 'isnan' not supported"
            raise value_error(func, "chunks", f"must hold chunk lengths of at most 2**63-1 "
                                              f"(-1 for one chunk); got {whole!r}")
        return value
    if isinstance(value, str):
        if value == "auto":
            return value
        from dask.utils import parse_bytes

        try:
            # a unit without its number ('', 'KiB') is no size: dask's parse_bytes reads
            # the missing number as 1 ('' was chunks of one byte, an element each)
            size = parse_bytes(value) if _NUMBER_FIRST.match(value) else None
        except (ValueError, TypeError):
            size = None
        except OverflowError:   # '1e999MiB': parse_bytes' int() of an infinite float
            raise value_error(func, "chunks", f"has {value!r}, {CHUNK_BYTES_PAST}") from None
        if size is None:
            raise value_error(func, "chunks", f"has {value!r}, which is neither 'auto' nor a "
                                              "byte size such as '64MiB'")
        if size <= 0:
            raise value_error(func, "chunks", f"has {value!r}, {CHUNK_BYTES_UNDER}")
        return value
    raise type_error(func, "chunks", whole, "'auto', an int, a byte size such as '64MiB', "
                                            "or a tuple of those per axis")


def check_chunks(func: str, chunks):
    """``chunks`` checked (see :class:`DaskOptions`); lists become tuples and NumPy
    integers Python ints."""
    if isinstance(chunks, (list, tuple)):
        out = []
        for entry in chunks:
            if isinstance(entry, (list, tuple)):
                entry = tuple(_as_int(b) for b in entry)
                if not entry or any(isinstance(b, bool) or not isinstance(b, int) or b < 0
                                    for b in entry):
                    raise value_error(func, "chunks", f"has the block lengths {entry!r}; "
                                                      "expected non-negative ints")
                out.append(entry)
            else:
                out.append(_check_chunk_entry(func, entry, chunks))
        return tuple(out)
    return _check_chunk_entry(func, chunks, chunks)


class DaskBackend(Backend):
    """dask arrays (``dask.array.Array``) with NumPy or CuPy chunks."""

    name = "dask"
    array_name = "dask.array.Array"
    library = "dask.array"
    compat_module = "array_api_compat.dask.array"
    executors = {
        "elementwise": "xstride._chunked.elementwise",
        "reductions": "xstride._chunked.reductions",
        "philox": "xstride._chunked.philox",
        "morton": "xstride._chunked.morton",
        "sort": "xstride._chunked.sort",
        "fusion": "xstride._chunked.fusion",
    }
    immutable = True
    lazy = True
    chunk_backends = CHUNK_BACKENDS

    def __init__(self):
        super().__init__()
        self._checked = None

    # ------------------------------------------------------------------ identity
    def owns(self, a) -> bool:
        mod = sys.modules.get("dask.array")
        return mod is not None and isinstance(a, mod.Array)

    def array_type(self):
        mod = sys.modules.get("dask.array")
        return None if mod is None else getattr(mod, "Array", None)

    def mask_remedy(self, a) -> str | None:
        """Chunks of masked arrays (``dask.array.ma``) carry a mask."""
        ma = sys.modules.get("numpy.ma")   # not imported: nothing is masked
        if ma is not None and isinstance(getattr(a, "_meta", None), ma.MaskedArray):
            return "pass dask.array.ma.filled(x, v)"
        return None

    def lost_remedy(self, a) -> str | None:
        """Blocks that ``persist()`` left on a cluster whose client has closed since (or
        that were cancelled): dask's compute said only "Missing dependency" and a key."""
        if lost_blocks(a):
            return ("holds blocks persisted on a dask cluster that are gone (their client "
                    "has closed, or they were cancelled); make the array again while a "
                    "client is open (from its sources, or xstride.to_device(x, \"dask\") "
                    "of a NumPy x)")
        return None

    def load(self):
        """Import ``dask.array`` (``RuntimeError`` with the import error when it fails)."""
        mod = self._checked
        if mod is not None:
            return mod
        try:
            import dask.array as mod
        except Exception as exc:  # ImportError, or a broken install raising anything
            raise backend_unavailable_error(
                "dask", f"dask could not be imported: {type(exc).__name__}: {exc} "
                        "(install the extra: pip install 'xstride[dask]')") from None
        self._checked = mod
        return mod

    def version(self) -> str | None:
        try:
            self.load()
        except RuntimeError:
            return None
        import dask

        return str(dask.__version__)

    # ------------------------------------------------------------------ options
    def check_options(self, func: str, options: dict) -> DaskOptions:
        """The options of ``set_backend``/``use_backend``, checked.

        Raises
        ------
        TypeError
            An unknown option; ``chunks`` or ``chunk_backend`` of the wrong type.
        ValueError
            ``chunk_backend`` not a backend whose arrays can be chunks; bad ``chunks``.
        RuntimeError
            ``chunk_backend="cupy"`` where CuPy or a device is unavailable.
        """
        for key in options:
            if key not in _OPTION_NAMES:
                raise type_error(func, key, options[key], "no such option; the dask backend "
                                 "takes chunks= and chunk_backend=")
        cb = options.get("chunk_backend", _DEFAULT.chunk_backend)
        if not isinstance(cb, str):
            raise type_error(func, "chunk_backend", cb, "a str ('numpy' or 'cupy')")
        key = cb.lower()
        if key not in CHUNK_BACKENDS:
            raise value_error(func, "chunk_backend", f"names {cb!r}, which cannot hold dask "
                                                     "chunks; valid names are 'numpy', 'cupy'")
        try:
            self.peers[key].load()  # RuntimeError with the reason (CuPy missing, no device)
        except RuntimeError as exc:   # named after the option that asked for it
            raise error(RuntimeError, func, f"argument 'chunk_backend' is {cb!r}, which "
                        f"cannot be used here: {exc}") from None
        chunks = options.get("chunks", _DEFAULT.chunks)
        if chunks is None:   # a call's chunks=None means "the option": the option has none
            raise type_error(func, "chunks", chunks, "'auto', an int, a byte size such as "
                                                     "'64MiB', or a tuple of those per axis")
        chunks = check_chunks(func, chunks)
        self.load()
        return DaskOptions(chunks=chunks, chunk_backend=key)

    def options(self) -> DaskOptions:
        """The options of this thread/context (the defaults if none were given)."""
        return self._options.get() or _DEFAULT

    def chunk_backend(self, opts: DaskOptions | None = None) -> Backend:
        """The backend object of the chunks of new arrays."""
        return self.peers[(opts or self.options()).chunk_backend]

    def meta(self, dtype="float64"):
        """An empty array of the active chunk backend (dask's ``meta`` of new arrays)."""
        lib = self.chunk_backend().load()
        return lib.empty((0,), dtype=dtype)

    def without_empty_chunks(self, a):
        """``a`` without its chunks of no element (``_chunked/chunks.py``)."""
        return without_empty_chunks(a)

    def one_memory(self, a) -> bool:
        """Whether every task of ``a`` would run in one memory: dask's threads or
        synchronous scheduler, a ``distributed`` client of one worker
        (``_chunked/sample_sort.py``, which imports dask: not at import of xstride)."""
        from .._chunked.sample_sort import one_memory

        return one_memory(a)

    # ------------------------------------------------------------------ memory
    def on_chunks(self, x, opts: DaskOptions | None = None):
        """``x`` (a dask array with NumPy chunks) with chunks of the chunk backend."""
        be = self.chunk_backend(opts)
        if be.owns(x._meta):
            return x
        lib = be.load()
        return x.map_blocks(lib.asarray, dtype=x.dtype,
                            meta=lib.empty((0,) * x.ndim, dtype=x.dtype))

    def asarray(self, value, dtype=None, *, func: str = "asarray", arg: str | None = None,
                own_chunks: bool = True):
        """``value`` as a dask array with the active chunks and chunk backend. ``func``
        and ``arg``: the function and its argument that ``value`` (a list) was given as,
        which an option that does not fit it names (default: ``asarray``'s ``chunks``);
        ``own_chunks``: whether ``func`` takes a ``chunks=`` of its own, which that
        error then offers (``to_device`` takes none)."""
        da = self.load()
        if self.owns(value):
            return value if dtype is None else value.astype(dtype)
        opts = self.options()
        host = value
        src = self.of_array(value)
        if src is not None and src is not self.chunk_backend(opts):
            host = src.to_host(value)
        if src is None or host is not value:
            import numpy as np

            host = np.asarray(host, dtype=dtype)
        elif dtype is not None:
            host = host.astype(dtype, copy=False)
        chunks = fit_chunks(func, fit_option(func, opts.chunks, host.shape, own_chunks, arg),
                            host.shape, host.dtype, option=opts.chunks, arg=arg)
        return self.on_chunks(da.from_array(host, chunks=chunks, asarray=False), opts)

    def to_host(self, a):
        """Computes ``a`` (on the current dask scheduler) and returns a NumPy array; a
        0-d one too (dask's compute of a 0-d array gives a NumPy scalar, ``np.int64``)."""
        import numpy as np

        out = a.compute()
        be = self.of_array(out)
        # asanyarray: a masked array's chunks (numpy.ma) keep their mask
        return np.asanyarray(out if be is None else be.to_host(out))

    def device_of(self, a):
        """``array_api_compat.device`` of dask array ``a``: ``"cpu"`` where its chunks
        are NumPy arrays (masked ones too), else the dask namespace's other device
        (compat's ``DASK_DEVICE``)."""
        import numpy as np

        if isinstance(a._meta, np.ndarray):
            return "cpu"
        return next(d for d in self.namespace().__array_namespace_info__().devices()
                    if d != "cpu")

    def host_chunks(self, a):
        """Dask array ``a`` with its chunks on the host (``xstride.to_device(a, "cpu")``):
        ``a`` itself where they are NumPy arrays (masked ones too), else ``a`` with each
        chunk copied to a NumPy array when computed (nothing is computed here)."""
        import numpy as np

        if isinstance(a._meta, np.ndarray):
            return a
        return a.map_blocks(self.chunk_to_host, dtype=a.dtype,
                            meta=np.empty((0,) * a.ndim, dtype=a.dtype))

    def library_sliding_window_view(self, x, window, axes, writeable):
        """dask's function, except where it fails and NumPy's windows are trivial: a 0-d
        ``x`` (no axis to slide along: the windows are ``x``), and a result of no element
        (an empty ``x``, a window of 0; dask refuses windows of 0 and fails on empty
        axes), made here as one empty chunk of ``x``'s chunk type. Chunks of no element
        are merged away first."""
        da = self.load()
        if x.ndim == 0:
            return x
        shape = list(x.shape)
        for ax, w in zip(axes, window):
            shape[ax] -= w - 1
        shape = tuple(shape) + tuple(window)
        if 0 in shape:
            import numpy as np

            return da.from_array(np.empty_like(x._meta, dtype=x.dtype, shape=shape),
                                 chunks=shape)
        # chunks of no element (a boolean selection's, after compute_chunk_sizes()) failed
        # a window of 1 (no overlap: NumPy's function per chunk, refusing an empty one)
        return da.lib.stride_tricks.sliding_window_view(without_empty_chunks(x), window, axes)

    # ------------------------------------------------------------------ chunks
    def attach(self, peers: dict) -> None:
        """Know the other backends, and hand the chunked executors their hooks."""
        super().attach(peers)
        cfg = _chunked_config
        cfg.executor_of = self.chunk_executor
        cfg.to_host = self.chunk_to_host
        cfg.like = self.chunk_like
        cfg.host_literal = self.literal_data
        cfg.default_meta = lambda dtype="float64": self.meta(dtype=dtype)
        cfg.default_chunks = lambda: self.options().chunks

    def chunk_executor(self, kind: str, block):
        """The executor of ``kind`` of the backend of chunk ``block``."""
        be = self.of_array(block)
        if be is None or be.name not in CHUNK_BACKENDS:
            raise type_error("dask backend", "chunk", block, "a chunk of a backend in "
                             + ", ".join(CHUNK_BACKENDS))
        return be.executor(kind)

    def chunk_to_host(self, block):
        """Chunk ``block`` as a NumPy array."""
        be = self.of_array(block)
        return block if be is None else be.to_host(block)

    def literal_data(self, a):
        """The data of one-block dask array ``a`` where its graph holds it as it is: the
        block itself (``asarray`` of data on its chunks' backend, a graph of one data
        node), or the NumPy data that the chunk backend's ``asarray`` converts
        (``asarray`` of host data on device chunks, :meth:`on_chunks`: a data node and
        that task); else None. A task may take it as a value instead of as an input."""
        import numpy as np

        graph = dict(a.__dask_graph__())
        if a.npartitions != 1 or len(graph) > 2:
            return None
        node = graph.get((a.name,) + (0,) * a.ndim)
        if len(graph) == 2:   # host data under the chunk backend's asarray
            be = self.of_array(a._meta)
            args = getattr(node, "args", ())
            if (be is None or getattr(node, "func", None) is not be.load().asarray
                    or len(args) != 1 or getattr(args[0], "key", None) not in graph):
                return None
            value = getattr(graph[args[0].key], "value", graph[args[0].key])
            ok = type(value) is np.ndarray   # not a masked array: asarray drops its mask
        else:
            value = getattr(node, "value", node)   # the data, or a DataNode holding it
            ok = isinstance(value, type(a._meta))
        return value if ok and tuple(value.shape) == tuple(a.shape) else None

    def chunk_like(self, host, meta):
        """NumPy array ``host`` as an array of the backend of ``meta``."""
        be = self.of_array(meta)
        return host if be is None else be.asarray(host)
