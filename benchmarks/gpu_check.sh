#!/usr/bin/env bash
# The GPU checks of the CUDA strategies, in one command on a GPU machine (under 8 minutes):
# the CUDA tests that matter on a real device, then the Smith-Waterman kernel benchmark
# (and CUDASW++4.0 beside it where its source is in .cudasw/src, built by cudasw_gpu.py).
#
#     OUT=/some/dir bash benchmarks/gpu_check.sh
#
# Run from the repository root; every result is written under $OUT (default ./gpu_check_out).
set -u
OUT=${OUT:-gpu_check_out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
export DSLC_CACHE_DIR=${DSLC_CACHE_DIR:-/tmp/dslc-gpu-check-cache}
unset NUMBA_ENABLE_CUDASIM
N=${GPU_CHECK_N:-1000000}
step() { echo "== $(date -u +%T) $*" | tee -a "$OUT/steps.txt"; }

step "device"
nvidia-smi > "$OUT/nvidia-smi.txt" 2>&1
"$PY" -c "import numba, numpy; from numba import cuda; print(numba.__version__, numpy.__version__, cuda.is_available(), cuda.get_current_device().name if cuda.is_available() else '-')" > "$OUT/versions.txt" 2>&1

step "device helpers compiled to PTX"
timeout 120 "$PY" -m dslc.cuda.lowering_check > "$OUT/lowering_check.txt" 2>&1
echo "rc $?" >> "$OUT/lowering_check.txt"

XDIST=$("$PY" -c "import xdist" 2>/dev/null && echo "-n 0")
TESTS=()
for t in tests/cuda/test_device_lowering.py tests/cuda/test_score_profiles.py \
         tests/cuda/test_packed_lanes.py \
         tests/cuda/test_cuda_backend.py::test_random_recurrences_on_the_device \
         tests/cuda/test_cuda_backend.py::test_random_recurrences_in_small_register_tiles \
         tests/cuda/test_cuda_backend.py::test_cuda_by_name_without_a_device_is_a_clear_error \
         tests/cuda/test_cuda_backend.py::test_gotoh_map_runs_on_the_device_and_matches; do
  [ -e "${t%%::*}" ] && TESTS+=("$t")
done
step "tests on the device: ${TESTS[*]}"
timeout 200 "$PY" -m pytest -q -p no:cacheprovider $XDIST "${TESTS[@]}" > "$OUT/tests.txt" 2>&1
echo "rc $?" >> "$OUT/tests.txt"
tail -5 "$OUT/tests.txt"

step "Smith-Waterman kernel, dslc"
timeout 170 "$PY" benchmarks/sw_gpu.py --proteome .whl/proteome.faa --n "$N" \
    --queries 144,375,1000 --tiles 32 --cpu-n 200 --json "$OUT/sw_gpu.json" \
    > "$OUT/sw_gpu.txt" 2>&1
echo "rc $?" >> "$OUT/sw_gpu.txt"
tail -15 "$OUT/sw_gpu.txt"

if [ -d .cudasw/src ]; then
  step "CUDASW++4.0 --dpx beside it"
  timeout 170 "$PY" benchmarks/cudasw_gpu.py --proteome .whl/proteome.faa --n "$N" \
      --queries 144,375,1000 --kernels dpx --dslc no --json "$OUT/cudasw.json" \
      > "$OUT/cudasw.txt" 2>&1
  echo "rc $?" >> "$OUT/cudasw.txt"
  tail -8 "$OUT/cudasw.txt"
fi
step "done"
