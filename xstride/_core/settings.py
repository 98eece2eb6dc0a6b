"""On/off environment switches, read one way everywhere (``XSTRIDE_LOG_KERNELS``,
``XSTRIDE_CUDA_DEBUG``): a value that is neither on nor off is an error naming the
variable, never read silently as off."""

from __future__ import annotations

import os

from .errors import setting_error

__all__ = ["ON", "OFF", "env_flag"]

#: Values that switch a flag on or off (compared stripped and lower-cased).
ON = ("1", "true", "yes", "on")
OFF = ("", "0", "false", "no", "off")


def env_flag(name: str, meaning: str) -> bool:
    """Whether environment variable ``name`` is on; unset is off.

    Parameters
    ----------
    name : str
        The variable.
    meaning : str
        What ``1`` does, for the error message.

    Raises
    ------
    xstride._core.errors.SettingError
        (a ``ValueError``) The variable holds anything but 1/true/yes/on or
        0/false/no/off/empty (case-insensitive).
    """
    raw = os.environ.get(name, "")
    value = raw.strip().lower()
    if value in ON:
        return True
    if value in OFF:
        return False
    raise setting_error(name, raw, f"1 ({meaning}) or 0")
