//! The evaluators of the noise vocabulary's newer kinds, generic over lanes:
//! the Caracas thesis's fractal sums (fBm, heterogeneous and hybrid multifractal, each
//! with its T_in, and derivative-damped fBm), Musgrave's ridged multifractal (the
//! UFMG paper's terrain) and the one-input kinds (ExpScale's power, Normalize,
//! Linear, the bias and gain curves). [`super::graph`] calls them from its
//! stack program. CUDA twin: `kernels/noise_kinds.cuh`, the same operations
//! in the same order, held bit-identical by the parity tests.
//!
//! Adding a kind: its preset variant and rule (`preset.rs`), its slots
//! (`params.rs`), and one evaluator here and one in the twin.

use super::noise::lanes::Lanes;
use super::params::{
    FlatNode, GULLY_SEED, INPUT_BILLOW, INPUT_RIDGED, INPUT_VALUE_BASIS, NODE_BIAS, NODE_ERODED, NODE_EXPSCALE,
    NODE_GAIN, NODE_HETERO, NODE_HYBRID, NODE_LINEAR, NODE_NORMALIZE, NODE_QUILEZ, NODE_RIDGED, OCTAVE_SEED_STEP,
    SLOT_ADD, SLOT_CREST, SLOT_EXPONENT, SLOT_EXPONENT_HIGH, SLOT_FREQUENCY, SLOT_GULLY_FREQUENCY, SLOT_GULLY_OCTAVES,
    SLOT_GULLY_STRENGTH, SLOT_INV_SPAN, SLOT_LACUNARITY, SLOT_LOW, SLOT_MUL, SLOT_RIDGE_GAIN, SLOT_SHIFT, SLOT_WEIGHT,
};

