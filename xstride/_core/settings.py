"""On/off environment switches, read one way everywhere (``XSTRIDE_LOG_KERNELS``,
``XSTRIDE_CUDA_DEBUG``, ``XSTRIDE_EW_CACHE``): a value that is neither on nor off is an error naming the
variable, never read silently as off."""

from __future__ import annotations

import os

from .errors import setting_error

__all__ = ["ON", "OFF", "env_flag"]

#: Values that switch a flag on or off (compared stripped and lower-cased).
ON = ("1", "true", "yes", "on")
OFF = ("", "0", "false", "no", "off")


def env_flag(name: str, meaning: str, default: bool = False) -> bool:
    """Whether environment variable ``name`` is on; unset (or empty) is ``default``.

    Parameters
    ----------
    name : str
        The variable.
    meaning : str
        What ``1`` does, for the error message.
    default : bool
        The answer where the variable is unset or empty (off for every switch but
        ``XSTRIDE_EW_CACHE``, which is on).

    Raises
    ------
    xstride._core.errors.SettingError
        (a ``ValueError``) The variable holds anything but 1/true/yes/on or
        0/false/no/off/empty (case-insensitive).
    """
    raw = os.environ.get(name, "")
    value = raw.strip().lower()
    if not value:
        return default
    if value in ON:
        return True
    if value in OFF:
        return False
    raise setting_error(name, raw, f"1, true, yes or on ({meaning}), or 0, false, no or off "
                                   f"(case-insensitive; unset or empty: "
                                   f"{'on' if default else 'off'})")
