"""The compiled host pass of ``bin_offsets`` (``xstride/_host/segments_host.c``, built by
``_segments_native.py`` through ``_native.py``) against the NumPy compositions of
``xstride/_host/segments.py``: the same offsets, and the same first unsorted and first
outside positions, for int32 and int64 bins; when it is taken; the fallback."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xstride._host import _segments_native as SN
from xstride._host import segments as hs

from tests._host_cc import HAVE_CC, host_cc_cache, needs_cc  # noqa: F401 (a fixture)

pytestmark = pytest.mark.usefixtures("host_cc_cache")


def _both(monkeypatch, bins, n_bins):
    """``(compiled result, NumPy result)`` of hs.bin_offsets, the first forced onto the
    compiled pass (which must be taken), the second with XSTRIDE_HOST_CC=none."""
    monkeypatch.setattr(hs, "NATIVE_MIN_POINTS_PER_BIN", 0)     # small cases: n_bins here
    monkeypatch.setattr(hs, "NATIVE_MIN_POINTS", 0)             # stays small
    monkeypatch.setattr(hs, "SEARCH_FRACTION", 1 << 40)
    calls = []
    real = hs._compiled
    monkeypatch.setattr(hs, "_compiled", lambda b, nb: calls.append(real(b, nb)) or calls[-1])
    got = hs.bin_offsets(bins, n_bins)
    assert calls and calls[-1] is not None, "the compiled pass was not taken"
    monkeypatch.setenv("XSTRIDE_HOST_CC", "none")
    want = hs.bin_offsets(bins, n_bins)
    monkeypatch.delenv("XSTRIDE_HOST_CC")
    assert calls[-1] is None
    return got, want


def _same(got, want):
    assert got[:2] == want[:2], (got[:2], want[:2])
    assert (got[2] is None) == (want[2] is None)
    if got[2] is not None:
        assert got[2].dtype == np.int64 and np.array_equal(got[2], want[2])


@needs_cc
@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("pos", [2047, 2048, 2049, 4095, 4096, 6143, 9999])
def test_compiled_pass_finds_bad_bins_at_and_across_block_edges(monkeypatch, dtype, pos):
    """The pass checks blocks of 2048 bins before it fills (``XS_BLOCK``): a bin out of
    order or outside the range just before, at and after a block's edge, in the last
    (partial) block, and an unsorted bin in one block with a bin outside in a later one
    (the outside position is the one reported)."""
    b = np.sort(np.random.default_rng(pos).integers(1, 499, 10000)).astype(dtype)
    _same(*_both(monkeypatch, b, 500))
    for value in (0, -1, 500, int(b[pos]) - 1 if b[pos] > b[pos - 1] else 0):
        bad = b.copy()
        bad[pos] = value
        _same(*_both(monkeypatch, bad, 500))
    bad = b.copy()
    bad[pos] = bad[pos - 1] + 0
    bad[pos - 1] = 498                                  # out of order at pos
    bad[min(pos + 2500, 9999)] = 777                    # outside later on
    _same(*_both(monkeypatch, bad, 500))


@needs_cc
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_compiled_pass_matches_the_compositions(monkeypatch, dtype):
    """Sorted bins with empty first, last and middle bins, one bin, a bin a point; bins
    out of order (first, middle, last position); bins outside [0, n_bins) at the start,
    the end, inside an unsorted array before and after the unsorted position."""
    rng = np.random.default_rng(3)
    for n, n_bins in [(1, 1), (5, 3), (1000, 7), (1000, 1000), (4097, 100), (100, 5000)]:
        b = np.sort(rng.integers(1 if n_bins > 2 else 0, max(1, n_bins - 1), n)).astype(dtype)
        _same(*_both(monkeypatch, b, n_bins))
        if n < 3:
            continue
        for pos in (1, n // 2, n - 1):                 # out of order
            bad = b.copy()
            bad[pos] = 0
            bad[pos - 1] = max(int(bad[pos - 1]), 1)
            _same(*_both(monkeypatch, bad, n_bins))
        for pos, value in ((0, -1), (n - 1, n_bins), (n // 2, n_bins + 5), (n // 3, -7)):
            bad = b.copy()
            bad[pos] = value                          # outside (unsorted too, mid-array)
            _same(*_both(monkeypatch, bad, n_bins))
        bad = b.copy()                                # unsorted, then outside later on
        bad[1] = max(int(bad[0]) - 1, 0) if bad[0] > 0 else bad[1]
        bad[0] = n_bins - 1
        bad[-1] = n_bins
        _same(*_both(monkeypatch, bad, n_bins))


@needs_cc
def test_when_the_compiled_pass_is_taken(monkeypatch):
    """int32/int64 C-contiguous aligned bins, at least NATIVE_MIN_POINTS of them and
    NATIVE_MIN_POINTS_PER_BIN a bin, more bins than the whole-array search takes; not
    strided, unaligned or unsigned bins, not too few points, not the search's few bins,
    not with XSTRIDE_HOST_CC=none."""
    b = np.sort(np.random.default_rng(4).integers(0, 4096, 1 << 16)).astype(np.int64)
    assert hs._compiled(b, 4096) is not None and SN.reason() == ""
    assert hs._compiled(b.astype(np.int32), 4096) is not None
    assert hs._compiled(b[::2], 4096) is None                   # strided
    assert hs._compiled(b.astype(np.uint32), 4096) is None       # unsigned
    assert hs._compiled(b, (1 << 16) - 1) is not None            # a point a bin
    assert hs._compiled(b, 1 << 16) is None                      # fewer: offsets past the bins' size
    assert hs._compiled(b, 64) is None                           # the whole-array search
    assert hs._compiled(b[:1000], 100) is None                   # too few points
    raw = np.zeros(b.nbytes + 1, np.uint8)[1:]
    unaligned = np.frombuffer(raw.data, dtype=np.int64)
    unaligned[:] = b
    assert not unaligned.flags.aligned and hs._compiled(unaligned, 4096) is None
    monkeypatch.setenv("XSTRIDE_HOST_CC", "none")
    assert hs._compiled(b, 4096) is None
    assert SN.get() is None and "XSTRIDE_HOST_CC=none" in SN.reason()


def test_a_missing_compiler_leaves_the_compositions(monkeypatch):
    monkeypatch.setenv("XSTRIDE_HOST_CC", "/no/such/cc")
    b = np.sort(np.random.default_rng(5).integers(0, 4096, 1 << 16)).astype(np.int64)
    assert SN.get() is None and "not found" in SN.reason()
    got = hs.bin_offsets(b, 4096)
    want = np.concatenate(([0], np.cumsum(np.bincount(b, minlength=4096))))
    assert got[:2] == (-1, -1) and np.array_equal(got[2], want)


@needs_cc
def test_a_cached_library_without_the_loops_is_built_again(tmp_path):
    """A cache entry at the library's name whose digest matches but which lacks its
    functions (another library's bytes) is compiled again, not trusted (``symbols`` of
    ``_native.build``). Each step in a process of its own: a process that loaded a
    library at a path gets that library again from the loader for the same path."""
    import hashlib
    import os
    import subprocess
    import sys

    env = dict(os.environ, XSTRIDE_CACHE_DIR=str(tmp_path))
    env.pop("XSTRIDE_HOST_CC", None)
    probe = ("import numpy as np, xstride._backends.numpy; "
             "from xstride._host import _segments_native as SN, _philox_native as PN; "
             "lib = SN.get(); assert lib is not None, SN.reason(); "
             "b = np.sort(np.random.default_rng(6).integers(0, 4096, 1 << 16)); "
             "o = np.empty(4097, np.int64); assert lib.bin_offsets(b, 4096, o) == (-1, -1); "
             "assert (o == np.concatenate(([0], np.cumsum(np.bincount(b, minlength=4096))))).all(); "
             "assert PN.get() is not None, PN.reason(); print(lib.path); print(PN.get().path)")
    run = lambda: subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,  # noqa: E731
                                 text=True, timeout=300)
    first = run()
    assert first.returncode == 0, first.stderr
    seg, philox = (Path(p) for p in first.stdout.split())
    foreign = philox.read_bytes()
    seg.write_bytes(foreign)
    seg.with_name(seg.name + ".sha256").write_text(hashlib.sha256(foreign).hexdigest())
    again = run()
    assert again.returncode == 0, again.stderr
    assert Path(again.stdout.split()[0]) == seg and seg.read_bytes() != foreign


@needs_cc
@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("first, second", [(100, 105), (2047, 2049), (3000, 9000)])
def test_compiled_pass_names_the_first_of_several_unsorted_bins(monkeypatch, dtype, first,
                                                                 second):
    """A review: the pass's rescan could name the last unsorted position of the block
    (or of the array) and no test saw it; two bins out of order, the first named."""
    b = np.sort(np.random.default_rng(first).integers(1, 499, 10000)).astype(dtype)
    for p in (first, second):
        b[p] = 0                                    # below the bin before it
    got, want = _both(monkeypatch, b, 500)
    _same(got, want)
    assert got[:2] == (first, -1)


@needs_cc
@pytest.mark.parametrize("loader, feature, other", [
    ("_segments_native", "host_bin_offsets", "host_philox"),
    ("_partition_native", "host_partition", "host_bin_offsets"),
])
def test_info_reports_each_host_loop(monkeypatch, tmp_path, loader, feature, other):
    """``python -m xstride info`` tells whether ``bin_offsets`` and the dask sort's
    grouping of NumPy chunks have their compiled loops, each apart from the others (one
    may build while another does not)."""
    from xstride._cli import info as _info
    from xstride._host import _partition_native, _segments_native

    native = {"_segments_native": _segments_native, "_partition_native": _partition_native}[loader]
    monkeypatch.setenv("XSTRIDE_CACHE_DIR", str(tmp_path))
    row = _info.collect()["capabilities"]["features"][feature]
    assert row == {"available": True, "reason": "",
                   "path": f"compiled C ({native.get().compiler})"}
    monkeypatch.setattr(native.LIBRARY, "_build", lambda cc, cache: "broken for the test")
    monkeypatch.setenv("XSTRIDE_CACHE_DIR", str(tmp_path / "other"))   # a new setting
    feats = _info.collect()["capabilities"]["features"]
    assert feats[feature] == {"available": False, "reason": "broken for the test",
                              "path": "NumPy (broken for the test)"}
    assert feats[other]["available"] is True
