"""The ``TypeError`` of a ``Philox`` method called as NumPy's ``Generator`` method is.

NumPy's ``Generator`` names the output shape ``size`` and takes the distribution's
parameters first: ``g.integers(0, 6, size=3)``, ``g.uniform(0, 1, 100)``,
``g.normal(0, 1, size=5)``. ``Philox`` takes ``shape`` (its methods take no ``size``,
and ``uniform``/``normal`` no parameters: they give [0, 1) and standard normals).
Python's own errors ("got an unexpected keyword argument 'size'", "takes from 1 to 2
positional arguments but 4 were given") said neither; :func:`numpy_style` makes a
method's call with an argument it lacks, or too many positional ones, a ``TypeError``
that names the method and says what to write instead. Nothing is accepted silently.
A call the method takes costs one ``len`` (and with keywords one set test) more.

NumPy's ``Generator`` methods ``Philox`` lacks (``g.random(3)``, ``g.standard_normal(3)``,
``g.choice``, ``g.permutation``, ...) were Python's bare "'Philox' object has no
attribute 'random'"; :func:`missing_method` is the ``AttributeError`` that names the
method and says what to write (``Philox.__getattr__``, reached only by a name the
class does not have: the methods and attributes it has cost nothing more). Every public
name of NumPy's ``Generator`` has one (its other distributions say what ``Philox``
draws), and so have those of NumPy's bit generator ``numpy.random.Philox`` (``jumped``,
``random_raw``, ``state``, ``seed_seq``, ``lock``, ``ctypes``, ``cffi``, ``capsule``),
which a user of that class would try, and legacy ``RandomState``'s (``rand``, ``randn``,
``randint``, ``random_integers``, ``tomaxint``, ``get_state``, ``set_state``).
"""

from __future__ import annotations

import functools
import inspect

from .._core.errors import error

__all__ = ["numpy_style", "missing_method"]

#: method -> what replaces NumPy's parameters of the distribution (a closing clause)
_INSTEAD = {
    "uniform": "it gives float64 in [0, 1): for NumPy's uniform(low, high, size) write "
               "low + (high - low) * g.uniform(shape)",
    "normal": "it gives standard normals: for NumPy's normal(loc, scale, size) write "
              "loc + scale * g.normal(shape)",
    "integers": "it gives int64 in [low, high) (uint64 past int64): for NumPy's "
                "endpoint=True give high + 1, for its dtype= cast the result "
                "(xp.astype)",
    "advance": "it skips n counters",
}


def _call_of(name: str, params) -> str:
    shown = ", ".join(params)
    return f"g.{name}({shown})"


def numpy_style(method):
    """``method`` of ``Philox``, refusing with a clear ``TypeError`` a keyword it does
    not take (``size=`` named as ``shape=``) and more positional arguments than it has;
    its signature (``help``, ``inspect.signature``) stays the method's own."""
    params = [p for p in inspect.signature(method).parameters if p != "self"]
    names = frozenset(params)
    most = len(params)
    func = f"Philox.{method.__name__}"
    call = _call_of(method.__name__, params)
    instead = _INSTEAD[method.__name__]

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if len(args) > most:
            raise error(TypeError, func, f"takes at most {most} positional argument"
                                         f"{'s' if most != 1 else ''} ({', '.join(params)})"
                                         f" but {len(args)} were given: {call}; {instead}")
        if kwargs and not names.issuperset(kwargs):
            bad = next(k for k in kwargs if k not in names)
            if bad == "size" and "shape" in names:
                raise error(TypeError, func, f"no argument 'size'; the output shape is "
                                             f"shape= ({call}, as NumPy's size=)")
            raise error(TypeError, func, f"no argument {bad!r}; {call}: {instead}")
        return method(self, *args, **kwargs)

    return wrapper


#: NumPy ``Generator`` method -> what to write with ``Philox``
_NUMPY_METHODS = {
    "random": "g.uniform(shape): float64 in [0, 1), as NumPy's random(size)",
    "standard_normal": "g.normal(shape): standard normals, as NumPy's "
                       "standard_normal(size)",
    "standard_exponential": "-xp.log1p(-g.uniform(shape)): standard exponentials",
    "exponential": "-scale * xp.log1p(-g.uniform(shape)) for NumPy's "
                   "exponential(scale, size)",
    "choice": "a[g.integers(0, a.shape[0], shape)] for NumPy's choice(a, size) with "
              "replacement; without replacement, a[xp.argsort(g.uniform(a.shape[0]))[:k]]",
    "permutation": "xp.argsort(g.uniform(n)) for a permutation of range(n); "
                   "x[xp.argsort(g.uniform(x.shape[0]))] for one of x's rows",
    "permuted": "x[xp.argsort(g.uniform(x.shape[0]))] (a shuffled copy of x's rows)",
    "shuffle": "x[xp.argsort(g.uniform(x.shape[0]))] (a shuffled copy of x's rows; "
               "Philox shuffles nothing in place)",
    "bytes": "xp.astype(g.integers(0, 256, n), xp.uint8) for n random bytes as an array",
    "spawn": "[xp.rng.Philox(g.seed, stream=s, backend=g.backend) for s in streams], "
             "each s a stream other than g.stream: independent sequences of one seed",
}

