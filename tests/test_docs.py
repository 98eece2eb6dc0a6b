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
