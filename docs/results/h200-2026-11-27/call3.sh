#!/usr/bin/env bash
# The new gpu-check image rows on the device; bench placement and bench lattice on its 16 cores.
set -u
t0=$(date +%s)
mkdir -p /tmp/r3 /tmp/bwbin
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a /tmp/r3/steps.txt; }
gunzip -c .dev/gpu/bw.gz > /tmp/bwbin/blockworld && chmod +x /tmp/bwbin/blockworld
b=/tmp/bwbin/blockworld
export BLOCKWORLD_NVRTC=$(ls /usr/local/cuda/lib64/libnvrtc.so* 2>/dev/null | head -n1)
GPU_CHECK_BIN=$b GPU_CHECK_SIZE=quick GPU_CHECK_STEPS=parity GPU_CHECK_PARITY=images timeout 60 bash .ci/gpu-check /tmp/r3/images > /tmp/r3/images.out 2>&1
echo "images rc=$?" >> /tmp/r3/steps.txt; stamp images
timeout 60 $b bench placement --repeat 9 > /tmp/r3/placement.txt 2>&1; stamp placement
timeout 40 $b bench placement --repeat 9 --json > /tmp/r3/placement.json 2>/dev/null; stamp placement-json
timeout 60 $b bench lattice --repeat 3 > /tmp/r3/lattice.txt 2>&1; stamp lattice
cp /tmp/r3/images/report.md "$OUT/check-images.md"; cp /tmp/r3/images/parity.tsv "$OUT/check-images.tsv"
cp /tmp/r3/placement.txt /tmp/r3/placement.json /tmp/r3/lattice.txt /tmp/r3/steps.txt "$OUT/"
cat /tmp/r3/steps.txt /tmp/r3/images/report.md /tmp/r3/placement.txt /tmp/r3/lattice.txt
