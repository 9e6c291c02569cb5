#!/usr/bin/env bash
# One device call on build 629917b: the first real-GPU run of the ore veins
# (bw_gather_veins inside bw_fill). Chunk parity at quick size, extra vein
# parity (a deep box, a held-out deep box, crowded veins, and a negative
# control), the sanitizers, crowded veins under memcheck and racecheck,
# bench gen with and without veins, then far parity if time is left.
# Results are packed into $OUT after every step.
. "$(dirname "$0")/setup.sh"
{ nvidia-smi; nproc; uname -a; } > "$res/machine.txt" 2>&1
cs=$(command -v compute-sanitizer || find /usr/local /opt -name compute-sanitizer -type f -perm -u+x 2>/dev/null | head -n1)
stamp "start; sanitizer: ${cs:-none}"
GPU_CHECK_BIN=/tmp/bw GPU_CHECK_SIZE=quick GPU_CHECK_STEPS=parity GPU_CHECK_PARITY=chunks \
  timeout 170 bash .ci/gpu-check "$res/check-chunks" > "$res/check-chunks.out" 2>&1
stamp "gpu-check chunk parity (quick): rc=$?"; pack
# Vein parity: region-hash on the device against the CPU, both evaluators.
d=.dev; v="$res/veins.tsv"; printf 'preset\tbox\tcpu seed\tevaluator\tcpu\tdevice\tresult\n' > "$v"
row() { # preset from to cpu_seed
  c=$(/tmp/bw region-hash --preset "$1" --seed "$4" --from "$2" --to "$3" --backend cpu 2>>"$res/veins.err" | awk 'END{print $1}')
  for p in virtual switch; do
    g=$(BLOCKWORLD_KERNEL_PATH=$p /tmp/bw region-hash --preset "$1" --seed 9001 --from "$2" --to "$3" --backend gpu 2>>"$res/veins.err" | awk 'END{print $1}')
    r=same; [ -n "$c" ] && [ "$c" = "$g" ] || r=DIFFERS
    printf '%s\t%s..%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$p" "$c" "${g:-error}" "$r" >> "$v"
  done
}
row classic 0,-2,0 15,-1,15 9001
row classic 100000,-2,-100000 100007,-1,-99993 9001
row $d/crowded.ron 0,-2,0 7,0,7 9001
row $d/crowded.ron 0,-2,0 7,0,7 9002
stamp "vein parity: $(grep -c $'\tsame$' "$v") same, $(grep -c DIFFERS "$v") differ"; pack
GPU_CHECK_BIN=/tmp/bw GPU_CHECK_SANITIZER="$cs" GPU_CHECK_SIZE=quick GPU_CHECK_STEPS=sanitizer \
  timeout 200 bash .ci/gpu-check "$res/check-sanitizer" > "$res/check-sanitizer.out" 2>&1
stamp "gpu-check sanitizer: rc=$?"; pack
for t in memcheck racecheck initcheck synccheck; do
  timeout 40 "$cs" --tool $t --error-exitcode 1 /tmp/bw region-hash --preset $d/crowded.ron --seed 9001 \
    --from 0,-2,0 --to 3,0,3 --backend gpu > "$res/crowded-$t.txt" 2>&1
  stamp "crowded veins, $t: rc=$?"
done; pack
timeout 90 /tmp/bw bench gen --backend all --chunks 1024,4096 --repeat 3 --json > "$res/gen-classic.json" 2> "$res/gen-classic.err"
stamp "bench gen classic: rc=$?"; pack
timeout 40 /tmp/bw bench gen --backend gpu --preset $d/noveins.ron --chunks 1024,4096 --repeat 3 --json > "$res/gen-gpu-noveins.json" 2> "$res/gen-gpu-noveins.err"
stamp "bench gen gpu without veins: rc=$?"; pack
timeout 40 /tmp/bw bench gen --backend gpu --chunks 1024,4096 --repeat 3 --json > "$res/gen-gpu-veins.json" 2> "$res/gen-gpu-veins.err"
stamp "bench gen gpu with veins: rc=$?"; pack
left=$(( 530 - ($(date +%s) - t0) ))
if [ $left -gt 40 ]; then
  GPU_CHECK_BIN=/tmp/bw GPU_CHECK_SIZE=quick GPU_CHECK_STEPS=parity GPU_CHECK_PARITY=far \
    timeout $left bash .ci/gpu-check "$res/check-far" > "$res/check-far.out" 2>&1
  stamp "gpu-check far parity (quick): rc=$?"; pack
fi
