//! The layering ARCHITECTURE.md promises, checked on the source text:
//! what each part of the crate must not know. Test modules (from
//! `#[cfg(test)]` on) are left out: tests may reach across layers.

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// Non-test code of a file, comments dropped.
fn code(text: &str) -> String {
    let before_tests = text.split("#[cfg(test)]").next().unwrap_or_default();
    before_tests.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n")
}

/// A rule: what it says, which files it allows, and what the others must not name.
type Rule<'a> = (&'a str, &'a dyn Fn(&str) -> bool, &'a [&'a str]);

/// Every rule broken, as a line naming the file and what it named.
fn violations(files: &[(String, String)]) -> Vec<String> {
    let rules: &[Rule] = &[
        (
            "world/ knows no threads, no GPU and nothing else of the crate",
            &|p| !p.starts_with("world/"),
            &[
                "std::thread",
                "rayon",
                "crossbeam",
                "wgpu",
                "cudarc",
                "crate::backend",
                "crate::game",
                "crate::render",
                "crate::worldgen",
                "crate::light",
                "crate::mesh",
                "crate::save",
            ],
        ),
        (
            "sim/ knows the world and nothing above it",
            &|p| !p.starts_with("sim/"),
            &[
                "std::thread",
                "rayon",
                "wgpu",
                "winit",
                "cudarc",
                "crate::backend",
                "crate::game",
                "crate::render",
                "crate::worldgen",
                "crate::light",
                "crate::mesh",
                "crate::save",
            ],
        ),
        (
            "far/ knows no GPU, no window and no game",
            &|p| !p.starts_with("far/"),
            &["wgpu", "winit", "cudarc", "crate::render", "crate::game", "crate::backend"],
        ),
        (
            "only game/ and render's window glue know winit",
            &|p| p.starts_with("game/") || p == "render/gpu.rs" || p == "render/overlay.rs",
            &["winit"],
        ),
        ("only main.rs and cli/ know clap", &|p| p == "main.rs" || p.starts_with("cli/"), &["clap::", "use clap"]),
        ("only backend/ talks to a CUDA device", &|p| p.starts_with("backend/"), &["cudarc"]),
        ("only main.rs handles signals", &|p| p == "main.rs", &["signal_hook"]),
        ("only main.rs reads the environment", &|p| p == "main.rs", &["env::var"]),
    ];
    let mut out = Vec::new();
    for (path, text) in files {
        let body = code(text);
        for (rule, allowed, names) in rules {
            if allowed(path) {
                continue;
            }
            for n in *names {
                if body.contains(n) {
                    out.push(format!("src/{path} names `{n}`: {rule}"));
                }
            }
        }
    }
    out
}

fn crate_sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    sources(&src, &mut paths);
    paths
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
            (rel, std::fs::read_to_string(p).unwrap())
        })
        .collect()
}

#[test]
fn the_layers_know_only_what_architecture_md_says() {
    let files = crate_sources();
    assert!(files.len() > 50, "the source tree was not found");
    let v = violations(&files);
    assert!(v.is_empty(), "{}", v.join("\n"));
}

#[test]
fn a_crossing_is_caught() {
    // Negative control: each rule fails on a file that breaks it.
    for (path, text) in [
        ("world/chunk.rs", "use rayon::prelude::*;"),
        ("world/chunk.rs", "use crate::worldgen::WorldGen;"),
        ("render/camera.rs", "use winit::window::Window;"),
        ("backend/engine.rs", "#[derive(clap::ValueEnum)]"),
        ("game/app.rs", "use cudarc::driver::CudaContext;"),
        ("game/app.rs", "signal_hook::flag::register(2, f);"),
        ("backend/kernel.rs", "let v = std::env::var(\"BLOCKWORLD_X\");"),
    ] {
        let v = violations(&[(path.to_string(), text.to_string())]);
        assert_eq!(v.len(), 1, "{path}: {text}: {v:?}");
    }
    // Test modules and comments may say anything.
    let ok = violations(&[("world/chunk.rs".into(), "// rayon\n#[cfg(test)]\nuse rayon::x;".into())]);
    assert!(ok.is_empty(), "{ok:?}");
}
