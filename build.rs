//! Builds the CUDA kernels in `kernels/`.
//!
//! * With nvcc (BLOCKWORLD_NVCC, CUDA_PATH, CUDA_HOME, PATH, or a PyPI
//!   `nvidia-cuda-nvcc` install, including the project-local `.cuda/venv`
//!   that `.ci/run` creates): every `kernels/*.cu` becomes a fatbin with SASS
//!   for common GPUs plus PTX for newer ones, embedded in the binary.
//! * Always: a self-contained copy of each kernel source (local includes
//!   inlined) is embedded, so the runtime can compile it with NVRTC when no
//!   fatbin was built or the driver rejects it.
//! * With NVRTC 12 (BLOCKWORLD_NVRTC12, or the PyPI `nvidia-cuda-nvrtc-cu12`
//!   install in `.cuda/venv12`): cubins for the same architectures plus
//!   compute_75 PTX from CUDA 12.9, for drivers older than CUDA 13 (which
//!   cannot load CUDA 13 cubins: their ELF ABI version is 8, not 7).
//! * ptxas's resource report (`-Xptxas -v`) for every architecture becomes
//!   `kernel_resources.rs`: stack frames (the host sizes the stack of the
//!   recursive virtual path from them) and the kernels whose stack ptxas
//!   cannot bound.
//! * `BLOCKWORLD_REQUIRE_NVCC=1` turns a missing nvcc or NVRTC 12, or a
//!   kernel compile error, into a build failure (CI sets it).
//! * Always: `assets/blocks.ron` becomes the block table and `BlockId`
//!   constants (`src/world/block_codegen.rs`).
//! * Always: every `assets/worldgen/*.ron` becomes a bundled preset
//!   (`bundled_presets.rs`), classic first, so help texts and menus list
//!   the files that exist.
//! * Feature `kernel-emulation`: the same sources compiled as C++ for the
//!   CPU with `kernels/emulation/cuda_emulation.h`.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "src/backend/nvrtc.rs"]
#[allow(dead_code)]
mod nvrtc;

#[path = "src/world/block_codegen.rs"]
mod block_codegen;

#[path = "build/git_stamp.rs"]
mod git_stamp;

const KERNELS: &[&str] = &["heightmap", "fill", "decorate", "density"];
/// (virtual arch, real arch) pairs for SASS, plus PTX of the lowest for JIT on newer GPUs.
const SASS_ARCHS: &[&str] = &["75", "80", "86", "89", "90", "120"];
const PTX_ARCH: &str = "75";

/// `BUNDLED`: (name, text) of every preset file in `dir`, classic (the
/// default) first, then by name.
fn bundled_presets(dir: &Path) -> String {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("read assets/worldgen")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .filter_map(|p| p.file_stem().and_then(|s| s.to_str()).map(str::to_string))
        .collect();
    names.sort_by_key(|n| (n != "classic", n.clone()));
    let mut src = String::from("/// Presets shipped inside the binary, selectable by name: every file in\n/// `assets/worldgen/`, classic first.\npub const BUNDLED: &[(&str, &str)] = &[\n");
    for n in &names {
        let path = dir.join(format!("{n}.ron"));
        src.push_str(&format!("    ({n:?}, include_str!({:?})),\n", path.display().to_string()));
    }
    src.push_str("];\n");
    src
}

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let kernels = manifest.join("kernels");
    println!("cargo:rerun-if-changed=kernels");
    println!("cargo:rerun-if-changed=assets/blocks.ron");
    println!("cargo:rerun-if-changed=assets/worldgen");
    fs::write(out.join("bundled_presets.rs"), bundled_presets(&manifest.join("assets/worldgen")))
        .expect("write bundled_presets.rs");
    println!("cargo:rerun-if-changed=src/world/block_codegen.rs");
    let registry = fs::read_to_string(manifest.join("assets/blocks.ron")).expect("read assets/blocks.ron");
    match block_codegen::generate(&registry) {
        Ok(src) => fs::write(out.join("blocks.rs"), src).expect("write blocks.rs"),
        Err(e) => panic!("the block registry is invalid: {e}"),
    }
    for var in ["BLOCKWORLD_NVCC", "BLOCKWORLD_NVRTC12", "CUDA_PATH", "CUDA_HOME", "PATH", "BLOCKWORLD_REQUIRE_NVCC"] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    println!("cargo::rustc-check-cfg=cfg(bw_fatbin)");
    println!("cargo::rustc-check-cfg=cfg(bw_cu12)");
    println!("cargo::rustc-check-cfg=cfg(bw_emu_threads)");

    for name in KERNELS {
        let src = kernels.join(format!("{name}.cu"));
        let amalgamated = inline_includes(&src, &mut Vec::new());
        fs::write(out.join(format!("{name}.nvrtc.cu")), amalgamated).expect("write amalgamated kernel");
    }

    let require = env::var("BLOCKWORLD_REQUIRE_NVCC").map(|v| v == "1").unwrap_or(false);
    for line in device_code(&manifest, &kernels, &out, require) {
        println!("{line}");
    }

    if env::var("CARGO_FEATURE_KERNEL_EMULATION").is_ok() {
        build_emulation(&kernels);
    }
    stamp_commit(&manifest);
}

