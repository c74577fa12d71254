# Quick start: `make demo` runs the demo, `make test` runs the whole test suite (on NumPy,
# and beside it the GPU path on tests/device/fake_gpu.py, a CPU stand-in for CuPy).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test lint bench gpu-check clean

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
# CuPy (its report follows the first's); fails when either does.  The stand-in's run is the
# longer, so the files of GPU_PATH_AFTER (about a fifth of its time, 165 s of 850) run after
# the NumPy suite (540 s), in the first process: the two take about as long.
GPU_PATH_AFTER := tests/variable/test_ops_elementary.py \
	tests/variable/test_ops_distribution_functions.py tests/variable/test_stats.py \
	tests/variable/test_ops_polynomials.py tests/variable/test_ops_decompositions.py \
	tests/variable/test_ops_linalg_api.py
test: $(VENV)/.test
	@GENGRAD_DEVICE=fake $(BIN)/python -m pytest -q -p no:cacheprovider $(addprefix --ignore=,$(GPU_PATH_AFTER)) \
	  > $(VENV)/gpu-path-suite.log 2>&1 & \
	  gpu_path=$$!; \
	  $(BIN)/python -m pytest -q; numpy_status=$$?; \
	  GENGRAD_DEVICE=fake $(BIN)/python -m pytest -q -p no:cacheprovider $(GPU_PATH_AFTER) \
	    > $(VENV)/gpu-path-after.log 2>&1; after_status=$$?; \
	  wait $$gpu_path; gpu_path_status=$$?; \
	  echo "--- the GPU path, on a CPU stand-in for CuPy (GENGRAD_DEVICE=fake) ---"; \
	  cat $(VENV)/gpu-path-suite.log; \
	  echo "--- the GPU path, the rest: $(GPU_PATH_AFTER) ---"; \
	  tail -n 3 $(VENV)/gpu-path-after.log; \
	  test $$numpy_status -eq 0 && test $$gpu_path_status -eq 0 && test $$after_status -eq 0 || \
	  { test $$after_status -eq 0 || cat $(VENV)/gpu-path-after.log; exit 1; }

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
