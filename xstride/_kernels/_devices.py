"""Where a call's CuPy arrays live: every array argument must be on the current device.

A CuPy array lives on one device (``a.data.device_id``). xstride's kernels launch on
CuPy's current device with the arrays' addresses, and nothing checks them on the
device: an array of another device faults with an illegal address (which poisons the
CUDA context) or, with peer access enabled, is read and written silently across the
link. The executors refuse such a call instead, before they allocate or launch
anything: :func:`check` on the checked (first-call) path of each executor, with a
``ValueError`` (:class:`~xstride._core.errors.DeviceError`) that names the public
function, the argument, the array's device and the current one, and says what to do.

The prepared calls (:mod:`._prepared`) skip the checks, so their keys hold the current
device and each array's ``data.device_id``: an array of another device misses the key
and reaches the check.

Imports CuPy only through the module the caller has already imported.
"""

from __future__ import annotations

from .._core.errors import device_error
from ._cupy import cupy as _cupy

__all__ = ["misplaced", "check"]


def misplaced(arrays, cp=None):
    """The first CuPy array of ``arrays`` that is not on the current device.

    Parameters
    ----------
    arrays : iterable
        A call's arguments; anything that is not a ``cupy.ndarray`` (a Python or
        NumPy scalar, None) is skipped.
    cp : module, optional
        The CuPy module (default: the imported one).

    Returns
    -------
    tuple or None
        ``(position in arrays, the array's device, the current device)``, or None when
        every array is on the current device.
    """
    cp = _cupy() if cp is None else cp
    current = cp.cuda.runtime.getDevice()
    nd = cp.ndarray
    for i, a in enumerate(arrays):
        if isinstance(a, nd):
            device = a.data.device_id
            if device != current:
                return i, device, current
    return None


def check(func: str, named, cp=None) -> None:
    """Refuse a call of ``func`` whose CuPy arrays are not all on the current device.

    Parameters
    ----------
    func : str
        The public function that was called (it starts the message).
    named : sequence of (str, object)
        Every argument that may be an array, with its public name (``"x"``,
        ``"values[1]"``); anything that is not a ``cupy.ndarray`` is skipped.
    cp : module, optional
        The CuPy module (default: the imported one).

    Raises
    ------
    ValueError
        (:class:`~xstride._core.errors.DeviceError`) An array lives on another device
        than the current one; the message names the first such argument.
    """
    got = misplaced([v for _, v in named], cp)
    if got is not None:
        i, device, current = got
        raise device_error(func, named[i][0], device, current)
