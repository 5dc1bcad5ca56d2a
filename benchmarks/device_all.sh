#!/usr/bin/env bash
# The prepared device check, one script for a lent GPU machine (16 cores): the checks that need
# a GPU or many cores, each with its output kept under $OUT (or ./device-out). Run from the
# repository root after `pip install -e '.[frontends,test]'`:
#     bash benchmarks/device_all.sh
# Each step runs even when an earlier one fails; the exit status is the number that failed.
set -u
out="${OUT:-device-out}"
mkdir -p "$out"
failed=0
step() {  # name, command...
  local name=$1
  shift
  echo "== $name: $*"
  "$@" >"$out/$name.txt" 2>&1 || failed=$((failed + 1))
  tail -n 25 "$out/$name.txt"
}
nvidia-smi >"$out/nvidia-smi.txt" 2>&1
step occupancy python benchmarks/device_occupancy.py
step memory python benchmarks/device_memory.py
# pytest-xdist's wall ratio with the cores to show it (#36: measured where 16 are lent)
step xdist python benchmarks/bench_xdist.py --workers 8 --kernels 40
exit "$failed"
