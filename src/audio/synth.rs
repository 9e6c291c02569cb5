//! Sounds made in code where no free recording covers them, as the atlas
//! draws every tile in code: deterministic (a recipe and a variant number
//! give the same samples on every machine), stereo at [`RATE`].
//!
//! A footstep or a dig is an *impact*: a few bursts of band-passed noise
//! (the grains of the surface: one for stone, dozens for sand) over a
//! damped resonance (the body: a knock in wood, a thud in earth). An
//! ambience is a loop whose end is cross-faded into its start, so it
//! repeats without a click.

use kira::Frame;
use serde::Deserialize;

/// Sample rate of every synthesised sound.
pub const RATE: u32 = 48_000;

/// How a synthesised sound is made (`assets/sounds.ron` names one per source).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub enum Recipe {
    /// Noise grains over a damped body.
    Impact(Impact),
    /// Low-passed noise whose cutoff and loudness gust slowly.
    Wind { seconds: f32 },
    /// Short rising and falling whistles in phrases.
    Birds { seconds: f32 },
    /// Crickets: a trilled high tone.
    Insects { seconds: f32 },
    /// Deep, slow rumble: the eye under water.
    Murk { seconds: f32 },
    /// A low room tone with water drops and their echo.
    Cave { seconds: f32 },
    /// A short tick: an interface button.
    Click,
    /// Two clicks of a shutter.
    Shutter,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Impact {
    /// Pass band of the grains, Hz.
    pub band: (f32, f32),
    pub grains: u32,
    /// The grains start within this many milliseconds.
    pub spread_ms: f32,
    /// Each grain's decay time constant, ms.
    pub decay_ms: f32,
    /// Sound length, ms.
    pub length_ms: f32,
    /// Damped resonances under the grains: (Hz, decay ms, level).
    #[serde(default)]
    pub body: Vec<(f32, f32, f32)>,
    /// Peak level after normalising, 0..1.
    #[serde(default = "default_level")]
    pub level: f32,
}

fn default_level() -> f32 {
    0.7
}

impl Recipe {
    /// Checks the numbers a preset author could get wrong.
    pub fn check(&self) -> Result<(), String> {
        let secs = |s: f32| {
            if (0.5..=60.0).contains(&s) {
                Ok(())
            } else {
                Err(format!("a loop of {s} s is outside 0.5..=60"))
            }
        };
        match self {
            Recipe::Impact(i) => {
                let nyquist = RATE as f32 / 2.0;
                if !(20.0..nyquist).contains(&i.band.0) || !(i.band.0..nyquist).contains(&i.band.1) {
                    return Err(format!("band {:?} Hz must rise within 20..{nyquist}", i.band));
                }
                if i.grains > 200 || !(1.0..=5000.0).contains(&i.length_ms) || i.decay_ms <= 0.0 {
                    return Err("grains at most 200, length 1..=5000 ms, decay above 0".into());
                }
                if i.spread_ms < 0.0 || i.spread_ms > i.length_ms {
                    return Err(format!("spread {} ms must lie within the length {} ms", i.spread_ms, i.length_ms));
                }
                if !(0.0..=1.0).contains(&i.level) {
                    return Err(format!("level {} is outside 0..=1", i.level));
                }
                for &(hz, d, l) in &i.body {
                    if !(20.0..nyquist).contains(&hz) || d <= 0.0 || !(0.0..=4.0).contains(&l) {
                        return Err(format!(
                            "body ({hz}, {d}, {l}): Hz within 20..{nyquist}, decay above 0, level 0..=4"
                        ));
                    }
                }
                Ok(())
            }
            Recipe::Wind { seconds }
            | Recipe::Birds { seconds }
            | Recipe::Insects { seconds }
            | Recipe::Murk { seconds }
            | Recipe::Cave { seconds } => secs(*seconds),
            Recipe::Click | Recipe::Shutter => Ok(()),
        }
    }

    /// Whether this recipe makes a loop (an ambience) rather than a one-shot.
    pub fn loops(&self) -> bool {
        !matches!(self, Recipe::Impact(_) | Recipe::Click | Recipe::Shutter)
    }

