// Shared by sky.wgsl, terrain.wgsl and far.wgsl (prepended to each in
// src/render/world_renderer.rs): the per-frame globals and the sky's colour
// in a direction. Terrain fog fades to exactly this colour, so fully fogged
// terrain is indistinguishable from the sky behind it from any height.

struct Globals {
    view_proj: mat4x4<f32>,
    // Camera-relative clip space back to a direction from the eye.
    inv_view_proj: mat4x4<f32>,
    // w: daylight (how strongly the sky lights the world)
    sun_dir: vec4<f32>,
    // w: star visibility
    moon_dir: vec4<f32>,
    zenith: vec4<f32>,
    horizon: vec4<f32>,
    glow: vec4<f32>,
    // x: fog start, y: fog end (blocks), z: time (s), w: where the chunks
    // end (blocks; water turns opaque toward it)
    fog: vec4<f32>,
    // Within water or lava: rgb its colour, w the distance (blocks) at
    // which everything has faded into it; w 0 in clear air.
    inside: vec4<f32>,
    // Bit i set: atlas layer i belongs to a block that emits light.
    emissive: array<vec4<u32>, 2>,
};

@group(0) @binding(0) var<uniform> globals: Globals;

// The outward normal of a face as the chunk and far quads number them
// (+x −x +y −y +z −z).
fn face_normal(face: u32) -> vec3<f32> {
    switch face {
        case 0u: { return vec3<f32>(1.0, 0.0, 0.0); }
        case 1u: { return vec3<f32>(-1.0, 0.0, 0.0); }
        case 2u: { return vec3<f32>(0.0, 1.0, 0.0); }
        case 3u: { return vec3<f32>(0.0, -1.0, 0.0); }
        case 4u: { return vec3<f32>(0.0, 0.0, 1.0); }
        case 5u: { return vec3<f32>(0.0, 0.0, -1.0); }
        // The diagonal quads of cross sprites: lit as if facing the sun half way.
        default: { return vec3<f32>(0.0, 0.0, 0.0); }
    }
}

// The light of the open sky (dimmed at night) and of the sun, or faintly
// the moon, while it is up, on a face turned `sun_facing` / `moon_facing`
// toward them (0..1) whose normal points `up` (its y): the chunk and far
// passes light full-sky faces alike.
fn sky_and_sun(sun_facing: f32, moon_facing: f32, up: f32) -> f32 {
    let sun_up = smoothstep(-0.05, 0.2, globals.sun_dir.y);
    let moon_up = smoothstep(-0.05, 0.2, globals.moon_dir.y);
    let sun = sun_facing * sun_up + 0.08 * moon_facing * moon_up;
    let sky = (0.55 + 0.15 * up) * globals.sun_dir.w;
    return sky + 0.45 * sun;
}

fn sky_colour(dir: vec3<f32>) -> vec3<f32> {
    let up = max(dir.y, 0.0);
    var c = mix(globals.horizon.rgb, globals.zenith.rgb, sqrt(up));
    // Dawn and dusk glow: strongest toward the sun, near the horizon.
    let flat_dir = vec2<f32>(dir.x, dir.z);
    let flat_sun = vec2<f32>(globals.sun_dir.x, globals.sun_dir.z);
    var toward = 0.0;
    if length(flat_dir) > 1e-4 && length(flat_sun) > 1e-4 {
        // Clamped: the dot of two unit vectors rounds past -1 along the
        // azimuth opposite the sun, and pow of a negative base is NaN, which
        // the target stores as black (a dotted line down sky and terrain).
        toward = clamp(dot(normalize(flat_dir), normalize(flat_sun)), -1.0, 1.0);
    }
    let near_horizon = pow(max(1.0 - up, 0.0), 5.0);
    c += globals.glow.rgb * near_horizon * (0.25 + 0.75 * pow(0.5 + 0.5 * toward, 3.0));
    return c;
}

// The murk of the block the eye is in over a point at `rel` from the eye:
// it thickens evenly with distance and hides everything at its reach, so
// nothing past that reach (sky, far terrain) need be drawn differently.
fn murk(c: vec3<f32>, rel: vec3<f32>) -> vec3<f32> {
    if globals.inside.w <= 0.0 {
        return c;
    }
    return mix(c, globals.inside.rgb, clamp(length(rel) / globals.inside.w, 0.0, 1.0));
}
