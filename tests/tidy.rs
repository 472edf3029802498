//! Architecture invariants, checked on every `cargo test`:
//! - `src/core/` is pure: no browser crates, no clock, no randomness, no IO.
//! - `src/adapters/` does not depend on the UI framework.
//! - The wasm-bindgen version is the same in Cargo.toml, Cargo.lock and Trunk.toml.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("read {dir:?}: {e}")) {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// Every `(file, line number, line)` under `dir` that contains one of `needles` (comments
/// included: a forbidden name should not appear even in a doc example).
fn offenders(dir: &str, needles: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut hits = Vec::new();
    for file in rust_files(&root) {
        let text = std::fs::read_to_string(&file).expect("read source");
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//!") {
                continue; // module headers may name what the module must not use
            }
            for needle in needles {
                if line.contains(needle) {
                    hits.push(format!(
                        "{}:{}: `{needle}` in: {}",
                        file.display(),
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
    hits
}

#[test]
fn core_is_pure() {
    let forbidden = [
        "leptos",
        "web_sys",
        "js_sys",
        "gloo",
        "wasm_bindgen",
        "std::time",
        "SystemTime",
        "Instant::",
        "std::fs",
        "std::net",
        "std::env",
        "std::process",
        "rand::",
        "getrandom",
        "thread_rng",
        "tokio",
    ];
    let hits = offenders("src/core", &forbidden);
    assert!(
        hits.is_empty(),
        "src/core must stay pure:\n{}",
        hits.join("\n")
    );
}

#[test]
fn adapters_do_not_use_the_ui_framework() {
    let hits = offenders("src/adapters", &["leptos", "crate::ui"]);
    assert!(
        hits.is_empty(),
        "adapters must not depend on the UI:\n{}",
        hits.join("\n")
    );
}

#[test]
fn wasm_bindgen_versions_agree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read =
        |f: &str| std::fs::read_to_string(root.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    let cargo = read("Cargo.toml");
    let pinned = cargo
        .lines()
        .find_map(|l| l.strip_prefix("wasm-bindgen = \"="))
        .and_then(|l| l.split('"').next())
        .expect("Cargo.toml pins wasm-bindgen = \"=X.Y.Z\"");
    let lock = read("Cargo.lock");
    assert!(
        lock.contains(&format!("name = \"wasm-bindgen\"\nversion = \"{pinned}\"")),
        "Cargo.lock has a different wasm-bindgen than {pinned}"
    );
    let trunk = read("Trunk.toml");
    assert!(
        trunk.contains(&format!("wasm_bindgen = \"{pinned}\"")),
        "Trunk.toml [tools] must pin {pinned}"
    );
    let setup = read("scripts/setup.sh");
    assert!(
        setup.contains(&format!("WASM_BINDGEN_VERSION=\"{pinned}\"")),
        "setup.sh must install {pinned}"
    );
}
