#!/usr/bin/env bash
# Second device call: far terrain with its columns on the GPU in the game
# path (bench view --horizon and bench flight, --backend gpu), beside the
# same on the CPU in the same call, on the GPU's own Vulkan.
. "$(dirname "$0")/setup.sh"
nvidia-smi -L > "$res/machine.txt" 2>&1
stamp start
for b in gpu cpu; do
  timeout 60 /tmp/bw bench view --backend $b --render-distance 12 --horizon 32000 --runs 3 --json > "$res/view-horizon-$b.json" 2> "$res/view-horizon-$b.err"
  stamp "bench view --horizon 32000 --backend $b: rc=$?"; pack
done
for b in gpu cpu; do
  timeout 80 /tmp/bw bench flight --backend $b --render-distance 12 --horizon 32000 --speed 100 --seconds 60 --json > "$res/flight-horizon-$b.json" 2> "$res/flight-horizon-$b.err"
  stamp "flight horizon 32000 --backend $b: rc=$?"; pack
done
timeout 50 /tmp/bw bench flight --backend cpu --render-distance 12 --horizon 0 --speed 100 --seconds 30 --json > "$res/flight-nohorizon-cpu.json" 2> "$res/flight-nohorizon-cpu.err"
stamp "flight no horizon cpu: rc=$?"; pack
