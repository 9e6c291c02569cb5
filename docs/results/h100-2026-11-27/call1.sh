#!/usr/bin/env bash
# One device call (build 77dcbb7): everything that landed since the last
# GPU (density maps for trees and plants, shore reach, rocks and fallen
# logs) on the real device: chunk parity at quick size, decoration-heavy
# boxes against the CPU with a negative control, the four sanitizers over
# them, bench gen on the GPU for classic, classic unfurnished and the
# switch evaluator, Nsight Compute's time of each heightmap kernel, and
# the far terrain's parity. Results packed into $OUT after every step.
. docs/results/h100-2026-11-26/setup.sh
d=docs/results/h100-2026-11-27
left() { echo $(( ${BUDGET:-420} - ($(date +%s) - t0) )); }
{ nvidia-smi; nproc; uname -a; } > "$res/machine.txt" 2>&1
cs=$(command -v compute-sanitizer || find /usr/local /opt -name compute-sanitizer -type f -perm -u+x 2>/dev/null | head -n1)
ncu=$(command -v ncu || find /usr/local /opt -name ncu -type f -perm -u+x 2>/dev/null | head -n1)
stamp "start; sanitizer: ${cs:-none}; ncu: ${ncu:-none}"
GPU_CHECK_BIN=/tmp/bw GPU_CHECK_SIZE=quick GPU_CHECK_STEPS=parity GPU_CHECK_PARITY=chunks \
  timeout 120 bash .ci/gpu-check "$res/check-chunks" > "$res/check-chunks.out" 2>&1
stamp "gpu-check chunk parity (quick): rc=$?"; pack
v="$res/decor.tsv"; printf 'preset\tbox\tcpu seed\tevaluator\tcpu\tdevice\tresult\n' > "$v"
row() { # preset from to cpu_seed
  c=$(/tmp/bw region-hash --preset "$1" --seed "$4" --from "$2" --to "$3" --backend cpu 2>>"$res/decor.err" | awk 'END{print $1}')
  for p in virtual switch; do
    g=$(BLOCKWORLD_KERNEL_PATH=$p /tmp/bw region-hash --preset "$1" --seed 9001 --from "$2" --to "$3" --backend gpu 2>>"$res/decor.err" | awk 'END{print $1}')
    r=same; [ -n "$c" ] && [ "$c" = "$g" ] || r=DIFFERS
    printf '%s\t%s..%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$p" "$c" "${g:-error}" "$r" >> "$v"
  done
}
row classic -8,-1,-8 7,1,7 9001
row classic 100000,-1,-100008 100015,1,-99993 9001
row classic -8,-1,-8 7,1,7 9002
row $d/unfurnished.ron -4,-1,-4 3,1,3 9001
stamp "decoration parity: $(grep -c $'\tsame$' "$v") same, $(grep -c DIFFERS "$v") differ"; pack
GPU_CHECK_BIN=/tmp/bw GPU_CHECK_SANITIZER="$cs" GPU_CHECK_SIZE=quick GPU_CHECK_STEPS=sanitizer \
  timeout 120 bash .ci/gpu-check "$res/check-sanitizer" > "$res/check-sanitizer.out" 2>&1
stamp "gpu-check sanitizer: rc=$?"; pack
for t in memcheck racecheck initcheck synccheck; do
  timeout 40 "$cs" --tool $t --error-exitcode 1 /tmp/bw region-hash --preset classic --seed 9001 \
    --from -4,-1,-4 --to 3,1,3 --backend gpu > "$res/decor-$t.txt" 2>&1
  stamp "decorated box, $t: rc=$?"
done; pack
g() { # name, then env and args
  local n=$1; shift
  timeout 50 env "$@" /tmp/bw bench gen --backend gpu --chunks 1024,4096 --repeat 5 --json > "$res/gen-$n.json" 2>"$res/gen-$n.err"
  stamp "bench gen gpu $n: rc=$?"; pack
}
g classic BLOCKWORLD_KERNEL_PATH=virtual
g unfurnished BLOCKWORLD_KERNEL_PATH=virtual --preset $d/unfurnished.ron
g switch BLOCKWORLD_KERNEL_PATH=switch
g classic2 BLOCKWORLD_KERNEL_PATH=virtual
for p in virtual switch; do
  [ "$(left)" -gt 40 ] || break
  BLOCKWORLD_KERNEL_PATH=$p timeout 40 "$ncu" --kernel-name regex:'bw_heightmap|bw_far_cells|bw_fill|bw_decorate|bw_density' \
    --launch-count 40 --metrics gpu__time_duration.sum,launch__registers_per_thread --csv \
    /tmp/bw region-hash --preset classic --seed 9001 --from -8,-1,-8 --to 7,1,7 --backend gpu > "$res/ncu-$p.csv" 2>&1
  stamp "ncu kernels, $p: rc=$?"; pack
done
if [ "$(left)" -gt 60 ]; then
  GPU_CHECK_BIN=/tmp/bw GPU_CHECK_SIZE=quick GPU_CHECK_STEPS=parity GPU_CHECK_PARITY=far \
    timeout $(( $(left) - 5 )) bash .ci/gpu-check "$res/check-far" > "$res/check-far.out" 2>&1
  stamp "gpu-check far parity (quick): rc=$?"; pack
fi
stamp done; pack
