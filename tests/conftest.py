"""Shared test set-up: the ``gpu`` marker skips cleanly where no CUDA/HIP device answers."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
if not SHARED.is_dir():  # CI lays shared/ beside the clone; allow an override
    SHARED = Path(os.environ.get("XSTRIDE_SHARED", str(SHARED)))


@functools.lru_cache(maxsize=None)
def gpu_reason() -> str | None:
    """``None`` when a CuPy device answers, else the reason it does not."""
    from xstride._backends.select import load_cupy

    try:
        load_cupy()
    except RuntimeError as exc:
        return str(exc)
    return None


def pytest_collection_modifyitems(config, items):
    reason = None
    for item in items:
        if item.get_closest_marker("gpu") is None:
            continue
        if reason is None:
            reason = gpu_reason() or ""
        if reason:
            item.add_marker(pytest.mark.skip(reason=f"needs a GPU: {reason}"))


@pytest.fixture
def cp():
    """The ``cupy`` module (only inside tests marked ``gpu``)."""
    from xstride._backends.select import load_cupy

    return load_cupy()


@pytest.fixture
def shared_dir() -> Path:
    """``../shared`` beside the checkout; skips with a reason when it is absent."""
    if not (SHARED / "data").is_dir():
        pytest.skip(f"reference data folder {SHARED}/data is absent (set XSTRIDE_SHARED)")
    return SHARED


@pytest.fixture
def poisoned_pool(cp):
    """Fill pooled device memory with 0xFF so that a result element the kernels forget
    to write shows up as NaN / -1 / max instead of a lucky zero."""
    junk = cp.full(1 << 25, 0xFF, dtype=cp.uint8)
    del junk
    yield


@pytest.fixture
def tuning():
    """Set launch-tuning knobs (``xstride._kernels._reduce_common.TUNING``) for one
    test: ``tuning(knob=value, ...)`` starts from the saved defaults each time; all are
    restored afterwards."""
    from xstride._kernels import _reduce_common as rc

    saved = dict(rc.TUNING)

    def set_(**kw):
        rc.TUNING.clear()
        rc.TUNING.update(saved)
        rc.TUNING.update(kw)

    yield set_
    rc.TUNING.clear()
    rc.TUNING.update(saved)
