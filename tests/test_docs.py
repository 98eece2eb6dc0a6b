"""The README's example runs as written (its NumPy half here; the CuPy half on a GPU)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def _example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)
    assert blocks, "README.md has no python example"
    return blocks[0]


def test_readme_example_numpy_half(capsys):
    code = _example().split("with xp.use_backend")[0]
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip() == "4500.0"


@pytest.mark.gpu
def test_readme_example_whole(capsys):
    exec(compile(_example(), "README.md", "exec"), {})
    assert capsys.readouterr().out.split() == ["4500.0", "4500.0"]


def test_segments_page_example_runs_as_written():
    """A docs probe: docs/segments.md's first example named ``points``, ``lower`` and
    five other names it never defined (a ``NameError``)."""
    page = Path(__file__).resolve().parents[1] / "docs" / "segments.md"
    code = re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)[0]
    names: dict = {}
    exec(compile(code, "docs/segments.md", "exec"), names)
    assert names["offsets"].shape == (2 ** 18 + 1,) and names["per_cell"].shape[1] == 3
    assert names["kept"].shape[0] == int((names["counts"] >= 4).sum())
