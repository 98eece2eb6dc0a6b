"""The array API ``fft`` extension: each function runs on its arrays' backend.

``fftfreq`` and ``rfftfreq`` create arrays and so run on the active backend.
Implementations come from ``array_api_compat.numpy.fft`` / ``array_api_compat.cupy.fft``.
"""

from ._core.names import FFT as _FFT, FFT_CREATION as _FFT_CREATION
from ._backends.subnamespace import populate as _populate

__all__, __getattr__ = _populate(globals(), "fft", _FFT, _FFT_CREATION)


def __dir__():  # what a module's dir() lists, and every name, made or not
    return sorted(set(globals()) | set(__all__))
