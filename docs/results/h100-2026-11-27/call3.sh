#!/usr/bin/env bash
# The third device call: plants back in bw_fill (call 2's move into
# bw_decorate reverted), with the shore check taking the heights at hand
# first and sampling a column beyond by its four diagonal samples only.
# Chunk parity at quick size, the decoration rows, the four sanitizers
# over a decorated box, Nsight Compute per kernel against 77dcbb7
# (bw-old) for classic and classic without the shore reach, and bench gen
# on the GPU for both builds while time is left.
. docs/results/h100-2026-11-26/setup.sh
d=docs/results/h100-2026-11-27
gunzip -c .dev/bw-old.gz > /tmp/bw-old && chmod +x /tmp/bw-old
python3 $d/variants.py /tmp/var
{ nvidia-smi; nproc; uname -a; } > "$res/machine.txt" 2>&1
cs=$(command -v compute-sanitizer || find /usr/local /opt -name compute-sanitizer -type f -perm -u+x 2>/dev/null | head -n1)
ncu=$(command -v ncu || find /usr/local /opt -name ncu -type f -perm -u+x 2>/dev/null | head -n1)
stamp "start"
GPU_CHECK_BIN=/tmp/bw GPU_CHECK_SIZE=quick GPU_CHECK_STEPS=parity GPU_CHECK_PARITY=chunks \
  timeout 80 bash .ci/gpu-check "$res/check-chunks" > "$res/check-chunks.out" 2>&1
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
stamp "decoration parity: $(grep -c $'\tsame$' "$v") same, $(grep -c DIFFERS "$v") differ"; pack
for t in memcheck racecheck initcheck synccheck; do
  timeout 30 "$cs" --tool $t --error-exitcode 1 /tmp/bw region-hash --preset classic --seed 9001 \
    --from -4,-1,-4 --to 3,1,3 --backend gpu > "$res/decor-$t.txt" 2>&1
  stamp "decorated box, $t: rc=$?"
done; pack
k() { # name binary preset
  timeout 20 "$ncu" --kernel-name regex:'bw_heightmap|bw_fill|bw_decorate|bw_density' \
    --launch-count 40 --metrics gpu__time_duration.sum,launch__registers_per_thread --csv \
    "$2" region-hash --preset "$3" --seed 9001 --from -8,-1,-8 --to 7,1,7 --backend gpu > "$res/ncu-$1.csv" 2>&1
  stamp "ncu $1: rc=$?"
}
for b in old new; do bin=/tmp/bw; [ $b = old ] && bin=/tmp/bw-old
  k "$b-classic" $bin classic; k "$b-no-shore" $bin /tmp/var/no-shore.ron; done; pack
for b in new old; do bin=/tmp/bw; [ $b = old ] && bin=/tmp/bw-old
  [ $(( $(date +%s) - t0 )) -lt 110 ] || break
  timeout 45 $bin bench gen --backend gpu --chunks 1024,4096 --repeat 5 --json > "$res/gen-$b-classic.json" 2>"$res/gen-$b-classic.err"
  stamp "bench gen gpu $b-classic: rc=$?"; pack
done
stamp done; pack
