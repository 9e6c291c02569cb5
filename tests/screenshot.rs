//! The screenshot command on this machine's software Vulkan (lavapipe):
//! the picture must be a real view of the world — sky above, terrain below,
//! several block colours — and day, night and fog must look right.

use std::process::Command;

fn decode(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

#[test]
fn screenshot_shows_sky_terrain_and_several_blocks() {
    let dir = std::env::temp_dir().join(format!("blockworld-shot-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("shot.png");
    let o = Command::new(env!("CARGO_BIN_EXE_blockworld"))
        .args(["screenshot", "--seed", "7", "--render-distance", "6", "--size", "640x360", "--out"])
        .arg(&out)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "screenshot failed (is mesa-vulkan-drivers installed?): {err}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("loaded") && stdout.contains(" ms"), "no load time printed: {stdout}");

    let (w, h, px) = decode(&out);
    assert_eq!((w, h), (640, 360));
    let at = |x: u32, y: u32| {
        let i = ((y * w + x) * 4) as usize;
        [px[i] as i32, px[i + 1] as i32, px[i + 2] as i32]
    };
    let sky = at(w / 2, 2);
    // The noon sky: a bright blue, lighter toward the horizon.
    let is_sky = |c: [i32; 3]| c[2] >= 215 && c[1] >= 150 && c[2] > c[0] + 30;
    assert!(is_sky(sky), "top of the image is not sky: {sky:?}");
    // Mountains may rise into the top edge; most of it is still sky.
    let top: Vec<[i32; 3]> = (0..h / 20).flat_map(|y| (0..w).map(move |x| (x, y))).map(|(x, y)| at(x, y)).collect();
    let top_sky = top.iter().filter(|c| is_sky(**c)).count();
    assert!(top_sky * 2 > top.len(), "only {top_sky} of {} pixels along the top are sky", top.len());

    let lower: Vec<[i32; 3]> = (h / 2..h).flat_map(|y| (0..w).map(move |x| (x, y))).map(|(x, y)| at(x, y)).collect();
    let terrain = lower.iter().filter(|c| !is_sky(**c)).count();
    assert!(terrain > lower.len() / 2, "terrain covers only {terrain} of {} lower-half pixels", lower.len());

    // Distinct colours, coarsely bucketed; each must cover ≥ 0.5 % of the lower half.
    let mut buckets = std::collections::HashMap::new();
    for c in &lower {
        *buckets.entry((c[0] / 40, c[1] / 40, c[2] / 40)).or_insert(0usize) += 1;
    }
    let distinct = buckets.values().filter(|&&n| n * 200 > lower.len()).count();
    assert!(distinct >= 4, "only {distinct} distinct colours in the terrain: {buckets:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A new seed-42 world in a fresh directory, edited by `script` (lines of
/// `blockworld world edit`) unless it is empty; returns the directory and
/// the world's path.
fn edited_world(name: &str, script: &str) -> (std::path::PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("blockworld-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let world = dir.join("world").to_str().unwrap().to_string();
    blockworld_ok(&["world", "new", &world, "--seed", "42"]);
    if !script.is_empty() {
        edit_world(&dir, &world, script);
    }
    (dir, world)
}

fn edit_world(dir: &std::path::Path, world: &str, script: &str) {
    let file = dir.join("script.txt");
    std::fs::write(&file, script).unwrap();
    blockworld_ok(&["world", "edit", world, "--script", file.to_str().unwrap()]);
}

fn blockworld_ok(args: &[&str]) {
    let o = Command::new(env!("CARGO_BIN_EXE_blockworld")).args(args).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
}

/// Renders a view and returns its pixels as RGB rows.
fn shot(name: &str, args: &[&str]) -> (u32, u32, Vec<[i32; 3]>) {
    shot_sized(name, "320x180", args)
}

/// [`shot`] of `size` (WxH) pixels.
fn shot_sized(name: &str, size: &str, args: &[&str]) -> (u32, u32, Vec<[i32; 3]>) {
    let dir = std::env::temp_dir().join(format!("blockworld-shot-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("shot.png");
    let o = Command::new(env!("CARGO_BIN_EXE_blockworld"))
        .args(["screenshot", "--size", size, "--out"])
        .arg(&out)
        .args(args)
        .env("XDG_RUNTIME_DIR", std::env::temp_dir())
        .output()
        .unwrap();
    assert!(o.status.success(), "screenshot failed: {}", String::from_utf8_lossy(&o.stderr));
    let (w, h, px) = decode(&out);
    let _ = std::fs::remove_dir_all(&dir);
    (w, h, px.chunks(4).map(|p| [p[0] as i32, p[1] as i32, p[2] as i32]).collect())
}

fn mean_luma(px: &[[i32; 3]]) -> f64 {
    px.iter().map(|c| 0.2126 * c[0] as f64 + 0.7152 * c[1] as f64 + 0.0722 * c[2] as f64).sum::<f64>() / px.len() as f64
}

#[test]
fn midnight_is_much_darker_than_noon() {
    let view = ["--seed", "42", "--render-distance", "3"];
    let (_, _, noon) = shot("noon", &[&view[..], &["--time", "0.5"]].concat());
    let (_, _, night) = shot("night", &[&view[..], &["--time", "0"]].concat());
    let (day, dark) = (mean_luma(&noon), mean_luma(&night));
    assert!(dark < 0.3 * day, "midnight mean brightness {dark:.1} against {day:.1} at noon");
    assert!(dark > 2.0, "the night is not pitch black: the moon and stars light it ({dark:.1})");
}

/// From high above, the edge of the loaded world is fogged into exactly the
/// sky behind it: going down any column from the top of the picture, across
/// the sky and the far edge of the terrain, the colour never jumps.
#[test]
fn the_world_edge_melts_into_the_sky_from_above() {
    let (w, h, px) = shot(
        "edge",
        &[
            "--seed",
            "42",
            "--pos",
            "5.5,90,0.5",
            "--yaw",
            "35",
            "--pitch",
            "-55",
            "--render-distance",
            "3",
            "--horizon",
            "0",
        ],
    );
    let at = |x: u32, y: u32| px[(y * w + x) as usize];
    let mut steps: Vec<i32> = (0..w)
        .map(|x| {
            (1..h / 2)
                .map(|y| {
                    let (a, b) = (at(x, y - 1), at(x, y));
                    (0..3).map(|i| (a[i] - b[i]).abs()).max().unwrap_or(0)
                })
                .max()
                .unwrap_or(0)
        })
        .collect();
    steps.sort();
    let p75 = steps[steps.len() * 3 / 4];
    assert!(p75 <= 6, "a step of {p75} levels between fogged terrain and sky (75th percentile over columns)");
    // The terrain's edge is in the rows checked: the lower half is not all sky.
    let lower = &px[(w * h / 2) as usize..];
    let sky = at(w / 2, 0);
    let terrain = lower.iter().filter(|c| (0..3).any(|i| (c[i] - sky[i]).abs() > 20)).count();
    assert!(terrain * 10 > lower.len(), "only {terrain} terrain pixels in the lower half");
}

/// A closed chamber 180 blocks under a mountain (seed 42): dark without a
/// torch; with one on its floor, bright around the torch and dark beyond
/// its reach. Block light reaches the meshes only through the light stage,
/// so this fails if streaming meshes in full sky or ignores block light.
#[test]
fn a_torch_lights_a_cave_and_the_rest_stays_dark() {
    let (dir, world) = edited_world("torch", "");
    let view = ["--world", &world, "--pos=-1,-32,-305", "--yaw", "30", "--pitch", "-15", "--render-distance", "5"];
    let (w, h, dark) = shot("cave-dark", &view);
    edit_world(&dir, &world, "set 1 -39 -299 torch\n");
    let (_, _, lit) = shot("cave-torch", &view);
    let _ = std::fs::remove_dir_all(&dir);

    let rows = |px: &[[i32; 3]], from: u32, to: u32| px[(from * w) as usize..(to * w) as usize].to_vec();
    let bright = |px: &[[i32; 3]]| px.iter().filter(|c| mean_luma(&[**c]) > 40.0).count() as f64 / px.len() as f64;
    let (dark_low, lit_low) = (mean_luma(&rows(&dark, h / 2, h)), mean_luma(&rows(&lit, h / 2, h)));
    let lit_top = mean_luma(&rows(&lit, 0, h / 4));
    assert!(dark_low < 12.0, "without a torch the chamber is dark: lower half {dark_low:.1}");
    assert!(bright(&dark) < 0.005, "without a torch nothing is bright: {:.3}", bright(&dark));
    assert!(
        lit_low > 15.0 && lit_low > 2.0 * dark_low,
        "the torch lights the floor around it: {lit_low:.1} vs {dark_low:.1}"
    );
    assert!(bright(&lit) > 0.03, "bright pixels around the torch: {:.3}", bright(&lit));
    assert!(lit_top < 12.0, "beyond the torch's reach the cave stays dark: top quarter {lit_top:.1}");
}

/// Visibility culling changes what is drawn, never the picture: six
/// views, each with culling on and off, match to within one level per
/// channel (the spawn view over the sea, a cave mouth, inside a tunnel, a
/// dark chamber, under the sea, among mountains with a 32 km horizon). A
/// culled chunk or far tile that showed anything would leave a hole of sky
/// or fog behind, or a gap in a mountain.
#[test]
fn culling_on_and_off_draw_the_same_pictures() {
    let views: [(&str, &[&str]); 6] = [
        ("spawn", &["--render-distance", "5"]),
        (
            "cave-mouth",
            &["--seed", "42", "--render-distance", "6", "--pos=-193,39,-309", "--yaw", "0", "--pitch", "-5"],
        ),
        ("tunnel", &["--seed", "42", "--render-distance", "6", "--pos=-192,36,-275", "--yaw", "180", "--pitch", "-5"]),
        ("chamber", &["--seed", "42", "--render-distance", "5", "--pos=-1,-32,-305", "--yaw", "30", "--pitch", "-15"]),
        ("under-the-sea", &["--render-distance", "5", "--pos=160,-2,40", "--yaw", "60", "--pitch", "-5"]),
        // Mountains of the chunk range hide far terrain behind them.
        ("mountains", MOUNTAINS),
    ];
    for (name, args) in views {
        let on = shot(&format!("{name}-on"), &[args, &["--culling", "on"]].concat());
        let off = shot(&format!("{name}-off"), &[args, &["--culling", "off"]].concat());
        assert_eq!((on.0, on.1), (off.0, off.1));
        let worst = on.2.iter().zip(&off.2).map(|(a, b)| (0..3).map(|k| (a[k] - b[k]).abs()).max().unwrap_or(0)).max();
        assert!(worst.unwrap_or(0) <= 1, "{name}: culling changed a pixel by {worst:?} levels");
    }
}

/// Largest difference of one channel between two colours.
fn diff(a: [i32; 3], b: [i32; 3]) -> i32 {
    (0..3).map(|i| (a[i] - b[i]).abs()).max().unwrap_or(0)
}

/// With a horizon, terrain (not sky) fills the band just below the horizon
/// line, kilometres past the chunks; without one, the same band is sky.
#[test]
fn far_terrain_fills_the_band_below_the_horizon() {
    let view = ["--seed", "42", "--pos", "5.5,200,0.5", "--yaw", "35", "--pitch", "0", "--render-distance", "3"];
    let (w, h, far) = shot("band-far", &[&view[..], &["--horizon", "32000"]].concat());
    let (_, _, none) = shot("band-none", &[&view[..], &["--horizon", "0"]].concat());
    // Rows 3 to 10 below the horizon line look 2 to 6 km out from 130
    // blocks above the ground.
    let band: Vec<usize> = (h / 2 + 3..h / 2 + 11).flat_map(|y| (0..w).map(move |x| (y * w + x) as usize)).collect();
    // Below the horizon line the sky has one colour.
    let below = none[band[0]];
    let sky = band.iter().filter(|&&i| diff(none[i], below) <= 2).count();
    assert!(sky * 10 > band.len() * 9, "without a horizon the band is sky ({sky} of {})", band.len());
    let terrain = band.iter().filter(|&&i| diff(far[i], none[i]) > 12).count();
    assert!(terrain * 10 > band.len() * 8, "terrain covers only {terrain} of {} band pixels", band.len());
}

/// Looking down on the edge of the chunk range from high above, no pixel
/// shows the sky through a crack between the chunks and far terrain;
/// without far terrain, the fogged world beyond the chunks is the sky's
/// colour (the control that the measure sees sky).
#[test]
fn no_sky_shows_where_chunks_meet_far_terrain() {
    let view = ["--seed", "42", "--pos", "5.5,300,0.5", "--yaw", "35", "--pitch", "-60", "--render-distance", "3"];
    let (w, _, far) = shot("crack-far", &[&view[..], &["--horizon", "4000"]].concat());
    let (_, _, none) = shot("crack-none", &[&view[..], &["--horizon", "0"]].concat());
    // Every direction on screen points below the horizon, where the sky
    // has one colour: the fully fogged top row shows it.
    let sky = none[(w / 2) as usize];
    let like_sky = |px: &[[i32; 3]]| px.iter().filter(|c| diff(**c, sky) <= 3).count();
    assert!(like_sky(&none) * 5 > none.len(), "the control sees too little sky: {}", like_sky(&none));
    let cracks = like_sky(&far);
    assert!(cracks * 1000 <= far.len(), "{cracks} pixels show the sky between chunks and far terrain");
}

/// Looking along the azimuth opposite the sun at night, no pixel of sky or
/// terrain is black. There the flat directions to the pixel and to the sun
/// are opposite, and the dusk glow's dot of the two rounded past -1 into a
/// NaN, which the target stored as black: a dotted line down the picture,
/// on the ground at the player's feet too. A tall, narrow picture puts many
/// pixels on that azimuth (without the clamp, 3 at pitch 20 on this machine).
#[test]
fn no_pixel_is_black_opposite_the_sun() {
    let time = 0.9f32;
    let sun = blockworld::render::sky::sun_direction(time);
    let yaw = (-sun.x as f64).atan2(-sun.z as f64).to_degrees().to_string();
    let time = time.to_string();
    for pitch in ["20", "-20"] {
        let view = ["--seed", "42", "--render-distance", "3", "--time", &time, "--yaw", &yaw, "--pitch", pitch];
        let (_, _, px) = shot_sized(&format!("anti-sun{pitch}"), "65x1001", &view);
        let black = px.iter().filter(|c| **c == [0, 0, 0]).count();
        assert_eq!(black, 0, "{black} black pixels at pitch {pitch}, yaw {yaw}");
    }
}

/// A cross sprite (a rose) stands in its own block: placed in the open
/// air three blocks in front of the eye, at eye height, its red petals
/// show in the middle of the picture, just above the centre (the flower's
/// head is in the top half of its tile). Both of its diagonal quads shifted
/// a block down and aside once, which this catches.
#[test]
fn a_cross_sprite_is_drawn_in_its_own_block() {
    let (dir, world) = edited_world("sprite", "set 0 90 3 rose\n");
    let view = ["--world", &world, "--pos=0.5,90.5,0.5", "--yaw", "0", "--pitch", "0", "--render-distance", "2"];
    let (w, h, px) = shot("sprite", &view);
    let _ = std::fs::remove_dir_all(&dir);
    let red: Vec<(u32, u32)> = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let c = px[(y * w + x) as usize];
            c[0] > 120 && c[1] < 90 && c[2] < 90
        })
        .collect();
    assert!(red.len() > 50, "the rose's petals are drawn: {} red pixels", red.len());
    let cx = red.iter().map(|p| p.0 as f64).sum::<f64>() / red.len() as f64;
    let cy = red.iter().map(|p| p.1 as f64).sum::<f64>() / red.len() as f64;
    assert!((cx - w as f64 / 2.0).abs() < w as f64 / 20.0, "petals centred across: {cx:.0} of {w}");
    assert!(cy < h as f64 / 2.0 && cy > h as f64 / 4.0, "petals just above the centre: {cy:.0} of {h}");
}

/// Over open sea (seed 42, west of the origin), the far water just beyond
/// the chunk range has the colour of the chunks' water just inside it: no
/// step where the two meet. The chunks' water is textured and far water is
/// flat, so the seam is the first row, going down the middle of the
/// picture, whose pixels vary; the mean of six rows on either side must
/// agree within three levels in every channel.
#[test]
fn far_water_meets_the_chunks_water_without_a_step() {
    let (w, h, px) = shot(
        "water-seam",
        &[
            "--seed",
            "42",
            "--pos=-1680,110,-1744",
            "--yaw",
            "90",
            "--pitch",
            "-35",
            "--render-distance",
            "4",
            "--horizon",
            "8000",
        ],
    );
    let cols = w / 2 - 20..w / 2 + 20;
    let row = |y: u32| cols.clone().map(|x| px[(y * w + x) as usize]).collect::<Vec<_>>();
    let spread = |r: &[[i32; 3]]| {
        (0..3).map(|i| r.iter().map(|c| c[i]).max().unwrap() - r.iter().map(|c| c[i]).min().unwrap()).max().unwrap()
    };
    let mean = |ys: std::ops::Range<u32>| {
        let rows: Vec<[i32; 3]> = ys.flat_map(row).collect();
        [0, 1, 2].map(|i| rows.iter().map(|c| c[i] as f64).sum::<f64>() / rows.len() as f64)
    };
    // The flat far water runs down to the seam from the middle of the picture.
    let start = h / 2 - 10;
    assert!(spread(&row(start)) <= 2, "the middle of the picture is not flat far water");
    let seam = (start..h).find(|&y| spread(&row(y)) > 6).expect("no chunk water below the far water");
    assert!(seam >= start + 6 && seam + 6 <= h, "the seam lies at row {seam}, too near an edge");
    let (far, near) = (mean(seam - 6..seam), mean(seam..seam + 6));
    for c in [far, near] {
        assert!(c[2] > c[0] + 80.0, "not water on both sides of row {seam}: {far:?} against {near:?}");
    }
    let step = (0..3).map(|i| (far[i] - near[i]).abs()).fold(0.0, f64::max);
    assert!(step <= 3.0, "far water {far:.1?} against the chunks' water {near:.1?} at row {seam}: a step of {step:.1}");
}

/// Among the mountains south-west of the spawn, at render distance 8 with
/// a 32 km horizon, the chunk range's mountains hide far terrain.
const MOUNTAINS: &[&str] = &[
    "--seed",
    "42",
    "--render-distance",
    "8",
    "--pos",
    "13,100,1",
    "--yaw",
    "200",
    "--pitch",
    "0",
    "--horizon",
    "32000",
];

/// The mountains view leaves out far quads that its chunks hide (with the
/// same picture: `culling_on_and_off_draw_the_same_pictures`); with
/// culling off none are left out.
#[test]
fn the_chunks_mountains_hide_far_terrain() {
    let hidden = |culling: &str| {
        let out = std::env::temp_dir().join(format!("blockworld-hidden-{}-{culling}.png", std::process::id()));
        let o = Command::new(env!("CARGO_BIN_EXE_blockworld"))
            .args(["screenshot", "--size", "160x90", "--culling", culling, "--out"])
            .arg(&out)
            .args(MOUNTAINS)
            .env("XDG_RUNTIME_DIR", std::env::temp_dir())
            .output()
            .unwrap();
        let _ = std::fs::remove_file(&out);
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        assert!(o.status.success(), "{text}{}", String::from_utf8_lossy(&o.stderr));
        let n = text.split(" hidden)").next().and_then(|t| t.rsplit('(').next()).and_then(|n| n.parse::<u64>().ok());
        n.unwrap_or_else(|| panic!("no hidden count in {text}"))
    };
    let on = hidden("on");
    assert!(on > 1000, "only {on} far quads hidden");
    assert_eq!(hidden("off"), 0);
}

/// From under the sea, the water's murk hides what lies past its reach:
/// ten blocks under the surface, looking level, the band along the horizon
/// line (the farthest the eye sees) is the murk's colour as the registry
/// gives it, where the same view from above the water shows shores,
/// mountains and sky there; at midnight the murk is darker.
#[test]
fn under_water_the_view_fades_into_the_murk() {
    let inside = blockworld::world::block::BlockId::WATER.info().inside.expect("water has a murk");
    let murk = inside.colour.map(i32::from);
    // Seed 42's sea is 37 blocks deep here, under a surface at y 0, and
    // open for more than the reach at this heading.
    let view = ["--seed", "42", "--yaw", "90", "--pitch", "0", "--render-distance", "3"];
    let (w, h, under) = shot("murk-under", &[&view[..], &["--pos=-88.5,-10,73.5", "--time", "0.5"]].concat());
    let (_, _, above) = shot("murk-above", &[&view[..], &["--pos=-88.5,12,73.5", "--time", "0.5"]].concat());
    let (_, _, night) = shot("murk-night", &[&view[..], &["--pos=-88.5,-10,73.5", "--time", "0"]].concat());
    let band: Vec<usize> = (h / 2 - 2..=h / 2 + 2).flat_map(|y| (0..w).map(move |x| (y * w + x) as usize)).collect();
    let like_murk = |px: &[[i32; 3]]| band.iter().filter(|&&i| diff(px[i], murk) <= 3).count();
    let (u, a) = (like_murk(&under), like_murk(&above));
    assert!(u * 50 >= band.len() * 49, "under water only {u} of {} band pixels are the murk {murk:?}", band.len());
    assert!(
        a * 10 <= band.len(),
        "above water {a} of {} band pixels are the murk: the control sees no view",
        band.len()
    );
    let (day, dark) = (mean_luma(&under), mean_luma(&night));
    assert!(dark < 0.5 * day, "the murk at midnight ({dark:.1}) is not darker than at noon ({day:.1})");
}

/// Far faces sample the tiles' smaller images (mip levels): across a lake
/// seen at a low angle, the water tens of blocks out is smooth, where
/// sampling the full 16×16 tile at every distance broke it into moiré
/// (neighbouring pixels 12 levels apart on average over the three
/// channels, against 1.5 with the levels).
#[test]
fn distant_water_is_smooth_not_moire() {
    let (w, h, px) = shot(
        "mips",
        &["--seed", "42", "--pos=92.5,6,247.5", "--yaw", "200", "--pitch", "-8", "--render-distance", "3"],
    );
    // Rows 60–75 % down the picture: the lake, some 20 to 60 blocks out.
    let (mut sum, mut n) = (0i64, 0i64);
    for y in h * 60 / 100..h * 75 / 100 {
        for x in 0..w - 1 {
            let (a, b) = (px[(y * w + x) as usize], px[(y * w + x + 1) as usize]);
            sum += (0..3).map(|k| (a[k] - b[k]).abs() as i64).sum::<i64>();
            n += 1;
        }
    }
    let mean = sum as f64 / n as f64;
    assert!(mean < 4.0, "distant water: neighbouring pixels differ by {mean:.2} levels on average");
}
