//! The docs stay honest: every relative link in the Markdown names a file
//! (and heading) that exists, every command the README names answers
//! `--help`, and docs/commands.md mentions every flag of every command.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn markdown_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        ["README.md", "ARCHITECTURE.md", "CONTRIBUTING.md"].iter().map(|f| root().join(f)).collect();
    for e in std::fs::read_dir(root().join("docs")).expect("docs/ exists") {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            files.push(p);
        }
    }
    files
}

/// `](target)` link targets in a Markdown text, outside code blocks.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    text.lines().filter(|l| l.starts_with('#')).map(|l| slug(l.trim_start_matches('#'))).collect()
}

/// Links in `text` (a file in `dir`) that name no file, or no heading of it.
fn broken_links(text: &str, dir: &Path, own_anchors: &BTreeSet<String>) -> Vec<String> {
    let mut broken = Vec::new();
    for link in links(text) {
        if link.contains("://") || link.starts_with("mailto:") {
            continue;
        }
        let (file, anchor) = match link.split_once('#') {
            Some((f, a)) => (f, Some(a)),
            None => (link.as_str(), None),
        };
        let target = dir.join(file);
        if !file.is_empty() && !target.exists() {
            broken.push(format!("{link}: no such file"));
            continue;
        }
        if let Some(a) = anchor {
            let known = if file.is_empty() {
                own_anchors.clone()
            } else if file.ends_with(".md") {
                anchors(&std::fs::read_to_string(&target).unwrap_or_default())
            } else {
                continue;
            };
            if !known.contains(a) {
                broken.push(format!("{link}: no heading #{a}"));
            }
        }
    }
    broken
}

#[test]
fn every_relative_link_names_a_file_that_exists() {
    let mut broken = Vec::new();
    for f in markdown_files() {
        let text = std::fs::read_to_string(&f).unwrap();
        for b in broken_links(&text, f.parent().unwrap(), &anchors(&text)) {
            broken.push(format!("{}: {b}", f.strip_prefix(root()).unwrap().display()));
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn a_broken_link_is_caught() {
    // Negative control.
    let text = "# Top\n[a](README.md) [b](no-such-file.md) [c](#top) [d](#nowhere) [e](README.md#no-heading)\n";
    let broken = broken_links(text, &root(), &anchors(text));
    assert_eq!(broken.len(), 3, "{broken:?}");
}

#[test]
fn the_front_door_is_short() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(readme.lines().count() <= 200, "README.md has {} lines", readme.lines().count());
    let arch = std::fs::read(root().join("ARCHITECTURE.md")).unwrap();
    assert!(arch.len() <= 12 * 1024, "ARCHITECTURE.md is {} bytes", arch.len());
}

fn help(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_blockworld")).args(args).arg("--help").output().expect("blockworld runs");
    assert!(o.status.success(), "blockworld {} --help failed: {}", args.join(" "), String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The subcommands a `--help` text lists under "Commands:".
fn subcommands(help_text: &str) -> Vec<String> {
    help_text
        .split("Commands:")
        .nth(1)
        .map(|rest| {
            rest.lines()
                .skip(1)
                .take_while(|l| l.starts_with("  "))
                .filter_map(|l| l.split_whitespace().next())
                .filter(|c| *c != "help")
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn every_command_the_readme_names_answers_help() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let named: BTreeSet<String> = readme
        .split("`blockworld ")
        .skip(1)
        .filter_map(|s| s.split('`').next())
        .map(|c| c.split_whitespace().next().unwrap_or_default().to_string())
        .filter(|c| !c.starts_with('-'))
        .collect();
    assert!(named.len() >= 6, "the README names too few commands: {named:?}");
    let listed: BTreeSet<String> = subcommands(&help(&[])).into_iter().collect();
    for c in &named {
        assert!(listed.contains(c), "the README names `blockworld {c}`, which `blockworld --help` does not list");
        help(&[c]);
    }
    for c in &listed {
        assert!(named.contains(c), "`blockworld {c}` exists but the README does not name it");
    }
}

#[test]
fn commands_md_mentions_every_command_and_flag() {
    let doc = std::fs::read_to_string(root().join("docs/commands.md")).unwrap();
    let mut missing = Vec::new();
    for c in subcommands(&help(&[])) {
        let text = help(&[&c]);
        let mut paths = vec![vec![c.clone()]];
        for sub in subcommands(&text) {
            paths.push(vec![c.clone(), sub]);
        }
        for path in paths {
            let args: Vec<&str> = path.iter().map(String::as_str).collect();
            let name = format!("blockworld {}", path.join(" "));
            if !doc.contains(&name) {
                missing.push(name.clone());
            }
            for word in help(&args).split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']') {
                let flag: String = word.chars().take_while(|c| c.is_alphanumeric() || *c == '-').collect();
                let real = flag.starts_with("--") && flag.len() > 2 && flag != "--help" && flag != "--version";
                if real && !doc.contains(&flag) {
                    missing.push(format!("{name} {flag}"));
                }
            }
        }
    }
    missing.dedup();
    assert!(missing.is_empty(), "docs/commands.md does not mention:\n{}", missing.join("\n"));
}
