"""Issue 14, cold start: the record of kernel compiles (``xstride._kernels._compile_log``),
``XSTRIDE_LOG_KERNELS``, ``xp.cuda.compiled_kernels``/``compile_stats``/
``watch_cupy_compiles``, on the stand-in CuPy of tests/conftest.py."""

from __future__ import annotations

import time
import types

import pytest

import xstride as xp
from xstride._kernels import _compile, _compile_log

SRC = 'extern "C" __global__ void k(float* x) { x[0] = 1.0f; }'
ENV = "XSTRIDE_LOG_KERNELS"


@pytest.fixture(autouse=True)
def fresh_record(monkeypatch):
    """Empty compiled-kernel caches and record around each test; logging off."""
    monkeypatch.delenv(ENV, raising=False)
    _compile.clear()
    _compile.reset_record()
    yield
    _compile.clear()
    _compile.reset_record()


def slow_modules(fake, seconds=0.03, fail=None):
    """``fake.RawModule`` whose ``get_function`` takes ``seconds`` (CuPy compiles lazily,
    at the first ``get_function``) or raises ``fail``; returns the list of compiles."""
    made = []

    def raw_module(code=None, options=(), name_expressions=None, **kwargs):
        def get_function(name):
            if fail is not None:
                raise fail
            time.sleep(seconds)
            made.append((name, code, options))
            return types.SimpleNamespace(name=name)
        return types.SimpleNamespace(get_function=get_function)

    fake.RawModule = raw_module
    return made


# --------------------------------------------------------------------- the record
def test_a_miss_is_recorded_once_with_its_time_and_a_hit_adds_nothing(fake_cupy):
    made = slow_modules(fake_cupy, 0.03)
    fn = _compile.function("k", code=SRC)
    assert _compile.function("k", code=SRC) is fn and len(made) == 1
    (rec,) = xp.cuda.compiled_kernels()
    assert rec.name == "k" and rec.kind == "xstride" and rec.device == 0
    assert rec.source == f"generated {_compile_log.digest(SRC)}" and len(rec.options) == 12
    assert 0.03 <= rec.seconds < 5          # module creation + get_function, timed
    stats = xp.cuda.compile_stats()
    assert stats["kernels"] == 1 and stats["seconds"] == pytest.approx(rec.seconds)
    assert stats["cupy_watched"] is False


def test_each_device_source_file_and_option_set_is_its_own_entry(fake_cupy):
    slow_modules(fake_cupy, 0.0)
    _compile.function("k", code=SRC)
    fake_cupy.current.device = 1
    _compile.function("k", code=SRC)
    _compile.function("k", code=SRC, options=("-DX=1",))
    name = "xstride_morton_keys3"
    _compile.function(name, file="morton.cu")
    recs = xp.cuda.compiled_kernels()
    assert [r.device for r in recs] == [0, 1, 1, 1]
    assert recs[0].options == recs[1].options != recs[2].options
    assert recs[3].source == "morton.cu" and recs[3].name == name
    assert xp.cuda.compile_stats()["kernels"] == 4


def test_a_failed_compile_is_not_recorded_and_not_cached(fake_cupy):
    slow_modules(fake_cupy, fail=RuntimeError("nvrtc says no"))
    for _ in range(2):
        with pytest.raises(RuntimeError, match="nvrtc says no"):
            _compile.function("k", code=SRC)
    assert xp.cuda.compiled_kernels() == [] and xp.cuda.compile_stats()["kernels"] == 0


def test_user_kernels_are_recorded_as_user(fake_cupy):
    made = slow_modules(fake_cupy, 0.0)
    fn = _compile.raw_function(SRC, ("-DA=2",), "k")
    assert _compile.raw_function(SRC, ("-DA=2",), "k") is fn and len(made) == 1
    (rec,) = xp.cuda.compiled_kernels()
    assert rec.kind == "user" and rec.source == f"user {_compile_log.digest(SRC)}"


def test_user_kernel_compile_goes_through_the_record(fake_cupy):
    slow_modules(fake_cupy, 0.0)
    xp.cuda.CudaKernel(SRC, "k").compile()
    (rec,) = xp.cuda.compiled_kernels()
    assert rec.kind == "user" and rec.name == "k"


