/* Runs the founding game's worldgen_generate on chunks and prints, per
 * column: x z height biome top_block defect, where defect is 1 where the
 * founding game's peak formula leaves its domain (|p| > 1 or n > 1) and
 * blockworld's clamp differs by design. Usage: driver SEED X0 Z0 SIDE STEP */
#include "src/world/world.h" /* the stand-in, placed by build.sh */
#include "src/world/gen/noise.h"
s64 ivec3shash(ivec3s v) { return (s64)v.x * 73856093 ^ (s64)v.y * 19349663 ^ (s64)v.z * 83492791; }
void worldgen_pine(struct Chunk *c, FWGGet g, FWGSet s, s64 x, s64 y, s64 z) { (void)c; (void)g; (void)s; (void)x; (void)y; (void)z; }
void worldgen_tree(struct Chunk *c, FWGGet g, FWGSet s, s64 x, s64 y, s64 z) { (void)c; (void)g; (void)s; (void)x; (void)y; (void)z; }
void worldgen_shrub(struct Chunk *c, FWGGet g, FWGSet s, s64 x, s64 y, s64 z) { (void)c; (void)g; (void)s; (void)x; (void)y; (void)z; }
void worldgen_flowers(struct Chunk *c, FWGGet g, FWGSet s, s64 x, s64 y, s64 z) { (void)c; (void)g; (void)s; (void)x; (void)y; (void)z; }
void worldgen_grass(struct Chunk *c, FWGGet g, FWGSet s, s64 x, s64 y, s64 z) { (void)c; (void)g; (void)s; (void)x; (void)y; (void)z; }
static s64 fdiv(s64 a, s64 b) { s64 q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }
int main(int argc, char **argv) {
    if (argc != 6) { fprintf(stderr, "usage: driver SEED X0 Z0 SIDE STEP\n"); return 2; }
    struct World world = { .seed = strtoull(argv[1], 0, 10) };
    s64 x0 = atoll(argv[2]), z0 = atoll(argv[3]), side = atoll(argv[4]), step = atoll(argv[5]);
    /* The mountain and peak fields as worldgen.c builds them. */
    struct Noise os[] = { octave(5, 0), octave(5, 1), octave(5, 2), octave(5, 3) };
    struct Noise c3 = combined(&os[1], &os[2]), c4 = combined(&os[1], &os[3]);
    struct Noise n_n = expscale(&c3, 3.0f, 1.0f / 512.0f), n_p = expscale(&c4, 3.0f, 1.0f / 512.0f);
    static struct Chunk chunk;
    static struct WorldgenData data[32 * 32];
    struct Heightmap hm = { .worldgen_data = data };
    for (s64 gz = z0; gz < z0 + side; gz += step) {
        for (s64 gx = x0; gx < x0 + side; gx += step) {
            s64 cx = fdiv(gx, 32), cz = fdiv(gz, 32);
            s64 lx = gx - cx * 32, lz = gz - cz * 32;
            hm.flags.generated = false;
            memset(&chunk, 0, sizeof chunk);
            chunk.world = &world; chunk.heightmap = &hm;
            chunk.offset = (ivec3s){{ (s32)cx, 0, (s32)cz }};
            chunk.position = (ivec3s){{ (s32)(cx * 32), 0, (s32)(cz * 32) }};
            worldgen_generate(&chunk);
            s64 h = data[lx * 32 + lz].h, b = data[lx * 32 + lz].b;
            s64 cy = fdiv(h, 32);
            memset(chunk.blocks, 0, sizeof chunk.blocks);
            chunk.offset.y = (s32)cy; chunk.position.y = (s32)(cy * 32);
            worldgen_generate(&chunk);
            u32 top = chunk.blocks[lx][h - cy * 32][lz];
            f32 n = n_n.compute(&n_n.params, world.seed, gx, gz), p = n_p.compute(&n_p.params, world.seed, gx, gz);
            int defect = fabsf(p) > 1.0f || n > 1.0f;
            printf("%lld %lld %lld %lld %u %d\n", (long long)gx, (long long)gz, (long long)h, (long long)b, top, defect);
        }
    }
    return 0;
}