/// Σ over octaves of w^j·T_in(N(frequency·λ^j·p)), summed the kind's way;
/// `gain` is the world's Perlin gain. The position (x, z) is in double
/// precision and so is every octave's (see `noise::position`); `x` is any
/// value of the lanes, to make others from.
#[inline(always)]
pub fn fractal<L: Lanes>(n: &FlatNode, gain: f32, x: L, (xp, zp): (L::Pos, L::Pos)) -> L {
    if n.kind == NODE_ERODED {
        return eroded(n, gain, x, (xp, zp));
    }
    let f = n.slots[SLOT_FREQUENCY] as f64;
    let lacunarity = n.slots[SLOT_LACUNARITY] as f64;
    let shift = x.splat(n.slots[SLOT_SHIFT]);
    let (crest, ridge_gain) = (x.splat(n.slots[SLOT_CREST]), x.splat(n.slots[SLOT_RIDGE_GAIN]));
    let (zo, g, one) = (n.z_offset, x.splat(gain), x.splat(1.0));
    let (mut px, mut pz) = (L::scale(xp, f), L::scale(zp, f));
    let mut amp = 1.0f32;
    let mut v = x.splat(0.0);
    let mut k = v;
    let (mut dx, mut dz) = (v, v);
    let value_basis = n.input & INPUT_VALUE_BASIS != 0;
    for j in 0..n.octaves {
        let seed = n.seed.wrapping_add(j.wrapping_mul(OCTAVE_SEED_STEP));
        if n.kind == NODE_QUILEZ {
            // Derivative-damped: the slope summed so far damps each octave.
            let (s, sx, sz) = basis_d(value_basis, seed, px, pz, zo, g);
            dx = dx.add(sx);
            dz = dz.add(sz);
            v = v.add(x.splat(amp).mul(s).div(one.add(dx.mul(dx).add(dz.mul(dz)))));
            px = L::scale(px, lacunarity);
            pz = L::scale(pz, lacunarity);
            amp *= n.slots[SLOT_WEIGHT];
            continue;
        }
        let s = if value_basis { L::value3_d(seed, px, pz, zo).0 } else { L::perlin3(seed, px, pz, zo).mul(g) };
        if n.kind == NODE_RIDGED {
            // k holds the octave before; its crests let this one through.
            let c = crest.sub(s.abs());
            let c = c.mul(c);
            if j == 0 {
                v = c;
                k = c;
            } else {
                let c = c.mul(k.mul(ridge_gain).clamp(0.0, 1.0));
                v = v.add(x.splat(amp).mul(c));
                k = c;
            }
            px = L::scale(px, lacunarity);
            pz = L::scale(pz, lacunarity);
            amp *= n.slots[SLOT_WEIGHT];
            continue;
        }
        let s = match n.input & !INPUT_VALUE_BASIS {
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
        px = L::scale(px, lacunarity);
        pz = L::scale(pz, lacunarity);
        amp *= n.slots[SLOT_WEIGHT];
    }
    v
}

/// An octave's basis with its derivatives: value noise, or Perlin times the gain `g`.
#[inline(always)]
fn basis_d<L: Lanes>(value_basis: bool, seed: u32, px: L::Pos, pz: L::Pos, zo: f32, g: L) -> (L, L, L) {
    if value_basis {
        L::value3_d(seed, px, pz, zo)
    } else {
        let (s, sx, sz) = L::perlin3_d(seed, px, pz, zo);
        (s.mul(g), sx.mul(g), sz.mul(g))
    }
}

/// fBm with its analytic slope, carved by the erosion filter's gully
/// octaves (see `NodeKind::Eroded` and [`super::noise::gullies`]).
#[inline(always)]
pub fn eroded<L: Lanes>(n: &FlatNode, gain: f32, x: L, (xp, zp): (L::Pos, L::Pos)) -> L {
    let f = n.slots[SLOT_FREQUENCY] as f64;
    let lacunarity = n.slots[SLOT_LACUNARITY] as f64;
    let (zo, g, one, zero) = (n.z_offset, x.splat(gain), x.splat(1.0), x.splat(0.0));
    let (x0, z0) = (L::scale(xp, f), L::scale(zp, f));
    let (mut px, mut pz) = (x0, z0);
    let value_basis = n.input & INPUT_VALUE_BASIS != 0;
    // The slope is taken in the first octave's coordinates: octave j's own
    // slope times λ^j (`chain`).
    let (mut amp, mut chain) = (1.0f32, 1.0f32);
    let (mut v, mut gx, mut gz) = (zero, zero, zero);
    for j in 0..n.octaves {
        let seed = n.seed.wrapping_add(j.wrapping_mul(OCTAVE_SEED_STEP));
        let (s, sx, sz) = basis_d(value_basis, seed, px, pz, zo, g);
        let (a, ac) = (x.splat(amp), x.splat(amp * chain));
        v = v.add(a.mul(s));
        gx = gx.add(ac.mul(sx));
        gz = gz.add(ac.mul(sz));
        px = L::scale(px, lacunarity);
        pz = L::scale(pz, lacunarity);
        amp *= n.slots[SLOT_WEIGHT];
        chain *= n.slots[SLOT_LACUNARITY];
    }
    let gf = n.slots[SLOT_GULLY_FREQUENCY];
    let (mut qx, mut qz) = (L::scale(x0, gf as f64), L::scale(z0, gf as f64));
    let (mut depth, mut scale) = (n.slots[SLOT_GULLY_STRENGTH] * 0.5, gf);
    let gully_seed = n.seed ^ GULLY_SEED;
    for i in 0..n.slots[SLOT_GULLY_OCTAVES] as u32 {
        // Across the slope: d = (gz, −gx)·|g|/(1 + |g|²), below one stripe a
        // cell where steep and nearly none where flat (|d| ≈ |g|²).
        let m = gx.mul(gx).add(gz.mul(gz));
        let lean = m.sqrt().div(one.add(m));
        let (dx, dz) = (gz.mul(lean), zero.sub(gx).mul(lean));
        let seed = gully_seed.wrapping_add(i.wrapping_mul(OCTAVE_SEED_STEP));
        let (e, de) = L::gullies(seed, qx, qz, n.z_offset, dx, dz);
        // (e − 1)/2 in [−1, 0]: gullies carve, crests keep the height.
        let k = x.splat(depth);
        v = v.add(k.mul(e.sub(one)));
        // The carving's slope in the first octave's coordinates steers the
        // next, finer gullies down the walls of these.
        let ks = k.mul(x.splat(scale)).mul(de);
        gx = gx.add(ks.mul(dx));
        gz = gz.add(ks.mul(dz));
        qx = L::scale(qx, 2.0);
        qz = L::scale(qz, 2.0);
        depth *= 0.5;
        scale *= 2.0;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worldgen::params::flatten_node;
    use crate::worldgen::preset::{Basis, Input, NodeKind};

    const SEED: u64 = 99;
    const GAIN: f32 = 0.8;

    fn flat(kind: &NodeKind) -> FlatNode {
        flatten_node(kind, SEED, &|_| 0)
    }

    /// N_j at p in the reference: the Perlin primitive itself (tested on
    /// its own) on octave j's lattice, in f64 from there on.
    fn noise(n: &FlatNode, j: u32, x: f64, z: f64) -> f64 {
        let seed = n.seed.wrapping_add(j.wrapping_mul(OCTAVE_SEED_STEP));
        if n.input & INPUT_VALUE_BASIS != 0 {
            return crate::worldgen::noise::value::value3_d(seed, x, z, n.z_offset).0 as f64;
        }
        (crate::worldgen::noise::perlin::perlin3_at(seed, x, z, n.z_offset) * GAIN) as f64
    }

    fn t_in(input: Input, v: f64) -> f64 {
        match input {
            Input::Plain => v,
            Input::Ridged => 1.0 - v.abs(),
            Input::Billow => v.abs(),
        }
    }

    /// The Caracas thesis's three sums written out plainly: λ^j and w^j as powers,
    /// not running products.
    fn reference(kind: &NodeKind, x: f64, z: f64) -> f64 {
        let n = flat(kind);
        let (octaves, lac, h, freq, input, shift) = match *kind {
            NodeKind::Fbm { octaves, lacunarity, h, frequency, input, .. } => {
                (octaves, lacunarity, h, frequency, input, 0.0)
            }
            NodeKind::Hetero { octaves, lacunarity, h, frequency, input, shift, .. }
            | NodeKind::Hybrid { octaves, lacunarity, h, frequency, input, shift, .. } => {
                (octaves, lacunarity, h, frequency, input, shift)
            }
            _ => unreachable!(),
        };
        let (lac, h, freq, shift) = (lac as f64, h as f64, freq as f64, shift as f64);
        let sample = |j: u32| {
            let f = freq * lac.powi(j as i32);
            t_in(input, noise(&n, j, x * f, z * f))
        };
        let amp = |j: u32| lac.powf(-h * j as f64);
        match kind {
            NodeKind::Fbm { .. } => (0..octaves).map(|j| amp(j) * sample(j)).sum(),
            NodeKind::Hetero { .. } => {
                let mut v = sample(0) + shift;
                for j in 1..octaves {
                    v += v * amp(j) * (sample(j) + shift);
                }
                v
            }
            _ => {
                let mut v = sample(0) + shift;
                let mut k = v;
                for j in 1..octaves {
                    k = k.min(1.0);
                    let a = amp(j) * (sample(j) + shift);
                    v += k * a;
                    k *= a;
                }
                v
            }
        }
    }

    #[test]
    fn fractal_sums_match_seed_002s_formulas() {
        let kinds = [
            NodeKind::Fbm {
                octaves: 1,
                offset: 3,
                lacunarity: 2.0,
                h: 1.0,
                frequency: 1.0,
                input: Input::Plain,
                basis: Basis::Perlin,
            },
            NodeKind::Fbm {
                octaves: 8,
                offset: 3,
                lacunarity: 2.0,
                h: 1.0,
                frequency: 0.5,
                input: Input::Plain,
                basis: Basis::Perlin,
            },
            NodeKind::Fbm {
                octaves: 6,
                offset: 3,
                lacunarity: 2.0,
                h: 1.0,
                frequency: 0.5,
                input: Input::Plain,
                basis: Basis::Value,
            },
            NodeKind::Fbm {
                octaves: 5,
                offset: 4,
                lacunarity: 2.5,
                h: 0.8,
                frequency: 0.3,
                input: Input::Ridged,
                basis: Basis::Value,
            },
            NodeKind::Fbm {
                octaves: 4,
                offset: 5,
                lacunarity: 1.9,
                h: 0.5,
                frequency: 0.7,
                input: Input::Billow,
                basis: Basis::Perlin,
            },
            NodeKind::Hetero {
                octaves: 6,
                offset: 6,
                lacunarity: 2.0,
                h: 0.9,
                frequency: 0.4,
                input: Input::Plain,
                shift: 0.7,
                basis: Basis::Perlin,
            },
            NodeKind::Hybrid {
                octaves: 7,
                offset: 7,
                lacunarity: 2.0,
                h: 0.25,
                frequency: 0.4,
                input: Input::Plain,
                shift: 0.7,
                basis: Basis::Perlin,
            },
            NodeKind::Hybrid {
                octaves: 5,
                offset: 8,
                lacunarity: 2.3,
                h: 0.6,
                frequency: 0.2,
                input: Input::Ridged,
                shift: 0.3,
                basis: Basis::Value,
            },
        ];
        for kind in &kinds {
            let n = flat(kind);
            for (x, z) in [(0.3f32, 0.7f32), (3.7, -2.2), (-11.25, 5.5), (17.9, 23.1)] {
                let got = fractal::<f32>(&n, GAIN, x, (x as f64, z as f64)) as f64;
                let want = reference(kind, x as f64, z as f64);
                assert!((got - want).abs() < 2e-4, "{kind:?} at ({x}, {z}): {got} against {want}");
            }
        }
    }

    /// Perlin's analytic derivatives against central differences of the
    /// value, and the value against perlin3 itself.
    #[test]
    fn perlin_derivatives_match_finite_differences() {
        let seed = 0xBEEF;
        let h = 1e-2f64;
        let value = |x: f64, y: f64| crate::worldgen::noise::perlin::perlin3_at(seed, x, y, 96.0) as f64;
        for k in 0..400 {
            let (x, y) = ((k as f64 * 0.618034) % 1.0 * 40.0 - 20.0, (k as f64 * 0.754878) % 1.0 * 40.0 - 20.0);
            let (v, dx, dy) = crate::worldgen::noise::perlin::perlin3_d(seed, x, y, 96.0);
            assert_eq!(v, crate::worldgen::noise::perlin::perlin3_at(seed, x, y, 96.0), "value at ({x}, {y})");
            if v.abs() > 0.99 {
                continue; // near the clamp the value stops following the derivative
            }
            let fdx = (value(x + h, y) - value(x - h, y)) / (2.0 * h);
            let fdy = (value(x, y + h) - value(x, y - h)) / (2.0 * h);
            assert!((dx as f64 - fdx).abs() < 0.02, "d/dx at ({x}, {y}): {dx} against {fdx}");
            assert!((dy as f64 - fdy).abs() < 0.02, "d/dy at ({x}, {y}): {dy} against {fdy}");
        }
    }

    /// Musgrave's ridged multifractal as his listing writes it: the signal
    /// squared, weighted by the previous (weighted) signal times gain,
    /// clamped to [0, 1]; the first octave unweighted.
    #[test]
    fn ridged_sum_matches_musgraves_listing() {
        for (octaves, lac, h, freq, crest, gain) in [
            (8u32, 2.5f32, 1.0f32, 0.3f32, 0.9f32, 0.5f32),
            (1, 2.0, 1.0, 0.7, 1.0, 2.0),
            (6, 2.0, 1.0, 0.7, 1.0, 2.0),
            (5, 1.9, 0.4, 0.11, 0.6, 3.0),
        ] {
            let kind = NodeKind::Ridged {
                octaves,
                offset: 12,
                lacunarity: lac,
                h,
                frequency: freq,
                crest,
                gain,
                basis: Basis::Perlin,
            };
            let n = flat(&kind);
            for (x, z) in [(0.3f32, 0.7f32), (3.7, -2.2), (-11.25, 5.5), (17.9, 23.1), (-40.5, -33.3)] {
                let (lac, h, freq, crest, gain) = (lac as f64, h as f64, freq as f64, crest as f64, gain as f64);
                let signal_at = |j: u32| {
                    let f = freq * lac.powi(j as i32);
                    let s = crest - noise(&n, j, x as f64 * f, z as f64 * f).abs();
                    s * s
                };
                let mut signal = signal_at(0);
                let mut want = signal;
                for j in 1..octaves {
                    let weight = (signal * gain).clamp(0.0, 1.0);
                    signal = signal_at(j) * weight;
                    want += signal * lac.powf(-h * j as f64);
                }
                let got = fractal::<f32>(&n, GAIN, x, (x as f64, z as f64)) as f64;
                assert!((got - want).abs() < 2e-4, "{kind:?} at ({x}, {z}): {got} against {want}");
            }
        }
    }

    /// The derivative-damped sum written out: d accumulates the octaves'
    /// slopes (each in its own coordinates), v += w^j·N_j / (1 + |d|²).
    #[test]
    fn quilez_sum_matches_its_formula() {
        for basis in [Basis::Perlin, Basis::Value] {
            quilez_sum_matches_its_formula_on(basis);
        }
    }

    fn quilez_sum_matches_its_formula_on(basis: Basis) {
        let kind = NodeKind::Quilez { octaves: 6, offset: 9, lacunarity: 2.0, h: 1.0, frequency: 0.37, basis };
        let n = flat(&kind);
        for (x, z) in [(0.3f32, 0.7f32), (3.7, -2.2), (-11.25, 5.5), (17.9, 23.1)] {
            let (mut v, mut dx, mut dz) = (0.0f64, 0.0f64, 0.0f64);
            for j in 0..6u32 {
                let f = 0.37f64 * 2f64.powi(j as i32);
                let seed = n.seed.wrapping_add(j.wrapping_mul(OCTAVE_SEED_STEP));
                let (px, pz) = (x as f64 * f, z as f64 * f);
                let ((s, sx, sz), g) = match basis {
                    Basis::Perlin => (crate::worldgen::noise::perlin::perlin3_d(seed, px, pz, n.z_offset), GAIN as f64),
                    Basis::Value => (crate::worldgen::noise::value::value3_d(seed, px, pz, n.z_offset), 1.0),
                };
                dx += sx as f64 * g;
                dz += sz as f64 * g;
                v += 0.5f64.powi(j as i32) * s as f64 * g / (1.0 + dx * dx + dz * dz);
            }
            let got = fractal::<f32>(&n, GAIN, x, (x as f64, z as f64)) as f64;
            assert!((got - v).abs() < 2e-4, "{basis:?} at ({x}, {z}): {got} against {v}");
        }
    }

    /// The curves at points worked out by hand, and against their formulas.
    #[test]
    fn curves_match_hand_checked_points_and_their_formulas() {
        let eval = |kind: NodeKind, t: f32| unary::<f32>(&flat(&kind), t) as f64;
        let src = || "s".to_string();
        // bias_b(½) = b; gain_g(¼) = bias_{1−g}(½)/2 = (1−g)/2; gain_g(½) = ½;
        // plateau_g(¾) = 1 − bias_g(½)/2 = 1 − g/2.
        let points = [
            (eval(NodeKind::Bias { source: src(), b: 0.3 }, 0.5), 0.3),
            (eval(NodeKind::Glacier { source: src(), b: 0.2 }, 0.5), 0.2),
            (eval(NodeKind::Gain { source: src(), g: 0.7 }, 0.25), 0.15),
            (eval(NodeKind::Gain { source: src(), g: 0.7 }, 0.5), 0.5),
            (eval(NodeKind::Canyon { source: src(), g: 0.9 }, 0.25), 0.05),
            (eval(NodeKind::Plateau { source: src(), g: 0.8 }, 0.75), 0.6),
            (eval(NodeKind::Plateau { source: src(), g: 0.8 }, 0.25), 0.1),
            (eval(NodeKind::Bias { source: src(), b: 0.3 }, 0.0), 0.0),
            (eval(NodeKind::Bias { source: src(), b: 0.3 }, 1.0), 1.0),
            (eval(NodeKind::Normalize { source: src(), from: (-2.0, 6.0) }, 0.0), 0.25),
            (eval(NodeKind::Normalize { source: src(), from: (-2.0, 6.0) }, 9.0), 1.0),
            (eval(NodeKind::Linear { source: src(), mul: 2.0, add: -1.0 }, 0.25), -0.5),
        ];
        for (i, (got, want)) in points.iter().enumerate() {
            assert!((got - want).abs() < 1e-5, "point {i}: {got} against {want}");
        }
        let bias = |b: f64, t: f64| t.powf(b.ln() / 0.5f64.ln());
        for k in 0..=20 {
            let t = k as f64 / 20.0;
            let (g, b) = (0.75f64, 0.35f64);
            let gain = if t < 0.5 { bias(1.0 - g, 2.0 * t) / 2.0 } else { 1.0 - bias(1.0 - g, 2.0 - 2.0 * t) / 2.0 };
            let plateau = if t < 0.5 { bias(1.0 - g, 2.0 * t) / 2.0 } else { 1.0 - bias(g, 2.0 - 2.0 * t) / 2.0 };
            for (got, want, what) in [
                (eval(NodeKind::Glacier { source: src(), b: b as f32 }, t as f32), bias(b, t), "glacier"),
                (eval(NodeKind::Canyon { source: src(), g: g as f32 }, t as f32), gain, "canyon"),
                (eval(NodeKind::Plateau { source: src(), g: g as f32 }, t as f32), plateau, "plateau"),
            ] {
                assert!((got - want).abs() < 1e-5, "{what}({t}): {got} against {want}");
            }
        }
    }
}
