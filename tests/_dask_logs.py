"""``distributed``'s log records of its own races as a cluster closes, which a test of
a clean stderr leaves out (each such record: its message and its traceback)."""

from __future__ import annotations

import re

#: One record of ``distributed``'s log: a time stamp at the start of a line.
LOG_RECORD = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ - ", re.M)

#: The first lines of the records left out:
#: - a worker's heartbeat that found the scheduler closed, the scheduler closing first
#:   (one CI run in three on 2026-12-06; dask/distributed#7192);
#: - a worker's transfer of a result to another worker cut by the close (the demo's
#:   cluster closed at Ctrl-C while a stage's data moved; one CI run on 2026-12-06).
SHUTDOWN_RACES = (
    "distributed.worker - ERROR - Failed to communicate with scheduler during heartbeat",
    "distributed.worker - ERROR - failed during get data with",
)


def without_shutdown_races(stderr: str, races=SHUTDOWN_RACES) -> str:
    """``stderr`` without the records whose first line holds one of ``races``; any
    other record, and any text before the first record, stays."""
    starts = [m.start() for m in LOG_RECORD.finditer(stderr)]
    if not starts:
        return stderr
    parts = [stderr[:starts[0]]] + [stderr[a:b] for a, b in zip(starts, starts[1:] + [None])]
    return "".join(p for p in parts
                   if not any(r in p.split("\n", 1)[0] for r in races))
