//! The sRGB transfer curves, as the GPU applies them to `…Srgb` textures
//! and targets: colours filtered or averaged on the CPU (mip levels, the
//! map's and far terrain's tile averages, a block's murk) go through the
//! same curves, so they match what the GPU does with the tiles.

/// An sRGB byte in linear light (0..1).
pub fn to_linear(c: u8) -> f32 {
    to_linear_f(c as f32 / 255.0)
}

/// An sRGB value (0..1) in linear light.
pub fn to_linear_f(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// Linear light as an sRGB byte, clamped to 0..=255.
pub fn to_srgb(l: f32) -> u8 {
    let l = l.clamp(0.0, 1.0);
    let c = if l <= 0.003_130_8 { l * 12.92 } else { 1.055 * l.powf(1.0 / 2.4) - 0.055 };
    (c * 255.0).round() as u8
}
