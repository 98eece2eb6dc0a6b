"""Builds the standard's sub-namespaces (``linalg``, ``fft``) from the name table."""

from __future__ import annotations

from . import dispatch as _dispatch


def populate(module_globals: dict, prefix: str, names, creation=()) -> list[str]:
    """Fill a sub-namespace module with dispatching wrappers.

    Parameters
    ----------
    module_globals : dict
        ``globals()`` of the sub-namespace module.
    prefix : str
        ``"linalg"`` or ``"fft"``.
    names : iterable of str
        The standard's names in that extension.
    creation : iterable of str
        Those among ``names`` that take no array and so run on the active backend.
    """
    module = module_globals["__name__"]
    for name in names:
        make = _dispatch.creator if name in creation else _dispatch.follower
        module_globals[name] = make(f"{prefix}.{name}", module=module)
    return sorted(names)
