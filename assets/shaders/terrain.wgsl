// Terrain: opaque blocks (fs_opaque), alpha-tested leaves, glass and cross
// sprites (fs_cutout) and water (fs_water) from the 16-byte quads of
// src/mesh/quad.rs, read from the bound mesh page by vertex index (four
// vertices a quad, through the shared quad index buffer). Positions are relative to the camera
// (chunk origins are uploaded camera-relative each frame), so precision
// holds a million blocks from the origin. Globals and sky_colour come from
// sky_common.wgsl, prepended to this file.
@group(0) @binding(1) var<storage, read> chunk_origins: array<vec4<f32>>;
@group(0) @binding(2) var tiles: texture_2d_array<f32>;
@group(0) @binding(3) var tile_sampler: sampler;
@group(1) @binding(0) var<storage, read> quads: array<vec4<u32>>;

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) rel_pos: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) @interpolate(flat) layer: u32,
    @location(3) light: vec3<f32>,
    // Sky light alone (0..1), for water's own sheen.
    @location(4) sky: f32,
};

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

// Where corner k (0..4, running (0,0) (w,0) (w,h) (0,h) in the face's
// tangents u and v) of a quad lies from its origin; the tangents are those
// of Face::tangents in src/mesh/quad.rs.
fn corner_offset(face: u32, k: u32, w: f32, h: f32) -> vec3<f32> {
    let du = select(0.0, w, k == 1u || k == 2u);
    let dv = select(0.0, h, k >= 2u);
    switch face {
        case 0u: { return vec3<f32>(0.0, du, dv); }
        case 1u: { return vec3<f32>(0.0, dv, du); }
        case 2u: { return vec3<f32>(dv, 0.0, du); }
        case 3u: { return vec3<f32>(du, 0.0, dv); }
        case 4u: { return vec3<f32>(du, dv, 0.0); }
        case 5u: { return vec3<f32>(dv, du, 0.0); }
        // Cross sprites: the two diagonals of the block.
        case 6u: { return vec3<f32>(select(0.0, 1.0, k == 1u || k == 2u), select(0.0, 1.0, k >= 2u), select(0.0, 1.0, k == 1u || k == 2u)); }
        default: { return vec3<f32>(select(0.0, 1.0, k == 0u || k == 3u), select(0.0, 1.0, k >= 2u), select(0.0, 1.0, k == 1u || k == 2u)); }
    }
}

// A light level (0..15) as brightness: each level down is a fifth darker,
// and the last few fade to none, so a colour channel that runs out before
// the others (blue, then green, from a torch) leaves no coloured rim.
fn level(l: u32) -> f32 {
    // 0.8^(15 - l) as one exp2 (log2 0.8 = -0.321928).
    return exp2(-0.321928 * (15.0 - f32(l))) * min(f32(l) / 4.0, 1.0);
}

