"""Writes classic.ron with one furnishing removed per file, for the GPU's
furnishing figures: python3 variants.py OUT_DIR (run from the repository
root). `unfurnished` removes them all, as bench view's variant does
(src/bench/view.rs, `unfurnished`)."""
import os
import re
import sys

CUTS = {
    # rock kinds stay listed; no biome lays any
    "rocks": [(r",\s*rocks: \[\([^\]]*\]", "")],
    "groves": [(r"\n\s*tree_density: \([^)]*\),", " ")],
    "plant_maps": [(r",\s*density: \([^)]*\)", "")],
    "shore": [(r", shore: \d", "")],
    "veins": [(r"\n    // Ore veins.*?\n    veins: \(.*?\n    \),\n", "\n")],
}


def cut(text, names):
    for name in names:
        for pattern, to in CUTS[name]:
            text, n = re.subn(pattern, to, text, flags=re.S)
            if n == 0:
                sys.exit(f"variants.py: no {name} in classic.ron")
    return text


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    classic = open("assets/worldgen/classic.ron").read()
    for name in CUTS:
        text = cut(classic, [name]).replace('name: "classic"', f'name: "classic-no-{name}"')
        open(os.path.join(out, f"no-{name}.ron"), "w").write(text)
    text = cut(classic, list(CUTS)).replace('name: "classic"', 'name: "classic-unfurnished"')
    open(os.path.join(out, "unfurnished.ron"), "w").write(text)


main()
