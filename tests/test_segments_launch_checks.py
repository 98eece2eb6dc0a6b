"""The segment executor's checks, records and walk choices on the stand-in CuPy (the
kernels played by tests/test_segments_launch.py, whose ``dev`` fixture this file uses):
the device's errors, uint64 offsets compared as on the host, the short walk queued
before the check's record is read, the record's read-back through pinned memory, and
the short walk's plan, the dtype table's names (split from
tests/test_segments_launch.py, past 600 lines).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.test_segments_launch import TILE, count_record_waits, dev, names  # noqa: F401 (fixture)
from xstride import algorithms as alg
from xstride._host import segments as host_segments
from xstride._kernels import segments as ks
from xstride._plans.segments import SHORT_BYTES, SHORT_MAX, SHORT_MEAN, SegmentPlan, plan_segments


def test_device_errors_played(dev):
    keys = np.arange(3 * TILE, dtype=np.int64)
    keys[TILE + 5] = 0
    keys[2 * TILE] = 0
    with pytest.raises(ValueError, match=f"position {TILE + 5} holds 0, less than {TILE + 4}"):
        alg.reduce_by_key(dev.asarray(keys), dev.asarray(np.zeros(3 * TILE)))
    with pytest.raises(ValueError, match=r"non-decreasing; offsets\[2\] = 1"):
        alg.segment_reduce(dev.asarray(np.zeros(4)), dev.asarray(np.array([0, 2, 1, 4])))
    with pytest.raises(ValueError, match="must start at 0; got offsets\\[0\\] = -1"):
        alg.segment_reduce(dev.asarray(np.zeros(4)), dev.asarray(np.array([-1, 4])))
    with pytest.raises(ValueError, match="must end at n = 4"):
        alg.segment_reduce(dev.asarray(np.zeros(4)), dev.asarray(np.array([0, 3])))
    with pytest.raises(ValueError, match="segment 0 no rows"):
        alg.segment_reduce(dev.asarray(np.arange(4)), dev.asarray(np.array([0, 0, 4])), "mean")
    with pytest.raises(ValueError, match="holds bin 7 at position 2"):
        alg.bin_offsets(dev.asarray(np.array([0, 1, 7, 0])), 7)
    with pytest.raises(ValueError, match="must be sorted.*position 3"):
        alg.bin_offsets(dev.asarray(np.array([0, 1, 6, 0])), 7)


@pytest.mark.parametrize("offs", [[0, 2**63 + 1, 6], [0, 2**64 - 1], [2**63, 6],
                                  [0, 2**63 + 5, 2**63 + 1, 6], [0, 2**63, 2**63, 6],
                                  [0, 3, 2, 6], [0, 2, 2, 6]])
def test_uint64_offsets_checked_as_on_the_host(dev, offs):
    """uint64 offsets at or past 2**63 are compared as uint64, as on the NumPy backend:
    the device compared their int64 casts, and named ``[0, 2**63 + 1, 6]``'s
    ``offsets[1]`` as less than ``offsets[0] = 0``, ``[0, 2**64 - 1]`` as decreasing
    where it only fails to end at n."""
    o = np.array(offs, dtype=np.uint64)
    vals = np.arange(6.0)
    try:
        want = alg.segment_reduce(vals, o)
    except ValueError as e:
        with pytest.raises(ValueError, match=re.escape(str(e))):
            alg.segment_reduce(dev.asarray(vals), dev.asarray(o))
    else:
        np.testing.assert_array_equal(
            alg.segment_reduce(dev.asarray(vals), dev.asarray(o)).get(), want)
    # start, end, first descent, first empty segment (the longest one matters only to
    # offsets that pass)
    assert ks.offsets_stats(dev.asarray(o), 6)[:4] == host_segments.offsets_stats(o, 6)[:4]


@pytest.mark.parametrize("plan", [SegmentPlan("thread", 5, False), SegmentPlan("warp", 5, False)])
def test_short_walk_runs_before_the_check_is_read(dev, monkeypatch, plan):
    """``reduce_checked`` queues the check, the copy of its record and the short walk,
    then waits: the walk is launched on offsets the check refuses, with ``n`` (the
    played walk clamps to it as ``xs_seg_clamp`` does; an index past the rows would
    raise here), and the refusal still comes."""
    monkeypatch.setattr(ks, "plan_segments", lambda n, n_seg, max_len, row_bytes: plan)
    short = "xs_seg_thread" if plan.short == "thread" else "xs_seg_warp"
    for offs, message in (([0, 2**40, -2**40, 6], r"non-decreasing; offsets\[2\]"),
                          ([0, 2, 2**40], "must end at n = 6")):
        dev.launches.clear()
        with pytest.raises(ValueError, match=message):
            alg.segment_reduce(dev.asarray(np.arange(6.0)),
                               dev.asarray(np.array(offs, dtype=np.int64)))
        assert names(dev)[:2] == ["xs_seg_offsets_stats", short]
        assert dev.launches[1][3][2].item() == 6          # n, the walk's clamp


@pytest.mark.parametrize("n, n_seg, row_bytes, short", [
    (32 * 1000, 1000, 12, "thread"),                          # 32 rows of 3 float32
    (SHORT_MEAN * 1000, 1000, 1, "thread"),                   # the longest mean taken
    (SHORT_MEAN * 1000 + 1, 1000, 1, "warp"),
    (1000, 1000, SHORT_BYTES, "thread"),                      # the largest segment taken
    (1000, 1000, SHORT_BYTES + 1, "warp"),
    (128 * 1000, 1000, 24, "warp"),                           # 128 rows of 3 float64
    (0, 0, 8, "thread")])
def test_plan_of_the_short_walk(n, n_seg, row_bytes, short):
    """The thread walk takes segments of at most SHORT_MEAN rows and SHORT_BYTES bytes
    on average; the split follows the walk."""
    plan = plan_segments(n, n_seg, 10, row_bytes)
    assert plan.short == short
    assert plan.split == (SHORT_MAX if short == "thread" else 4096)


@pytest.mark.parametrize("n, n_seg, k, itemsize, want", [
    (32 * 2**20, 2**20, 3, 4, int(ks._STAGE_SLOTS_BYTES * 0.9) // 384),   # 384-byte segments
    (2**20, 2**20, 1, 1, 512),                    # one byte a segment: the most a block takes
    (256 * 10, 10, 16, 8, 1),                     # 32 KiB a segment: one, read from memory
    (5, 10, 1, 4, 512)])                          # empty segments count as a byte
def test_segments_per_block_of_the_thread_walk(n, n_seg, k, itemsize, want):
    assert ks._per_block(n, n_seg, k, itemsize) == want


def test_record_reads_share_a_pinned_buffer_only_once_it_is_free(fake_cupy):
    """``_read_later`` reuses its thread's pinned words for the next read only after the
    last one was waited for: a read still pending keeps its own."""
    first = ks._read_later(fake_cupy.asarray(np.array([1, 2, 3], np.uint64)))
    second = ks._read_later(fake_cupy.asarray(np.array([7, 8], np.uint64)))   # first pending
    assert second() == [7, 8] and first() == [1, 2, 3]
    third = ks._read_later(fake_cupy.asarray(np.array([4, 5, 6], np.uint64)))
    assert third() == [4, 5, 6]
    longer = np.arange(12, dtype=np.uint64)                    # more than the spare holds
    assert ks._read_later(fake_cupy.asarray(longer))() == longer.tolist()
    fake_cupy.current.device = 1          # an event records on its own device only
    assert ks._read_later(fake_cupy.asarray(np.array([9], np.uint64)))() == [9]
    fake_cupy.current.device = 0
    assert ks._read_later(fake_cupy.asarray(np.array([3], np.uint64)))() == [3]


def test_a_failed_walk_waits_for_the_check_s_copy(dev, monkeypatch):
    """``reduce_checked``: the walk failing after the record's copy was queued (no
    memory for the result, a compile error) waits for that copy before raising, so
    its pinned words are not handed back while the copy is pending."""
    def fail(*args):
        raise MemoryError("out of device memory")
    monkeypatch.setattr(ks, "_short_walk", fail)
    waited = count_record_waits(monkeypatch)
    with pytest.raises(MemoryError):
        alg.segment_reduce(dev.asarray(np.arange(6.0)), dev.asarray(np.array([0, 3, 6])))
    assert waited == [1]


@pytest.mark.parametrize("dtype", ["float32", ">f4", "int64", "<u2", "bool", "V8", "M8[ns]"])
def test_dtype_names_from_the_table_are_numpy_s(dtype):
    from xstride._core.dtypes import name_of
    dt = np.dtype(dtype)
    assert name_of(dt) == dt.name and name_of(dt) == dt.name    # the second from the table