#: legacy ``RandomState``'s own methods (its others are ``Generator``'s) -> what to write
_RANDOM_STATE = {
    "random_sample": "g.uniform(shape): float64 in [0, 1)",
    "rand": "g.uniform(shape): float64 in [0, 1)",
    "randn": "g.normal(shape): standard normals",
    "randint": "g.integers(low, high, shape): int64 in [low, high)",
    "random_integers": "g.integers(low, high + 1, shape): NumPy's random_integers "
                       "includes high",
    "tomaxint": "g.integers(0, 2**63, shape): int64 in [0, 2**63 - 1]",
    "get_state": "g.seed, g.stream and g.counter (copy.copy(g) or pickle for a checkpoint)",
    "set_state": "copy.copy(g) of a checkpointed generator, or xp.rng.Philox(seed, stream) "
                 "then g.advance(counter)",
}


#: NumPy ``Generator``'s attribute ``bit_generator``
_OTHER_GENERATOR = {
    "bit_generator": "the generator itself: g.seed, g.stream and g.counter are its state",
}
#: NumPy ``Generator``'s other distributions: no one-line replacement
_DISTRIBUTIONS = frozenset((
    "beta", "binomial", "chisquare", "dirichlet", "f", "gamma", "geometric", "gumbel",
    "hypergeometric", "laplace", "logistic", "lognormal", "logseries", "multinomial",
    "multivariate_hypergeometric", "multivariate_normal", "negative_binomial",
    "noncentral_chisquare", "noncentral_f", "pareto", "poisson", "power", "rayleigh",
    "standard_cauchy", "standard_gamma", "standard_t", "triangular", "vonmises", "wald",
    "weibull", "zipf"))
#: NumPy's bit generator ``numpy.random.Philox``'s own names (its ``advance`` is
#: ``Philox``'s too)
_BIT_GENERATOR = {
    "jumped": "xp.rng.Philox(g.seed, stream=s) with another stream s for an independent "
              "sequence, or g.advance(n) to skip n counters",
    "random_raw": "g.integers(0, 2**64, shape) for uint64 words, or "
                  "xp.rng.philox4x32_10(counter_words, key0, key1) for the block function",
    "state": "g.seed, g.stream and g.counter (copy.copy(g) or pickle for a checkpoint)",
    "seed_seq": "g.seed: Philox takes an int seed, no SeedSequence",
    "lock": "nothing: threads may share a Philox, each call holds it from reading the "
            "counter to advancing it (docs/rng.md)",
}
#: the C interfaces of NumPy's bit generator: one answer
_BIT_GENERATOR.update(dict.fromkeys(
    ("ctypes", "cffi", "capsule"),
    "xp.rng.philox4x32_10(counter_words, key0, key1) for the block function, or the header "
    "xstride/random.cuh in C or CUDA code: Philox has no C interface"))


def missing_method(name: str, cls_name: str = "Philox") -> AttributeError:
    """The ``AttributeError`` of ``Philox``'s attribute ``name``: for a name of NumPy's
    ``Generator`` it lacks (or of NumPy's own bit generator ``numpy.random.Philox``),
    what to write instead; else Python's own message, naming the class ``cls_name`` (a
    subclass's name)."""
    if name in _DISTRIBUTIONS:
        return error(AttributeError, "Philox", f"no method {name!r} (NumPy's Generator."
                                               f"{name}): Philox draws only uniform(shape), "
                                               "normal(shape) and integers(low, high, shape);"
                                               " build it from those, or draw it with "
                                               "NumPy's Generator")
    for table, owner in ((_NUMPY_METHODS, "Generator"), (_RANDOM_STATE, "RandomState")):
        if name in table:
            return error(AttributeError, "Philox", f"no method {name!r} (NumPy's {owner}."
                                                   f"{name}); write {table[name]}")
    for table, owner in ((_OTHER_GENERATOR, "Generator"),
                         (_BIT_GENERATOR, "bit generator numpy.random.Philox")):
        if name in table:
            return error(AttributeError, "Philox", f"no attribute {name!r} (NumPy's {owner}"
                                                   f".{name}); write {table[name]}")
    return AttributeError(f"{cls_name!r} object has no attribute {name!r}")
