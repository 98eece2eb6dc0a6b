"""Backend selection: set/get/use_backend, threads, the environment variable, errors."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import xstride as xp
from tests.conftest import gpu_reason


def _run(code: str, **env):
    full_env = {**os.environ, **env}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=full_env, timeout=120)


def test_default_backend_is_numpy():
    assert xp.get_backend() == "numpy"
    assert type(xp.zeros(3)) is np.ndarray


@pytest.mark.parametrize("name", ["torch", "jax", "", "numpy2", "cuda", " cupy"])
def test_unknown_backend_lists_valid_names_and_keeps_state(name):
    before = xp.get_backend()
    with pytest.raises(ValueError, match=r"valid names are 'numpy', 'cupy'"):
        xp.set_backend(name)
    assert xp.get_backend() == before


def test_backend_name_must_be_str():
    with pytest.raises(TypeError, match=r"set_backend: argument 'name' got int 3; expected a str"):
        xp.set_backend(3)


def test_names_are_case_insensitive():
    xp.set_backend("NumPy")
    assert xp.get_backend() == "numpy"


@pytest.mark.skipif(gpu_reason() is None, reason="CuPy and a device are available here")
def test_cupy_without_device_raises_runtime_error_with_reason():
    before = xp.get_backend()
    with pytest.raises(RuntimeError, match="backend 'cupy' is unavailable: .+"):
        xp.set_backend("cupy")
    assert xp.get_backend() == before
    with pytest.raises(RuntimeError, match="unavailable"):
        with xp.use_backend("cupy"):
            pass  # pragma: no cover


def test_use_backend_restores_on_exception():
    with pytest.raises(KeyError):
        with xp.use_backend("numpy") as name:
            assert name == "numpy"
            raise KeyError("boom")
    assert xp.get_backend() == "numpy"


def test_use_backend_bad_name_raises_at_the_call():
    with pytest.raises(ValueError, match="use_backend: argument 'name' names an unknown backend"):
        xp.use_backend("torch")
    with pytest.raises(TypeError, match="use_backend: argument 'name' got int 3; expected a str"):
        xp.use_backend(3)
    assert xp.get_backend() == "numpy"


def test_names_with_spaces_are_refused_everywhere():
    """DESIGN.md: surrounding blanks are an error, the environment variable included."""
    with pytest.raises(ValueError, match="unknown backend ' numpy'"):
        xp.set_backend(" numpy")
    with pytest.raises(ValueError, match="unknown backend 'numpy '"):
        xp.use_backend("numpy ")
    r = _run("import xstride as xp; print(xp.get_backend())", XSTRIDE_BACKEND=" numpy ")
    assert r.returncode != 0
    assert "XSTRIDE_BACKEND" in r.stderr and "' numpy '" in r.stderr


def test_one_use_backend_object_nests_in_itself():
    ctx = xp.use_backend("numpy")
    with ctx:
        with ctx:
            assert xp.get_backend() == "numpy"
        assert xp.get_backend() == "numpy"
    assert xp.get_backend() == "numpy"
    with ctx:  # and is reusable afterwards
        assert xp.get_backend() == "numpy"


def test_selection_is_per_thread_with_stub_state():
    """Two threads hold different selections at the same time (state checked directly)."""
    from xstride._backends import select as _backend

    values = {}
    barrier = threading.Barrier(2)

    def worker(tag, value):
        _backend._current.set(value)  # bypass availability checks: state only
        barrier.wait()
        values[tag] = _backend.get_backend()

    t1 = threading.Thread(target=worker, args=("a", "numpy"))
    t2 = threading.Thread(target=worker, args=("b", "cupy"))
    t1.start(); t2.start(); t1.join(); t2.join()
    assert values == {"a": "numpy", "b": "cupy"}
    assert xp.get_backend() == "numpy"


def test_env_variable_selects_numpy():
    r = _run("import xstride as xp; print(xp.get_backend())", XSTRIDE_BACKEND="NUMPY")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "numpy"


def test_env_variable_nonsense_names_the_variable():
    r = _run("import xstride", XSTRIDE_BACKEND="nonsense")
    assert r.returncode != 0
    assert "XSTRIDE_BACKEND" in r.stderr and "'nonsense'" in r.stderr
    r = _run("try:\n    import xstride\nexcept ValueError as exc:\n    print(exc)",
             XSTRIDE_BACKEND="nonsense")
    assert r.stdout == ("environment variable XSTRIDE_BACKEND='nonsense': expected one of "
                        "'numpy', 'cupy', 'dask' (case-insensitive, no surrounding blanks)\n"), \
        r.stdout + r.stderr


@pytest.mark.skipif(gpu_reason() is None, reason="CuPy and a device are available here")
def test_env_variable_cupy_without_device_fails_loudly_at_first_use():
    """``import xstride`` succeeds (``python -m xstride info`` must be able to say why);
    the first use of the active backend raises the reason, naming the variable."""
    r = _run("import xstride", XSTRIDE_BACKEND="cupy")
    assert r.returncode == 0, r.stderr
    for code in ("import xstride as xp; xp.get_backend()", "import xstride as xp; xp.zeros(3)"):
        r = _run(code, XSTRIDE_BACKEND="cupy")
        assert r.returncode != 0
        assert "RuntimeError" in r.stderr and "XSTRIDE_BACKEND='cupy'" in r.stderr
        assert "unavailable" in r.stderr
    r = _run("import xstride as xp; xp.set_backend('numpy'); print(xp.zeros(2).sum())",
             XSTRIDE_BACKEND="cupy")
    assert r.returncode == 0 and r.stdout.strip() == "0.0", r.stderr


def test_import_does_not_import_cupy_or_pytest():
    code = ("import sys, xstride as xp; xp.add(xp.ones(2), 1); xp.cuda; xp.linalg.inv; "
            "print('cupy' in sys.modules, 'pytest' in sys.modules)")
    r = _run(code, XSTRIDE_BACKEND="numpy")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False"]


def test_one_use_backend_object_in_threads_and_tasks():
    """One ``use_backend`` object entered by several asyncio tasks and threads at once:
    each exit restores what its own entry replaced (the entries are kept per context)."""
    import asyncio

    ctx = xp.use_backend("numpy")

    async def task(d1, d2):
        await asyncio.sleep(d1)
        with ctx:
            await asyncio.sleep(d2)
            return xp.get_backend()

    async def main():
        return await asyncio.gather(task(0, 0.02), task(0.01, 0.04))

    assert asyncio.run(main()) == ["numpy", "numpy"]
    errors = []

    def work():
        try:
            for _ in range(500):
                with ctx:
                    with ctx:
                        assert xp.get_backend() == "numpy"
        except Exception as exc:   # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_use_backend_exit_without_entry_is_a_clear_error():
    with pytest.raises(RuntimeError, match="use_backend: .* exited without an entry"):
        xp.use_backend("numpy").__exit__(None, None, None)


def test_use_backend_in_a_generator_holds_in_the_caller_between_items():
    """What docs/backends.md says: a generator shares its caller's context, so its
    ``use_backend`` block is in force in the caller between the items, until the
    generator finishes or is closed; entered around the consuming loop it is not."""
    pytest.importorskip("dask.array")

    def items():
        with xp.use_backend("dask"):
            yield xp.get_backend()
            yield xp.get_backend()

    before = xp.get_backend()
    gen = items()
    assert next(gen) == "dask" and xp.get_backend() == "dask"   # between the items
    gen.close()
    assert xp.get_backend() == before

    def plain():
        yield xp.get_backend()

    with xp.use_backend("dask"):
        assert list(plain()) == ["dask"]
    assert xp.get_backend() == before
