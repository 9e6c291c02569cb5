//! The screenshot command on this machine's software Vulkan (lavapipe):
//! the picture must be a real view of the world — sky above, terrain below,
//! several block colours.

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
    // The sky colour (158, 199, 242) ± a little.
    let is_sky = |c: [i32; 3]| (c[0] - 158).abs() < 12 && (c[1] - 199).abs() < 12 && (c[2] - 242).abs() < 12;
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
