"""Issue 14, cold start: template kernels load from CuPy's on-disk cache in a later
process (``xstride._kernels._lowered_names``), on a stand-in CuPy whose ``RawModule``
behaves as CuPy 14.2's: its disk cache is keyed on source and options, read only for
modules built without name expressions, and a module with name expressions is compiled
(NVRTC) every time."""

from __future__ import annotations

import json
import os
import types

import pytest

from xstride._kernels import _compile, _lowered_names

SRC = "template <int = 0> __global__ void xs_k(float* x) { x[0] = 1.0f; }"


class Binary(dict):
    """A compiled module: kernel name -> kernel."""


class CupyCache:
    """The stand-in's compiler: ``disk`` (key -> instantiated lowered names, as CuPy's
    cache folder), ``compiles`` (one entry per NVRTC run)."""

    def __init__(self, folder):
        self.folder, self.disk, self.compiles = str(folder), {}, []

    def raw_module(self, code=None, options=(), name_expressions=None, **kwargs):
        cache = self
        key = (code, tuple(options))

        class Module:
            module = None

            def get_function(self, name):
                if self.module is None:
                    if name_expressions is None and key in cache.disk:
                        names = cache.disk[key]                 # loaded, no NVRTC
                    else:
                        cache.compiles.append(tuple(name_expressions or ()))
                        names = [f"_Z{len(e)}{e.replace('<', 'I').replace('>', 'E')}"
                                 for e in name_expressions or ()]
                        cache.disk[key] = names                 # written after a compile
                    self.module = types.SimpleNamespace(mapping=dict(
                        zip(name_expressions or (), names)), names=set(names))
                    self.module.mapping = self.module.mapping or None
                lowered = (self.module.mapping or {}).get(name, name)
                if lowered not in self.module.names:
                    raise RuntimeError("CUDA_ERROR_NOT_FOUND: named symbol not found")
                return types.SimpleNamespace(name=lowered)

        return Module()


@pytest.fixture
def cache(fake_cupy, tmp_path, monkeypatch):
    monkeypatch.delenv("CUPY_CACHE_IN_MEMORY", raising=False)
    c = CupyCache(tmp_path / "kernel_cache")
    fake_cupy.RawModule = c.raw_module
    fake_cupy.__version__ = "14.2.0"
    fake_cupy.cuda.compiler = types.SimpleNamespace(get_cache_dir=lambda: c.folder)
    fake_cupy.cuda.nvrtc = types.SimpleNamespace(getVersion=lambda: (13, 0))
    fake_cupy.cuda.Device = lambda *a: types.SimpleNamespace(compute_capability="90")
    _compile.clear()
    yield c
    _compile.clear()


def new_process():
    """What a new process has: no compiled modules in memory (the disk stays)."""
    _compile.clear()


def test_a_later_process_loads_the_template_kernel_without_nvrtc(cache):
    fn = _compile.function("xs_k<0>", code=SRC, name_expressions=("xs_k<0>",))
    assert fn.name == "_Z7xs_kI0E" and cache.compiles == [("xs_k<0>",)]
    (record,) = os.listdir(os.path.join(cache.folder, "xstride-lowered"))
    with open(os.path.join(cache.folder, "xstride-lowered", record)) as f:
        assert json.load(f) == {"xs_k<0>": "_Z7xs_kI0E"}
    new_process()
    again = _compile.function("xs_k<0>", code=SRC, name_expressions=("xs_k<0>",))
    assert again.name == fn.name and cache.compiles == [("xs_k<0>",)]   # no second NVRTC


def test_without_the_record_every_process_compiles_as_cupy_does(cache, monkeypatch):
    monkeypatch.setattr(_lowered_names, "record_dir", lambda cupy: None)
    for _ in range(2):
        new_process()
        _compile.function("xs_k<0>", code=SRC, name_expressions=("xs_k<0>",))
    assert cache.compiles == [("xs_k<0>",)] * 2


def test_a_cleared_binary_is_compiled_again_with_its_names(cache):
    _compile.function("xs_k<0>", code=SRC, name_expressions=("xs_k<0>",))
    cache.disk.clear()                          # CuPy's cache gone, the record kept
    new_process()
    fn = _compile.function("xs_k<0>", code=SRC, name_expressions=("xs_k<0>",))
    # the look-up by lowered name compiled the bare source (nothing instantiated), found
    # nothing, and the module was compiled again with its name expressions
    assert fn.name == "_Z7xs_kI0E" and cache.compiles == [("xs_k<0>",), (), ("xs_k<0>",)]
    new_process()
    _compile.function("xs_k<0>", code=SRC, name_expressions=("xs_k<0>",))
    assert len(cache.compiles) == 3


