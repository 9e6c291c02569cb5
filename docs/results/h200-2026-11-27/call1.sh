#!/usr/bin/env bash
# One lent-GPU slot: gpu-check split into timed parts, results under $OUT.
set -u
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a /tmp/r/times.txt; }
mkdir -p /tmp/r /tmp/bwbin
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
gunzip -c .dev/gpu/bw.gz > /tmp/bwbin/blockworld && chmod +x /tmp/bwbin/blockworld
export GPU_CHECK_BIN=/tmp/bwbin/blockworld GPU_CHECK_SIZE=quick
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -f $icd ] && ! ls /usr/share/vulkan/icd.d/*nvidia* /etc/vulkan/icd.d/*nvidia* >/dev/null 2>&1; then export VK_DRIVER_FILES=$icd; fi
egl=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f $egl ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$egl
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer /opt/nvidia/*/compute-sanitizer 2>/dev/null | head -n1)
export GPU_CHECK_SANITIZER=$cs
{ nvidia-smi; echo "nproc $(nproc)"; uname -a; lscpu | grep -E 'Model name|^CPU\(s\)'; echo "sanitizer: $cs"; "$cs" --version;
  ls /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/nvidia/share/vulkan/icd.d 2>&1; echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-}"; } > /tmp/r/env.txt 2>&1
stamp start
GPU_CHECK_STEPS=parity GPU_CHECK_PARITY=chunks timeout 220 bash .ci/gpu-check /tmp/r/parity > /tmp/r/parity.out 2>&1 &
p1=$!
GPU_CHECK_STEPS=parity GPU_CHECK_PARITY=far timeout 220 bash .ci/gpu-check /tmp/r/far > /tmp/r/far.out 2>&1 &
p3=$!
GPU_CHECK_STEPS=sanitizer timeout 220 bash .ci/gpu-check /tmp/r/sanitizer > /tmp/r/sanitizer.out 2>&1 &
p2=$!
wait $p1; echo "parity rc=$?" >> /tmp/r/times.txt; stamp parity
wait $p3; echo "far rc=$?" >> /tmp/r/times.txt; stamp far
wait $p2; echo "sanitizer rc=$?" >> /tmp/r/times.txt; stamp sanitizer
GPU_CHECK_NEGATIVE=1 GPU_CHECK_PRESETS=classic GPU_CHECK_PARITY=chunks GPU_CHECK_STEPS=parity timeout 40 bash .ci/gpu-check /tmp/r/negative > /tmp/r/negative.out 2>&1
echo "negative rc=$?" >> /tmp/r/times.txt; stamp negative
GPU_CHECK_STEPS=gen timeout 70 bash .ci/gpu-check /tmp/r/gen > /tmp/r/gen.out 2>&1
echo "gen rc=$?" >> /tmp/r/times.txt; stamp gen
GPU_CHECK_STEPS=flight GPU_CHECK_FLIGHT_SECONDS=15 timeout 140 bash .ci/gpu-check /tmp/r/flight > /tmp/r/flight.out 2>&1
echo "flight rc=$?" >> /tmp/r/times.txt; stamp flight
left=$(( 545 - ($(date +%s) - t0) ))
if [ $left -gt 20 ]; then
  GPU_CHECK_STEPS=frames timeout $left bash .ci/gpu-check /tmp/r/frames > /tmp/r/frames.out 2>&1
  echo "frames rc=$?" >> /tmp/r/times.txt; stamp frames
fi
tar czf "$OUT/results.tgz" -C /tmp r
cp /tmp/r/env.txt /tmp/r/times.txt "$OUT/"
for d in parity far sanitizer negative gen flight frames; do echo "=== $d"; cat /tmp/r/$d/report.md 2>/dev/null || tail -5 /tmp/r/$d.out; done > "$OUT/reports.md"
cat /tmp/r/times.txt
