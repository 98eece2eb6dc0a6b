"""The compiled host path of the Philox executor (philox_host.c + random.cuh, ctypes)
against the NumPy ufunc path, bit for bit; fallback, cache and thread behaviour."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from tests.test_rng import read_kat
from xstride import rng
from xstride._host import _philox_native as N
from xstride._host import philox as H

U64 = np.uint64
EDGE = np.array([0, 1, 2**32 - 2, 2**32 - 1, 2**32, 2**32 + 1, 2**63, 2**64 - 2, 2**64 - 1],
                dtype=U64)
HAVE_CC = any(shutil.which(c) for c in ("cc", "gcc", "clang"))
needs_cc = pytest.mark.skipif(not HAVE_CC, reason="no C compiler (cc, gcc, clang) on PATH")


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("xstride-cache")


@pytest.fixture(autouse=True)
def _env(monkeypatch, cache_dir):
    monkeypatch.setenv("XSTRIDE_CACHE_DIR", str(cache_dir))
    monkeypatch.delenv("XSTRIDE_HOST_CC", raising=False)
    monkeypatch.delenv("XSTRIDE_NUM_THREADS", raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)


@pytest.fixture
def native_calls(monkeypatch):
    """Counts chunk runs that really went through the C loops."""
    calls = []
    real = H._native_drive

    def spy(*a):
        ok = real(*a)
        calls.append(ok)
        return ok

    monkeypatch.setattr(H, "_native_drive", spy)
    return calls


def both(monkeypatch, fn):
    """``fn()`` on the compiled path and on the NumPy path."""
    assert N.get() is not None, N.describe()
    c = fn()
    monkeypatch.setenv("XSTRIDE_HOST_CC", "none")
    assert N.get() is None
    ref = fn()
    monkeypatch.delenv("XSTRIDE_HOST_CC")
    return c, ref


def same(a, b):
    a = a if isinstance(a, tuple) else (a,)
    b = b if isinstance(b, tuple) else (b,)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x.shape == y.shape and x.dtype == y.dtype
        np.testing.assert_array_equal(np.ascontiguousarray(x).view(np.uint8),
                                      np.ascontiguousarray(y).view(np.uint8))


def rand_u64(rs, n):
    return rs.integers(0, 2**64, n, dtype=U64, endpoint=False)


KINDS = ("philox_uniform", "philox_uniform2", "philox_normal", "philox_normal2")


# ------------------------------------------------------------------ C vs NumPy, bit for bit
@needs_cc
@pytest.mark.parametrize("func", KINDS)
def test_scalar_keys_counter_array(func, monkeypatch, native_calls):
    rs = np.random.default_rng()
    ctr = np.concatenate([EDGE, rand_u64(rs, 5000), EDGE + U64(2**31)])
    f = getattr(rng, func)
    for seed, stream in ((0, 0), (2**64 - 1, 2**63 + 5), (int(rand_u64(rs, 1)[0]), 7)):
        c, ref = both(monkeypatch, lambda: f(seed, stream, ctr))
        same(c, ref)
    assert native_calls and all(native_calls)


@needs_cc
@pytest.mark.parametrize("func", KINDS)
def test_array_arguments_and_broadcasting(func, monkeypatch, native_calls):
    rs = np.random.default_rng()
    f = getattr(rng, func)
    n = 3001
    sd, st, ct = (np.concatenate([EDGE, rand_u64(rs, n - len(EDGE))]) for _ in range(3))
    rs.shuffle(ct)
    cases = [
        (sd, st, ct),  # all dense
        (sd[:7].reshape(7, 1, 1), st[:5].reshape(1, 5, 1), ct[:9].reshape(1, 1, 9)),
        (int(sd[0]), st[:13].reshape(13, 1), ct[:11]),  # broadcast views
        (sd[:3000:3], 2**40 + 3, ct[1::3]),  # strided (non-contiguous) full-shape arrays
        (sd[:1], st[:1], ct[:1]),  # size-1 arrays
        (np.asfortranarray(sd[:60].reshape(6, 10)), 0, ct[:60].reshape(6, 10)),
        (5, 6, 2**64 - 1),  # all scalars: 0-d result
    ]
    for args in cases:
        c, ref = both(monkeypatch, lambda: f(*args))
        same(c, ref)
    assert native_calls and all(native_calls)


@needs_cc
@pytest.mark.parametrize("func", KINDS)
def test_arrays_with_steps_not_whole_items(func, monkeypatch, native_calls):
    """uint64 arguments whose byte strides are not multiples of 8 (a field of a packed
    structured array: 12-byte steps) or whose data is not aligned: the C loops read
    whole aligned items, and used to step 8 bytes for 12 (wrong values; reversed, -16
    for -12, reading before the array's data). Same bits as the contiguous copies."""
    rs = np.random.default_rng()
    f = getattr(rng, func)
    rec = np.zeros(3 * H.NATIVE_CHUNK, dtype=[("c", "<u8"), ("x", "<u4")])
    rec["c"] = rand_u64(rs, rec.size)
    c = rec["c"]
    assert c.strides == (12,)
    raw = np.zeros(8 * 41 + 1, np.uint8)
    unaligned = np.frombuffer(raw.data, dtype=U64, offset=1, count=41)
    unaligned[:] = rand_u64(rs, 41)   # (copies of it are aligned)
    assert not unaligned.flags.aligned
    cases = [
        (7, 2**63 + 1, c),                                     # stride 12 bytes
        (c[: 2 * H.NATIVE_CHUNK + 3], 5, 9),                   # seeds, several chunks
        (7, 3, c[:c.size - 5001:-1]),   # -12 bytes (one chunk: -16 stayed inside rec)
        (c[:60].reshape(6, 10), 1, c[60:120].reshape(6, 10)),  # 2-D, rows of 120 bytes
        (unaligned, 4, 5),
    ]
    for args in cases:
        want = f(*[np.array(a) if isinstance(a, np.ndarray) else a for a in args])
        got, ref = both(monkeypatch, lambda: f(*args))
        same(got, want)
        same(ref, want)
    assert native_calls and all(native_calls)


@needs_cc
def test_words_with_steps_not_whole_items(monkeypatch):
    """Keys and counter words of packed struct fields (5-byte steps), unaligned words."""
    rs = np.random.default_rng()
    rec = np.zeros((50, 4), dtype=[("c", "<u4"), ("x", "u1")])
    rec["c"] = rs.integers(0, 2**32, rec.shape, dtype=np.uint32)
    cw, k0 = rec["c"], rec["c"][:, 1:].T.reshape(-1)[:50]
    raw = np.zeros(4 * 200 + 1, np.uint8)
    unaligned = np.frombuffer(raw.data, dtype=np.uint32, offset=1, count=200).reshape(50, 4)
    unaligned[:] = cw
    k1 = np.zeros(50, dtype=[("c", "<u4"), ("x", "u1")])["c"]
    k1[:] = rs.integers(0, 2**32, 50, dtype=np.uint32)
    assert k1.strides == (5,) and not unaligned.flags.aligned
    want = rng.philox4x32_10(np.array(cw), np.array(k0), np.array(k1))
    for args in ((cw, k0, k1), (unaligned, 3, k1), (np.zeros((50, 4), np.uint32), k1, 0)):
        got, ref = both(monkeypatch, lambda: rng.philox4x32_10(*args))
        same(got, ref)
        same(got, rng.philox4x32_10(*[np.array(a) if isinstance(a, np.ndarray) else a
                                      for a in args]))
    same(rng.philox4x32_10(cw, k0, k1), want)


@needs_cc
@pytest.mark.parametrize("func", KINDS)
def test_two_d_broadcasts_run_column_by_column_without_copies(func, monkeypatch,
                                                              native_calls):
    """(n, k) outputs of broadcast arguments (the demo's counters (n, 1) with streams
    (1, k)) run as k strided columns: the C loop reads stride-0 and strided views as
    they are; the bits are the NumPy path's."""
    rs = np.random.default_rng()
    f = getattr(rng, func)
    ct = np.concatenate([EDGE, rand_u64(rs, 2 * H.NATIVE_CHUNK + 7)])
    n = ct.size
    copies = []
    real = H._flat_range
    monkeypatch.setattr(H, "_flat_range", lambda v, s, e: copies.append(v.ndim) or real(v, s, e))
    cases = [
        (9, np.arange(3, dtype=U64)[None, :], ct[:, None]),          # the demo's positions
        (rand_u64(rs, 5)[None, :], 2**63 + 1, ct[:, None]),          # seeds by column
        (rand_u64(rs, n)[:, None], np.arange(2, dtype=U64)[None, :], ct[::-1, None]),
        (7, np.arange(8, dtype=U64)[None, :], ct[:400, None]),      # 8 columns
    ]
    for args in cases:
        shape = np.broadcast_shapes(*[np.shape(x) for x in args])
        assert H._by_columns([H._Source(a, shape) for a in args], shape)
        copies.clear()
        f(*args)
        assert copies and all(d == 1 for d in copies)   # column views, never a 2-D copy
        c, ref = both(monkeypatch, lambda: f(*args))
        same(c, ref)
    assert native_calls and all(native_calls)
    # generator counters span rows by their flat index: never split into columns
    assert not H._by_columns([H._Source(H.Affine(5), (10, 3))] * 3, (10, 3))


@needs_cc
@pytest.mark.parametrize("kind", ["uniform", "normal"])
@pytest.mark.parametrize("n", [1, 2, 7, 2 * H.NATIVE_CHUNK + 5])
def test_generator_pairs_odd_and_even(kind, n, monkeypatch, native_calls):
    m = (n + 1) // 2
    for start in (0, 2**32 - 3, 2**64 - m):
        seed, stream = 2**64 - 17, 2**33 + 1
        c, ref = both(monkeypatch, lambda: H.pairs(kind, seed, stream, start, n))
        same(c, ref)
        assert c.shape == (n,)
    assert native_calls and all(native_calls)


@needs_cc
def test_generator_public_calls(monkeypatch):
    def draws():
        g = rng.Philox(2**64 - 3, stream=9)
        g.advance(2**32 - 5)
        return g.uniform((3, 7)), g.normal(11), g.integers(0, 6, 50), g.uniform(1)

    for a, b in zip(*both(monkeypatch, draws)):
        same(a, b)


@needs_cc
@pytest.mark.parametrize("kind", ["uniform", "uniform2", "normal", "normal2"])
def test_strided_outputs_and_affine_counters(kind, monkeypatch):
    m = 1001
    nout = 2 if kind.endswith("2") else 1

    def run():
        buf = np.full((m, 5), np.nan)
        into = (buf[:, 1], buf[:, 3])[:nout]
        H._drive(kind, 2**63 + 1, 2**32 + 2, H.Affine(2**64 - m), (m,), into=into)
        return buf

    c, ref = both(monkeypatch, run)
    same(c, ref)
    assert np.isnan(c[:, [0, 2, 4]]).all() and not np.isnan(c[:, 1]).any()
    assert np.isnan(c[:, 3]).all() == (nout == 1)


@needs_cc
def test_threads_equal_single_thread(monkeypatch, native_calls):
    rs = np.random.default_rng()
    ctr = rand_u64(rs, 5 * H.NATIVE_CHUNK + 3)
    out = {}
    for nt in ("1", "2"):
        monkeypatch.setenv("XSTRIDE_NUM_THREADS", nt)
        out[nt] = (rng.philox_normal2(99, 2**40, ctr), rng.philox_uniform(7, 0, ctr),
                   rng.Philox(3).uniform(4 * H.NATIVE_CHUNK + 1))
    for a, b in zip(out["1"], out["2"]):
        same(a, b)
    monkeypatch.setenv("XSTRIDE_HOST_CC", "none")
    same(out["2"][1], rng.philox_uniform(7, 0, ctr))
    assert native_calls and all(native_calls[:6])


# ------------------------------------------------------------------ words
@needs_cc
def test_words_known_answers_and_random(shared_dir, monkeypatch):
    kat = read_kat(shared_dir).astype(np.uint32)
    c, ref = both(monkeypatch, lambda: rng.philox4x32_10(kat[:, :4], kat[:, 4], kat[:, 5]))
    np.testing.assert_array_equal(c, kat[:, 6:])
    same(c, ref)
    rs = np.random.default_rng()
    cw = rs.integers(0, 2**32, (40, 30, 4), dtype=np.uint32)
    k0 = rs.integers(0, 2**32, (40, 30), dtype=np.uint32)
    k1 = rs.integers(0, 2**32, (30,), dtype=np.uint32)
    cases = [(cw, k0, k1), (np.asfortranarray(cw), 0xFFFFFFFF, k1),  # strided words
             (cw[:1, :1], k0, 5), (cw[3, 4], 1, 2),  # broadcast words, single block
             (cw[:, :, ::-1], k0[:, :1], k1)]
    for args in cases:
        c, ref = both(monkeypatch, lambda: rng.philox4x32_10(*args))
        same(c, ref)


@needs_cc
def test_uniform_known_answers(shared_dir, monkeypatch):
    kat = read_kat(shared_dir)
    seed = kat[:, 4] | kat[:, 5] << U64(32)
    stream = kat[:, 2] | kat[:, 3] << U64(32)
    ctr = kat[:, 0] | kat[:, 1] << U64(32)
    c, ref = both(monkeypatch, lambda: rng.philox_uniform2(seed, stream, ctr))
    same(c, ref)
    want0 = ((kat[:, 6] << U64(32) | kat[:, 7]) >> U64(11)).astype(np.float64) * 2.0**-53
    want1 = ((kat[:, 8] << U64(32) | kat[:, 9]) >> U64(11)).astype(np.float64) * 2.0**-53
    same(c, (want0, want1))


# ------------------------------------------------------------------ fallback, cache, info
def test_disabled_by_env_uses_numpy(monkeypatch, native_calls):
    monkeypatch.setenv("XSTRIDE_HOST_CC", "none")
    assert N.get() is None
    assert N.describe() == (False, "NumPy ufuncs (disabled by XSTRIDE_HOST_CC=none)")
    u = rng.philox_uniform(0, 0, np.arange(3, dtype=U64))
    assert native_calls == []  # never tried
    # Random123 kat: counter 0, key 0 -> w0, w1 = 0x6627e8d5, 0xe169c58d
    assert u[0] == ((0x6627E8D5 << 32 | 0xE169C58D) >> 11) * 2.0**-53


def test_missing_compiler_falls_back(monkeypatch, tmp_path):
    monkeypatch.setenv("XSTRIDE_HOST_CC", str(tmp_path / "no-such-cc"))
    assert N.get() is None
    ok, text = N.describe()
    assert not ok and "not found" in text and "no-such-cc" in text
    ctr = np.array([0, 2**64 - 1], dtype=U64)
    monkeypatch.setenv("XSTRIDE_HOST_CC", "none")
    ref = rng.philox_normal(1, 2, ctr)
    monkeypatch.setenv("XSTRIDE_HOST_CC", str(tmp_path / "no-such-cc"))
    same(rng.philox_normal(1, 2, ctr), ref)


@pytest.mark.skipif(sys.platform == "win32", reason="shell script compiler")
def test_failing_compiler_falls_back(monkeypatch, tmp_path):
    fake = tmp_path / "fakecc"
    fake.write_text('#!/bin/sh\nif [ "$1" = --version ]; then echo "fakecc 9.1.0"; exit 0; fi\n'
                    'echo "fakecc: error: broken on purpose" >&2; exit 3\n')
    fake.chmod(0o755)
    monkeypatch.setenv("XSTRIDE_HOST_CC", str(fake))
    monkeypatch.setenv("XSTRIDE_CACHE_DIR", str(tmp_path / "cache"))
    ok, text = N.describe()
    assert not ok
    assert "fakecc 9.1: compile failed (exit 3): fakecc: error: broken on purpose" in text
    assert list((tmp_path / "cache").iterdir()) == []  # temp file removed
    u = rng.philox_uniform(0, 0, 0)
    assert u == ((0x6627E8D5 << 32 | 0xE169C58D) >> 11) * 2.0**-53


@needs_cc
def test_cache_reused_and_damaged_entry_rebuilt(monkeypatch, tmp_path):
    cache = tmp_path / "cache"
    monkeypatch.setenv("XSTRIDE_CACHE_DIR", str(cache))
    monkeypatch.setattr(N, "_states", {})
    lib = N.get()
    assert lib is not None and lib.path.parent == cache and "-ffp-contract=off" in lib.flags
    assert sorted(p.name for p in cache.iterdir()) == [lib.path.name, lib.path.name + ".sha256"]
    assert "-march=native" not in lib.flags and "-ffast-math" not in lib.flags
    runs = []
    real = subprocess.run
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kw: runs.append(cmd) or real(cmd, **kw))
    monkeypatch.setattr(N, "_states", {})
    assert N.get() is not None
    assert len(runs) == 1 and runs[0][1:] == ["--version"]  # no compile: loaded from cache
    # a damaged entry (say, a truncated write by a foreign tool) is rebuilt, not trusted
    monkeypatch.setattr(N, "_states", {})
    monkeypatch.setenv("XSTRIDE_CACHE_DIR", str(tmp_path / "other"))
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / lib.path.name).write_bytes(b"not a shared library")
    again = N.get()
    assert again is not None and again.path == tmp_path / "other" / lib.path.name
    assert again.path.stat().st_size > 1000
    same(rng.philox_uniform(1, 2, EDGE), rng.philox_uniform(1, 2, EDGE.copy()))


