"""The record of kernel compiles, for finding what a program's first calls spend.

See ``docs/performance.md`` ("Cold start"). Nothing here imports CuPy, except
:func:`watch_cupy_compiles`, which needs it.
"""

from __future__ import annotations

from .._backends.select import load_cupy
from .._core.errors import unavailable_error
from . import _executors

__all__ = ["compiled_kernels", "compile_stats", "watch_cupy_compiles", "wait_for_compiles"]


def compiled_kernels() -> list:
    """The kernels compiled in this process so far, oldest first.

    One entry per miss of xstride's compiled-kernel cache (the only place xstride
    compiles), and, after :func:`watch_cupy_compiles`, one per compile of CuPy's own
    kernels. A repeat call compiles nothing and adds nothing. At most the last 10,000
    entries are kept (:func:`compile_stats` counts every one).

    Returns
    -------
    list of CompiledKernel
        Named tuples ``(name, source, options, seconds, device, kind)``: the kernel name
        or template name expression; its source (``"reductions.cu"``, ``"generated
        <sha>"``, ``"user <sha>"``, ``"library <sha>"``); 12 hex digits of the SHA-256 of
        its NVRTC options; wall seconds of module creation plus ``get_function``; the
        device ordinal; ``"xstride"``, ``"user"`` (:class:`CudaKernel`) or ``"library"``
        (CuPy's own).

    Notes
    -----
    ``seconds`` is the time of an NVRTC compile *or* of a load from CuPy's on-disk
    kernel cache (``CUPY_CACHE_DIR``): which of the two it was is not visible to
    xstride. An empty on-disk cache (a fresh ``CUPY_CACHE_DIR``) makes every entry a
    real compile. With ``XSTRIDE_LOG_KERNELS=1`` in the environment, each entry is also
    printed on stderr as it is recorded.

    Examples
    --------
    >>> import xstride as xp
    >>> xp.cuda.compiled_kernels()          # a program that has compiled nothing
    []
    """
    return list(_executors.compiler().compiled_kernels())


def compile_stats() -> dict:
    """Totals of the record: ``{"kernels": int, "seconds": float, "wall_seconds": float,
    "cupy_watched": bool}``.

    ``kernels`` and ``seconds`` count every compile recorded in this process (none is
    ever dropped from the totals); ``seconds`` adds up the compiles' times, while
    ``wall_seconds`` is the time during which at least one compile was running (xstride
    compiles the independent kernels of one call side by side, on threads, so their
    times overlap). ``cupy_watched`` says whether CuPy's own compiles are among them
    (:func:`watch_cupy_compiles`). Cheap: a program reads it before and after a step to
    count what the step compiled and how long it waited (``python -m xstride demo``
    does, per stage).

    Returns
    -------
    dict
        ``kernels`` (int): the compiles recorded in this process, all of them (the
        10,000 that :func:`compiled_kernels` keeps and every older one);
        ``seconds`` (float): the sum of their times, in seconds; ``wall_seconds``
        (float): the seconds during which at least one of them was running, at most
        ``seconds``; ``cupy_watched`` (bool): whether CuPy's own compiles are recorded
        (:func:`watch_cupy_compiles`). ``{"kernels": 0, "seconds": 0.0,
        "wall_seconds": 0.0, "cupy_watched": False}`` while nothing has been compiled.

    Notes
    -----
    Raises nothing and imports nothing: until xstride's compiler is loaded (by a first
    kernel, or :func:`watch_cupy_compiles`) the record is empty and is not looked up.
    """
    if not _executors.compiler_imported():  # nothing compiled yet: an empty record
        return {"kernels": 0, "seconds": 0.0, "wall_seconds": 0.0, "cupy_watched": False}
    kernels, seconds, wall = _executors.compiler().compile_totals()
    return {"kernels": int(kernels), "seconds": float(seconds), "wall_seconds": float(wall),
            "cupy_watched": bool(_executors.compiler().cupy_compiles_watched())}


def wait_for_compiles() -> None:
    """Wait until the kernel compiles xstride started on its compile threads are done.

    A first call may start compiling, beside the kernel it needs now, kernels it or the
    next call will need (the other kernels of a radix sort or a segment family, the
    ``max`` of the layout of a first ``min``). Their times enter the record as they
    finish; a program that times a step with :func:`compile_stats` calls this at the
    step's end, so that what the step started is counted in it (``python -m xstride
    demo`` does). A compile that failed raises nothing here: the call that needs the
    kernel raises its error. Returns at once when nothing was compiled in this process.

    Returns
    -------
    None
        Once every compile under way when it was called has finished or failed
        (compiles started after that are not waited for). It raises nothing and
        imports nothing.
    """
    if _executors.compiler_imported():
        _executors.compiler().drain()


def watch_cupy_compiles() -> bool:
    """Record CuPy's own kernel compiles too (operators and functions on CuPy arrays),
    from now on, in this process.

    Wraps CuPy's module compiler (``cupy.cuda.compiler._compile_module_with_cache``, a
    private function of CuPy) with a timer that passes every argument and result
    through unchanged. Calling it again changes nothing.

    Returns
    -------
    bool
        ``True`` when CuPy's compiles are being recorded; ``False`` where this CuPy has
        no such function (then only xstride's own compiles are recorded).

    Raises
    ------
    RuntimeError
        CuPy cannot be imported or no device answers (the message says why).
    """
    try:
        cupy = load_cupy()
    except RuntimeError as exc:
        raise unavailable_error("watch_cupy_compiles", exc) from None
    return bool(_executors.compiler().watch_cupy_compiles(cupy))
