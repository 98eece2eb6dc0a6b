# xstride developer commands. `make demo` and `make test` are the two set-up commands.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# An editable install compiles no bytecode (a wheel install does): both set-ups compile
# xstride's modules once, so that a process where Python may not write bytecode
# (PYTHONDONTWRITEBYTECODE=1, as on the GPU host) does not compile them on every start
# (docs/performance.md, "Twenty-eighth run").
# GPU host: CuPy is installed there, the rest travels as wheels in .whl/
GPU_SITE := .gpu-site
GPU_PY   := PYTHONPATH=$(CURDIR)/$(GPU_SITE):$(CURDIR) python3

.PHONY: demo test test-gpu bench bench-gpu bench-dask conformance-gpu info clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[test]"
	$(PY) -m compileall -q xstride
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m xstride demo --backend numpy

# loadgroup: the dask cluster tests share one worker (and one LocalCluster)
test: $(STAMP)
	$(PY) -m pytest -q -n 2 --dist loadgroup tests

info: $(STAMP)
	$(PY) -m xstride info

# Wheels brought along in .whl/ (a GPU host without network); without .whl/ the host's
# own packages are used.
# pyarrow (dask.dataframe's, 55 MB) may come apart in .whl-pyarrow/ (docs/dask.md).
# The CUDA Python packages and packaging are left to the host: its CuPy brings its own
# versions (on the H200 host dask-cuda 26.10 imported and its tests passed with them).
HOST_WHEELS := cuda_bindings|cuda_core|cuda_pathfinder|packaging
$(GPU_SITE):
	mkdir -p $(GPU_SITE)
	if [ -d .whl ]; then python3 -m pip install -q --no-index --no-deps --no-compile \
	  --no-cache-dir --upgrade --target $(GPU_SITE) \
	  $$(ls .whl/*.whl | grep -v -E '$(HOST_WHEELS)') \
	  $$(ls .whl-pyarrow/*.whl 2>/dev/null); fi
	python3 -m compileall -q xstride

# On the GPU host (no network): wheels from .whl/, CuPy from the host.
test-gpu: $(GPU_SITE)
	$(GPU_PY) -m xstride info
	XSTRIDE_BACKEND=cupy $(GPU_PY) -m pytest -q -m gpu -p no:cacheprovider -n 8 --dist loadgroup tests

bench: $(STAMP)
	$(PY) benchmarks/overhead.py

bench-gpu: $(GPU_SITE)
	$(GPU_PY) benchmarks/run_all.py

# The dask benchmark (issue 18): 1-16 CPU worker processes, then CuPy chunks on one GPU
# against the CuPy backend; docs/dask.md. ARGS=... passes options (--n, --workers, ...).
bench-dask: $(GPU_SITE)
	$(GPU_PY) benchmarks/dask.py $(ARGS)

# The array API suite on the GPU host, CuPy backend. Needs the suite (with its spec
# submodule) in .conformance/slim and the runner script in .conformance/ (both ignored;
# docs/conformance.md says how to get them).
conformance-gpu: $(GPU_SITE)
	PYTHONPATH=$(CURDIR)/$(GPU_SITE):$(CURDIR) XSTRIDE_BACKEND=cupy CONFORMANCE_PYTHON=python3 \
	  ARRAY_API_TESTS_DIR=$(CURDIR)/.conformance/slim JOBS=14 bash .conformance/conformance.sh xstride

clean:
	rm -rf $(VENV) $(GPU_SITE) .pytest_cache
