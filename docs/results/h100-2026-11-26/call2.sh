#!/usr/bin/env bash
# The second device call: build e22fdc8 (bw_vein_block with 32-bit
# arithmetic and a box test) against 629917b, both carried, on one machine.
# Parity at quick size and the vein rows, the sanitizers, crowded veins
# under the four tools, then bench gen on the GPU with and without veins
# for both builds, interleaved.
. "$(dirname "$0")/setup.sh"
gunzip -c .dev/bw-old.gz > /tmp/bw-old && chmod +x /tmp/bw-old
{ nvidia-smi; nproc; uname -a; } > "$res/machine.txt" 2>&1
cs=$(command -v compute-sanitizer || find /usr/local /opt -name compute-sanitizer -type f -perm -u+x 2>/dev/null | head -n1)
stamp "start; sanitizer: ${cs:-none}"
GPU_CHECK_BIN=/tmp/bw GPU_CHECK_SIZE=quick GPU_CHECK_STEPS=parity GPU_CHECK_PARITY=chunks \
  timeout 120 bash .ci/gpu-check "$res/check-chunks" > "$res/check-chunks.out" 2>&1
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
row $d/crowded.ron 0,-2,0 7,0,7 9001
row $d/crowded.ron 0,-2,0 7,0,7 9002
stamp "vein parity: $(grep -c $'\tsame$' "$v") same, $(grep -c DIFFERS "$v") differ"; pack
GPU_CHECK_BIN=/tmp/bw GPU_CHECK_SANITIZER="$cs" GPU_CHECK_SIZE=quick GPU_CHECK_STEPS=sanitizer \
  timeout 120 bash .ci/gpu-check "$res/check-sanitizer" > "$res/check-sanitizer.out" 2>&1
stamp "gpu-check sanitizer: rc=$?"; pack
for t in memcheck racecheck initcheck synccheck; do
  timeout 40 "$cs" --tool $t --error-exitcode 1 /tmp/bw region-hash --preset $d/crowded.ron --seed 9001 \
    --from 0,-2,0 --to 3,0,3 --backend gpu > "$res/crowded-$t.txt" 2>&1
  stamp "crowded veins, $t: rc=$?"
done; pack
for round in 1 2; do
  for b in old new; do
    bin=/tmp/bw; [ $b = old ] && bin=/tmp/bw-old
    timeout 40 $bin bench gen --backend gpu --chunks 1024,4096 --repeat 5 --json > "$res/gen-$b-veins-$round.json" 2>/dev/null
    stamp "bench gen gpu, $b build, veins, round $round: rc=$?"
    timeout 40 $bin bench gen --backend gpu --preset $d/noveins.ron --chunks 1024,4096 --repeat 5 --json > "$res/gen-$b-noveins-$round.json" 2>/dev/null
    stamp "bench gen gpu, $b build, no veins, round $round: rc=$?"; pack
  done
done