def test_the_record_is_bounded_but_the_totals_count_everything(monkeypatch):
    from collections import deque

    monkeypatch.setattr(_compile_log, "_RECORDS", deque(maxlen=3))
    for i in range(5):
        _compile_log.timed(lambda: None, f"k{i}", "x.cu", (), 0)
    assert [r.name for r in _compile_log.records()] == ["k2", "k3", "k4"]
    assert _compile_log.totals()[0] == 5


def test_nothing_compiled_means_an_empty_record_without_cupy():
    assert xp.cuda.compiled_kernels() == []
    assert xp.cuda.compile_stats() == {"kernels": 0, "seconds": 0.0, "wall_seconds": 0.0,
                                       "cupy_watched": False}


def test_wall_seconds_count_compiles_side_by_side_once():
    import threading

    start = threading.Barrier(2)

    def compile_one(i):
        start.wait()
        _compile_log.timed(lambda: time.sleep(0.2), f"k{i}", "x.cu", (), 0)

    _, _, wall0 = _compile_log.totals()
    threads = [threading.Thread(target=compile_one, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    kernels, seconds, wall = _compile_log.totals()
    assert kernels == 2 and seconds >= 0.4
    assert 0.2 <= wall - wall0 < 0.35, wall - wall0   # the two 0.2 s overlapped
    _compile_log.timed(lambda: time.sleep(0.05), "k2", "x.cu", (), 0)
    assert _compile_log.totals()[2] - wall >= 0.05     # one after: adds its own time


# --------------------------------------------------------------------- XSTRIDE_LOG_KERNELS
@pytest.mark.parametrize("value", ["1", "on", " TRUE "])
def test_the_switch_prints_one_line_per_compile(fake_cupy, monkeypatch, capsys, value):
    slow_modules(fake_cupy, 0.0)
    monkeypatch.setenv(ENV, value)
    _compile.function("k", code=SRC)
    _compile.function("k", code=SRC)   # a hit: nothing printed
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert captured.out == "" and len(lines) == 1
    assert lines[0].startswith(f"xstride: compiled xstride kernel k (generated "
                               f"{_compile_log.digest(SRC)}, options ")
    assert ", device 0) in " in lines[0] and lines[0].endswith(" s")


@pytest.mark.parametrize("value", ["0", "", "off", "No"])
def test_the_switch_off_prints_nothing(fake_cupy, monkeypatch, capsys, value):
    slow_modules(fake_cupy, 0.0)
    monkeypatch.setenv(ENV, value)
    _compile.function("k", code=SRC)
    assert capsys.readouterr().err == "" and len(xp.cuda.compiled_kernels()) == 1


@pytest.mark.parametrize("value", ["2", "yes please", "-1"])
def test_a_bad_switch_value_is_a_clear_error_before_compiling(fake_cupy, monkeypatch, value):
    made = slow_modules(fake_cupy, 0.0)
    monkeypatch.setenv(ENV, value)
    with pytest.raises(ValueError, match=f"environment variable {ENV}={value!r}: expected 1"):
        _compile.function("k", code=SRC)
    assert made == [] and xp.cuda.compiled_kernels() == []


# --------------------------------------------------------------------- CuPy's own compiles
def cupy_compiler(fake):
    """Give the stand-in a ``cuda.compiler._compile_module_with_cache``; returns its calls."""
    calls = []

    def compile_module_with_cache(source, options=(), arch=None, **kwargs):
        time.sleep(0.01)
        calls.append((source, options, arch, kwargs))
        return ("module", source)

    fake.cuda.compiler = types.SimpleNamespace(_compile_module_with_cache=compile_module_with_cache)
    return calls


CUPY_SRC = ('extern "C" __global__ void cupy_add(const float* a, float* b) {}\n'
            '__global__ void __launch_bounds__(128) cupy_sum(float* a) {}\n')


def test_watching_records_cupys_own_compiles_and_passes_everything_through(fake_cupy):
    calls = cupy_compiler(fake_cupy)
    assert not _compile_log.cupy_watched(fake_cupy)
    assert xp.cuda.watch_cupy_compiles() is True
    assert xp.cuda.watch_cupy_compiles() is True           # idempotent: wrapped once
    hook = fake_cupy.cuda.compiler._compile_module_with_cache
    assert hook(CUPY_SRC, ("-O3",), "90", jitify=False) == ("module", CUPY_SRC)
    assert calls == [(CUPY_SRC, ("-O3",), "90", {"jitify": False})]
    (rec,) = xp.cuda.compiled_kernels()
    assert rec.kind == "library" and rec.name == "cupy_add,cupy_sum" and rec.device == 0
    assert rec.source == f"library {_compile_log.digest(CUPY_SRC)}" and rec.seconds >= 0.01
    hook("x", name_expressions=("f<int>", "g<float>"))
    assert xp.cuda.compiled_kernels()[-1].name == "f<int>,g<float>"
    assert xp.cuda.compile_stats()["cupy_watched"] is True


def test_a_compile_xstride_started_is_recorded_once(fake_cupy):
    cupy_compiler(fake_cupy)
    xp.cuda.watch_cupy_compiles()
    hook = fake_cupy.cuda.compiler._compile_module_with_cache

    def raw_module(code=None, options=(), name_expressions=None, **kwargs):
        return types.SimpleNamespace(get_function=lambda name: hook(code, options))

    fake_cupy.RawModule = raw_module
    _compile.function("k", code=SRC)
    (rec,) = xp.cuda.compiled_kernels()
    assert rec.kind == "xstride"


def test_a_cupy_without_the_compiler_function_is_not_watched(fake_cupy):
    assert xp.cuda.watch_cupy_compiles() is False
    assert xp.cuda.compile_stats()["cupy_watched"] is False


def test_the_switch_watches_cupy_as_it_loads(fake_cupy, monkeypatch, capsys):
    from xstride import _backends

    cupy_compiler(fake_cupy)
    monkeypatch.setenv(ENV, "1")
    _backends.get("cupy").load()
    fake_cupy.cuda.compiler._compile_module_with_cache(CUPY_SRC)
    err = capsys.readouterr().err
    assert err.startswith("xstride: compiled library kernel cupy_add,cupy_sum (library ")


def test_a_bad_switch_value_never_fails_cupys_own_compiles(fake_cupy, monkeypatch):
    from xstride import _backends

    cupy_compiler(fake_cupy)
    monkeypatch.setenv(ENV, "maybe")
    _backends.get("cupy").load()                      # loading CuPy does not fail
    assert not _compile_log.cupy_watched(fake_cupy)   # and the switch is not taken as on
    xp.cuda.watch_cupy_compiles()
    assert fake_cupy.cuda.compiler._compile_module_with_cache("x")[0] == "module"


def test_watching_without_cupy_says_why(monkeypatch):
    from xstride._backends import select

    def fail():
        raise RuntimeError("backend 'cupy' is unavailable: test says no")

    monkeypatch.setattr(select, "load_cupy", fail)
    monkeypatch.setattr("xstride.cuda._record.load_cupy", fail)
    with pytest.raises(RuntimeError, match="^watch_cupy_compiles: backend 'cupy' is "
                                           "unavailable: test says no$"):
        xp.cuda.watch_cupy_compiles()


# --------------------------------------------------------------------- prefetch
SRC2 = 'extern "C" __global__ void k2(float* x) { x[0] = 2.0f; }'


def test_prefetch_compiles_side_by_side_and_function_takes_the_result(fake_cupy, monkeypatch):
    monkeypatch.setattr(_compile, "COMPILE_THREADS", 4)
    made = slow_modules(fake_cupy, 0.2)
    reqs = [_compile.Request("k", code=SRC), _compile.Request("k2", code=SRC2)]
    t0 = time.perf_counter()
    assert _compile.prefetch(reqs) == 2
    assert _compile.prefetch(reqs) == 0            # in flight: not started twice
    f1 = _compile.function("k", code=SRC)
    f2 = _compile.function("k2", code=SRC2)
    wall = time.perf_counter() - t0
    assert (f1.name, f2.name) == ("k", "k2") and len(made) == 2
    assert wall < 0.38, wall                       # two 0.2 s compiles overlapped
    assert _compile.function("k", code=SRC) is f1 and len(made) == 2
    assert _compile.prefetch(reqs) == 0            # compiled: nothing to start
    assert sorted(r.name for r in xp.cuda.compiled_kernels()) == ["k", "k2"]


def test_a_prefetched_compile_error_is_raised_by_function(fake_cupy, monkeypatch):
    monkeypatch.setattr(_compile, "COMPILE_THREADS", 2)
    tries = []

    def raw_module(code=None, options=(), name_expressions=None, **kwargs):
        def get_function(name):
            tries.append(name)
            raise RuntimeError("nvrtc: bad source")
        return types.SimpleNamespace(get_function=get_function)

    fake_cupy.RawModule = raw_module
    assert _compile.prefetch([_compile.Request("k", code=SRC)]) == 1
    _compile.drain()                                  # failed before anyone asked
    with pytest.raises(RuntimeError, match="bad source"):
        _compile.function("k", code=SRC)
    assert tries == ["k"]                             # its error, not a second compile
    with pytest.raises(RuntimeError, match="bad source"):
        _compile.function("k", code=SRC)              # asked again: compiled again
    assert tries == ["k", "k"] and xp.cuda.compiled_kernels() == []


def test_prefetch_does_nothing_on_one_core(fake_cupy, monkeypatch):
    monkeypatch.setattr(_compile, "COMPILE_THREADS", 1)
    made = slow_modules(fake_cupy, 0.0)
    assert _compile.prefetch([_compile.Request("k", code=SRC)]) == 0 and made == []
    _compile.function("k", code=SRC)
    assert len(made) == 1


def _modules_by_expressions(fake, seconds):
    """``fake.RawModule`` recording each module's name expressions at its compile."""
    made = []

    def raw_module(code=None, options=(), name_expressions=None, **kwargs):
        def get_function(name):
            time.sleep(seconds)
            made.append(tuple(name_expressions))
            return types.SimpleNamespace(name=name)
        return types.SimpleNamespace(get_function=get_function)

    fake.RawModule = raw_module
    return made


FAMILY = ("xs_seg_count<1, int>", "xs_seg_scatter<1, int, unsigned int>", "xs_seg_scan_tiles<0>")


def test_a_family_compiles_one_module_per_kernel_side_by_side(fake_cupy, monkeypatch):
    monkeypatch.setattr(_compile, "COMPILE_THREADS", 4)
    made = _modules_by_expressions(fake_cupy, 0.2)
    t0 = time.perf_counter()
    first = _compile.family_function(FAMILY[0], file="compaction.cu", family=FAMILY)
    rest = [_compile.family_function(e, file="compaction.cu", family=FAMILY) for e in FAMILY[1:]]
    wall = time.perf_counter() - t0
    assert [first.name] + [f.name for f in rest] == list(FAMILY)
    assert sorted(made) == sorted((e,) for e in FAMILY)   # one module each, none twice
    assert wall < 0.5, wall                                 # three 0.2 s compiles overlapped
    assert _compile.family_function(FAMILY[1], file="compaction.cu", family=FAMILY) is rest[0]
    assert len(made) == 3


def test_a_family_is_one_module_on_one_core(fake_cupy, monkeypatch):
    monkeypatch.setattr(_compile, "COMPILE_THREADS", 1)
    made = _modules_by_expressions(fake_cupy, 0.0)
    fns = [_compile.family_function(e, file="compaction.cu", family=FAMILY) for e in FAMILY]
    assert [f.name for f in fns] == list(FAMILY)
    # CuPy compiles a module once; each get_function of the fake counts as one
    assert set(made) == {FAMILY}


def test_a_first_min_compiles_the_max_of_its_layout_beside_it(fake_cupy, monkeypatch):
    from xstride._kernels import _reduce_common as rc
    from xstride._kernels import reductions

    monkeypatch.setattr(_compile, "COMPILE_THREADS", 3)
    made = _modules_by_expressions(fake_cupy, 0.5)   # two at once: 0.5 s, one by one: 1 s
    tail = ", long long, long long, long long, 4, 1, 2, 3, 8>"
    lo, hi = (f"xs_reduce_rows_block<{reductions._OPS[op]}{tail}" for op in ("min", "max"))
    assert rc.PARTNER_OP == {"min": "max", "max": "min"}
    t0 = time.perf_counter()
    fmin = rc.kernel("reductions.cu", lo, hi)
    fmax = rc.kernel("reductions.cu", hi, lo)     # taken from the compile thread
    assert time.perf_counter() - t0 < 0.9   # (0.35 of 0.4 failed on a loaded 2-core runner)
    assert (fmin.name, fmax.name) == (lo, hi) and sorted(made) == sorted([(lo,), (hi,)])
    assert rc.kernel("reductions.cu", lo, hi) is fmin and len(made) == 2   # hits start nothing


def test_no_partner_compile_on_a_small_host(fake_cupy, monkeypatch):
    from xstride._kernels import _reduce_common as rc

    monkeypatch.setattr(_compile, "COMPILE_THREADS", 2)
    made = _modules_by_expressions(fake_cupy, 0.0)
    rc.kernel("reductions.cu", "lo<2>", "lo<3>")
    _compile.drain()
    assert made == [("lo<2>",)]


def test_drain_waits_for_prefetched_compiles_and_keeps_their_errors(fake_cupy, monkeypatch):
    monkeypatch.setattr(_compile, "COMPILE_THREADS", 2)
    made = slow_modules(fake_cupy, 0.2)
    assert _compile.prefetch([_compile.Request("k", code=SRC)]) == 1
    _compile.drain()
    assert len(made) == 1 and xp.cuda.compile_stats()["kernels"] == 1
    slow_modules(fake_cupy, 0.05, fail=RuntimeError("nvrtc: bad source"))
    assert _compile.prefetch([_compile.Request("k2", code=SRC2)]) == 1
    _compile.drain()                                # the error is not raised here
    with pytest.raises(RuntimeError, match="bad source"):
        _compile.function("k2", code=SRC2)


def test_clear_forgets_the_compiles_still_in_flight(fake_cupy, monkeypatch):
    """A prefetched compile that ends after ``clear()`` must not put its kernel back
    (tests that swap the stand-in CuPy between cases found the last case's kernels)."""
    monkeypatch.setattr(_compile, "COMPILE_THREADS", 2)
    made = slow_modules(fake_cupy, 0.2)
    assert _compile.prefetch([_compile.Request("k", code=SRC)]) == 1
    _compile.clear()                                 # while the compile runs
    assert len(made) == 1 and not _compile._INFLIGHT
    _compile.function("k", code=SRC)                 # compiled again, not the old one
    assert len(made) == 2
    slow_modules(fake_cupy, 0.05, fail=RuntimeError("nvrtc: bad source"))
    assert _compile.prefetch([_compile.Request("k2", code=SRC2)]) == 1
    _compile.clear()                                 # its error is forgotten as well
    made = slow_modules(fake_cupy, 0.0)
    _compile.function("k2", code=SRC2)
    assert len(made) == 1


def test_threads_asking_for_one_kernel_compile_it_once(fake_cupy):
    import threading

    made = slow_modules(fake_cupy, 0.2)
    start = threading.Barrier(4)
    got = []

    def ask():
        start.wait()
        got.append(_compile.function("k", code=SRC))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 1 and len(got) == 4 and all(g is got[0] for g in got)
    assert xp.cuda.compile_stats()["kernels"] == 1 and not _compile._INFLIGHT


def test_threads_waiting_for_a_failing_compile_get_its_error(fake_cupy):
    import threading

    tries = []

    def raw_module(code=None, options=(), name_expressions=None, **kwargs):
        def get_function(name):
            tries.append(name)
            time.sleep(0.2)
            raise RuntimeError("nvrtc: bad source")
        return types.SimpleNamespace(get_function=get_function)

    fake_cupy.RawModule = raw_module
    start = threading.Barrier(3)
    errors = []

    def ask():
        start.wait()
        try:
            _compile.function("k", code=SRC)
        except RuntimeError as exc:
            errors.append(str(exc))

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == ["nvrtc: bad source"] * 3 and tries == ["k"]
    assert not _compile._INFLIGHT


def test_wait_for_compiles_waits_for_the_compile_threads(fake_cupy, monkeypatch):
    monkeypatch.setattr(_compile, "COMPILE_THREADS", 2)
    made = slow_modules(fake_cupy, 0.2)
    assert _compile.prefetch([_compile.Request("k", code=SRC)]) == 1
    assert xp.cuda.compile_stats()["kernels"] == 0     # still compiling
    xp.cuda.wait_for_compiles()
    assert len(made) == 1 and xp.cuda.compile_stats()["kernels"] == 1
    xp.cuda.wait_for_compiles()                        # nothing under way: returns
