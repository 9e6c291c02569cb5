//! Smooth light for the mesher: the light of the 34³ neighbourhood, and
//! each face corner's light as the average of the four cells in front of
//! the face around that corner.
//!
//! Opaque cells take no light, so they are left out of the average (else
//! every face next to a wall would darken as ambient occlusion already
//! does); the diagonal cell is left out too when both side cells are
//! opaque, since light cannot reach the corner through it. Averages are
//! rounded to the nearest level, so a merged quad's corners are exactly
//! those of the faces it merged.

use super::quad::Face;
use super::volume::{Volume, PADDED};
use crate::light::value::CHANNELS;
use crate::light::{ChunkLight, Light};
use crate::world::coords::{block_index, CHUNK_SIZE};

/// The light around a chunk being meshed.
pub enum LightVolume {
    /// The same everywhere: no light data (full sky, as before light was
    /// computed), or 27 chunks of one uniform light.
    Constant(Light),
    /// Padded cells, `(zp * 34 + xp) * 34 + yp`.
    Cells(Vec<Light>),
}

/// Padded coordinate → (neighbour offset, local coordinate).
fn split(p: usize) -> (i32, usize) {
    match p {
        0 => (-1, CHUNK_SIZE - 1),
        p if p == PADDED - 1 => (1, 0),
        p => (0, p - 1),
    }
}

#[inline(always)]
fn padded(xp: usize, yp: usize, zp: usize) -> usize {
    (zp * PADDED + xp) * PADDED + yp
}

impl LightVolume {
    /// `lights[(dz+1)*9 + (dy+1)*3 + (dx+1)]` of the chunk and its 26
    /// neighbours; `None` means full sky everywhere.
    pub fn gather(lights: Option<&[&ChunkLight; 27]>) -> LightVolume {
        let Some(lights) = lights else { return LightVolume::Constant(Light::FULL_SKY) };
        if let ChunkLight::Uniform(first) = lights[0] {
            if lights.iter().all(|l| matches!(l, ChunkLight::Uniform(u) if u == first)) {
                return LightVolume::Constant(*first);
            }
        }
        let mut cells = vec![Light::DARK; PADDED * PADDED * PADDED];
        for zp in 0..PADDED {
            let (dz, lz) = split(zp);
            for xp in 0..PADDED {
                let (dx, lx) = split(xp);
                let base = padded(xp, 0, zp);
                for dy in -1..=1i32 {
                    let l = lights[((dz + 1) * 9 + (dy + 1) * 3 + (dx + 1)) as usize];
                    // The padded y range this neighbour covers, and its first local y.
                    let (from, to, ly) = match dy {
                        -1 => (0, 1, CHUNK_SIZE - 1),
                        0 => (1, PADDED - 1, 0),
                        _ => (PADDED - 1, PADDED, 0),
                    };
                    l.copy_run(block_index(lx, ly, lz), &mut cells[base + from..base + to]);
                }
            }
        }
        LightVolume::Cells(cells)
    }

    pub fn is_constant(&self) -> Option<Light> {
        match self {
            LightVolume::Constant(l) => Some(*l),
            LightVolume::Cells(_) => None,
        }
    }

    /// The light of the cell at padded coordinates.
    #[inline(always)]
    pub fn at(&self, p: [usize; 3]) -> Light {
        match self {
            LightVolume::Constant(l) => *l,
            LightVolume::Cells(c) => c[padded(p[0], p[1], p[2])],
        }
    }

    /// The light of the four corners of `face` of block (x, y, z) of the
    /// chunk, in the corner order of [`super::quad`].
    pub fn corners(&self, vol: &Volume, face: Face, x: usize, y: usize, z: usize) -> [Light; 4] {
        if let LightVolume::Constant(l) = self {
            return [*l; 4];
        }
        let n = face.normal();
        let (ua, va) = face.tangents();
        let front = [(x + 1) as i32 + n[0], (y + 1) as i32 + n[1], (z + 1) as i32 + n[2]];
        let cell = |du: i32, dv: i32| {
            let mut p = front;
            p[ua] += du;
            p[va] += dv;
            [p[0] as usize, p[1] as usize, p[2] as usize]
        };
        let opaque = |p: [usize; 3]| vol.opaque_at(p[0], p[1], p[2]);
        [(-1, -1), (1, -1), (1, 1), (-1, 1)].map(|(du, dv)| {
            let (s1, s2, c) = (cell(du, 0), cell(0, dv), cell(du, dv));
            let (o1, o2) = (opaque(s1), opaque(s2));
            let mut samples = [self.at(cell(0, 0)); 4];
            let mut count = 1;
            for (p, skip) in [(s1, o1), (s2, o2), (c, (o1 && o2) || opaque(c))] {
                if !skip {
                    samples[count] = self.at(p);
                    count += 1;
                }
            }
            average(&samples[..count])
        })
    }
}

/// Each channel's mean, rounded to the nearest level.
fn average(samples: &[Light]) -> Light {
    let n = samples.len() as u32;
    let mut out = Light::DARK;
    for ch in 0..CHANNELS {
        let sum: u32 = samples.iter().map(|l| l.channel(ch) as u32).sum();
        out = out.with_channel(ch, ((2 * sum + n) / (2 * n)) as u8);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corners_average_and_round() {
        let l = |v: u8| Light::new(v, v, 0, 0);
        assert_eq!(average(&[l(15), l(14), l(14), l(13)]), l(14));
        assert_eq!(average(&[l(15), l(14)]), l(15), "14.5 rounds up");
        assert_eq!(average(&[l(2), l(0), l(0)]), l(1), "0.67 rounds to 1");
        assert_eq!(average(&[l(1), l(0), l(0), l(0)]), l(0));
    }
}
