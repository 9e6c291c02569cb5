#!/usr/bin/env bash
# A minute's walk through the woodland at the foothills preset's spawn
# (seed 3), in the real window under Xvfb, recording the mix; prints the
# sound thread's CPU share over the walk from the state dump
# (`sound_cpu_s` over `recording_s`) and what the ambience played.
# Usage: forest_walk.sh BLOCKWORLD OUT_DIR
set -euo pipefail
bw=$1; out=$2; mkdir -p "$out"
export XDG_RUNTIME_DIR=$(mktemp -d) XDG_CONFIG_HOME=$(mktemp -d) XDG_DATA_HOME=$(mktemp -d)
Xvfb :57 -screen 0 1024x768x24 >/dev/null 2>&1 & xvfb=$!
trap 'kill $xvfb 2>/dev/null || true' EXIT
export DISPLAY=:57
sleep 1
world=$(mktemp -d)/forest
"$bw" world new "$world" --preset foothills --seed 3 >/dev/null
"$bw" play --world "$world" --render-distance 4 --size 800x500 --backend cpu --time 0.4 \
  --record-audio "$out/forest.wav" --dump-state "$out/forest.jsonl" --exit-after 100 >"$out/game.log" 2>&1 &
game=$!
for _ in $(seq 120); do
  if [ -s "$out/forest.jsonl" ] && tail -n1 "$out/forest.jsonl" | python3 -c \
    'import json,sys; s=json.loads(sys.stdin.read()); sys.exit(0 if s["complete"]==s["wanted"] else 1)'; then break; fi
  sleep 0.5
done
win=$(xdotool search --name '^blockworld$' | head -n1)
xdotool windowfocus --sync "$win"
xdotool click 1
sleep 1
start=$(wc -l <"$out/forest.jsonl")
# Walk forward, hopping over what is in the way, turning a little now and then.
xdotool keydown w keydown space
for _ in $(seq 12); do sleep 5; xdotool mousemove_relative -- 60 0; done
xdotool keyup space keyup w
end=$(wc -l <"$out/forest.jsonl")
wait $game || true
python3 - "$out/forest.jsonl" "$start" "$end" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
a, b = lines[int(sys.argv[2])], lines[int(sys.argv[3]) - 1]
cpu = b["sound_cpu_s"] - a["sound_cpu_s"]
wall = b["recording_s"] - a["recording_s"]
dist = sum(((q["pos"][0]-p["pos"][0])**2 + (q["pos"][2]-p["pos"][2])**2) ** 0.5
           for p, q in zip(lines[int(sys.argv[2]):int(sys.argv[3])], lines[int(sys.argv[2])+1:int(sys.argv[3])]))
walk = lines[int(sys.argv[2]):int(sys.argv[3])]
heard = {k: sum(1 for l in walk if l["ambience"][k] > 0.001) / len(walk) for k in walk[0]["ambience"]}
print(f"walk: {wall:.1f} s, {dist:.0f} blocks, {b['sounds'] - a['sounds']} sounds started")
print(f"sound thread: {cpu:.3f} s CPU over {wall:.1f} s = {100 * cpu / wall:.2f} % of a core")
print("ambience heard in the dump's seconds: " + ", ".join(f"{k} {100*v:.0f} %" for k, v in heard.items() if v > 0))
print(f"game thread sound work p99 (last 600 frames): {b['sound_ms_p99']:.3f} ms")
PY
