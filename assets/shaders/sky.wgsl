// The sky: one full-screen triangle drawn behind the terrain. Colour from
// sky_colour (sky_common.wgsl), plus the sun, the moon and stars.

struct SkyOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) ndc: vec2<f32>,
};

@vertex
fn vs_sky(@builtin(vertex_index) i: u32) -> SkyOut {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    let ndc = uv * 2.0 - 1.0;
    var out: SkyOut;
    out.clip = vec4<f32>(ndc, 0.5, 1.0);
    out.ndc = ndc;
    return out;
}

fn hash3(p: vec3<f32>) -> f32 {
    let q = fract(p * vec3<f32>(0.1031, 0.1030, 0.0973));
    let r = q + dot(q, q.yxz + 33.33);
    return fract((r.x + r.y) * r.z);
}

@fragment
fn fs_sky(in: SkyOut) -> @location(0) vec4<f32> {
    let far = globals.inv_view_proj * vec4<f32>(in.ndc, 0.5, 1.0);
    let dir = normalize(far.xyz / far.w);
    var c = sky_colour(dir);
    // Sun, moon and stars set below the horizon.
    let above = smoothstep(-0.02, 0.03, dir.y);
    let sun = dot(dir, globals.sun_dir.xyz);
    c += vec3<f32>(1.0, 0.93, 0.75) * smoothstep(0.99935, 0.9996, sun) * above;
    c += vec3<f32>(1.0, 0.75, 0.45) * pow(max(sun, 0.0), 400.0) * 0.3 * above;
    let moon = dot(dir, globals.moon_dir.xyz);
    c += vec3<f32>(0.78, 0.82, 0.9) * smoothstep(0.9992, 0.9995, moon) * above;
    // Stars: sparse cells on a fine grid of directions, each its own brightness.
    let cell = floor(dir * 260.0);
    let h = hash3(cell);
    let star = smoothstep(0.9965, 1.0, h) * (0.4 + 0.6 * hash3(cell + 17.0));
    c += vec3<f32>(star) * globals.moon_dir.w * above;
    // From within water or lava the sky lies past any reach: all murk.
    c = select(c, globals.inside.rgb, globals.inside.w > 0.0);
    return vec4<f32>(c, 1.0);
}