def test_modules_of_one_source_with_other_instances_never_share_a_binary(cache):
    a = _compile.function("xs_k<0>", code=SRC, name_expressions=("xs_k<0>",))
    b = _compile.function("xs_k<1>", code=SRC, name_expressions=("xs_k<1>",))
    assert len({key for key in cache.disk}) == 2 and a.name != b.name
    new_process()
    assert _compile.function("xs_k<1>", code=SRC, name_expressions=("xs_k<1>",)).name == b.name
    assert _compile.function("xs_k<0>", code=SRC, name_expressions=("xs_k<0>",)).name == a.name
    assert len(cache.compiles) == 2


@pytest.mark.parametrize("change", ["cupy", "nvrtc", "arch", "options"])
def test_another_compiler_or_device_or_option_set_is_another_record(cache, fake_cupy, change):
    opts = ()
    _compile.function("xs_k<0>", code=SRC, name_expressions=("xs_k<0>",))
    if change == "cupy":
        fake_cupy.__version__ = "14.3.0"
    elif change == "nvrtc":
        fake_cupy.cuda.nvrtc = types.SimpleNamespace(getVersion=lambda: (13, 1))
    elif change == "arch":
        fake_cupy.cuda.Device = lambda *a: types.SimpleNamespace(compute_capability="100")
    else:
        opts = ("-DXS_OTHER=1",)
    new_process()
    _compile.function("xs_k<0>", code=SRC, options=opts, name_expressions=("xs_k<0>",))
    assert len(os.listdir(os.path.join(cache.folder, "xstride-lowered"))) == 2
    assert len(cache.compiles) == 2


def test_cache_in_memory_records_nothing(cache, monkeypatch):
    monkeypatch.setenv("CUPY_CACHE_IN_MEMORY", "1")
    _compile.function("xs_k<0>", code=SRC, name_expressions=("xs_k<0>",))
    assert not os.path.exists(os.path.join(cache.folder, "xstride-lowered"))


@pytest.mark.parametrize("bad", ["{not json", '{"xs_k<0>": 7}', "[]", '{"other": "x"}'])
def test_a_damaged_record_is_ignored_and_rewritten(cache, bad):
    _compile.function("xs_k<0>", code=SRC, name_expressions=("xs_k<0>",))
    folder = os.path.join(cache.folder, "xstride-lowered")
    (record,) = os.listdir(folder)
    with open(os.path.join(folder, record), "w") as f:
        f.write(bad)
    new_process()
    assert _compile.function("xs_k<0>", code=SRC, name_expressions=("xs_k<0>",)).name == \
        "_Z7xs_kI0E"
    assert len(cache.compiles) == 2
    with open(os.path.join(folder, record)) as f:
        assert json.load(f) == {"xs_k<0>": "_Z7xs_kI0E"}


def test_an_unwritable_cache_folder_compiles_as_before(cache, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    cache.folder = str(blocker)        # xstride-lowered would have to be under a file
    for _ in range(2):
        new_process()
        _compile.function("xs_k<0>", code=SRC, name_expressions=("xs_k<0>",))
    assert len(cache.compiles) == 2


def test_a_cupy_that_cannot_name_its_compiler_or_device_records_nothing(cache, fake_cupy):
    del fake_cupy.cuda.nvrtc
    for _ in range(2):
        new_process()
        _compile.function("xs_k<0>", code=SRC, name_expressions=("xs_k<0>",))
    assert len(cache.compiles) == 2
    assert not os.path.exists(os.path.join(cache.folder, "xstride-lowered"))


def test_a_compile_error_is_raised_and_records_nothing(cache):
    def refuse(code=None, options=(), name_expressions=None, **kwargs):
        def get_function(name):
            raise RuntimeError("NVRTC: error: expected a ';'")
        return types.SimpleNamespace(get_function=get_function)

    cache.raw_module = refuse
    _compile._cupy().RawModule = refuse
    with pytest.raises(RuntimeError, match="expected a ';'"):
        _compile.function("xs_k<0>", code=SRC, name_expressions=("xs_k<0>",))
    assert not os.path.exists(os.path.join(cache.folder, "xstride-lowered"))


def test_the_module_passes_other_attributes_through_and_keeps_its_kernels(cache):
    raw = types.SimpleNamespace(get_function=lambda name: object(), get_global=lambda n: n)
    mod = _lowered_names.LoweredModule(raw, {"a<0>": "_Za"})
    assert mod.get_function("a<0>") is mod.get_function("a<0>")
    assert mod.get_global("g") == "g"
