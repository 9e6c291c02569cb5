// Far terrain: the blocky columns of src/far/mesh.rs, read from the bound
// mesh page by vertex index like the chunk quads (four vertices a quad,
// through the shared quad index buffer). Drawn before the chunks with its
// own reversed-depth projection (no far plane, precise out to the
// horizon); the chunks then draw over it, and no chunk fragment can lie
// behind a far one, since far fragments outside the chunk range are
// farther horizontally. Globals and sky_colour come from sky_common.wgsl.

struct Far {
    view_proj: mat4x4<f32>,
    // xyz: the origin of the chunk range's centre chunk, camera-relative;
    // w: the range's radius in chunks.
    hole: vec4<f32>,
    // x: the range's vertical reach in chunks; y: 1 where the chunk range
    // hides far terrain, 0 where it does not; z: 1 where `drawn` says
    // which columns of the range are wholly drawn (0: all are).
    range: vec4<f32>,
};

@group(0) @binding(1) var<storage, read> tiles: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> far: Far;
@group(0) @binding(3) var<storage, read> drawn: array<u32>;
@group(1) @binding(0) var<storage, read> quads: array<vec4<u32>>;

// Shading is done per corner: a far face is flat and lit as a whole, and
// haze and fog change slowly over its extent, so the fragments only
// interpolate (on a software rasteriser the fragments are the cost).
struct FarOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) rel_pos: vec3<f32>,
    @location(1) colour: vec3<f32>,
    @location(2) @interpolate(flat) face: u32,
};

fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    return select(pow((c + 0.055) / 1.055, vec3<f32>(2.4)), c / 12.92, c <= vec3<f32>(0.04045));
}

@vertex
fn vs_far(@builtin(vertex_index) vi: u32, @builtin(instance_index) tile: u32) -> FarOut {
    let q = quads[vi / 4u];
    let k = vi % 4u;
    let t = tiles[tile];
    let c = t.w;
    let x = f32(q.x & 63u) * c;
    let z = f32((q.x >> 6u) & 63u) * c;
    let face = (q.x >> 12u) & 7u;
    let w = f32(((q.x >> 15u) & 31u) + 1u) * c;
    let d = f32(((q.x >> 20u) & 31u) + 1u) * c;
    let top = f32(bitcast<i32>(q.y << 16u) >> 16u);
    let bottom = f32(bitcast<i32>(q.y) >> 16u);
    let tall = top - bottom;
    // Corners (0,0) (1,0) (1,1) (0,1) along tangents u, v with u × v the
    // outward normal, so the index pattern winds counter-clockwise outside.
    var p0 = vec3<f32>(x, bottom, z);
    var u = vec3<f32>(0.0, tall, 0.0);
    var v = vec3<f32>(0.0, 0.0, w);
    switch face {
        case 2u: { p0 = vec3<f32>(x, top, z); u = vec3<f32>(0.0, 0.0, d); v = vec3<f32>(w, 0.0, 0.0); }
        case 1u: { u = vec3<f32>(0.0, 0.0, w); v = vec3<f32>(0.0, tall, 0.0); }
        case 4u: { u = vec3<f32>(w, 0.0, 0.0); v = vec3<f32>(0.0, tall, 0.0); }
        case 5u: { u = vec3<f32>(0.0, tall, 0.0); v = vec3<f32>(w, 0.0, 0.0); }
        default: {}
    }
    let du = select(0.0, 1.0, k == 1u || k == 2u);
    let dv = select(0.0, 1.0, k >= 2u);
    let rel = t.xyz + p0 + u * du + v * dv;
    var out: FarOut;
    out.clip = far.view_proj * vec4<f32>(rel, 1.0);
    out.rel_pos = rel;
    let water = ((q.x >> 25u) & 1u) == 1u;
    out.colour = shade(srgb_to_linear(unpack4x8unorm(q.z).rgb), face_normal(face), rel, water);
    out.face = face;
    return out;
}

// Lit as the chunks' full-sky faces are (terrain.wgsl), without block
// light or occlusion, and water as their water pass lights it at full sky
// light (no ripple: it averages out at a distance); then aerial
// perspective (far ranges fade toward the sky's colour at the horizon
// before the fog takes them, so ridges stay readable) and the fog into
// the sky. The chunks have no haze, so it grows from where they end
// (fog.w): none at their edge, where the two meet.
fn shade(albedo: vec3<f32>, n: vec3<f32>, rel: vec3<f32>, water: bool) -> vec3<f32> {
    let light = sky_and_sun(max(dot(n, globals.sun_dir.xyz), 0.0), max(dot(n, globals.moon_dir.xyz), 0.0), n.y) + 0.012;
    let lit = albedo * select(light, 0.35 * globals.sun_dir.w + 0.65 * light, water);
    let dist = length(rel.xz);
    let dir = normalize(rel);
    let haze = (1.0 - exp(-max(dist - globals.fog.w, 0.0) / globals.fog.y * 1.6)) * 0.55;
    let hazed = mix(lit, sky_colour(vec3<f32>(dir.x, max(dir.y, 0.0), dir.z)), haze);
    let fog = smoothstep(globals.fog.x, globals.fog.y, dist);
    return murk(mix(hazed, sky_colour(dir), fog), rel);
}

// Whether the chunks draw the point: its chunk lies in the streaming disc
// (src/game/streaming/rings.rs) and within its vertical reach, and its
// column is wholly drawn (DrawnColumns in src/render/world_renderer.rs);
// where it is not yet, far terrain fills the hole and the chunks already
// there draw over it.
fn in_chunk_range(p: vec3<f32>) -> bool {
    let c = floor((p - far.hole.xyz) / 32.0);
    let a = max(abs(c.x) - 1.0, 0.0);
    let b = max(abs(c.z) - 1.0, 0.0);
    let r = far.hole.w;
    if !(a * a + b * b < r * r && abs(c.y) <= far.range.x) {
        return false;
    }
    if far.range.z < 0.5 {
        return true;
    }
    let i = u32((c.z + r) * (2.0 * r + 1.0) + c.x + r);
    return ((drawn[i / 32u] >> (i % 32u)) & 1u) == 1u;
}

// Tiles that cannot meet the chunk range: no discard, so the rasteriser
// can test depth before shading.
@fragment
fn fs_far_plain(in: FarOut) -> @location(0) vec4<f32> {
    return vec4<f32>(in.colour, 1.0);
}

@fragment
fn fs_far(in: FarOut) -> @location(0) vec4<f32> {
    let n = face_normal(in.face);
    // Nudged into the face's own column, so a face on a chunk border
    // belongs to one side only.
    if far.range.y > 0.5 && in_chunk_range(in.rel_pos - n * 0.05) {
        discard;
    }
    return vec4<f32>(in.colour, 1.0);
}
