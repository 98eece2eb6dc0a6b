"""Launch knobs whose every change invalidates the prepared calls keyed on them.

A prepared call (:mod:`._prepared`) repeats a recipe that was planned under the knobs
of its time, so its key must change when a knob does. Keying on each knob's value
costs a dict lookup per knob on every repeat call (ten of them in a reduction's key,
the whole tuple of knobs in a scan's); keying on :attr:`Knobs.version` costs one
attribute read and keys every knob, including those a key used to miss.
"""

from __future__ import annotations

from .._core.errors import error

__all__ = ["Knobs"]


class Knobs(dict):
    """A dict of named launch knobs with a ``version`` that every assignment bumps.

    The names are fixed when it is made: assigning a name it does not hold raises
    ``KeyError`` (a misspelt knob would otherwise change nothing), and the methods
    that add or remove names raise ``TypeError``. ``knobs[name] = value``,
    ``knobs.update(...)`` (one assignment a name, after every name is checked) and
    ``monkeypatch.setitem`` change them. Copies and pickles are ``Knobs`` of the same
    names and values. A knob's value is replaced, never changed in place (a tuple or
    an int): an in-place change would not bump the version.

    >>> k = Knobs({"minb": 4})
    >>> v = k.version; k["minb"] = 2; k.version == v + 1
    True
    >>> k["mnib"] = 2
    Traceback (most recent call last):
    ...
    KeyError: "Knobs: no launch knob 'mnib'; the knobs are: minb"
    """

    __slots__ = ("version",)

    def __init__(self, knobs: dict):
        super().__init__(knobs)
        self.version = 0

    def __setitem__(self, name, value) -> None:
        if name not in self:
            raise error(KeyError, "Knobs", f"no launch knob {name!r}; the knobs are: "
                        f"{', '.join(self)}")
        super().__setitem__(name, value)
        self.version += 1

    def update(self, *args, **kwargs) -> None:
        new = dict(*args, **kwargs)
        for name in new:      # every name checked before any is set
            if name not in self:
                self[name] = new[name]   # raises the KeyError
        for name, value in new.items():
            self[name] = value

    def setdefault(self, name, default=None):
        if name not in self:
            self._fixed()
        return self[name]

    def __reduce__(self):
        # copy.copy, copy.deepcopy and pickle: a new Knobs of the same names and values
        return (type(self), (dict(self),))

    def __ior__(self, other):
        self.update(other)
        return self

    def _fixed(self, *args, **kwargs):
        raise error(TypeError, "Knobs", "launch knobs are fixed names; set one with "
                    "knobs[name] = value")

    __delitem__ = pop = popitem = clear = _fixed