@vertex
fn vs_main(@builtin(vertex_index) vi: u32, @builtin(instance_index) chunk: u32) -> VsOut {
    // Vertex 4q + j of the page is slot j of quad q; the index buffer makes
    // triangles 0-1-2 and 2-3-0 of the slots, and a flipped quad shifts its
    // corners by one, so its triangles are 1-2-3 and 3-0-1.
    let q = quads[vi / 4u];
    let flip = (q.x >> 31u) & 1u;
    let k = (vi % 4u + flip) % 4u;
    let face = (q.x >> 18u) & 7u;
    let w = f32(((q.x >> 21u) & 31u) + 1u);
    let h = f32(((q.x >> 26u) & 31u) + 1u);
    let origin = vec3<f32>(f32(q.x & 63u), f32((q.x >> 6u) & 63u), f32((q.x >> 12u) & 63u));
    // Cube faces grow a hair past their edges (more with distance), so a
    // quad corner on a bigger quad's edge (a T-junction of greedy meshing)
    // leaves no pixel-wide crack: with visibility culling, nothing hidden
    // is drawn behind the wall to fill one, and the sky showed through.
    let exact = origin + corner_offset(face, k, w, h);
    // Cross sprites do not grow: their corners are the block's own, and
    // corner_offset gives them no tangent lengths to shift back by.
    // Flat sprites (lily pads, bit 16 of the second word: Quad::lifted)
    // neither: they float LIFT (1/16) of a block along their normal, clear
    // of the water surface they lie on.
    let lifted = ((q.y >> 16u) & 1u) != 0u;
    let cube = face < 6u && !lifted;
    let grow = select(0.0, 1e-3 + 2e-4 * length(chunk_origins[chunk].xyz + exact), cube);
    let back = select(vec3<f32>(0.0), corner_offset(face, 2u, grow, grow), cube);
    let lift = select(vec3<f32>(0.0), face_normal(face) / 16.0, lifted);
    let local = origin + corner_offset(face, k, w + 2.0 * grow, h + 2.0 * grow) - back + lift;
    let ao = f32((q.y >> (8u + 2u * k)) & 3u) / 3.0;
    let l16 = (select(q.z, q.w, k >= 2u) >> (16u * (k % 2u))) & 0xFFFFu;
    let sky_l = level(l16 >> 12u);
    let block_l = vec3<f32>(level((l16 >> 8u) & 15u), level((l16 >> 4u) & 15u), level(l16 & 15u));
    let rel = chunk_origins[chunk].xyz + local;
    let n = face_normal(face);
    // Sky light (dimmed at night) and the sun or the moon on the lit side
    // while it is up, both as far as the sky reaches this corner; block
    // light (torches, lava, glowstone) in its own colour, day or night;
    // ambient occlusion in corners.
    let sun_facing = select(max(dot(n, globals.sun_dir.xyz), 0.0), 0.5, face >= 6u);
    let moon_facing = select(max(dot(n, globals.moon_dir.xyz), 0.0), 0.5, face >= 6u);
    let lit = sky_l * sky_and_sun(sun_facing, moon_facing, n.y) + 0.9 * block_l;
    var out: VsOut;
    out.clip = globals.view_proj * vec4<f32>(rel, 1.0);
    out.rel_pos = rel;
    out.uv = face_uv(face, local);
    out.layer = q.y & 255u;
    out.light = (lit + vec3<f32>(0.012)) * (0.45 + 0.55 * ao);
    out.sky = sky_l;
    return out;
}

fn fog_amount(rel: vec3<f32>) -> f32 {
    return smoothstep(globals.fog.x, globals.fog.y, length(rel.xz));
}

// Fogged toward the sky behind the fragment, so the world's edge melts
// into it; then the murk of water or lava around the eye.
fn fogged(lit: vec3<f32>, rel: vec3<f32>) -> vec3<f32> {
    return murk(mix(lit, sky_colour(normalize(rel)), fog_amount(rel)), rel);
}

// Blocks that emit light (lava, glowstone, torches) glow at full brightness.
fn emissive(layer: u32) -> bool {
    let word = globals.emissive[layer / 128u][(layer / 32u) % 4u];
    return ((word >> (layer % 32u)) & 1u) == 1u;
}

fn shade(albedo: vec3<f32>, light: vec3<f32>, layer: u32) -> vec3<f32> {
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
    let lit = albedo * (0.35 * globals.sun_dir.w * in.sky + 0.65 * in.light) * (1.0 + ripple);
    // Water turns opaque with distance and at grazing angles (as real water
    // reflects more): far rays under the surface would leave the loaded
    // world and show the void as a pale curtain in the sea.
    let d = length(in.rel_pos.xz);
    let far = smoothstep(0.3 * globals.fog.w, 0.55 * globals.fog.w, d);
    let grazing = pow(max(1.0 - abs(normalize(in.rel_pos).y), 0.0), 8.0);
    return vec4<f32>(fogged(lit, in.rel_pos), mix(0.72, 1.0, max(far, grazing)));
}