    /// The samples of variant `variant`.
    pub fn render(&self, variant: u32) -> Vec<Frame> {
        let mut rng = Rng::new(self.seed() ^ (variant as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        match self {
            Recipe::Impact(i) => impact(i, &mut rng),
            Recipe::Wind { seconds } => seamless(wind(*seconds, &mut rng)),
            Recipe::Birds { seconds } => seamless(birds(*seconds, &mut rng)),
            Recipe::Insects { seconds } => seamless(insects(*seconds, &mut rng)),
            Recipe::Murk { seconds } => seamless(murk(*seconds, &mut rng)),
            Recipe::Cave { seconds } => seamless(cave(*seconds, &mut rng)),
            Recipe::Click => click(&mut rng),
            Recipe::Shutter => shutter(&mut rng),
        }
    }

    fn seed(&self) -> u64 {
        // The recipe's own text: two recipes that differ sound different.
        let text = format!("{self:?}");
        text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
    }
}

/// xorshift64*: small, fast and the same everywhere.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
    fn noise(&mut self) -> f32 {
        self.unit() * 2.0 - 1.0
    }
}

/// An RBJ biquad (band-pass or low-pass), direct form I.
#[derive(Clone, Copy)]
struct Biquad {
    b: [f32; 3],
    a: [f32; 2],
    x: [f32; 2],
    y: [f32; 2],
}

impl Biquad {
    fn band(lo: f32, hi: f32) -> Biquad {
        let centre = (lo * hi).sqrt();
        let q = centre / (hi - lo).max(1.0);
        let w = std::f32::consts::TAU * centre / RATE as f32;
        let alpha = w.sin() / (2.0 * q);
        let a0 = 1.0 + alpha;
        Biquad {
            b: [alpha / a0, 0.0, -alpha / a0],
            a: [-2.0 * w.cos() / a0, (1.0 - alpha) / a0],
            x: [0.0; 2],
            y: [0.0; 2],
        }
    }
    fn low(cutoff: f32) -> Biquad {
        let w = std::f32::consts::TAU * cutoff.clamp(10.0, RATE as f32 * 0.45) / RATE as f32;
        let alpha = w.sin() / std::f32::consts::SQRT_2;
        let a0 = 1.0 + alpha;
        let c = w.cos();
        Biquad {
            b: [(1.0 - c) / 2.0 / a0, (1.0 - c) / a0, (1.0 - c) / 2.0 / a0],
            a: [-2.0 * c / a0, (1.0 - alpha) / a0],
            x: [0.0; 2],
            y: [0.0; 2],
        }
    }
    /// Moves a low-pass's cutoff, keeping its state (no click).
    fn retune_low(&mut self, cutoff: f32) {
        let n = Biquad::low(cutoff);
        self.b = n.b;
        self.a = n.a;
    }
    fn run(&mut self, x: f32) -> f32 {
        let y = self.b[0] * x + self.b[1] * self.x[0] + self.b[2] * self.x[1]
            - self.a[0] * self.y[0]
            - self.a[1] * self.y[1];
        self.x = [x, self.x[0]];
        self.y = [y, self.y[0]];
        y
    }
}

fn samples(ms: f32) -> usize {
    (ms * RATE as f32 / 1000.0) as usize
}

fn normalise(mono: &mut [f32], level: f32) {
    let peak = mono.iter().fold(0.0f32, |m, v| m.max(v.abs()));
    if peak > 0.0 {
        for v in mono.iter_mut() {
            *v *= level / peak;
        }
    }
}

/// Mono to stereo with a slight, fixed width (the two channels decorrelated
/// by a sub-millisecond delay), so a centred sound does not sit in the head.
fn stereo(mono: &[f32]) -> Vec<Frame> {
    let d = samples(0.35);
    (0..mono.len())
        .map(|i| {
            let late = if i >= d { mono[i - d] } else { 0.0 };
            Frame { left: mono[i], right: 0.85 * mono[i] + 0.15 * late }
        })
        .collect()
}

fn impact(p: &Impact, rng: &mut Rng) -> Vec<Frame> {
    let n = samples(p.length_ms).max(1);
    let mut out = vec![0.0f32; n];
    let tau = p.decay_ms / 1000.0 * RATE as f32;
    for g in 0..p.grains {
        // The first grain starts at once (the footfall); the rest scatter,
        // thinning towards the end as a foot's roll does.
        let start = if g == 0 { 0 } else { samples(p.spread_ms * rng.unit().powf(1.5)) };
        let gain = if g == 0 { 1.0 } else { rng.range(0.25, 0.9) };
        let mut filter = Biquad::band(p.band.0 * rng.range(0.85, 1.15), p.band.1 * rng.range(0.85, 1.15));
        let len = ((tau * 6.0) as usize).min(n.saturating_sub(start));
        for i in 0..len {
            let env = (-(i as f32) / tau).exp() * (i as f32 / 24.0).min(1.0);
            out[start + i] += gain * env * filter.run(rng.noise());
        }
    }
    for &(hz, decay_ms, level) in &p.body {
        let hz = hz * rng.range(0.94, 1.06);
        let tau = decay_ms / 1000.0 * RATE as f32;
        let w = std::f32::consts::TAU * hz / RATE as f32;
        // A body is driven by the footfall: its level is relative to the
        // grains' typical amplitude, which the band-pass sets.
        let scale = 0.25 * level;
        for (i, v) in out.iter_mut().enumerate() {
            let env = (-(i as f32) / tau).exp() * (i as f32 / 48.0).min(1.0);
            // A slight downward glide, as a struck thing settles.
            let phase = w * i as f32 * (1.0 - 0.08 * (i as f32 / tau).min(1.0));
            *v += scale * env * phase.sin();
        }
    }
    // No click at the end: a short fade.
    let fade = samples(6.0).min(n);
    for i in 0..fade {
        out[n - 1 - i] *= i as f32 / fade as f32;
    }
    normalise(&mut out, p.level);
    stereo(&out)
}

/// Cross-fades the last half second of `frames` (at `rate`) into its start
/// and drops it, so the loop's end meets its start without a step.
pub fn seamless_at(mut frames: Vec<Frame>, rate: u32) -> Vec<Frame> {
    let x = (rate as usize / 2).min(frames.len() / 3);
    let n = frames.len() - x;
    for i in 0..x {
        let t = i as f32 / x as f32;
        // Equal-power fade: noise-like material keeps its loudness.
        let (a, b) = ((t * std::f32::consts::FRAC_PI_2).sin(), (t * std::f32::consts::FRAC_PI_2).cos());
        let tail = frames[n + i];
        frames[i] = Frame { left: frames[i].left * a + tail.left * b, right: frames[i].right * a + tail.right * b };
    }
    frames.truncate(n);
    frames
}

fn seamless(frames: Vec<Frame>) -> Vec<Frame> {
    seamless_at(frames, RATE)
}

/// A slow random walk in 0..1, one value per sample, smoothed.
fn drift(n: usize, rate_hz: f32, rng: &mut Rng) -> Vec<f32> {
    let step = (RATE as f32 / rate_hz) as usize;
    let knots: Vec<f32> = (0..n / step.max(1) + 2).map(|_| rng.unit()).collect();
    (0..n)
        .map(|i| {
            let k = i / step;
            let t = (i % step) as f32 / step as f32;
            let t = t * t * (3.0 - 2.0 * t);
            knots[k] * (1.0 - t) + knots[k + 1] * t
        })
        .collect()
}

fn wind(seconds: f32, rng: &mut Rng) -> Vec<Frame> {
    let n = (seconds * RATE as f32) as usize;
    let gust = drift(n, 0.35, rng);
    let mut frames = Vec::with_capacity(n);
    let (mut l, mut r) = (Biquad::low(400.0), Biquad::low(400.0));
    let mut howl = Biquad::band(500.0, 900.0);
    for (i, &g) in gust.iter().enumerate() {
        if i % 64 == 0 {
            l.retune_low(180.0 + 700.0 * g);
            r.retune_low(200.0 + 650.0 * g);
        }
        let amp = 0.15 + 0.55 * g * g;
        let whistle = howl.run(rng.noise()) * 0.4 * g * g;
        frames.push(Frame { left: amp * l.run(rng.noise()) + whistle, right: amp * r.run(rng.noise()) + whistle });
    }
    scale(frames, 0.55)
}

/// A whistle gliding from `f0` to `f1` over `len` samples, into `out` at `at`.
fn chirp(out: &mut [f32], at: usize, len: usize, f0: f32, f1: f32, amp: f32) {
    let mut phase = 0.0f32;
    for i in 0..len.min(out.len().saturating_sub(at)) {
        let t = i as f32 / len as f32;
        let f = f0 + (f1 - f0) * t;
        phase += std::f32::consts::TAU * f / RATE as f32;
        let env = (std::f32::consts::PI * t).sin().powi(2);
        out[at + i] += amp * env * (phase.sin() + 0.2 * (2.0 * phase).sin());
    }
}

fn birds(seconds: f32, rng: &mut Rng) -> Vec<Frame> {
    let n = (seconds * RATE as f32) as usize;
    let (mut left, mut right) = (vec![0.0f32; n], vec![0.0f32; n]);
    let mut t = rng.range(0.1, 0.8);
    while t < seconds - 1.0 {
        // A bird: a phrase of 2–6 notes from one place (its pan).
        let pan = rng.unit();
        let base = rng.range(2600.0, 4800.0);
        let notes = 2 + (rng.unit() * 5.0) as usize;
        let mut at = samples(t * 1000.0);
        for _ in 0..notes {
            let len = samples(rng.range(45.0, 140.0));
            let (f0, f1) =
                if rng.unit() < 0.5 { (base, base * rng.range(1.1, 1.5)) } else { (base * 1.3, base * 0.85) };
            let amp = rng.range(0.3, 0.8);
            chirp(&mut left, at, len, f0, f1, amp * (1.0 - pan));
            chirp(&mut right, at, len, f0, f1, amp * pan);
            at += len + samples(rng.range(20.0, 90.0));
        }
        t += rng.range(0.6, 2.2);
    }
    let frames = left.into_iter().zip(right).map(|(l, r)| Frame { left: l, right: r }).collect();
    scale(frames, 0.3)
}

fn insects(seconds: f32, rng: &mut Rng) -> Vec<Frame> {
    let n = (seconds * RATE as f32) as usize;
    let (mut left, mut right) = (vec![0.0f32; n], vec![0.0f32; n]);
    // A few crickets, each with its own pitch, trill rate and pan.
    for _ in 0..4 {
        let hz = rng.range(4200.0, 5200.0);
        let trill = rng.range(25.0, 40.0);
        let (pan, period, duty) = (rng.unit(), rng.range(0.7, 1.4), rng.range(0.25, 0.45));
        let offset = rng.unit() * period;
        for (i, (l, r)) in left.iter_mut().zip(right.iter_mut()).enumerate() {
            let t = i as f32 / RATE as f32;
            let within = ((t + offset) % period) / period;
            if within < duty {
                let gate = (std::f32::consts::PI * within / duty).sin();
                let pulse = (std::f32::consts::TAU * trill * t).sin().max(0.0).powi(2);
                let v = 0.25 * gate * pulse * (std::f32::consts::TAU * hz * t).sin();
                *l += v * (1.0 - pan);
                *r += v * pan;
            }
        }
    }
    let frames = left.into_iter().zip(right).map(|(l, r)| Frame { left: l, right: r }).collect();
    scale(frames, 0.35)
}

fn murk(seconds: f32, rng: &mut Rng) -> Vec<Frame> {
    let n = (seconds * RATE as f32) as usize;
    let swell = drift(n, 0.25, rng);
    let (mut a, mut b) = (Biquad::low(140.0), Biquad::low(160.0));
    let frames = swell
        .iter()
        .map(|&s| {
            let amp = 1.4 + 1.2 * s;
            Frame { left: amp * a.run(rng.noise()), right: amp * b.run(rng.noise()) }
        })
        .collect();
    scale(frames, 0.6)
}

fn cave(seconds: f32, rng: &mut Rng) -> Vec<Frame> {
    let n = (seconds * RATE as f32) as usize;
    let (mut tone, mut left, mut right) = (Biquad::low(90.0), vec![0.0f32; n], vec![0.0f32; n]);
    for i in 0..n {
        let v = 0.6 * tone.run(rng.noise());
        left[i] = v;
        right[i] = v;
    }
    let mut t = rng.range(0.2, 1.0);
    while t < seconds - 0.5 {
        // A drop: a short pitch-falling plink, then two fainter echoes
        // from the walls, the first one opposite.
        let (hz, pan) = (rng.range(1100.0, 2400.0), rng.unit());
        let at = samples(t * 1000.0);
        for (k, (delay, gain)) in [(0.0, 0.5), (0.11, 0.18), (0.23, 0.08)].into_iter().enumerate() {
            let start = at + samples(delay * 1000.0);
            let p = if k == 1 { 1.0 - pan } else { pan };
            let mut phase = 0.0f32;
            for i in 0..samples(90.0).min(n.saturating_sub(start)) {
                let f = hz * (1.0 + 0.6 * (-(i as f32) / 300.0).exp());
                phase += std::f32::consts::TAU * f / RATE as f32;
                let v = gain * (-(i as f32) / samples(22.0) as f32).exp() * phase.sin();
                left[start + i] += v * (1.0 - p);
                right[start + i] += v * p;
            }
        }
        t += rng.range(0.8, 3.0);
    }
    let frames = left.into_iter().zip(right).map(|(l, r)| Frame { left: l, right: r }).collect();
    scale(frames, 0.5)
}

fn click(rng: &mut Rng) -> Vec<Frame> {
    let n = samples(25.0);
    let mut out = vec![0.0f32; n];
    let mut f = Biquad::band(2500.0, 6000.0);
    for (i, v) in out.iter_mut().enumerate() {
        let env = (-(i as f32) / samples(2.5) as f32).exp();
        *v = env * (f.run(rng.noise()) + 0.4 * (std::f32::consts::TAU * 1800.0 * i as f32 / RATE as f32).sin());
    }
    normalise(&mut out, 0.35);
    stereo(&out)
}

fn shutter(rng: &mut Rng) -> Vec<Frame> {
    let n = samples(160.0);
    let mut out = vec![0.0f32; n];
    for (at, gain, decay) in [(0.0, 1.0, 4.0), (70.0, 0.7, 6.0)] {
        let start = samples(at);
        let mut f = Biquad::band(1500.0, 7000.0);
        let mut body = Biquad::band(300.0, 900.0);
        for i in 0..samples(40.0).min(n - start) {
            let env = (-(i as f32) / samples(decay) as f32).exp();
            let x = rng.noise();
            out[start + i] += gain * env * (f.run(x) + 0.8 * body.run(x));
        }
    }
    normalise(&mut out, 0.5);
    stereo(&out)
}

fn scale(frames: Vec<Frame>, peak: f32) -> Vec<Frame> {
    let max = frames.iter().fold(0.0f32, |m, f| m.max(f.left.abs()).max(f.right.abs()));
    if max == 0.0 {
        return frames;
    }
    let k = peak / max;
    frames.into_iter().map(|f| Frame { left: f.left * k, right: f.right * k }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stone() -> Recipe {
        Recipe::Impact(Impact {
            band: (1500.0, 6000.0),
            grains: 2,
            spread_ms: 8.0,
            decay_ms: 18.0,
            length_ms: 120.0,
            body: vec![(180.0, 25.0, 0.5)],
            level: 0.7,
        })
    }

    #[test]
    fn a_recipe_and_variant_give_the_same_samples_and_variants_differ() {
        let r = stone();
        assert_eq!(r.render(0), r.render(0));
        assert_ne!(r.render(0), r.render(1));
        let peak = r.render(0).iter().fold(0.0f32, |m, f| m.max(f.left.abs()));
        assert!((peak - 0.7).abs() < 1e-3, "normalised to its level: {peak}");
    }

    #[test]
    fn a_loop_ends_where_it_starts() {
        let w = Recipe::Wind { seconds: 2.0 }.render(0);
        let (first, last) = (w[0], w[w.len() - 1]);
        // The seam's step is no larger than a typical step inside the loop.
        let typical = w.windows(2).map(|p| (p[1].left - p[0].left).abs()).sum::<f32>() / w.len() as f32;
        assert!((first.left - last.left).abs() < 8.0 * typical.max(1e-4), "seam {first:?} → {last:?}");
    }

    #[test]
    fn bad_recipes_are_refused() {
        let Recipe::Impact(mut i) = stone() else { unreachable!() };
        i.band = (6000.0, 1500.0);
        assert!(Recipe::Impact(i.clone()).check().unwrap_err().contains("band"));
        i.band = (100.0, 200.0);
        i.spread_ms = 500.0;
        assert!(Recipe::Impact(i).check().unwrap_err().contains("spread"));
        assert!(Recipe::Wind { seconds: 0.0 }.check().is_err());
        assert!(stone().check().is_ok());
    }
}
