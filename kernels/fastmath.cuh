// pow in plain f32 arithmetic, bit-identical to src/worldgen/noise/fastmath.rs.
// The CUDA math library's powf differs from glibc's in the last bits, so
// neither may be used where the CPU must agree.
#pragma once

#define BW_LOG2_E 1.44269502f
#define BW_LN_2 0.693147182f
#define BW_SQRT_2 1.41421354f
#define BW_MIN_NORMAL 1.17549435e-38f

__device__ __forceinline__ float bw_bits_to_float(unsigned int b) { return __uint_as_float(b); }
__device__ __forceinline__ unsigned int bw_float_to_bits(float f) { return __float_as_uint(f); }

__device__ __forceinline__ float bw_log2(float x) {
    unsigned int bits = bw_float_to_bits(x);
    int e = (int)((bits >> 23) & 0xffu) - 127;
    float m = bw_bits_to_float((bits & 0x007fffffu) | 0x3f800000u);
    if (m > BW_SQRT_2) {
        m = m * 0.5f;
        e = e + 1;
    }
    float s = (m - 1.0f) / (m + 1.0f);
    float s2 = s * s;
    float poly = 0.222222224f + s2 * 0.181818187f;
    poly = 0.285714298f + s2 * poly;
    poly = 0.400000006f + s2 * poly;
    poly = 0.666666687f + s2 * poly;
    poly = 2.0f + s2 * poly;
    float ln_m = s * poly;
    return ln_m * BW_LOG2_E + (float)e;
}

__device__ __forceinline__ float bw_exp2(float t) {
    t = fminf(fmaxf(t, -126.0f), 126.0f);
    float i = floorf(t + 0.5f);
    float g = (t - i) * BW_LN_2;
    float p = 0.00138888892f + g * 0.000198412701f;
    p = 0.00833333377f + g * p;
    p = 0.0416666679f + g * p;
    p = 0.166666672f + g * p;
    p = 0.5f + g * p;
    p = 1.0f + g * p;
    p = 1.0f + g * p;
    return p * bw_bits_to_float((unsigned int)((int)i + 127) << 23);
}

// sign(x) * |x|^y; zero and subnormal x give 0.
__device__ __forceinline__ float bw_signpow(float x, float y) {
    float a = fabsf(x);
    float r = a < BW_MIN_NORMAL ? 0.0f : bw_exp2(y * bw_log2(a));
    return x < 0.0f ? -r : r;
}
