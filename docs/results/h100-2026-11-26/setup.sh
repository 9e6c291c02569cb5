# Sourced by each call's script: the machine's Vulkan loader and driver
# files, the carried binary at /tmp/bw, and stamp/pack, which pack the
# results into $OUT after every step so a call cut short still returns
# what finished.
set -u
res=/tmp/res; mkdir -p "$res"
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*" | tee -a "$res/steps.txt"; }
pack() { tar -czf "$OUT/all.tar.gz" -C "$res" . 2>/dev/null; cp "$res/steps.txt" "$OUT/steps.txt"; }
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done; ldconfig
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES="$icd"
egl=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$egl" ] && export __EGL_VENDOR_LIBRARY_FILENAMES="$egl"
gunzip -c .dev/bw.gz > /tmp/bw && chmod +x /tmp/bw
export XDG_RUNTIME_DIR=/tmp/xdg; mkdir -p $XDG_RUNTIME_DIR; chmod 700 $XDG_RUNTIME_DIR