@needs_cc
def test_info_reports_the_path(monkeypatch):
    from xstride._cli import info as _info

    row = _info.collect()["capabilities"]["features"]["host_philox"]
    assert row["available"] is True and row["reason"] == ""
    assert row["path"].startswith("compiled C (") and N.get().compiler in row["path"]
    monkeypatch.setenv("XSTRIDE_HOST_CC", "none")
    row = _info.collect()["capabilities"]["features"]["host_philox"]
    assert row == {"available": False, "reason": "disabled by XSTRIDE_HOST_CC=none",
                   "path": "NumPy ufuncs (disabled by XSTRIDE_HOST_CC=none)"}


def test_import_is_lazy_and_silent():
    code = ("import sys, numpy as np, xstride as xp; xp.rng; "
            "assert 'xstride._host._philox_native' not in sys.modules; "
            "xp.rng.philox_uniform(1, 2, np.arange(3, dtype=np.uint64)); "
            "assert 'xstride._host._philox_native' in sys.modules")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "XSTRIDE_HOST_CC": "none"})
    assert r.returncode == 0, r.stderr
    assert r.stdout == "" and r.stderr == ""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # fork of a threaded process
@pytest.mark.parametrize("cc", ["", "none"])
def test_forked_child_runs_chunks(cc, monkeypatch):
    """A child forked after the parent used the thread pool (multiprocessing's default
    start method on Linux) gets results, not a hang on the parent's dead workers."""
    if cc:
        monkeypatch.setenv("XSTRIDE_HOST_CC", cc)
    monkeypatch.setenv("XSTRIDE_NUM_THREADS", "2")
    ctr = np.arange(8 * H.NATIVE_CHUNK, dtype=U64)
    want = rng.philox_uniform(1, 2, ctr)  # starts the pool
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 3
        try:
            import signal

            signal.alarm(20)
            code = 0 if np.array_equal(rng.philox_uniform(1, 2, ctr), want) else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert not os.WIFSIGNALED(status), "the child hung (killed by its alarm)"
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


