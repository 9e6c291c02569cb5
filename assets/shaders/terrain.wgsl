// Terrain: opaque blocks (fs_opaque), alpha-tested leaves, glass and cross
// sprites (fs_cutout) and water (fs_water) from the packed
// u32 vertices of src/mesh/vertex.rs. Positions are relative to the camera
// (chunk origins are uploaded camera-relative each frame), so precision
// holds a million blocks from the origin.

struct Globals {
    view_proj: mat4x4<f32>,
    sun_dir: vec4<f32>,
    sky_color: vec4<f32>,
    // x: fog start, y: fog end (blocks), z: time (s)
    fog: vec4<f32>,
};

@group(0) @binding(0) var<uniform> globals: Globals;
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
    let sun = select(max(dot(n, globals.sun_dir.xyz), 0.0), 0.5, face >= 6u);
    // Sky light from above, sun on the lit side, ambient occlusion in corners.
    let sky = 0.55 + 0.15 * n.y;
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

@fragment
fn fs_opaque(in: VsOut) -> @location(0) vec4<f32> {
    let albedo = textureSample(tiles, tile_sampler, in.uv, in.layer).rgb;
    let lit = albedo * in.light;
    return vec4<f32>(mix(lit, globals.sky_color.rgb, fog_amount(in.rel_pos)), 1.0);
}

@fragment
fn fs_cutout(in: VsOut) -> @location(0) vec4<f32> {
    let texel = textureSample(tiles, tile_sampler, in.uv, in.layer);
    if texel.a < 0.5 {
        discard;
    }
    let lit = texel.rgb * in.light;
    return vec4<f32>(mix(lit, globals.sky_color.rgb, fog_amount(in.rel_pos)), 1.0);
}

@fragment
fn fs_water(in: VsOut) -> @location(0) vec4<f32> {
    let albedo = textureSample(tiles, tile_sampler, in.uv, in.layer).rgb;
    let f = fog_amount(in.rel_pos);
    let lit = albedo * (0.35 + 0.65 * in.light);
    return vec4<f32>(mix(lit, globals.sky_color.rgb, f), mix(0.72, 1.0, f));
}
