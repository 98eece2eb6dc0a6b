"""The README's example runs as written (its NumPy half here; the CuPy half on a GPU), and
so do the CPU examples of the pages under docs/ (their first python block, or their
interactive ``>>>`` examples as doctests)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from tests._dask_logs import without_shutdown_races

README = Path(__file__).resolve().parents[1] / "README.md"
DOCS = README.parent / "docs"


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


def _blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), flags=re.S)


def test_getting_started_first_steps_numpy_half(capsys):
    """docs/getting-started.md's first steps up to the CuPy selection, as pasted."""
    code = _blocks("getting-started.md")[0].split('xp.set_backend("cupy")')[0]
    exec(compile(code, "docs/getting-started.md", "exec"), {})
    assert capsys.readouterr().out.strip() == "1.875"


def test_page_examples_run_as_written():
    """A docs probe: the first python block of each page below runs on NumPy as pasted,
    and what its comments say of the results holds."""
    ns: dict = {}
    exec(compile(_blocks("morton.md")[0], "docs/morton.md", "exec"), ns)
    assert ns["keys"].dtype == "uint64" and ns["keys"].shape == (1000,)
    assert ns["cells"].dtype == "uint64" and ns["cells"].shape == (1000, 3)
    ns = {}
    exec(compile(_blocks("rng.md")[0], "docs/rng.md", "exec"), ns)
    u = ns["u"]
    assert u.dtype == "float64" and 0.0 <= float(u.min()) and float(u.max()) < 1.0
    assert ns["x"].shape == (1000, 3) and set(ns["k"].tolist()) <= set(range(6))
    ns = {}
    exec(compile(_blocks("voxels.md")[0], "docs/voxels.md", "exec"), ns)
    centroids, counts = ns["centroids"], ns["counts"]
    assert centroids.dtype == "float32" and centroids.shape == (counts.shape[0], 3)
    assert counts.dtype == "int64" and int(counts.sum()) == 100_000
    assert all(int(c.sum()) == 100_000 for c in ns["tree"].count)
    ns = {}
    exec(compile(_blocks("fuse.md")[0], "docs/fuse.md", "exec"), ns)
    x = ns["xp"].ones((4, 3))
    new_x, new_v = ns["push"](x, x, x, 0.1)
    assert float(new_x[0, 0]) == 1.0 + 0.1 + 0.5 * 0.1 * 0.1 and float(new_v[0, 0]) == 1.1
    u = ns["xp"].ones((6, 6))
    assert ns["jacobi"](u, u[1:-1, 1:-1]).shape == (4, 4)


@pytest.mark.parametrize("page", ["layout-and-views.md", "cuda-kernels.md"])
def test_page_interactive_examples(page):
    """The ``>>>`` blocks of a page are doctests (an error shown after its traceback
    line), so they stay what the code prints; these need no device."""
    text = "\n".join(b for b in _blocks(page) if b.lstrip().startswith(">>>"))
    assert text, f"{page} has no >>> example"
    test = doctest.DocTestParser().get_doctest(text, {}, page, page, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0


def test_morton_page_says_which_positions_and_backends_it_takes():
    """A docs probe: docs/morton.md said positions are "float32/float64 (integers are
    converted to float64)" (float16 ones are keyed too, as float64), and that mixing
    "NumPy and CuPy arrays" raises ``TypeError`` (dask arrays are keyed per block, and
    a dask array beside NumPy positions raises it too)."""
    import numpy as np

    import xstride as xp

    da = pytest.importorskip("dask.array")
    text = " ".join((DOCS / "morton.md").read_text().split())
    assert "float32/float64 (float16 and integers are converted to float64" in text
    assert "Mixing NumPy and CuPy arrays raises" not in text
    assert "Mixing arrays of different backends (NumPy, CuPy, dask) raises `TypeError`" in text
    alg = xp.algorithms
    pts = np.array([[0.3, 0.7], [0.9, 0.1]])
    want = alg.morton_keys(pts, [0, 0], [1, 1], 5)
    half = pts.astype(np.float16)
    assert alg.morton_keys(half, [0, 0], [1, 1], 5).tolist() == \
        alg.morton_keys(half.astype(np.float64), [0, 0], [1, 1], 5).tolist()
    assert alg.morton_keys(da.from_array(pts, chunks=1), [0, 0], [1, 1], 5) \
        .compute().tolist() == want.tolist()
    with pytest.raises(TypeError, match="arrays from different backends cannot be mixed"):
        alg.morton_keys(pts, da.zeros(2), [1, 1], 5)


def test_api_page_names_every_public_name_of_the_extension_namespaces():
    """A docs probe: docs/api.md is the map of the API, yet ``xp.kernel_testing``'s
    ``feature_available`` (in its ``__all__``) and ``xp.fusion.Fused`` (what ``xp.fuse``
    returns) were named on no line of it. Every name of the ``__all__`` of the
    namespaces the page lists name by name appears on the page."""
    import importlib

    text = (DOCS / "api.md").read_text()
    missing = []
    for name in ("algorithms", "cuda", "rng", "kernel_testing", "fusion"):
        module = importlib.import_module(f"xstride.{name}")
        assert module.__all__, name
        missing += [f"{name}.{n}" for n in module.__all__
                    if not re.search(rf"(?<![\w.]){re.escape(n)}\b", text)
                    and not re.search(rf"\b{name}\.{re.escape(n)}\b", text)]
    assert missing == []


@pytest.mark.xdist_group("dask-cluster")
def test_dask_page_cluster_example_ends_cleanly(tmp_path):
    """A docs probe: docs/dask.md's first example opened a ``Client`` of a
    ``LocalCluster`` and never closed it, so the script, run as written, printed its
    keys and then a ``distributed`` heartbeat traceback and "Removing worker ... caused
    the cluster to lose already computed task(s)" as the interpreter tore the cluster
    down. Run as a script (10**6 points in place of 10**8, without the CuPy-chunk
    block, which needs a GPU), it prints the five keys and no traceback or lost tasks."""
    import subprocess
    import sys

    pytest.importorskip("distributed")
    code = _blocks("dask.md")[0]
    assert "10**8" in code and 'chunk_backend="cupy"' in code
    code = code.replace("10**8", "10**6")
    cut = code.index('xp.use_backend("dask", chunks="256MiB"')
    code = code[:code.rindex("\n", 0, cut) + 1]
    script = tmp_path / "dask_example.py"
    script.write_text(code)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert len(proc.stdout.replace("[", " ").replace("]", " ").split()) == 5, proc.stdout
    # (a loaded machine may log distributed's "Event loop was unresponsive": not checked)
    err = without_shutdown_races(proc.stderr)
    assert "Traceback" not in err, err[-2000:]
    assert "lose already computed" not in err, err[-2000:]


def test_the_shutdown_race_filter_keeps_other_tracebacks():
    race = ("2026-12-06 07:34:05,837 - distributed.worker - ERROR - Failed to communicate "
            "with scheduler during heartbeat.\nTraceback (most recent call last):\n  x\n")
    cut = ("2026-12-06 09:09:57,533 - distributed.worker - ERROR - failed during get data "
           "with tcp://127.0.0.1:1 -> tcp://127.0.0.1:2\nTraceback (most recent call "
           "last):\n  y\n")
    other = "2026-12-06 07:34:06,001 - distributed.nanny - ERROR - boom\nTraceback (x)\n"
    assert without_shutdown_races("start\n" + race + cut) == "start\n"
    assert without_shutdown_races(race + other + cut) == other
    assert "Traceback" in without_shutdown_races("Traceback (plain)\n" + race)
