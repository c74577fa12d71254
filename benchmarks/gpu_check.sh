#!/usr/bin/env bash
# The GPU check of `make gpu-check`, sized for one call of a lent machine: a session has 15
# minutes of device time in all (a start takes one to two) and a command at most 10.
#
#   1. what the machine is (nvidia-smi, CuPy, NumPy, PyTorch versions);
#   2. the test files that failed on the first GPU run (the numerical-gradient helpers, lists
#      against device arrays, seeded dropout, Taylor mode to order 30, batch norm's running
#      statistics): a short step, so that a slow suite still tells whether those are fixed;
#   3. the GPU benchmarks (`python3 -m benchmarks --device gpu`, here with --repeat 3): the MLP
#      step, tanh's derivatives, Taylor mode to order 30, the Laplacian, op overhead, memory;
#   4. the whole device-ready suite on CuPy (GENGRAD_DEVICE=gpu).
#
# Each step has its own time limit and the steps run whatever the one before gave. A step
# stopped at its limit is sent SIGINT, so pytest still prints its summary of what ran. The
# logs go under $OUT (the device tool brings that folder back), else out/gpu-check.
#
# DeZero's column of the MLP row: put the folder holding the `dezero` package (the dezero
# folder of github.com/oreilly-japan/deep-learning-from-scratch-3) at .gpu/dezero-src, or
# name it in GENGRAD_DEZERO_PATH; .gpu/ is for files that travel to the device uncommitted
# (list it in .git/info/exclude and in the call's carry).
#
# Limits in seconds, each can be set from the environment:
#   GPU_CHECK_FIRST (75), GPU_CHECK_BENCH (200), GPU_CHECK_SUITE (240): with the first step's
#   30, 545 s at most, inside one 600 s call
# GPU_CHECK_WORKERS (pytest-xdist workers for the suite; 8, 0 for none), and GPU_CHECK_DEVICE
# (gpu; fake runs the two suite steps on the CPU stand-in, to try this script anywhere).
# Example, from the device tool:  bash benchmarks/gpu_check.sh   (timeout_s 600, carry .gpu)
set -u
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
OUT=${OUT:-out/gpu-check}
mkdir -p "$OUT"
FIRST=${GPU_CHECK_FIRST:-75}
BENCH=${GPU_CHECK_BENCH:-200}
SUITE=${GPU_CHECK_SUITE:-240}
WORKERS=${GPU_CHECK_WORKERS:-8}
DEVICE=${GPU_CHECK_DEVICE:-gpu}     # fake: the suite steps on the CPU stand-in, to try this script
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
if [ -z "${GENGRAD_DEZERO_PATH:-}" ] && [ -f .gpu/dezero-src/dezero/__init__.py ]; then
    export GENGRAD_DEZERO_PATH=$PWD/.gpu/dezero-src
fi

step() {    # step NAME LIMIT COMMAND...: runs it under its limit, logged to $OUT/NAME.log
    local name=$1 limit=$2 start=$SECONDS rc
    shift 2
    echo "== $name (limit ${limit} s): $*"
    timeout -s INT -k 10 "$limit" "$@" >"$OUT/$name.log" 2>&1
    rc=$?
    # the end of the log without pytest's progress lines (the whole log is in $OUT)
    grep -v -E '^[.sxXFE]+ *(\[ *[0-9]+%\])?$' "$OUT/$name.log" | tail -n "${GPU_CHECK_TAIL:-30}"
    local stopped=""
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then stopped=", stopped at its limit"; fi
    echo "== $name: exit $rc after $((SECONDS - start)) s$stopped"
    echo "$name exit=$rc seconds=$((SECONDS - start))" >>"$OUT/summary.txt"
}

has_module() { "$PYTHON" -c "import $1" >/dev/null 2>&1; }

PYTEST=("$PYTHON" -m pytest -q -rfE -p no:cacheprovider)
has_module pytest_timeout && PYTEST+=(--timeout 120)
PARALLEL=()
if [ "$WORKERS" -gt 0 ] && has_module xdist; then PARALLEL=(-n "$WORKERS"); fi

: >"$OUT/summary.txt"
step machine 30 "$PYTHON" - <<'PY'
import platform, subprocess, sys
import numpy
try:
    print(subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv"],
                         capture_output=True, text=True).stdout.strip())
except OSError as error:
    print("nvidia-smi:", error)
print("python", sys.version.split()[0], "numpy", numpy.__version__, platform.processor() or platform.machine())
for name in ("cupy", "torch", "xdist", "pytest_timeout"):
    try:
        module = __import__(name)
        print(name, getattr(module, "__version__", "(no version)"))
    except Exception as error:
        print(name, "not importable:", error)
PY

step first-failures "$FIRST" env GENGRAD_DEVICE="$DEVICE" "${PYTEST[@]}" "${PARALLEL[@]}" \
    tests/layers tests/optimizers/test_optim_base.py tests/variable/test_forward_mode.py \
    tests/device/test_device_layers.py

step benchmark "$BENCH" "$PYTHON" -m benchmarks.gpu --repeat 3

# the device-ready files only (tests/conftest.py's DEVICE_READY), not thousands of skips
mapfile -t READY < <("$PYTHON" -c "import ast; tree = ast.parse(open('tests/conftest.py').read())
print(*['tests/' + path for node in tree.body if isinstance(node, ast.Assign)
        and getattr(node.targets[0], 'id', '') == 'DEVICE_READY' for path in ast.literal_eval(node.value)],
      sep='\\n')")
step suite "$SUITE" env GENGRAD_DEVICE="$DEVICE" "${PYTEST[@]}" "${PARALLEL[@]}" "${READY[@]:-tests}"

echo "== summary ($SECONDS s in all)"
cat "$OUT/summary.txt"
for name in first-failures suite; do
    echo "$name: $(grep -E '(passed|failed|skipped|error|no tests ran).* in [0-9.]+s' "$OUT/$name.log" | tail -1)"
done
