//! Shared by the integration tests that run the real host code against the
//! driver stand-in, and the presets they write.
// Each test crate uses its own part of this module.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// The directory of the driver stand-in's libcuda.so.1 (.ci/cuda-stand-in
/// builds it when its inputs changed; it needs nvcc from .ci/install).
pub fn stand_in() -> String {
    let o = Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/cuda-stand-in"))
        .output()
        .expect("bash runs");
    assert!(o.status.success(), "the driver stand-in did not build:\n{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).lines().last().unwrap_or_default().to_string()
}

/// Classic's preset text with the named top-level sections (`"decorations"`,
/// `"caves"`, `"veins"`, …) cut out.
pub fn classic_without(sections: &[&str]) -> String {
    let classic = include_str!("../../assets/worldgen/classic.ron");
    let mut text = String::new();
    let mut cutting = false;
    for line in classic.lines() {
        if sections.iter().any(|s| line.starts_with(&format!("    {s}:"))) {
            cutting = true;
        } else if cutting {
            cutting = !line.starts_with("    ),");
        } else {
            text += line;
            text.push('\n');
        }
    }
    text
}
