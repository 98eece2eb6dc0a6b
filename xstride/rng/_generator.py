"""The convenience generator :class:`xstride.rng.Philox` on top of the pure functions.

A ``Philox`` is a (seed, stream, next counter) triple. Each call takes a fresh,
consecutive block of counters, so no counter is ever used twice; the numbers depend
only on the seed, the stream and the sequence of calls, never on the backend.
"""

from __future__ import annotations

import math
import operator
import threading

import numpy as np

from .. import _backends
from .._backends.select import load_for, normalize_name
from .._core.errors import error, type_error, value_error
from .._core.sizes import out_of_memory
from .._plans.philox import mul_hi_lo
from ._args import _check_int, _fill_pairs
from ._functions import philox4x32_10
from ._numpy_calls import missing_method, numpy_style

__all__ = ["Philox"]

_LIMIT = 1 << 64
_M32 = 0xFFFFFFFF


_MAX_NDIM = 64
_INT64_MAX = (1 << 63) - 1


def _index(v):
    """``v`` as an int where it is integer-like (``__index__``: an int, a NumPy integer,
    a 0-d integer array, as NumPy's shapes take), else None. A bool is not a size (NumPy
    refuses ``np.zeros(True)`` too)."""
    if isinstance(v, (bool, np.bool_)) or (isinstance(v, np.ndarray) and v.dtype == bool):
        return None
    try:
        return operator.index(v)
    except TypeError:
        return None


def _shape(func, shape, itemsize=8):
    """The result shape as a tuple of ints, checked before any counter is reserved.

    Takes what NumPy's ``np.zeros(shape)`` takes: an integer-like (``__index__``: an
    int, a NumPy integer, a 0-d integer array) or a sequence of them (a 1-D integer
    array too; not an iterator or a generator). Refuses (``TypeError``) anything else,
    naming ``shape`` as given; refuses
    (``ValueError``) a negative extent, more than 64 axes, and a shape whose array of
    ``itemsize``-byte items could not exist: NumPy's rule, the product of the non-zero
    extents times the item size within ``2**63 - 1`` bytes.
    """
    given = shape   # the errors name what the caller passed
    wanted = "an int or a tuple of ints"
    one = _index(shape)
    if one is not None:
        shape = (one,)
    elif isinstance(shape, (bool, np.bool_, str, bytes, dict, set)) or (
            isinstance(shape, np.ndarray) and shape.ndim != 1) or not (
            hasattr(shape, "__len__") and hasattr(shape, "__getitem__")):
        # a sequence, as NumPy asks: not an iterator or generator, which reading would
        # use up (np.zeros refuses them too)
        raise type_error(func, "shape", given, wanted)
    try:
        shape = tuple(shape)
    except TypeError:
        raise type_error(func, "shape", given, wanted) from None
    shape = tuple(_index(s) for s in shape)
    if None in shape:
        raise type_error(func, "shape", given, wanted)
    if any(s < 0 for s in shape):
        raise value_error(func, "shape", f"has a negative extent: {given!r}")
    shape = tuple(int(s) for s in shape)
    if len(shape) > _MAX_NDIM:
        raise value_error(func, "shape", f"has {len(shape)} axes; at most {_MAX_NDIM}")
    nbytes = itemsize
    for s in shape:
        nbytes *= s or 1
    if nbytes > _INT64_MAX:
        raise value_error(func, "shape", f"{shape} is too large: its non-zero extents "
                                         f"times {itemsize} bytes per value exceed 2**63 - 1 "
                                         "bytes, the most an array may hold (NumPy's rule); "
                                         "no counter was used")
    return shape