@needs_cc
@pytest.mark.parametrize("spec", [".", "sub/dir", "~/xs-cache"])
def test_cache_dir_relative_and_home_relative(spec, monkeypatch, tmp_path):
    """A relative cache directory works (dlopen of a bare file name would search the
    library path, not the working directory) and ``~`` means the home directory."""
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XSTRIDE_CACHE_DIR", spec)
    monkeypatch.setattr(N, "_states", {})
    lib = N.get()
    assert lib is not None, N.reason()
    want = home / "xs-cache" if spec.startswith("~") else work / spec
    assert lib.path.is_absolute() and lib.path.parent.resolve() == want.resolve()
    assert not (work / "~").exists()
    u = rng.philox_uniform(0, 0, np.zeros(1, U64))
    assert u[0] == ((0x6627E8D5 << 32 | 0xE169C58D) >> 11) * 2.0**-53


@pytest.mark.parametrize("value", ["", " ", " \t "])
def test_cache_dir_empty_or_blank_is_the_default(value, monkeypatch, tmp_path):
    """A blank ``XSTRIDE_CACHE_DIR`` is unset, as an empty one is (it was a folder named
    ``" "`` in the working directory)."""
    from xstride._host import _native

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XSTRIDE_CACHE_DIR", value)
    assert _native.cache_dir() == tmp_path / "home" / ".cache" / "xstride"


