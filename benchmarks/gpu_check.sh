#!/usr/bin/env bash
# The GPU checks of the CUDA strategies, in one command on a GPU machine, under 8 minutes
# (each step gets what is left of BUDGET seconds, default 470): the device helpers compiled
# to PTX, the CUDA tests that matter on a real device, the score-profile and packed-lane
# probe (benchmarks/packed_probe.py), CUDASW++4.0 beside it where its source is in
# .cudasw/src (built by cudasw_gpu.py), then the generated kernel's own benchmark.
#
#     OUT=/some/dir bash benchmarks/gpu_check.sh
#
# Run from the repository root; every result is written under $OUT (default ./gpu_check_out).
set -u
OUT=${OUT:-gpu_check_out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
export DSLC_CACHE_DIR=${DSLC_CACHE_DIR:-/tmp/dslc-gpu-check-cache}
export PYTHONUNBUFFERED=1
unset NUMBA_ENABLE_CUDASIM
N=${GPU_CHECK_N:-1000000}
START=$(date +%s)
BUDGET=${BUDGET:-470}
step() { echo "== $(date -u +%T) $*" | tee -a "$OUT/steps.txt"; }
# seconds for a step: at most $1, and never past the budget (0: skip it)
left() { local l=$((BUDGET - ($(date +%s) - START))); [ "$l" -gt "$1" ] && l=$1; [ "$l" -lt 5 ] && l=0; echo "$l"; }

step "device"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
"$PY" -c "import numba, numpy; from numba import cuda; print(numba.__version__, numpy.__version__, cuda.is_available(), cuda.get_current_device().name if cuda.is_available() else '-')" > "$OUT/versions.txt" 2>&1
cat "$OUT/versions.txt"

step "device helpers compiled to PTX"
timeout "$(left 60)" "$PY" -m dslc.cuda.lowering_check > "$OUT/lowering_check.txt" 2>&1
echo "rc $?" | tee -a "$OUT/lowering_check.txt"

XDIST=$("$PY" -c "import xdist" 2>/dev/null && echo "-n 0")
TESTS=()
for t in tests/cuda/test_device_lowering.py \
         tests/cuda/test_cuda_backend.py::test_cuda_by_name_without_a_device_is_a_clear_error \
         tests/cuda/test_cuda_backend.py::test_random_recurrences_on_the_device \
         tests/cuda/test_cuda_backend.py::test_random_recurrences_in_small_register_tiles; do
  [ -e "${t%%::*}" ] && TESTS+=("$t")
done
step "tests on the device: ${TESTS[*]}"
# -v: each test's outcome is printed as it ends, so a run cut short by its time says which passed
timeout "$(left 130)" "$PY" -m pytest -v -p no:cacheprovider $XDIST "${TESTS[@]}" > "$OUT/tests.txt" 2>&1
echo "rc $?" >> "$OUT/tests.txt"
grep -E "PASSED|FAILED|SKIPPED|ERROR|^rc " "$OUT/tests.txt" | tail -40

step "score profile and packed lanes probe"
timeout "$(left 150)" "$PY" benchmarks/packed_probe.py --proteome .whl/proteome.faa --n "$N" \
    --queries 144,375,1000 --json "$OUT/packed_probe.json" > "$OUT/packed_probe.txt" 2>&1
echo "rc $?" >> "$OUT/packed_probe.txt"
tail -12 "$OUT/packed_probe.txt"

if [ -d .cudasw/src ]; then
  step "CUDASW++4.0 --dpx beside it"
  timeout "$(left 130)" "$PY" benchmarks/cudasw_gpu.py --proteome .whl/proteome.faa --n "$N" \
      --queries 144,375,1000 --kernels dpx --dslc no --json "$OUT/cudasw.json" \
      > "$OUT/cudasw.txt" 2>&1
  echo "rc $?" >> "$OUT/cudasw.txt"
  tail -6 "$OUT/cudasw.txt"
fi

step "the generated kernel (sw_gpu.py, q = 375)"
timeout "$(left 120)" "$PY" benchmarks/sw_gpu.py --proteome .whl/proteome.faa --n "$N" \
    --queries 375 --tiles 32 --cpu-n 200 --json "$OUT/sw_gpu.json" > "$OUT/sw_gpu.txt" 2>&1
echo "rc $?" >> "$OUT/sw_gpu.txt"
tail -4 "$OUT/sw_gpu.txt"
step "done"
