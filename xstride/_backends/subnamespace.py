"""Builds the standard's sub-namespaces (``linalg``, ``fft``) from the name table."""

from __future__ import annotations

from . import dispatch as _dispatch


def populate(module_globals: dict, prefix: str, names, creation=()) -> tuple:
    """Make a sub-namespace module's dispatching wrappers, each on first access.

    A wrapper copies the name, docstring and signature of the NumPy backend's
    implementation, which needs ``array_api_compat.numpy``; made on first access,
    importing the sub-namespace imports no backend's namespace.

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

    Returns
    -------
    (list of str, callable)
        The module's ``__all__`` (sorted ``names``) and its module ``__getattr__``,
        which raises ``AttributeError`` for any other name.
    """
    module = module_globals["__name__"]
    names = frozenset(names)
    creation = frozenset(creation)

    def __getattr__(name: str):
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        # two threads may both make one: the first stored is the one everybody gets
        make = _dispatch.creator if name in creation else _dispatch.follower
        return module_globals.setdefault(name, make(f"{prefix}.{name}", module=module))

    return sorted(names), __getattr__