def test_cache_dir_surrounding_blanks_are_stripped(monkeypatch, tmp_path):
    """``" /tmp/c "`` was the relative folder ``" /tmp/c "`` under the working
    directory; blanks around the value are stripped, as ``XSTRIDE_HOST_CC``'s are."""
    from xstride._host import _native

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XSTRIDE_CACHE_DIR", f"  {tmp_path / 'c'}\t")
    assert _native.cache_dir() == tmp_path / "c"
    monkeypatch.setenv("XSTRIDE_CACHE_DIR", " sub ")
    assert _native.cache_dir() == tmp_path / "sub"


def test_no_home_directory_falls_back(monkeypatch):
    """A user without a home directory (a container's arbitrary uid, no ``HOME``) and no
    ``XSTRIDE_CACHE_DIR``: the NumPy path with the reason, not a RuntimeError."""
    from pathlib import Path

    from xstride._cli import info as _info

    def no_home(cls):
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("XSTRIDE_CACHE_DIR")
    monkeypatch.setattr(Path, "home", classmethod(no_home))
    monkeypatch.setattr(N, "_states", {})
    assert N.get() is None
    assert N.reason() == ("no cache directory (Could not determine home directory.); "
                          "set XSTRIDE_CACHE_DIR")
    u = rng.philox_uniform(0, 0, np.zeros(2, U64))
    assert u[1] == ((0x6627E8D5 << 32 | 0xE169C58D) >> 11) * 2.0**-53
    row = _info.collect()["capabilities"]["features"]["host_philox"]
    assert row["available"] is False and "XSTRIDE_CACHE_DIR" in row["reason"]


