"""The engine's operands from NumPy dtypes: the C type of a dtype (:func:`ctype`, cached)
and an :class:`~._elementwise_source.Operand` of a stored and a loop dtype
(:func:`operand`), as the elementwise and fusion executors describe their arrays and
scalars to :func:`._elementwise_exec.launch`. Pure Python over NumPy dtypes.
"""

from __future__ import annotations

import numpy as np

from ._elementwise_source import C_TYPES, COMPUTE_TYPES, Operand

__all__ = ["ctype", "operand"]

_ctype_cache: dict = {}


def ctype(dt) -> str | None:
    """C type of a NumPy dtype in the engine, or None when the engine lacks it."""
    try:
        return _ctype_cache[dt]
    except (KeyError, TypeError):  # not seen yet, or unhashable (np.dtype raises then)
        c = C_TYPES.get(np.dtype(dt).name)
        try:
            if len(_ctype_cache) < 1024:
                _ctype_cache[dt] = c
        except TypeError:  # unhashable dtype spec: answered, just not cached
            pass
        return c


def operand(name, dt, loop_dt=None, kind="in", preload=False, cast=False) -> Operand:
    """An :class:`Operand` from NumPy dtypes: stored as ``dt``, seen by the body in the
    loop type ``loop_dt`` (float16 loops compute in float: ``COMPUTE_TYPES``; a scalar
    of a float16 loop is passed as a float, its float16 value exactly). ``cast``: the
    body converts straight to ``loop_dt``'s stored type (a cast to float16 rounds once
    from float64, not through float)."""
    c = ctype(dt)
    if kind == "scalar":
        c = COMPUTE_TYPES.get(c, c)
    if loop_dt is None:
        lt = c
    else:
        lt = ctype(loop_dt)
        lt = lt if cast else COMPUTE_TYPES.get(lt, lt)
    return Operand(name, c, lt, kind, preload)
