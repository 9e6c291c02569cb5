#!/usr/bin/env bash
# The third device call: build 6dabf0e (32-bit division where exact) on
# one machine with 629917b carried beside it: parity at quick size and the
# vein rows, the sanitizers, crowded veins under the four tools, bench gen
# on the GPU (629917b with veins; the new build with and without veins),
# and Nsight Compute over one bw_fill launch of each build if time is left.
. "$(dirname "$0")/setup.sh"
gunzip -c .dev/bw-old.gz > /tmp/bw-old && chmod +x /tmp/bw-old
{ nvidia-smi; nproc; uname -a; } > "$res/machine.txt" 2>&1
cs=$(command -v compute-sanitizer || find /usr/local /opt -name compute-sanitizer -type f -perm -u+x 2>/dev/null | head -n1)
stamp "start; sanitizer: ${cs:-none}"
GPU_CHECK_BIN=/tmp/bw GPU_CHECK_SIZE=quick GPU_CHECK_STEPS=parity GPU_CHECK_PARITY=chunks \
  timeout 100 bash .ci/gpu-check "$res/check-chunks" > "$res/check-chunks.out" 2>&1
stamp "gpu-check chunk parity (quick): rc=$?"; pack
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
row classic 524280,-2,-524287 524283,1,-524284 9001
row $d/crowded.ron 0,-2,0 7,0,7 9001
row $d/crowded.ron 0,-2,0 7,0,7 9002
stamp "vein parity: $(grep -c $'\tsame$' "$v") same, $(grep -c DIFFERS "$v") differ"; pack
GPU_CHECK_BIN=/tmp/bw GPU_CHECK_SANITIZER="$cs" GPU_CHECK_SIZE=quick GPU_CHECK_STEPS=sanitizer \
  timeout 80 bash .ci/gpu-check "$res/check-sanitizer" > "$res/check-sanitizer.out" 2>&1
stamp "gpu-check sanitizer: rc=$?"; pack
for t in memcheck racecheck initcheck synccheck; do
  timeout 30 "$cs" --tool $t --error-exitcode 1 /tmp/bw region-hash --preset $d/crowded.ron --seed 9001 \
    --from 0,-2,0 --to 3,0,3 --backend gpu > "$res/crowded-$t.txt" 2>&1
  stamp "crowded veins, $t: rc=$?"
done; pack
timeout 35 /tmp/bw-old bench gen --backend gpu --chunks 1024,4096 --repeat 5 --json > "$res/gen-old-veins.json" 2>/dev/null
stamp "bench gen gpu, 629917b, veins: rc=$?"
timeout 35 /tmp/bw bench gen --backend gpu --chunks 1024,4096 --repeat 5 --json > "$res/gen-new-veins.json" 2>/dev/null
stamp "bench gen gpu, new build, veins: rc=$?"
timeout 35 /tmp/bw bench gen --backend gpu --preset $d/noveins.ron --chunks 1024,4096 --repeat 5 --json > "$res/gen-new-noveins.json" 2>/dev/null
stamp "bench gen gpu, new build, no veins: rc=$?"; pack
ncu=$(command -v ncu || find /usr/local /opt -name ncu -type f -perm -u+x 2>/dev/null | head -n1)
for b in bw bw-old; do
  left=$(( 250 - ($(date +%s) - t0) )); [ $left -gt 15 ] || break
  timeout $left "$ncu" --kernel-name bw_fill --launch-count 1 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section LaunchStats /tmp/$b region-hash --preset classic --seed 9001 \
    --from 0,-2,0 --to 15,1,15 --backend gpu > "$res/ncu-$b.txt" 2>&1
  stamp "ncu bw_fill, $b: rc=$?"; pack
done
