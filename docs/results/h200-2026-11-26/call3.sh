#!/usr/bin/env bash
# Third device call: the flights of call 2 again on the final far view
# (its upload backlog), both engines in one call.
. "$(dirname "$0")/setup.sh"
nvidia-smi -L > "$res/machine.txt" 2>&1
stamp start
for b in gpu cpu; do
  timeout 80 /tmp/bw bench flight --backend $b --render-distance 12 --horizon 32000 --speed 100 --seconds 60 --json > "$res/flight-horizon-$b.json" 2> "$res/flight-horizon-$b.err"
  stamp "flight horizon 32000 --backend $b: rc=$?"; pack
done
