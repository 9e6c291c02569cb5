//! The light of one block: four 4-bit channels in a u16.

/// Channel order: sky, red, green, blue.
pub const CHANNELS: usize = 4;
pub const SKY: usize = 0;
pub const MAX: u8 = 15;

/// `sky << 12 | red << 8 | green << 4 | blue`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Light(pub u16);

impl Light {
    pub const DARK: Light = Light(0);
    pub const FULL_SKY: Light = Light((MAX as u16) << 12);

    pub const fn new(sky: u8, red: u8, green: u8, blue: u8) -> Light {
        Light(((sky & 15) as u16) << 12 | ((red & 15) as u16) << 8 | ((green & 15) as u16) << 4 | (blue & 15) as u16)
    }

    /// Block light only, from an emission `[red, green, blue]`.
    pub const fn emitted(rgb: [u8; 3]) -> Light {
        Light::new(0, rgb[0], rgb[1], rgb[2])
    }

    #[inline(always)]
    pub fn channel(self, c: usize) -> u8 {
        ((self.0 >> (12 - 4 * c)) & 15) as u8
    }

    #[inline(always)]
    pub fn with_channel(self, c: usize, v: u8) -> Light {
        let shift = 12 - 4 * c;
        Light((self.0 & !(15 << shift)) | ((v & 15) as u16) << shift)
    }

    pub fn sky(self) -> u8 {
        self.channel(SKY)
    }

    pub fn rgb(self) -> [u8; 3] {
        [self.channel(1), self.channel(2), self.channel(3)]
    }

    /// The larger of each channel.
    pub fn max(self, other: Light) -> Light {
        let mut out = self;
        for c in 0..CHANNELS {
            out = out.with_channel(c, self.channel(c).max(other.channel(c)));
        }
        out
    }
}

impl std::fmt::Display for Light {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [r, g, b] = self.rgb();
        write!(f, "sky {} rgb ({r}, {g}, {b})", self.sky())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_pack_and_unpack() {
        let l = Light::new(15, 3, 9, 1);
        assert_eq!((l.sky(), l.rgb()), (15, [3, 9, 1]));
        assert_eq!(l.with_channel(2, 4).rgb(), [3, 4, 1]);
        assert_eq!(l.max(Light::new(2, 7, 0, 1)), Light::new(15, 7, 9, 1));
        assert_eq!(Light::emitted([14, 11, 6]).rgb(), [14, 11, 6]);
    }
}
