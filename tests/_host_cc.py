"""The host C loops' tests (``xstride/_host/*_host.c``): whether a C compiler is on
``PATH`` (``needs_cc`` skips without one) and a fixture that points the loops' cache at
the session's temporary folder with the default compiler (``XSTRIDE_HOST_CC`` unset)."""

from __future__ import annotations

import shutil

import pytest

HAVE_CC = any(shutil.which(c) for c in ("cc", "gcc", "clang"))
needs_cc = pytest.mark.skipif(not HAVE_CC, reason="no C compiler (cc, gcc, clang) on PATH")


@pytest.fixture
def host_cc_cache(monkeypatch, tmp_path_factory):
    """``XSTRIDE_CACHE_DIR`` in the session's temporary folder, ``XSTRIDE_HOST_CC`` unset."""
    monkeypatch.setenv("XSTRIDE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "xs-cache"))
    monkeypatch.delenv("XSTRIDE_HOST_CC", raising=False)
