#!/usr/bin/env bash
set -u
t0=$(date +%s)
mkdir -p /tmp/r2 /tmp/bwbin
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a /tmp/r2/times.txt; }
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
gunzip -c .dev/gpu/bw.gz > /tmp/bwbin/blockworld && chmod +x /tmp/bwbin/blockworld
b=/tmp/bwbin/blockworld
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p -m 700 /tmp/xdg
nv=$(ls /usr/local/cuda/lib64/libnvrtc.so* 2>/dev/null | head -n1)
{ for img in cuda12 nvrtc; do for p in classic alpine; do
    cpu=$($b region-hash --preset $p --seed 9001 --from 37,-2,-61 --to 40,2,-58 --backend cpu | awk 'END{print $1}')
    dev=$(BLOCKWORLD_KERNEL_IMAGE=$img BLOCKWORLD_NVRTC=$nv $b region-hash --preset $p --seed 9001 --from 37,-2,-61 --to 40,2,-58 --backend gpu 2>&1 | tail -n1)
    echo "$img $p cpu=$cpu dev=$dev $([ "$cpu" = "${dev%% *}" ] && echo same || echo DIFFERS)"
  done
  BLOCKWORLD_KERNEL_IMAGE=$img BLOCKWORLD_NVRTC=$nv $b bench gen --backend gpu --chunks 16 --repeat 1 2>&1 | grep -m1 -i "kernels from"
done; } > /tmp/r2/images.txt 2>&1
stamp images
timeout 130 $b bench gen --backend all --json > /tmp/r2/gen-full.json 2> /tmp/r2/gen-full.err; echo "gen rc=$?" >> /tmp/r2/times.txt; stamp gen
GPU_CHECK_BIN=$b GPU_CHECK_STEPS=flight GPU_CHECK_FLIGHT_SECONDS=40 timeout 250 bash .ci/gpu-check /tmp/r2/flight > /tmp/r2/flight.out 2>&1
echo "flight rc=$?" >> /tmp/r2/times.txt; stamp flight
tar czf "$OUT/results2.tgz" -C /tmp r2
cp /tmp/r2/images.txt /tmp/r2/times.txt "$OUT/"; cp /tmp/r2/flight/report.md "$OUT/flight.md" 2>/dev/null
cat /tmp/r2/images.txt /tmp/r2/times.txt