/// `BLOCKWORLD_COMMIT`: the commit the benchmarks say they ran on, with
/// `+changes` where the sources differ from it, or `unknown` outside a git
/// checkout. The script reruns when the sources or HEAD move, so the stamp
/// never outlives what it names.
fn stamp_commit(manifest: &Path) {
    let git = |args: &[&str]| {
        Command::new("git").arg("-C").arg(manifest).args(args).output().ok().filter(|o| o.status.success())
    };
    let text = |args: &[&str]| git(args).map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    // Only what the binary is built from counts. `git diff --quiet` exits 1
    // (not success) where a tracked file differs; a new file not yet added
    // is listed by ls-files.
    let built_from = ["src", "kernels", "assets", "build.rs", "Cargo.toml", "Cargo.lock"];
    let clean = git(&[&["diff", "--quiet", "HEAD", "--"][..], &built_from].concat()).is_some()
        && text(&[&["ls-files", "--others", "--exclude-standard", "--"][..], &built_from].concat())
            .is_some_and(|s| s.is_empty());
    let stamp = match text(&["rev-parse", "--short=12", "HEAD"]) {
        Some(commit) if clean => commit,
        Some(commit) => format!("{commit}+changes"),
        None => "unknown".to_string(),
    };
    println!("cargo:rustc-env=BLOCKWORLD_COMMIT={stamp}");
    for path in ["src", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={path}");
    }
    let Some(git_dir) = text(&["rev-parse", "--absolute-git-dir"]) else { return };
    let git_dir = PathBuf::from(git_dir);
    // A worktree keeps its HEAD apart and its refs in the common directory.
    let common =
        text(&["rev-parse", "--path-format=absolute", "--git-common-dir"]).map_or(git_dir.clone(), PathBuf::from);
    let branch = text(&["symbolic-ref", "-q", "HEAD"]);
    for path in git_stamp::watched_git_paths(&git_dir, &common, branch.as_deref()) {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

/// The kernels' device code: fatbins, CUDA 12 images and ptxas's report
/// (`kernel_resources.rs`), and the cargo lines they call for. They depend
/// on the kernel sources and the tools, never on cargo features, so the
/// default, test and ThreadSanitizer builds (each with its own OUT_DIR)
/// share them through a cache beside those directories instead of running
/// nvcc and NVRTC three times.
fn device_code(manifest: &Path, kernels: &Path, out: &Path, require: bool) -> Vec<String> {
    let (nvcc, nvrtc12) = (find_nvcc(manifest), find_nvrtc12(manifest));
    let cache = out.parent().and_then(Path::parent).map(|build| {
        build.join("blockworld-device-code").join(format!("{:016x}", cache_key(out, &[&nvcc, &nvrtc12], require)))
    });
    if let Some(lines) = cache.as_deref().and_then(|dir| restore_device_code(dir, out)) {
        return lines;
    }
    let mut lines = Vec::new();
    // nvcc runs in child processes while NVRTC 12 compiles on this thread.
    let (report, fatbin_lines) = std::thread::scope(|scope| {
        let fatbins = scope.spawn(|| {
            let mut lines = Vec::new();
            (build_fatbins(nvcc.as_deref(), kernels, out, require, &mut lines), lines)
        });
        build_cu12_images(nvrtc12.as_deref(), out, require, &mut lines);
        fatbins.join().unwrap_or_else(|e| std::panic::resume_unwind(e))
    });
    lines.splice(0..0, fatbin_lines);
    write_resources(out, &report);
    if let Some(dir) = &cache {
        store_device_code(dir, out, &lines);
    }
    lines
}

/// What the device code is made from: the amalgamated sources, this build
/// script and the NVRTC wrapper (the options), and each tool's file.
fn cache_key(out: &Path, tools: &[&Option<PathBuf>], require: bool) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for name in KERNELS {
        fs::read(out.join(format!("{name}.nvrtc.cu"))).unwrap_or_default().hash(&mut h);
    }
    include_str!("build.rs").hash(&mut h);
    include_str!("src/backend/nvrtc.rs").hash(&mut h);
    for tool in tools {
        tool.hash(&mut h);
        let meta = tool.as_ref().and_then(|t| fs::metadata(t).ok());
        meta.as_ref().map(|m| (m.len(), m.modified().ok())).hash(&mut h);
    }
    require.hash(&mut h);
    h.finish()
}

fn is_device_file(name: &str) -> bool {
    name.ends_with(".fatbin") || name.contains(".cu12.") || name == "kernel_resources.rs" || name == "cu12_images.rs"
}

/// Copies a cached build into `out`; None when there is none (or it is
/// unreadable, which only costs a rebuild).
fn restore_device_code(dir: &Path, out: &Path) -> Option<Vec<String>> {
    let lines = fs::read_to_string(dir.join("cargo-lines")).ok()?;
    for entry in fs::read_dir(dir).ok()?.flatten() {
        let name = entry.file_name().into_string().ok()?;
        if is_device_file(&name) {
            fs::copy(entry.path(), out.join(&name)).ok()?;
        }
    }
    Some(lines.lines().map(str::to_string).collect())
}

/// Fills a fresh directory and renames it into place, so a build running
/// beside this one never sees half a cache entry. Failing to cache is not
/// an error.
fn store_device_code(dir: &Path, out: &Path, lines: &[String]) {
    let tmp = dir.with_extension(format!("tmp{}", std::process::id()));
    let fill = || -> std::io::Result<()> {
        fs::create_dir_all(&tmp)?;
        for entry in fs::read_dir(out)?.flatten() {
            if entry.file_name().to_str().is_some_and(is_device_file) {
                fs::copy(entry.path(), tmp.join(entry.file_name()))?;
            }
        }
        fs::write(tmp.join("cargo-lines"), lines.join("\n"))?;
        fs::rename(&tmp, dir)
    };
    if fill().is_err() {
        let _ = fs::remove_dir_all(&tmp);
    }
    // Entries of older sources are never read again.
    for old in dir.parent().and_then(|p| fs::read_dir(p).ok()).into_iter().flatten().flatten() {
        if old.path() != dir {
            let _ = fs::remove_dir_all(old.path());
        }
    }
}

/// Every kernel as a fatbin (SASS plus PTX) by nvcc, and each NVRTC copy
/// checked to compile alone; returns ptxas's resource report.
fn build_fatbins(nvcc: Option<&Path>, kernels: &Path, out: &Path, require: bool, lines: &mut Vec<String>) -> String {
    let mut report = String::new();
    match nvcc {
        Some(nvcc) => {
            // Each kernel's fatbin and its NVRTC copy's check are separate
            // nvcc runs: run them all at once, as the machine has cores.
            type Outcome = (&'static str, Result<String, String>, Result<(), String>);
            let results: Vec<Outcome> = std::thread::scope(|scope| {
                let runs: Vec<_> = KERNELS
                    .iter()
                    .map(|&name| {
                        let fatbin = scope.spawn(move || {
                            compile_fatbin(
                                nvcc,
                                &kernels.join(format!("{name}.cu")),
                                &out.join(format!("{name}.fatbin")),
                            )
                        });
                        let check = scope.spawn(move || compile_ptx_check(nvcc, name, out));
                        (name, fatbin, check)
                    })
                    .collect();
                runs.into_iter()
                    .map(|(name, fatbin, check)| {
                        let joined = |e| format!("the nvcc thread panicked: {e:?}");
                        (
                            name,
                            fatbin.join().unwrap_or_else(|e| Err(joined(e))),
                            check.join().unwrap_or_else(|e| Err(joined(e))),
                        )
                    })
                    .collect()
            });
            let mut ok = true;
            for (name, fatbin, check) in results {
                match fatbin {
                    Ok(ptxas) => report.push_str(&ptxas),
                    Err(e) => {
                        ok = false;
                        if require {
                            panic!("BLOCKWORLD_REQUIRE_NVCC=1: compiling kernels/{name}.cu failed:\n{e}");
                        }
                        lines.push(format!("cargo:warning=kernels/{name}.cu did not compile with {}; the GPU backend will use NVRTC at run time: {e}", nvcc.display()));
                    }
                }
                // The embedded NVRTC copies must compile on their own too.
                if let Err(e) = check {
                    ok = false;
                    if require {
                        panic!("BLOCKWORLD_REQUIRE_NVCC=1: the self-contained {name}.nvrtc.cu did not compile:\n{e}");
                    }
                    lines.push(format!("cargo:warning={name}.nvrtc.cu did not compile: {e}"));
                }
            }
            if ok {
                lines.push("cargo:rustc-cfg=bw_fatbin".into());
                lines.push(format!("cargo:rustc-env=BLOCKWORLD_NVCC_USED={}", nvcc.display()));
            }
        }
        None => {
            if require {
                panic!(
                    "BLOCKWORLD_REQUIRE_NVCC=1 but nvcc was not found (looked at BLOCKWORLD_NVCC, CUDA_PATH, CUDA_HOME, PATH and \
                     PyPI nvidia-cuda-nvcc installs). Install it with: python3 -m venv .cuda/venv && \
                     .cuda/venv/bin/pip install nvidia-cuda-nvcc nvidia-cuda-crt"
                );
            }
            lines.push(
                "cargo:warning=nvcc not found: kernels will be compiled at run time with NVRTC when a GPU is used"
                    .into(),
            );
        }
    }

    report
}

/// Parses ptxas -v output into `kernel_resources.rs`.
fn write_resources(out: &Path, report: &str) {
    // Largest frame of a non-entry function (the virtual `compute` methods
    // called recursively), over every architecture; without a report, a
    // conservative guess.
    let mut frame_max = 0u32;
    let mut undetermined: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    for line in report.lines() {
        if let Some(rest) = line.split("Function properties for ").nth(1) {
            current = Some(rest.trim().to_string());
        } else if let (Some(f), Some((frame, _))) = (current.take(), line.trim().split_once(" bytes stack frame")) {
            if let (false, Ok(frame)) = (f.starts_with("bw_"), frame.parse::<u32>()) {
                frame_max = frame_max.max(frame);
            }
        }
        if let Some(rest) = line.split("Stack size for entry function '").nth(1) {
            if let Some(name) = rest.split('\'').next() {
                if !undetermined.iter().any(|u| u == name) {
                    undetermined.push(name.to_string());
                }
            }
        }
    }
    let have = !report.is_empty();
    let text = format!(
        "/// Whether ptxas reported on these kernels (nvcc was found).\n\
         pub const PTXAS_REPORTED: bool = {have};\n\
         /// Largest stack frame of a device function called through the virtual noise objects, any architecture.\n\
         pub const RECURSIVE_FRAME_BYTES: u32 = {};\n\
         /// Entry functions whose stack ptxas cannot bound (recursion or indirect calls).\n\
         pub const UNDETERMINED_STACK: &[&str] = &{:?};\n\
         /// The full ptxas -v report, for the resource table and tests.\n\
         pub const PTXAS_REPORT: &str = {:?};\n",
        if have { frame_max } else { 256 },
        undetermined,
        report
    );
    fs::write(out.join("kernel_resources.rs"), text).expect("write kernel_resources.rs");
}

fn find_nvrtc12(manifest: &Path) -> Option<PathBuf> {
    if let Ok(p) = env::var("BLOCKWORLD_NVRTC12") {
        return Some(PathBuf::from(p));
    }
    let lib = manifest.join(".cuda/venv12/lib");
    let entries = fs::read_dir(lib).ok()?;
    entries.flatten().map(|e| e.path().join("site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12")).find(|p| p.is_file())
}

/// CUDA 12 images: one cubin per SASS architecture plus compute_75 PTX,
/// compiled by NVRTC 12, listed in `cu12_images.rs`.
fn build_cu12_images(nvrtc12: Option<&Path>, out: &Path, require: bool, lines: &mut Vec<String>) {
    let mut listing = String::new();
    let mut ok = false;
    match nvrtc12.map(|p| nvrtc::Nvrtc::load(Some(p))) {
        Some(Ok(nv)) if nv.version.0 == 12 => {
            ok = true;
            for name in KERNELS {
                let src = fs::read_to_string(out.join(format!("{name}.nvrtc.cu"))).expect("amalgamated kernel");
                let mut entries = Vec::new();
                for arch in SASS_ARCHS {
                    let arch: u32 = arch.parse().expect("arch");
                    match nv.compile(&src, &format!("{name}.cu"), arch, nvrtc::Output::Cubin) {
                        Ok(bin) => {
                            let file = format!("{name}.cu12.sm_{arch}.cubin");
                            fs::write(out.join(&file), bin).expect("write cubin");
                            entries.push(format!("({arch}, {})", out_dir_bytes(&file)));
                        }
                        Err(e) => {
                            ok = false;
                            if require {
                                panic!("BLOCKWORLD_REQUIRE_NVCC=1: {e}");
                            }
                            lines.push(format!("cargo:warning={e}"));
                        }
                    }
                }
                let ptx_arch: u32 = PTX_ARCH.parse().expect("arch");
                let ptx = match nv.compile(&src, &format!("{name}.cu"), ptx_arch, nvrtc::Output::Ptx) {
                    Ok(mut p) => {
                        if p.last() != Some(&0) {
                            p.push(0);
                        }
                        let file = format!("{name}.cu12.compute_{PTX_ARCH}.ptx");
                        fs::write(out.join(&file), p).expect("write ptx");
                        format!("Some({})", out_dir_bytes(&file))
                    }
                    Err(e) => {
                        ok = false;
                        lines.push(format!("cargo:warning={e}"));
                        "None".into()
                    }
                };
                listing.push_str(&format!(
                    "pub const {}_CU12: crate::backend::cuda::Cu12Images = crate::backend::cuda::Cu12Images {{ cubins: &[{}], ptx: {ptx} }};\n",
                    name.to_uppercase(),
                    entries.join(", ")
                ));
            }
        }
        Some(Ok(nv)) => lines.push(format!(
            "cargo:warning={} is NVRTC {}.{}, not 12: no CUDA 12 images",
            nv.name, nv.version.0, nv.version.1
        )),
        Some(Err(e)) => lines.push(format!("cargo:warning=NVRTC 12 did not load: {e}")),
        None => {}
    }
    if ok {
        lines.push("cargo:rustc-cfg=bw_cu12".into());
    } else {
        if require {
            panic!(
                "BLOCKWORLD_REQUIRE_NVCC=1 but NVRTC 12 was not found or failed (BLOCKWORLD_NVRTC12, .cuda/venv12). \
                 Install it with: python3 -m venv .cuda/venv12 && .cuda/venv12/bin/pip install nvidia-cuda-nvrtc-cu12"
            );
        }
        lines.push("cargo:warning=no CUDA 12 images: drivers older than CUDA 13 will need NVRTC at run time".into());
        listing.clear();
        for name in KERNELS {
            listing.push_str(&format!(
                "pub const {}_CU12: crate::backend::cuda::Cu12Images = crate::backend::cuda::Cu12Images {{ cubins: &[], ptx: None }};\n",
                name.to_uppercase()
            ));
        }
    }
    fs::write(out.join("cu12_images.rs"), listing).expect("write cu12_images.rs");
}

/// `include_bytes!` of a file in OUT_DIR, by a path that holds wherever the
/// listing was written (the device-code cache moves it between OUT_DIRs).
fn out_dir_bytes(file: &str) -> String {
    format!("include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{file}\")) as &[u8]")
}

/// Replaces `#include "x"` lines by the file's contents (once per file).
fn inline_includes(path: &Path, seen: &mut Vec<PathBuf>) -> String {
    let canonical = path.canonicalize().unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if seen.contains(&canonical) {
        return String::new();
    }
    seen.push(canonical);
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let dir = path.parent().unwrap();
    let mut out = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("#include \"") {
            let file = rest.trim_end_matches('"');
            out.push_str(&inline_includes(&dir.join(file), seen));
        } else if t.starts_with("#pragma once") {
            continue;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn find_nvcc(manifest: &Path) -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Ok(p) = env::var("BLOCKWORLD_NVCC") {
        candidates.push(PathBuf::from(p));
    }
    for var in ["CUDA_PATH", "CUDA_HOME"] {
        if let Ok(p) = env::var(var) {
            candidates.push(Path::new(&p).join("bin/nvcc"));
        }
    }
    if let Ok(path) = env::var("PATH") {
        candidates.extend(env::split_paths(&path).map(|d| d.join("nvcc")));
    }
    // PyPI wheels: nvidia/cu13/bin/nvcc (CUDA 13) or nvidia/cuda_nvcc/bin/nvcc.
    let mut site_dirs: Vec<PathBuf> = Vec::new();
    for venv in [manifest.join(".cuda/venv"), PathBuf::from(env::var("HOME").unwrap_or_default()).join(".local")] {
        if let Ok(entries) = fs::read_dir(venv.join("lib")) {
            site_dirs.extend(entries.flatten().map(|e| e.path().join("site-packages")));
        }
    }
    if let Ok(o) = Command::new("python3")
        .args(["-c", "import site,sys;print('\\n'.join(sys.path+site.getsitepackages()))"])
        .output()
    {
        site_dirs.extend(String::from_utf8_lossy(&o.stdout).lines().map(PathBuf::from));
    }
    for d in site_dirs {
        candidates.push(d.join("nvidia/cu13/bin/nvcc"));
        candidates.push(d.join("nvidia/cuda_nvcc/bin/nvcc"));
    }
    candidates
        .into_iter()
        .find(|c| c.is_file() && Command::new(c).arg("--version").output().map(|o| o.status.success()).unwrap_or(false))
}

/// Compiles one kernel to a fatbin; returns ptxas's resource report.
fn compile_fatbin(nvcc: &Path, src: &Path, dst: &Path) -> Result<String, String> {
    let mut cmd = Command::new(nvcc);
    cmd.arg("-fatbin").arg("--fmad=false").arg("-O3").arg("-std=c++17").arg("-Xptxas").arg("-v");
    for a in SASS_ARCHS {
        cmd.arg("-gencode").arg(format!("arch=compute_{a},code=sm_{a}"));
    }
    cmd.arg("-gencode").arg(format!("arch=compute_{PTX_ARCH},code=compute_{PTX_ARCH}"));
    cmd.arg("-o").arg(dst).arg(src);
    let o = cmd.output().map_err(|e| format!("cannot run {}: {e}", nvcc.display()))?;
    if o.status.success() {
        Ok(String::from_utf8_lossy(&o.stderr).into_owned())
    } else {
        Err(format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)))
    }
}

/// Compiles the amalgamated `{name}.nvrtc.cu` in `out` to PTX, as NVRTC will.
fn compile_ptx_check(nvcc: &Path, name: &str, out: &Path) -> Result<(), String> {
    let o = Command::new(nvcc)
        .args(["-ptx", "--fmad=false", "-std=c++17", "-arch=compute_75", "-o"])
        .arg(out.join(format!("{name}.nvrtc-check.ptx")))
        .arg(out.join(format!("{name}.nvrtc.cu")))
        .output()
        .map_err(|e| format!("cannot run {}: {e}", nvcc.display()))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

fn build_emulation(kernels: &Path) {
    let tsan = env::var("CARGO_FEATURE_KERNEL_EMULATION_TSAN").is_ok();
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .file(kernels.join("emulation/launch.cpp"))
        .include(kernels.join("emulation"))
        .flag("-std=c++17")
        .flag("-ffp-contract=off")
        .flag("-fno-fast-math")
        .flag_if_supported("-fno-strict-aliasing")
        .opt_level(2)
        .warnings(true)
        .extra_warnings(true);
    // Fibers need the hand-written x86-64 context switch; elsewhere the
    // emulation runs one OS thread per CUDA thread (slower, same results).
    let x86_64 = env::var("CARGO_CFG_TARGET_ARCH").map(|a| a == "x86_64").unwrap_or(false);
    if tsan || !x86_64 {
        build.define("BW_EMU_THREADS", None);
        // Its statics are shared by every OS thread: src/backend/emulated.rs
        // then runs one launch at a time.
        println!("cargo:rustc-cfg=bw_emu_threads");
    } else {
        build.file(kernels.join("emulation/context_switch_x86_64.S"));
    }
    if tsan {
        build.flag("-fsanitize=thread").flag("-g");
        println!("cargo:rustc-link-lib=dylib=tsan");
    }
    build.compile("bw_kernel_emulation");
}
