#!/usr/bin/env bash
# Third device call: the flights of call 2 again on the final far view
# (its upload backlog), both engines in one call.
set -u
res=/tmp/res; mkdir -p "$res"
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$res/steps.txt"; }
pack() { tar -czf "$OUT/all.tar.gz" -C "$res" . 2>/dev/null; cp "$res/steps.txt" "$OUT/steps.txt"; }
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done; ldconfig
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES="$icd"
gunzip -c .dev/bw.gz > /tmp/bw && chmod +x /tmp/bw
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p $XDG_RUNTIME_DIR; chmod 700 $XDG_RUNTIME_DIR
nvidia-smi -L > "$res/machine.txt" 2>&1
stamp start
for b in gpu cpu; do
  timeout 80 /tmp/bw bench flight --backend $b --render-distance 12 --horizon 32000 --speed 100 --seconds 60 --json > "$res/flight-horizon-$b.json" 2> "$res/flight-horizon-$b.err"
  stamp "flight horizon 32000 --backend $b: rc=$?"; pack
done
