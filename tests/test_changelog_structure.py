"""The CHANGELOG's "Structure only" lines of the unreleased section name modules that
exist: a line that says code moved to a file nobody made misleads the reader (a merge
once kept four such lines of splits that had been dropped; the splits were made again
after)."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _unreleased_structure_lines():
    text = (ROOT / "CHANGELOG.md").read_text()
    unreleased = text.split("## [Unreleased]", 1)[1].split("\n## [", 1)[0]
    return [ln for ln in unreleased.splitlines() if ln.startswith("- Structure only:")]


def test_structure_only_lines_name_files_that_exist():
    lines = _unreleased_structure_lines()
    assert lines   # the check reads something
    missing = [(path, ln[:80]) for ln in lines
               for path in re.findall(r"`(xstride/[\w/]+\.py)`", ln)
               if not (ROOT / path).is_file()]
    assert missing == []
