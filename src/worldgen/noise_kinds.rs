//! The evaluators of the noise vocabulary's newer kinds, generic over lanes:
//! seed 002's fractal sums (fBm, heterogeneous and hybrid multifractal, each
//! with its T_in) and the one-input kinds (ExpScale's power, Normalize,
//! Linear, the bias and gain curves). [`super::graph`] calls them from its
//! stack program. CUDA twin: `kernels/noise_kinds.cuh`, the same operations
//! in the same order, held bit-identical by the parity tests.
//!
//! Adding a kind: its preset variant and rule (`preset.rs`), its slots
//! (`params.rs`), and one evaluator here and one in the twin.

use super::noise::lanes::Lanes;
use super::params::{
    FlatNode, INPUT_BILLOW, INPUT_RIDGED, NODE_BIAS, NODE_EXPSCALE, NODE_GAIN, NODE_HETERO, NODE_HYBRID, NODE_LINEAR,
    NODE_NORMALIZE, OCTAVE_SEED_STEP, SLOT_ADD, SLOT_EXPONENT, SLOT_EXPONENT_HIGH, SLOT_FREQUENCY, SLOT_INV_SPAN,
    SLOT_LACUNARITY, SLOT_LOW, SLOT_MUL, SLOT_SHIFT, SLOT_WEIGHT,
};

/// Σ over octaves of w^j·T_in(N(frequency·λ^j·p)), summed the kind's way;
/// `gain` is the world's Perlin gain.
#[inline(always)]
pub fn fractal<L: Lanes>(n: &FlatNode, gain: f32, x: L, z: L) -> L {
    let f = x.splat(n.slots[SLOT_FREQUENCY]);
    let lacunarity = x.splat(n.slots[SLOT_LACUNARITY]);
    let shift = x.splat(n.slots[SLOT_SHIFT]);
    let (zo, g, one) = (x.splat(n.z_offset), x.splat(gain), x.splat(1.0));
    let (mut px, mut pz) = (x.mul(f), z.mul(f));
    let mut amp = 1.0f32;
    let mut v = x.splat(0.0);
    let mut k = v;
    for j in 0..n.octaves {
        let seed = n.seed.wrapping_add(j.wrapping_mul(OCTAVE_SEED_STEP));
        let s = L::perlin3(seed, px, pz, zo).mul(g);
        let s = match n.input {
            INPUT_RIDGED => one.sub(s.abs()),
            INPUT_BILLOW => s.abs(),
            _ => s,
        };
        let a = x.splat(amp);
        match n.kind {
            NODE_HETERO => v = if j == 0 { s.add(shift) } else { v.add(v.mul(a.mul(s.add(shift)))) },
            NODE_HYBRID => {
                if j == 0 {
                    v = s.add(shift);
                    k = v;
                } else {
                    k = k.clamp(f32::NEG_INFINITY, 1.0);
                    let a = a.mul(s.add(shift));
                    v = v.add(k.mul(a));
                    k = k.mul(a);
                }
            }
            _ => v = v.add(a.mul(s)),
        }
        px = px.mul(lacunarity);
        pz = pz.mul(lacunarity);
        amp *= n.slots[SLOT_WEIGHT];
    }
    v
}

/// A one-input kind applied to its source's value `v`.
#[inline(always)]
pub fn unary<L: Lanes>(n: &FlatNode, v: L) -> L {
    let slot = |i: usize| v.splat(n.slots[i]);
    match n.kind {
        NODE_EXPSCALE | NODE_BIAS => v.signpow(slot(SLOT_EXPONENT)),
        NODE_NORMALIZE => v.sub(slot(SLOT_LOW)).mul(slot(SLOT_INV_SPAN)).clamp(0.0, 1.0),
        NODE_LINEAR => v.mul(slot(SLOT_MUL)).add(slot(SLOT_ADD)),
        NODE_GAIN => {
            let (two, half) = (v.splat(2.0), v.splat(0.5));
            let low = v.mul(two).signpow(slot(SLOT_EXPONENT)).mul(half);
            let high = v.splat(1.0).sub(two.sub(v.mul(two)).signpow(slot(SLOT_EXPONENT_HIGH)).mul(half));
            v.select_below(0.5, low, high)
        }
        _ => v,
    }
}
