/* Stand-in for the founding game's chunk.h: a chunk of 32^3 block ids. */
#ifndef CHUNK_H
#define CHUNK_H
#include "../util/util.h"
#include "gen/worldgen.h"
enum BlockId { AIR = 0, GRASS, DIRT, STONE, SAND, WATER, SNOW, PODZOL, ROSE, BUTTERCUP, TALLGRASS, LOG, LEAVES, SHRUB };
#define CHUNK_SIZE ((ivec3s) {{ 32, 32, 32 }})
struct Heightmap { struct WorldgenData *worldgen_data; struct { bool generated : 1; } flags; };
struct World;
struct Chunk { ivec3s position, offset; struct World *world; struct Heightmap *heightmap; u32 blocks[32][32][32]; };
static inline bool chunk_in_bounds(ivec3s p) { return p.x >= 0 && p.y >= 0 && p.z >= 0 && p.x < 32 && p.y < 32 && p.z < 32; }
static inline u32 chunk_get_block(struct Chunk *c, ivec3s p) { return c->blocks[p.x][p.y][p.z]; }
static inline void chunk_set_block(struct Chunk *c, ivec3s p, u32 d) { c->blocks[p.x][p.y][p.z] = d; }
static inline struct Heightmap *chunk_get_heightmap(struct Chunk *c) { return c->heightmap; }
#endif
