# Quick start: `make demo` runs the demo, `make test` runs the whole test suite (on NumPy,
# and beside it the GPU path on tests/device/fake_gpu.py, a CPU stand-in for CuPy).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench gpu-check clean

# Python keeps its compiled modules (and pytest its rewritten test modules) in __pycache__,
# whatever the machine's environment says: the suite's three pytest runs and its subprocesses
# would otherwise each compile the same ~400 modules again (about 8 s a run).
unexport PYTHONDONTWRITEBYTECODE

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.examples: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[examples]'
	touch $@

$(VENV)/.test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test,examples]'
	touch $@

demo: $(VENV)/.examples
	$(BIN)/python examples/demo.py

# The suite on NumPy, and beside it in a second process the GPU path on a CPU stand-in for
# CuPy (its report follows the first's); fails when either does.  The NumPy suite is the longer
# (about 970 s of work against the stand-in's 410 on two cores), so the second process runs the
# files of HOST_AFTER (about 280 s of the NumPy suite) after the stand-in's, so that the two take
# about as long (in a fresh clone's `.ci/run` on a two-core AMD EPYC: 698 s, and 406 + 269 s;
# 12 min 53 s in all, 14 min 05 s before the stand-in skipped shape variants' derivatives).  Each process runs one BLAS thread: OpenBLAS's
# threads would only contend for the two cores (unless OPENBLAS_NUM_THREADS is set).
HOST_AFTER := tests/variable/test_ops_special.py tests/variable/test_ops_bessel.py \
	tests/benchmarks/test_gpu_benchmark.py tests/variable/test_ops_elliptic_integrals.py \
	tests/variable/test_ops_elementary.py tests/variable/test_ops_kelvin.py \
	tests/variable/test_ops_distribution_inverses.py tests/reliability/test_rel_long_runs.py \
	tests/reliability/test_rel_chains.py tests/variable/test_saving.py
test: export OPENBLAS_NUM_THREADS ?= 1
test: $(VENV)/.test
	@( GENGRAD_DEVICE=fake $(BIN)/python -m pytest -q -p no:cacheprovider > $(VENV)/gpu-path-suite.log 2>&1; \
	   echo $$? > $(VENV)/gpu-path.status; \
	   $(BIN)/python -m pytest -q -p no:cacheprovider $(HOST_AFTER) > $(VENV)/host-after.log 2>&1; \
	   echo $$? > $(VENV)/host-after.status ) & \
	  second=$$!; \
	  $(BIN)/python -m pytest -q $(addprefix --ignore=,$(HOST_AFTER)); numpy_status=$$?; \
	  wait $$second; \
	  echo "--- the NumPy suite, the rest: $(HOST_AFTER) ---"; \
	  tail -n 3 $(VENV)/host-after.log; \
	  echo "--- the GPU path, on a CPU stand-in for CuPy (GENGRAD_DEVICE=fake) ---"; \
	  cat $(VENV)/gpu-path-suite.log; \
	  after_status=$$(cat $(VENV)/host-after.status); gpu_path_status=$$(cat $(VENV)/gpu-path.status); \
	  test $$numpy_status -eq 0 && test $$gpu_path_status -eq 0 && test $$after_status -eq 0 || \
	  { test $$after_status -eq 0 || cat $(VENV)/host-after.log; exit 1; }

lint: $(VENV)/.test
	$(BIN)/python -m ruff check .

bench: $(VENV)/.test
	$(BIN)/python -m benchmarks

# On a machine with a CUDA GPU and CuPy (its own python3, no venv), in under 10 minutes: the
# tests that failed on the first GPU run, the GPU benchmarks (MLP step, Taylor mode, the
# Laplacian, op overhead, memory), then the device-ready suite; logs under $$OUT or
# out/gpu-check (see benchmarks/gpu_check.sh).
gpu-check:
	PYTHON=$(PYTHON) bash benchmarks/gpu_check.sh

clean:
	rm -rf $(VENV) build *.egg-info out
