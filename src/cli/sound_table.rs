//! `blockworld sound-table`: every cue the game can play, where it comes
//! from (a recording or a recipe) and what it measures: length, peak and
//! loudness at its cue's gain, spectral centroid and the share of its
//! energy below 300 Hz (a footstep without it sounds thin). With `--out`
//! each variant is also written as a WAV file, to listen to.

use crate::audio::bank::{Bank, BankError, CueSpec, SoundsSpec, Source, SOUNDS_RON};
use kira::sound::static_sound::StaticSoundData;
use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum SoundTableError {
    #[error(transparent)]
    Bank(#[from] BankError),
    #[error("cannot write {0}: {1}")]
    Write(String, String),
}

/// One cue's figures, the medians over its variants.
#[derive(Clone, Debug, PartialEq)]
pub struct CueRow {
    /// `stone step`, `ambience wind`, `click`.
    pub name: String,
    /// `file` or `synth`, `file+synth` when it mixes both; `(dig +2 dB)`
    /// where the cue is another's by default.
    pub source: String,
    pub variants: usize,
    pub length_ms: f64,
    pub peak_db: f64,
    /// RMS over the 100 ms from the onset.
    pub rms_db: f64,
    /// Over the 2 048 samples from the onset.
    pub centroid_hz: f64,
    pub low_share: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn db(x: f64) -> f64 {
    20.0 * x.max(1e-9).log10()
}

/// Mono samples of a sound at its cue's gain.
fn mono(d: &StaticSoundData, gain_db: f32) -> Vec<f64> {
    let g = 10f64.powf(gain_db as f64 / 20.0);
    d.frames.iter().map(|f| (f.left as f64 + f.right as f64) * 0.5 * g).collect()
}

/// Peak, RMS from the onset, centroid and low share of one sound.
fn measure(x: &[f64], rate: u32) -> [f64; 4] {
    let peak = x.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let onset = x.iter().position(|v| v.abs() > 0.05 * peak).unwrap_or(0);
    let after = &x[onset..];
    let rms_n = (rate as usize / 10).min(after.len()).max(1);
    let rms = (after[..rms_n.min(after.len())].iter().map(|v| v * v).sum::<f64>() / rms_n as f64).sqrt();
    // A direct DFT under a Hann window: 2 048 samples, a thousand bins.
    const N: usize = 2048;
    let w: Vec<f64> = (0..N)
        .map(|i| {
            after.get(i).copied().unwrap_or(0.0) * (0.5 - 0.5 * (std::f64::consts::TAU * i as f64 / N as f64).cos())
        })
        .collect();
    let (mut sum, mut weighted, mut low) = (0.0, 0.0, 0.0);
    for k in 1..N / 2 {
        let (mut re, mut im) = (0.0, 0.0);
        let step = std::f64::consts::TAU * k as f64 / N as f64;
        for (i, v) in w.iter().enumerate() {
            let (s, c) = (step * i as f64).sin_cos();
            re += v * c;
            im -= v * s;
        }
        let power = re * re + im * im;
        let hz = k as f64 * rate as f64 / N as f64;
        sum += power;
        weighted += power * hz;
        if hz < 300.0 {
            low += power;
        }
    }
    let (centroid, low_share) = if sum > 0.0 { (weighted / sum, low / sum) } else { (f64::NAN, f64::NAN) };
    [db(peak), db(rms), centroid, low_share]
}

fn kind(sources: &[Source]) -> String {
    let file = sources.iter().any(|s| matches!(s, Source::File(_)));
    let synth = sources.iter().any(|s| matches!(s, Source::Synth(..)));
    match (file, synth) {
        (true, true) => "file+synth",
        (true, false) => "file",
        _ => "synth",
    }
    .to_string()
}

/// Measures `variants` under `name`, and writes each to `out` if given.
fn row(
    name: &str,
    source: String,
    variants: &[StaticSoundData],
    gain: f32,
    out: Option<&Path>,
) -> Result<CueRow, SoundTableError> {
    let mut figures: [Vec<f64>; 5] = Default::default();
    for (i, d) in variants.iter().enumerate() {
        let x = mono(d, gain);
        figures[0].push(x.len() as f64 * 1e3 / d.sample_rate as f64);
        for (f, v) in figures[1..].iter_mut().zip(measure(&x, d.sample_rate)) {
            f.push(v);
        }
        if let Some(dir) = out {
            write_wav(&dir.join(format!("{}-{}.wav", name.replace(' ', "-"), i + 1)), &x, d.sample_rate)?;
        }
    }
    let [length_ms, peak_db, rms_db, centroid_hz, low_share] = figures.map(median);
    Ok(CueRow {
        name: name.into(),
        source,
        variants: variants.len(),
        length_ms,
        peak_db,
        rms_db,
        centroid_hz,
        low_share,
    })
}

fn write_wav(path: &Path, x: &[f64], rate: u32) -> Result<(), SoundTableError> {
    let fail = |e: hound::Error| SoundTableError::Write(path.display().to_string(), e.to_string());
    let spec =
        hound::WavSpec { channels: 1, sample_rate: rate, bits_per_sample: 16, sample_format: hound::SampleFormat::Int };
    let mut w = hound::WavWriter::create(path, spec).map_err(fail)?;
    for v in x {
        w.write_sample((v.clamp(-1.0, 1.0) * i16::MAX as f64) as i16).map_err(fail)?;
    }
    w.finalize().map_err(fail)
}

/// Every cue of a sounds description (`text`, the shipped one where
/// None), in the file's order: each group's step, dig, break and place,
/// the ambience loops, then the interface. Files come from those shipped.
pub fn sound_table(text: Option<&str>, out: Option<&Path>) -> Result<Vec<CueRow>, SoundTableError> {
    if let Some(dir) = out {
        std::fs::create_dir_all(dir).map_err(|e| SoundTableError::Write(dir.display().to_string(), e.to_string()))?;
    }
    let spec = SoundsSpec::parse(text.unwrap_or(SOUNDS_RON))?;
    let bank = Bank::load(&spec)?;
    let mut rows = Vec::new();
    for (name, g) in &spec.groups {
        let Some(cues) = bank.groups.get(name) else { continue };
        let spec_of =
            |c: Option<&CueSpec>, default: &str| c.map_or_else(|| format!("({default})"), |c| kind(&c.sources));
        let four = [
            ("step", kind(&g.step.sources), &cues.step),
            ("dig", kind(&g.dig.sources), &cues.dig),
            ("break", spec_of(g.brk.as_ref(), "dig +2 dB"), &cues.brk),
            ("place", spec_of(g.place.as_ref(), "step"), &cues.place),
        ];
        for (action, source, cue) in four {
            rows.push(row(&format!("{name} {action}"), source, &cue.variants, cue.gain, out)?);
        }
    }
    let a = &spec.ambience;
    let loops = [("wind", &a.wind), ("birds", &a.birds), ("insects", &a.insects), ("water", &a.water)];
    let more = [("murk", &a.murk), ("cave", &a.cave), ("lava", &a.lava)];
    for ((name, l), (data, gain)) in loops.into_iter().chain(more).zip(&bank.ambience) {
        let source = kind(std::slice::from_ref(&l.source));
        rows.push(row(&format!("ambience {name}"), source, std::slice::from_ref(data), *gain, out)?);
    }
    for (name, c, cue) in [("click", &spec.click, &bank.click), ("shutter", &spec.shutter, &bank.shutter)] {
        rows.push(row(name, kind(&c.sources), &cue.variants, cue.gain, out)?);
    }
    Ok(rows)
}

/// The rows as a Markdown table.
pub fn markdown(rows: &[CueRow]) -> String {
    let mut s = String::from(
        "| cue | source | variants | length ms | peak dBFS | RMS dBFS (100 ms) | centroid Hz | energy < 300 Hz |\n|---|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in rows {
        s += &format!(
            "| {} | {} | {} | {:.0} | {:.1} | {:.1} | {:.0} | {:.1} % |\n",
            r.name,
            r.source,
            r.variants,
            r.length_ms,
            r.peak_db,
            r.rms_db,
            r.centroid_hz,
            r.low_share * 100.0
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tone_measures_where_it_is() {
        let rate = 48_000;
        let tone = |hz: f64| -> Vec<f64> {
            (0..4800).map(|i| 0.5 * (std::f64::consts::TAU * hz * i as f64 / rate as f64).sin()).collect()
        };
        let [peak, rms, c, low] = measure(&tone(1000.0), rate);
        assert!((peak - db(0.5)).abs() < 0.01 && (rms - db(0.5 / 2f64.sqrt())).abs() < 0.1, "{peak} {rms}");
        assert!((c - 1000.0).abs() < 60.0 && low < 0.01, "centroid {c}, low {low}");
        let [_, _, c, low] = measure(&tone(150.0), rate);
        assert!((c - 150.0).abs() < 60.0 && low > 0.9, "centroid {c}, low {low}");
    }

    #[test]
    fn every_cue_is_listed_and_a_default_says_whose_it_is() {
        let rows = sound_table(None, None).expect("the shipped sounds");
        let spec = SoundsSpec::parse(SOUNDS_RON).expect("the shipped description");
        assert_eq!(rows.len(), spec.groups.len() * 4 + 7 + 2);
        let snow = rows.iter().find(|r| r.name == "snow step").expect("snow step");
        assert_eq!(snow.source, "file");
        let stone = rows.iter().find(|r| r.name == "stone break").expect("stone break");
        assert_eq!(stone.source, "synth");
        let sand = rows.iter().find(|r| r.name == "sand break").expect("sand break");
        assert_eq!(sand.source, "(dig +2 dB)");
        assert!(rows.iter().all(|r| r.variants > 0 && r.length_ms > 20.0 && r.peak_db <= 0.0), "{rows:?}");
    }

    /// The recorded snow step keeps 59 % of its energy below 300 Hz (the
    /// heel); synthesised steps of only noise grains had 0 % and sounded
    /// thin beside it.
    #[test]
    fn no_synthesised_footstep_is_thin() {
        let rows = sound_table(None, None).expect("the shipped sounds");
        let thin: Vec<String> = rows
            .iter()
            .filter(|r| r.name.ends_with(" step") && r.source == "synth" && r.low_share < 0.15)
            .map(|r| format!("{} ({:.1} % below 300 Hz)", r.name, r.low_share * 100.0))
            .collect();
        assert!(thin.is_empty(), "thin footsteps: {}", thin.join(", "));
        // Negative control: the sand step without its heel is thin.
        let text = SOUNDS_RON.replacen("body: [(85, 35, 1.4)], level: 0.45", "level: 0.45", 1);
        assert_ne!(text, SOUNDS_RON);
        let rows = sound_table(Some(&text), None).expect("the description without the sand heel");
        let sand = rows.iter().find(|r| r.name == "sand step").expect("sand step");
        assert!(sand.low_share < 0.15, "sand without its heel: {:.3}", sand.low_share);
    }
}