@needs_cc
def test_cut_off_cache_entry_is_rebuilt_not_loaded(monkeypatch, tmp_path):
    """A cache entry cut off in the middle (an interrupted copy, a crash before the data
    reached the disk) is rebuilt: loading it would kill the process with SIGBUS."""
    monkeypatch.setenv("XSTRIDE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(N, "_states", {})
    lib = N.get()
    assert lib is not None, N.reason()
    data = lib.path.read_bytes()
    # cut off a copy in a second cache: this process has ``lib.path`` mapped, and
    # shortening a mapped file in place kills it with SIGBUS when it next touches a
    # page past the new end (at exit, running the library's finalizers)
    cut = tmp_path / "cut"
    cut.mkdir()
    for p in (lib.path, lib.path.with_name(lib.path.name + ".sha256")):
        shutil.copy(p, cut / p.name)
    (cut / lib.path.name).write_bytes(data[: len(data) // 2])
    monkeypatch.setenv("XSTRIDE_CACHE_DIR", str(cut))
    code = ("import numpy as np; from xstride import rng; "
            "from xstride._host import _philox_native as N; "
            "assert N.get() is not None, N.reason(); "
            "print(rng.philox_uniform(0, 0, np.zeros(1, np.uint64))[0].hex())")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, (r.returncode, r.stderr)
    assert r.stdout.strip() == (((0x6627E8D5 << 32 | 0xE169C58D) >> 11) * 2.0**-53).hex()
    assert (cut / lib.path.name).stat().st_size == len(data)  # rebuilt


@needs_cc
def test_self_check_rejects_a_library_that_differs(monkeypatch, tmp_path):
    """A library whose results differ from the NumPy path (a compiler that contracts
    or reorders floating point, say) is never used: the first use checks it, the
    NumPy path takes over and the reason says why."""
    monkeypatch.setenv("XSTRIDE_CACHE_DIR", str(tmp_path))   # a fresh, unchecked library
    lib = N.get()
    assert lib is not None and not lib.checked, N.describe()
    real = lib.philox

    def off_by_one_ulp(kind, n, args, outs):
        real(kind, n, args, outs)
        if kind == "normal2":
            addr, _ = outs[1]
            v = np.ctypeslib.as_array((np.ctypeslib.ctypes.c_uint64 * n).from_address(addr))
            v ^= U64(1)

    monkeypatch.setattr(lib, "philox", off_by_one_ulp)
    ctr = np.arange(1000, dtype=U64)
    got = rng.philox_normal2(5, 6, ctr)
    assert N.get() is None
    compiled, text = N.describe()
    assert not compiled and "differ from the reference (normal2" in text
    monkeypatch.setenv("XSTRIDE_HOST_CC", "none")
    same(got, rng.philox_normal2(5, 6, ctr))


@needs_cc
def test_self_check_passes_and_runs_once(monkeypatch, tmp_path):
    monkeypatch.setenv("XSTRIDE_CACHE_DIR", str(tmp_path))
    lib = N.get()
    assert lib is not None and not lib.checked
    calls = []
    real = H._self_check
    monkeypatch.setattr(H, "_self_check", lambda l: calls.append(l) or real(l))
    for _ in range(3):
        rng.philox_uniform(1, 2, np.arange(10, dtype=U64))
    assert calls == [lib] and lib.checked and N.describe()[0]


@needs_cc
def test_info_runs_the_self_check_before_reporting_compiled(monkeypatch, tmp_path):
    """``python -m xstride info`` in a fresh process must not call a library "compiled
    C" that the first use would reject (say a fast-math compiler): the row runs the
    self-check first."""
    from xstride._cli import info as _info

    monkeypatch.setenv("XSTRIDE_CACHE_DIR", str(tmp_path))   # a fresh, unchecked library
    lib = N.get()
    assert lib is not None and not lib.checked, N.describe()
    monkeypatch.setattr(H, "_self_check", lambda l: "compiled results differ (test)")
    row = _info.collect()["capabilities"]["features"]["host_philox"]
    assert row == {"available": False, "reason": "compiled results differ (test)",
                   "path": "NumPy ufuncs (compiled results differ (test))"}


def test_an_interrupt_waits_for_the_threads_before_it_unwinds(monkeypatch):
    """Ctrl-C during a threaded Philox draw (the demo's positions): the main thread
    unwound while the pool's threads still wrote into buffers it freed, and the process
    crashed with SIGSEGV (5 of 8 interrupts at the right moment). The threads now end
    their chunk and stop before the interrupt goes on."""
    import os
    import signal
    import threading
    import time

    from xstride._host import philox

    monkeypatch.setenv("XSTRIDE_NUM_THREADS", "2")
    running, done = set(), []

    def fn(s, e):
        running.add(s)
        time.sleep(0.05)
        running.discard(s)
        done.append(s)

    timer = threading.Timer(0.06, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            philox._map(fn, 40, chunk=1)
        assert not running, running   # no chunk still being written
        assert len(done) < 40          # and the rest were not started
    finally:
        timer.cancel()
