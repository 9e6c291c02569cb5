#!/usr/bin/env bash
# One device call: far-cell parity and sanitizers on the real GPU, chunk
# parity (small), bench gen (far cells per engine), bench view --horizon
# and two flights on the GPU's own Vulkan. Results packed into $OUT after
# every step, so a call cut short still returns what finished.
. "$(dirname "$0")/setup.sh"
{ nvidia-smi; nproc; uname -a; ls -la /usr/local/nvidia/share/vulkan/icd.d/ 2>&1; ldconfig -p | grep -i vulkan; } > "$res/machine.txt" 2>&1
cs=$(command -v compute-sanitizer || find /usr/local /opt -name compute-sanitizer -type f -perm -u+x 2>/dev/null | head -n1)
stamp "start; sanitizer: ${cs:-none}"
GPU_CHECK_BIN=/tmp/bw GPU_CHECK_SANITIZER="$cs" GPU_CHECK_SIZE=quick GPU_CHECK_STEPS=parity,sanitizer GPU_CHECK_PARITY=far \
  timeout 240 bash .ci/gpu-check "$res/check-far" > "$res/check-far.out" 2>&1
stamp "gpu-check far parity + sanitizer: rc=$?"; pack
GPU_CHECK_BIN=/tmp/bw GPU_CHECK_SIZE=small GPU_CHECK_STEPS=parity GPU_CHECK_PARITY=chunks \
  timeout 50 bash .ci/gpu-check "$res/check-chunks" > "$res/check-chunks.out" 2>&1
stamp "gpu-check chunk parity (small): rc=$?"; pack
timeout 80 /tmp/bw bench gen --backend all --chunks 1024,4096 --repeat 3 --json > "$res/gen.json" 2> "$res/gen.err"
stamp "bench gen: rc=$?"; pack
timeout 80 /tmp/bw bench view --render-distance 12 --horizon 32000 --runs 3 --json > "$res/view-horizon.json" 2> "$res/view-horizon.err"
stamp "bench view --horizon 32000: rc=$?"; pack
timeout 80 /tmp/bw bench flight --render-distance 12 --horizon 32000 --speed 100 --seconds 60 --json > "$res/flight-horizon.json" 2> "$res/flight-horizon.err"
stamp "flight horizon 32000: rc=$?"; pack
timeout 45 /tmp/bw bench flight --render-distance 12 --horizon 0 --speed 100 --seconds 30 --json > "$res/flight-nohorizon.json" 2> "$res/flight-nohorizon.err"
stamp "flight no horizon: rc=$?"; pack
