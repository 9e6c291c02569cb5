// Terrain: opaque blocks (fs_opaque), alpha-tested leaves, glass and cross
// sprites (fs_cutout) and water (fs_water) from the packed
// u32 vertices of src/mesh/vertex.rs. Positions are relative to the camera
// (chunk origins are uploaded camera-relative each frame), so precision
// holds a million blocks from the origin. Globals and sky_colour come from
// sky_common.wgsl, prepended to this file.
@group(0) @binding(1) var<storage, read> chunk_origins: array<vec4<f32>>;
@group(0) @binding(2) var tiles: texture_2d_array<f32>;
@group(0) @binding(3) var tile_sampler: sampler;

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) rel_pos: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) @interpolate(flat) layer: u32,
    @location(3) light: f32,
};

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

// Texture coordinates in blocks, upright on side faces (v grows downwards).
fn face_uv(face: u32, p: vec3<f32>) -> vec2<f32> {
    switch face {
        case 0u: { return vec2<f32>(-p.z, -p.y); }
        case 1u: { return vec2<f32>(p.z, -p.y); }
        case 2u, 3u: { return vec2<f32>(p.x, p.z); }
        case 4u: { return vec2<f32>(p.x, -p.y); }
        case 5u: { return vec2<f32>(-p.x, -p.y); }
        // Cross sprites run diagonally in x and z: x alone spans the tile once.
        default: { return vec2<f32>(p.x, -p.y); }
    }
}

@vertex
fn vs_main(@location(0) packed: u32, @builtin(instance_index) chunk: u32) -> VsOut {
    let local = vec3<f32>(f32(packed & 63u), f32((packed >> 6u) & 63u), f32((packed >> 12u) & 63u));
    let face = (packed >> 18u) & 7u;
    let ao = f32((packed >> 21u) & 3u) / 3.0;
    let rel = chunk_origins[chunk].xyz + local;
    let n = face_normal(face);
    // Sky light from above (dimmed at night), the sun or the moon on the lit
    // side while it is up, ambient occlusion in corners.
    let sun_up = smoothstep(-0.05, 0.2, globals.sun_dir.y);
    let moon_up = smoothstep(-0.05, 0.2, globals.moon_dir.y);
    let sun_facing = select(max(dot(n, globals.sun_dir.xyz), 0.0), 0.5, face >= 6u);
    let moon_facing = select(max(dot(n, globals.moon_dir.xyz), 0.0), 0.5, face >= 6u);
    let sun = sun_facing * sun_up + 0.08 * moon_facing * moon_up;
    let sky = (0.55 + 0.15 * n.y) * globals.sun_dir.w;
    var out: VsOut;
    out.clip = globals.view_proj * vec4<f32>(rel, 1.0);
    out.rel_pos = rel;
    out.uv = face_uv(face, local);
    out.layer = (packed >> 23u) & 255u;
    out.light = (sky + 0.45 * sun) * (0.45 + 0.55 * ao);
    return out;
}

fn fog_amount(rel: vec3<f32>) -> f32 {
    return smoothstep(globals.fog.x, globals.fog.y, length(rel.xz));
}

// Fogged toward the sky behind the fragment, so the world's edge melts into it.
fn fogged(lit: vec3<f32>, rel: vec3<f32>) -> vec3<f32> {
    return mix(lit, sky_colour(normalize(rel)), fog_amount(rel));
}

// Blocks that emit light (lava, glowstone, torches) glow at full brightness.
fn emissive(layer: u32) -> bool {
    let word = globals.emissive[layer / 128u][(layer / 32u) % 4u];
    return ((word >> (layer % 32u)) & 1u) == 1u;
}

fn shade(albedo: vec3<f32>, light: f32, layer: u32) -> vec3<f32> {
    return select(albedo * light, albedo, emissive(layer));
}

@fragment
fn fs_opaque(in: VsOut) -> @location(0) vec4<f32> {
    let albedo = textureSample(tiles, tile_sampler, in.uv, in.layer).rgb;
    return vec4<f32>(fogged(shade(albedo, in.light, in.layer), in.rel_pos), 1.0);
}

@fragment
fn fs_cutout(in: VsOut) -> @location(0) vec4<f32> {
    let texel = textureSample(tiles, tile_sampler, in.uv, in.layer);
    if texel.a < 0.5 {
        discard;
    }
    return vec4<f32>(fogged(shade(texel.rgb, in.light, in.layer), in.rel_pos), 1.0);
}

@fragment
fn fs_water(in: VsOut) -> @location(0) vec4<f32> {
    // A gentle moving surface: the tile drifts slowly and two slow waves
    // brighten and darken it. The waves' periods divide the chunk size, so
    // they run on across chunk borders (uv is chunk-local).
    let t = globals.fog.z;
    let drift = vec2<f32>(sin(t * 0.35), cos(t * 0.27)) * 0.12;
    let albedo = textureSample(tiles, tile_sampler, in.uv + drift, in.layer).rgb;
    let ripple = 0.06 * sin(in.uv.x * 0.98175 + t * 1.3) * sin(in.uv.y * 0.78540 - t * 1.1);
    let lit = albedo * (0.35 * globals.sun_dir.w + 0.65 * in.light) * (1.0 + ripple);
    // Water turns opaque with distance and at grazing angles (as real water
    // reflects more): far rays under the surface would leave the loaded
    // world and show the void as a pale curtain in the sea.
    let d = length(in.rel_pos.xz);
    let far = smoothstep(0.3 * globals.fog.y, 0.55 * globals.fog.y, d);
    let grazing = pow(1.0 - abs(normalize(in.rel_pos).y), 8.0);
    return vec4<f32>(fogged(lit, in.rel_pos), mix(0.72, 1.0, max(far, grazing)));
}
