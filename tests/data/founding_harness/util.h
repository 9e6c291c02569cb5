/* Stand-in for the founding game's util.h: only what worldgen.c and noise.c use. */
#ifndef UTIL_H
#define UTIL_H
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
typedef float f32; typedef double f64;
typedef int8_t s8; typedef int16_t s16; typedef int32_t s32; typedef int64_t s64;
typedef uint8_t u8; typedef uint16_t u16; typedef uint32_t u32; typedef uint64_t u64;
typedef struct { s32 x, y; } ivec2s;
typedef union { struct { s32 x, y, z; }; s32 raw[3]; } ivec3s;
static inline ivec3s glms_ivec3_add(ivec3s a, ivec3s b) { ivec3s r; r.x = a.x + b.x; r.y = a.y + b.y; r.z = a.z + b.z; return r; }
s64 ivec3shash(ivec3s v);
#define sign(_x) ({ __typeof__(_x) _xx = (_x);\
    ((__typeof__(_x)) ( (((__typeof__(_x)) 0) < _xx) - (_xx < ((__typeof__(_x)) 0))));})
#define safe_expf(_x, _e) ({ __typeof__(_x) __x = (_x); __typeof__(_e) __e = (_e); sign(__x) * fabsf(powf(fabsf(__x), __e)); })
#define max(a, b) ({ __typeof__ (a) _a = (a); __typeof__ (b) _b = (b); _a > _b ? _a : _b; })
#define min(a, b) ({ __typeof__ (a) _a = (a); __typeof__ (b) _b = (b); _a < _b ? _a : _b; })
#define clamp(x, mn, mx) ({ __typeof__ (x) _x = (x); __typeof__ (mn) _mn = (mn); __typeof__ (mx) _mx = (mx); max(_mn, min(_mx, _x)); })
#define SRAND(seed) srand(seed)
#define RAND(min, max) ((rand() % (max - min + 1)) + min)
#define RANDCHANCE(chance) ((RAND(0, 100000) / 100000.0) <= chance)
#endif
