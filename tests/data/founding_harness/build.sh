#!/usr/bin/env bash
# Builds the founding game's own world generator (worldgen.c, noise.c and
# noise1234 from a checkout of jdah/minecraft-weekend, unmodified) with the
# stand-in headers here, and makes tests/data/founding_columns.txt:
#   bash tests/data/founding_harness/build.sh PATH/TO/minecraft-weekend
# Only the harness is ours; the founding game's sources are read from the
# checkout and never copied into this repository.
set -euo pipefail
src=${1:?usage: build.sh PATH/TO/minecraft-weekend}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src/world/gen" "$work/src/util"
cp "$src"/src/world/gen/{worldgen.c,worldgen.h,noise.c,noise.h} "$work/src/world/gen/"
cp "$here/util.h" "$work/src/util/util.h"
cp "$here/chunk.h" "$here/world.h" "$work/src/world/"
cp "$here/driver.c" "$work/"
gcc -O2 -std=gnu11 -w -I "$src/lib/noise" -o "$work/driver" "$work/driver.c" "$work"/src/world/gen/{worldgen.c,noise.c} \
    "$src/lib/noise/noise1234.c" -lm
# Seeds 42 and 7, 640-block squares at four places, every fifth column;
# kept: columns inside their chunk (the founding game's stencil clamps at a
# chunk's edge, where blockworld reads the neighbour), one in 200.
out="$here/../founding_columns.txt"
{
    echo "# seed x z height biome top: the founding game's own generator (tests/data/founding_harness/build.sh)"
    echo "# biome: the founding game's index (ocean 0 ... mountain 13); top: 1 grass 2 dirt 3 stone 4 sand 5 water 6 snow 7 podzol"
    for seed in 42 7; do
        for at in "0 0" "1500 -900" "-3100 2400" "6000 6000"; do
            # shellcheck disable=SC2086
            "$work/driver" "$seed" $at 640 5 | awk -v s="$seed" '{print s, $0}'
        done
    done | awk '{lx=(($2%32)+32)%32; lz=(($3%32)+32)%32; if (lx>=1 && lx<=30 && lz>=1 && lz<=30) print $1,$2,$3,$4,$5,$6}' | awk 'NR%200==1'
} > "$out"
echo "wrote $(grep -vc '^#' "$out") columns to $out"
