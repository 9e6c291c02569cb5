/* Stand-in for the founding game's world.h: the seed, and no neighbours. */
#ifndef WORLD_H
#define WORLD_H
#include "chunk.h"
struct World { u64 seed; };
static inline u32 world_get_block(struct World *w, ivec3s p) { (void)w; (void)p; return AIR; }
static inline bool world_contains(struct World *w, ivec3s p) { (void)w; (void)p; return false; }
static inline void world_set_block(struct World *w, ivec3s p, u32 d) { (void)w; (void)p; (void)d; }
static inline void world_append_unloaded_block(struct World *w, ivec3s p, u32 d) { (void)w; (void)p; (void)d; }
#endif