class Philox:
    """NumPy-style generator over :func:`xstride.rng.philox_uniform` and friends.

    Parameters
    ----------
    seed : int
        In ``[0, 2**64 - 1]``; the Philox key. A NumPy integer or 0-d integer array is
        taken as its int (not a bool).
    stream : int, optional
        In ``[0, 2**64 - 1]``; independent sequences for one seed (default 0); taken as
        ``seed``.
    backend : {"numpy", "cupy", "dask"}, optional
        Where the arrays are made; the active backend if omitted. On dask, with the
        active ``chunks`` and chunk backend; the numbers do not depend on the chunking
        (docs/dask.md).

    Attributes
    ----------
    seed : int
        The seed given (read-only).
    stream : int
        The stream given (read-only).
    backend : str
        The name of the backend the arrays are made on (read-only).
    counter : int
        The next unused counter. Every call consumes a consecutive block of counters
        starting here and advances it past the block (read-only: move it with
        :meth:`advance`).

    Raises
    ------
    TypeError, ValueError
        Bad seed/stream (as :func:`xstride.rng.philox_uniform`) or backend name.

    Notes
    -----
    Stream definition (docs/rng.md): ``uniform(shape)`` and ``normal(shape)`` use one
    counter per two values, in C order: counter ``counter + j`` gives values ``2j``
    and ``2j + 1`` of the call, the two uniforms of :func:`philox_uniform2` (from
    ``(w0, w1)`` and ``(w2, w3)``) or the two normals ``z0, z1`` of
    :func:`philox_normal2`; an odd count drops the last counter's second value and
    still consumes that counter. ``integers`` uses one counter per value, and one more
    for each value whose two candidates (``(w0, w1)``, then ``(w2, w3)`` of its counter)
    are both rejected (docs/rng.md). The same seed, stream and call sequence give the same numbers on
    NumPy and CuPy. Threads may share a generator: each call holds it from reading the
    counter to storing it, so concurrent calls get distinct consecutive blocks.

    Examples
    --------
    >>> import xstride as xp
    >>> g = xp.rng.Philox(7, backend="numpy")
    >>> g.uniform(3).shape, g.counter
    ((3,), 2)
    """

    def __init__(self, seed, stream=0, *, backend=None):
        # one int each (the functions philox_* take arrays, the generator does not): an
        # integer-like (a NumPy integer, a 0-d integer array) as its int, as advance takes
        for name, value in (("seed", seed), ("stream", stream)):
            if _index(value) is None:
                raise type_error("Philox", name, value, "a non-negative int")
        seed, stream = _index(seed), _index(stream)
        self._seed = _check_int("Philox", "seed", seed, _LIMIT - 1, "2**64 - 1")
        self._stream = _check_int("Philox", "stream", stream, _LIMIT - 1, "2**64 - 1")
        be = _backends.active() if backend is None else \
            _backends.get(normalize_name(backend, source="Philox", arg="backend"))
        self._be = be
        self._xp = load_for("Philox", be.name)   # its RuntimeError names Philox
        self._counter = 0
        # held by every call from reading the counter to storing it: threads that share
        # a generator get consecutive blocks, never the same one (NumPy's lock too)
        self._lock = threading.Lock()

    # Read-only, as the counter: a new seed, stream or backend is a new generator.
    @property
    def seed(self) -> int:
        """The seed, the Philox key (read-only: make a new ``Philox`` for another)."""
        return self._seed

    @property
    def stream(self) -> int:
        """The stream (read-only: make a new ``Philox`` for another)."""
        return self._stream

    @property
    def backend(self) -> str:
        """The name of the backend the arrays are made on (read-only)."""
        return self._be.name

    @property
    def counter(self) -> int:
        """The next unused counter (read-only: move it with :meth:`advance`)."""
        return self._counter

    def __repr__(self):
        return (f"{type(self).__name__}(seed={self.seed}, stream={self.stream}, "
                f"counter={self.counter}, "
                f"backend={self.backend!r})")

    def __getattr__(self, name):
        # only a name the generator lacks comes here: NumPy's Generator methods it has
        # not (random, standard_normal, choice, ...) say what to write instead
        raise missing_method(name, type(self).__name__)

    def __reduce__(self):
        """Pickled and copied (``copy.copy``, ``copy.deepcopy``) as its seed, stream,
        backend name and counter: the copy draws what the original draws next, and the
        two move on independently. (The backend's module it holds cannot be pickled.) A
        subclass's copy is of its class, with the attributes the subclass added."""
        args = (self._seed, self._stream, self._be.name, self._counter)
        if type(self) is Philox:
            return (_restore, args)
        added = {k: v for k, v in vars(self).items() if k not in _OWN_ATTRIBUTES}
        slots = _slot_values(self)   # (pickle takes a dict of slots, never None)
        return (_restore, args + (type(self),), (added or None, slots) if slots else
                added or None)

    # -------------------------------------------------------------- counters
    # A call works on a local counter and stores it only once its result exists: a call
    # that raises (a bad argument, exhaustion, out of memory) changes no state.
    @staticmethod
    def _check_room(func, start, n, origin=None):
        """``start + n``, or ``OverflowError`` when the block would pass 2**64. ``origin``:
        the generator's counter when ``start`` is a later round's (``integers``' redraws
        of rejected values), which the message counts from: the counter the user sees."""
        if start + n > _LIMIT:
            first = start if origin is None else origin
            note = "" if first == start else ", redraws of rejected values included"
            raise error(OverflowError, f"Philox.{func}", f"the stream is exhausted (counter "
                        f"{first} + {start - first + n} counters > 2**64{note}); nothing "
                        "was consumed")
        return start + n

    def _take(self, func, start, n):
        """Counters ``start .. start + n - 1`` as a uint64 array."""
        self._check_room(func, start, n, self._counter)
        xp = self._xp
        return xp.arange(n, dtype=xp.uint64) + xp.uint64(start)

    @numpy_style
    def advance(self, n):
        """Skip ``n`` counters (``n >= 0``); returns ``self``.

        Parameters
        ----------
        n : int
            How many counters to skip, ``>= 0``: an int or any integer-like
            (``__index__``: a NumPy integer, a 0-d integer array such as
            ``np.asarray(5)``), as ``shape`` takes; not a bool. The next call starts at
            ``counter + n``, as if calls had used those counters.

        Returns
        -------
        Philox
            ``self``, with :attr:`counter` advanced by ``n`` (calls chain:
            ``g.advance(10).uniform(4)``).

        Raises
        ------
        TypeError
            ``n`` is not an int.
        ValueError
            ``n`` is negative.
        OverflowError
            The counter would pass ``2**64``.
        """
        count = _index(n)   # a 0-d integer array too, as shape and integers take
        if count is None:
            raise type_error("Philox.advance", "n", n, "a non-negative int")
        n = count
        if n < 0:
            raise value_error("Philox.advance", "n", f"must be non-negative, got {n}")
        with self._lock:
            if self._counter + n > _LIMIT:
                raise error(OverflowError, "Philox.advance",
                            f"counter {self._counter} + {n} passes 2**64")
            self._counter += n
        return self

    # -------------------------------------------------------------- draws
    @numpy_style
    def uniform(self, shape=()):
        """Float64 uniforms in [0, 1), two per counter (see the class notes).

        Parameters
        ----------
        shape : int or tuple of int
            Shape of the result; ``ceil(size / 2)`` counters are used. As NumPy's
            shapes: any integer-like (``__index__``: a NumPy integer, a 0-d integer
            array) stands for an int, and a 1-D integer array for a tuple.

        Returns
        -------
        ndarray of float64, ``shape``
            On the generator's backend; bit-identical on NumPy and CuPy.

        Raises
        ------
        TypeError
            ``shape`` is not an int or a tuple of ints (the message names it as
            given).
        ValueError
            A negative extent, more than 64 axes, or a shape no array can have (its
            non-zero extents times 8 bytes above ``2**63 - 1``).
        OverflowError
            The stream's 2**64 counters are used up.
        MemoryError
            The result does not fit in memory (the message names the call, the shape
            and the size).

        Notes
        -----
        A call that raises consumes no counter and changes no state.
        """
        return self._pairs("uniform", shape)

    def _pairs(self, kind: str, shape):
        """``uniform`` or ``normal`` (``kind``) of ``shape``: two values a counter, the
        counters taken under the generator's lock; nothing consumed where it raises."""
        shape = _shape(f"Philox.{kind}", shape)
        n = math.prod(shape)
        with self._lock:
            start = self._counter
            end = self._check_room(kind, start, (n + 1) // 2)
            try:
                res = _fill_pairs(kind, self._be, self.seed, self.stream, start,
                                  n, shape).reshape(shape)
            except MemoryError:
                raise out_of_memory(f"Philox.{kind}", "the result", shape, 8) from None
            self._counter = end
        return res

    @numpy_style
    def normal(self, shape=()):
        """Float64 standard normals, two per counter (Box–Muller pairs).

        Counter ``counter + j`` gives values ``2j`` and ``2j + 1`` of the call in C
        order: the pair ``(z0, z1)`` of :func:`~xstride.rng.philox_normal2`; an odd count
        drops the last counter's ``z1``.

        Parameters
        ----------
        shape : int or tuple of int
            Shape of the result; ``ceil(size / 2)`` counters are used. As NumPy's
            shapes: any integer-like (``__index__``: a NumPy integer, a 0-d integer
            array) stands for an int, and a 1-D integer array for a tuple.

        Returns
        -------
        array of float64, ``shape``
            On the generator's backend; bit-identical on NumPy and CuPy. Each value of
            magnitude at most ``sqrt(2 * 53 ln 2)``, about 8.57.

        Raises
        ------
        TypeError
            ``shape`` is not an int or a tuple of ints (the message names it as
            given).
        ValueError
            A negative extent, more than 64 axes, or a shape no array can have (its
            non-zero extents times 8 bytes above ``2**63 - 1``).
        OverflowError
            The stream's 2**64 counters are used up.
        MemoryError
            The result does not fit in memory (the message names the call, the shape
            and the size).

        Notes
        -----
        A call that raises consumes no counter and changes no state. Box, G. E. P. and
        Muller, M. E. (1958), "A note on the generation of random normal deviates",
        Ann. Math. Statist. 29(2), 610-611; the log and sin/cos are xstride's own,
        IEEE-only, so host and device give the same bits (docs/rng.md).
        """
        return self._pairs("normal", shape)

    @numpy_style
    def integers(self, low, high=None, shape=()):
        """Uniform integers in ``[low, high)``, unbiased, int64 (uint64 above 2**63 - 1).

        Parameters
        ----------
        low, high : int
            Or an integer NumPy scalar or 0-d integer array. ``high=None`` means
            ``[0, low)``. Need ``low < high``, ``high - low <= 2**64``,
            and both ends inside int64 or inside uint64.
        shape : int or tuple of ints
            As in :meth:`uniform`.

        Returns
        -------
        array of int64 or uint64, ``shape``
            Values in ``[low, high)`` (``[0, low)`` for ``high=None``), on the
            generator's backend: int64 where both ends lie in the int64 range
            (``low >= -2**63`` and ``high - 1 < 2**63``), else uint64. Bit-identical on
            NumPy and CuPy; the counter moves past every counter the draws used.

        Raises
        ------
        TypeError
            ``low``/``high`` are not ints; ``shape`` as in :meth:`uniform`.
        ValueError
            Empty or too wide a range; ``shape`` as in :meth:`uniform`.
        OverflowError
            The counters the call needs (rejections included) would pass ``2**64``;
            like every call that raises, it then consumes nothing.
        MemoryError
            The result (and the draws behind it) does not fit in memory.

        Notes
        -----
        Lemire's multiply-and-reject method (D. Lemire, "Fast random integer generation
        in an interval", ACM TOMACS 29(1), 2019) on the 64-bit value ``(w0 << 32) | w1``
        of each counter; a rejected value tries ``(w2 << 32) | w3`` of the same counter,
        then fresh counters after the block, until accepted. Rejection happens with
        probability below ``(high - low) / 2**64`` per candidate. On NumPy arrays the
        first round runs in the host's compiled C loop where one is built (the same
        bits; ``XSTRIDE_HOST_CC``).
        """
        func = "Philox.integers"
        names = ("low", "high")
        one_argument = high is None
        if one_argument:  # integers(high): the one argument given is called low
            low, high = 0, low
            names = ("low", "low")
        ends = []
        for name, v in zip(names, (low, high)):   # an int, or what stands for one (0-d)
            if isinstance(v, (bool, np.bool_)) or getattr(getattr(v, "dtype", None),
                                                          "kind", "i") not in "iu":
                raise type_error(func, name, v, "an int")
            try:
                ends.append(operator.index(v))
            except TypeError:
                raise type_error(func, name, v, "an int") from None
        low, high = ends
        if one_argument and high <= 0:
            raise value_error(func, "low", f"must be positive when 'high' is omitted (the "
                                           f"interval is then [0, low)); got {high}")
        if low >= high:
            raise value_error(func, "high", f"must be greater than low; got the interval "
                                            f"[{low}, {high}), which is empty")
        if -(1 << 63) <= low and high - 1 < (1 << 63):
            dtype = np.int64
        elif low >= 0 and high - 1 < _LIMIT:
            dtype = np.uint64
        else:   # name the end no dtype holds (low below int64 or past uint64: 'low')
            raise value_error(func, names[0] if low < -(1 << 63) or low >= _LIMIT
                              else names[1],
                              f"range [{low}, {high}) does not fit int64 or uint64")
        r = high - low
        if r > _LIMIT:
            raise value_error(func, "high", "high - low must be at most 2**64")
        shape = _shape(func, shape)
        try:
            with self._lock:
                return self._integers(func, low, r, dtype, shape)
        except MemoryError:
            raise out_of_memory(func, "the result", shape, 8) from None

    def _integers(self, func, low, r, dtype, shape):
        """The draws of :meth:`integers` for its checked arguments; the counter moves
        only once they are all made."""
        n = math.prod(shape)
        thresh = (_LIMIT - r) % r if r < _LIMIT else 0
        draw = getattr(self._be.executor("philox"), "integers", None)
        if draw is not None:  # an executor that cannot write into its result (dask)
            start = self._counter
            self._check_room("integers", start, n)
            values, used = draw(self.seed, self.stream, start, n, r, thresh,
                                lambda first, count: self._check_room("integers", first, count,
                                                                      start),
                                shape=shape, func=func)
            res = (values + np.uint64(low & (_LIMIT - 1))).view(dtype).reshape(shape)
            self._counter = start + used
            return res
        xp = self._xp
        u = xp.uint64
        s32 = u(32)
        ctr_next = self._counter
        # the first round (every element) on an executor's compiled loop, where it has
        # one; the rounds below then take the elements it rejected
        first = getattr(self._be.executor("philox"), "integers_first", None)
        got = None
        if first is not None and n:
            self._check_room("integers", ctr_next, n)
            got = first(self.seed, self.stream, ctr_next, n, r, thresh)
        if got is not None:
            out, todo = got
            ctr_next += n
        else:
            out = xp.empty(n, dtype=xp.uint64)
            todo = xp.arange(n, dtype=xp.int64)
        while todo.size:
            ctr = self._take("integers", ctr_next, int(todo.size))
            ctr_next += int(todo.size)
            cw = xp.stack([ctr & u(_M32), ctr >> s32,
                           xp.full_like(ctr, self.stream & _M32),
                           xp.full_like(ctr, self.stream >> 32)], axis=1).astype(xp.uint32)
            w = philox4x32_10(cw, self.seed & _M32, self.seed >> 32).astype(xp.uint64)
            rejected = xp.ones(todo.size, dtype=bool)
            for a, b in ((0, 1), (2, 3)):
                x = (w[:, a] << s32) | w[:, b]
                if r == _LIMIT:
                    val, ok = x, xp.ones(x.shape, dtype=bool)
                else:
                    val, lo = mul_hi_lo(xp, x, r)
                    ok = lo >= u(thresh)
                take = rejected & ok
                out[todo[take]] = val[take]
                rejected &= ~ok
            todo = todo[rejected]
        res = out + u(low & (_LIMIT - 1))  # wraps modulo 2**64: low + value
        res = res.view(dtype).reshape(shape)
        self._counter = ctr_next
        return res


#: The attributes :meth:`Philox.__init__` sets (what a copy makes anew).
_OWN_ATTRIBUTES = frozenset({"_seed", "_stream", "_be", "_xp", "_counter", "_lock"})


def _slot_values(g) -> dict:
    """The ``__slots__`` attributes a subclass of :class:`Philox` set on ``g`` (their
    private names mangled as Python stores them), for the copy's state."""
    out = {}
    for cls in type(g).__mro__:
        slots = cls.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name in ("__dict__", "__weakref__"):
                continue
            if name.startswith("__") and not name.endswith("__"):
                name = f"_{cls.__name__.lstrip('_')}{name}"
            if hasattr(g, name):
                out[name] = getattr(g, name)
    return out


def _restore(seed, stream, backend, counter, cls=None):
    """A :class:`Philox` (or an instance of the subclass ``cls``, made as pickle makes
    one: without calling its ``__init__``) at ``counter``, what
    :meth:`Philox.__reduce__` stores."""
    if cls is None:
        g = Philox(seed, stream, backend=backend)
    else:
        g = cls.__new__(cls)
        Philox.__init__(g, seed, stream, backend=backend)
    return Philox.advance(g, counter)   # (not a subclass's override of it)
