//! Architecture invariants, checked on every `cargo test`:
//! - `crates/core/src/` is pure: no browser crates, no clock, no randomness, no IO.
//! - Cargo resolves no browser crate into `satori-core` (`crates/core`), however deep.
//! - `src/adapters/` does not depend on the UI framework; `src/shell/` neither, nor on `src/ui/`.
//! - No two modules of `src/` and `crates/core/src/` import each other, directly or around a
//!   longer loop (a module and its own submodules excepted), through `crate::`, `super::` or
//!   `self::` paths, grouped imports expanded.
//! - The wasm-bindgen version is the same in Cargo.toml, Cargo.lock and Trunk.toml.
//!
//! Two checks per file: every line is searched for forbidden names (which catches paths written
//! out in code, `std::fs::read(…)`), and every `use` item is expanded into the full paths it
//! imports (which catches grouped imports such as `use std::{fs, time};`, where no line
//! contains `std::fs`).

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

/// Splits `text` at the commas that are not inside braces.
fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// Expands one use tree (without `use` and `;`, whitespace removed) below `prefix` into full
/// paths: `std::{fs,time::{self,Instant}}` gives `std::fs`, `std::time`, `std::time::Instant`.
fn expand_use_tree(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let tree = tree.trim_start_matches("::");
    if tree.is_empty() {
        return;
    }
    if let Some(open) = tree.find('{') {
        let head = &tree[..open];
        let inner = tree[open + 1..]
            .strip_suffix('}')
            .unwrap_or(&tree[open + 1..]);
        let prefix = format!("{prefix}{head}");
        for part in split_top_level(inner) {
            expand_use_tree(&prefix, part, out);
        }
        return;
    }
    let leaf = tree.split(" as ").next().unwrap_or(tree);
    let path = match leaf {
        "self" => prefix.trim_end_matches("::").to_string(),
        _ => format!("{prefix}{leaf}"),
    };
    if !path.is_empty() {
        out.push(path);
    }
}

/// Every `(line number, path)` a `use` item of `text` imports, the line being where the item
/// starts. Items may span lines and carry visibility (`pub use`, `pub(crate) use`).
fn imported_paths(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect();
    let mut out = Vec::new();
    let mut n = 0;
    while n < lines.len() {
        let mut line = lines[n].trim_start();
        if let Some(rest) = line.strip_prefix("pub") {
            let rest = rest.trim_start();
            line = match rest.strip_prefix('(') {
                Some(r) => r
                    .split_once(')')
                    .map_or("", |(_, after)| after.trim_start()),
                None => rest,
            };
        }
        if let Some(tree) = line.strip_prefix("use ") {
            let start = n;
            let mut item = tree.to_string();
            while !item.contains(';') && n + 1 < lines.len() {
                n += 1;
                item.push(' ');
                item.push_str(lines[n]);
            }
            let tree = item.split(';').next().unwrap_or("");
            // Keep ` as ` readable for the leaf split, drop all other whitespace.
            let tree = tree
                .replace(" as ", "\u{0}")
                .replace(char::is_whitespace, "");
            let mut paths = Vec::new();
            expand_use_tree("", &tree.replace('\u{0}', " as "), &mut paths);
            out.extend(paths.into_iter().map(|p| (start + 1, p)));
        }
        n += 1;
    }
    out
}

/// Whether `path` is `module` or lies below it (`std::fs::File` is below `std::fs`; a name
/// ending in `_` matches every crate that starts with it: `gloo_` is `gloo_timers`, …).
fn is_within(path: &str, module: &str) -> bool {
    if let Some(stem) = module.strip_suffix('_') {
        return path.starts_with(stem);
    }
    path == module || path.starts_with(&format!("{module}::"))
}

/// Problems in one file's text: lines naming a forbidden needle (comments included: a
/// forbidden name should not appear even in a doc example; `//!` module headers excepted,
/// they may name what the module must not use), and `use` items importing anything within a
/// forbidden module.
fn violations(text: &str, needles: &[&str], modules: &[&str]) -> Vec<String> {
    let mut hits = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("//!") {
            continue;
        }
        for needle in needles {
            if line.contains(needle) {
                hits.push(format!("{}: `{needle}` in: {}", n + 1, line.trim()));
            }
        }
    }
    for (n, path) in imported_paths(text) {
        for module in modules {
            if is_within(&path, module) {
                hits.push(format!("{n}: `use` imports `{path}` (within `{module}`)"));
            }
        }
    }
    hits
}

/// [`violations`] of every Rust file under `dir`, each prefixed with its file.
fn offenders(dir: &str, needles: &[&str], modules: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut hits = Vec::new();
    for file in rust_files(&root) {
        let text = std::fs::read_to_string(&file).expect("read source");
        for hit in violations(&text, needles, modules) {
            hits.push(format!("{}:{hit}", file.display()));
        }
    }
    hits
}

/// Names `src/core` must not contain anywhere.
const CORE_NEEDLES: &[&str] = &[
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

/// Modules `src/core` must not import from, however the `use` item is grouped.
const CORE_MODULES: &[&str] = &[
    "leptos",
    "web_sys",
    "js_sys",
    "gloo_",
    "wasm_bindgen",
    "wasm_bindgen_futures",
    "std::time",
    "std::fs",
    "std::net",
    "std::env",
    "std::process",
    "rand",
    "getrandom",
    "tokio",
    "crate::adapters",
    "crate::ui",
];

#[test]
fn core_is_pure() {
    let hits = offenders("crates/core/src", CORE_NEEDLES, CORE_MODULES);
    assert!(
        hits.is_empty(),
        "crates/core must stay pure:\n{}",
        hits.join("\n")
    );
}

/// Crates the core may not depend on, even through another crate.
const BROWSER_CRATES: &[&str] = &[
    "web-sys",
    "js-sys",
    "wasm-bindgen",
    "leptos",
    "gloo-timers",
    "getrandom",
];

/// `cargo tree` of the workspace for the web build (normal and build edges, names only), with
/// `args` added.
fn cargo_tree(args: &[&str]) -> std::process::Output {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    std::process::Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree",
            "--offline",
            "--prefix",
            "none",
            "-e",
            "normal,build",
        ])
        .args(["--target", "wasm32-unknown-unknown"])
        .args(args)
        .output()
        .expect("run cargo tree")
}

/// Every crate `package` depends on for the web build (normal and build dependencies, however
/// deep), as Cargo resolves them.
fn dependencies(package: &str) -> Vec<String> {
    let out = cargo_tree(&["-p", package]);
    assert!(
        out.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn cargo_keeps_the_core_free_of_browser_crates() {
    let core = dependencies("satori-core");
    assert!(core.iter().any(|c| c == "serde_json"), "{core:?}");
    let found: Vec<&String> = core
        .iter()
        .filter(|c| BROWSER_CRATES.contains(&c.as_str()))
        .collect();
    assert!(found.is_empty(), "satori-core depends on {found:?}");
    // Nor through the features the app's build turns on: in the app's tree, no browser crate
    // has the core above it.
    for c in BROWSER_CRATES {
        // A crate not in the tree at all is an error of `cargo tree -i`, and fine here.
        let out = cargo_tree(&["-p", "satori", "-i", c]);
        let above = String::from_utf8_lossy(&out.stdout);
        assert!(
            !above.contains("satori-core"),
            "{c} is under satori-core in the app's build:\n{above}"
        );
    }
    // The check sees a browser crate where there is one: the app's own tree has them.
    let app = dependencies("satori");
    for c in ["web-sys", "leptos", "satori-core"] {
        assert!(app.iter().any(|a| a == c), "{c} not in the app's tree");
    }
}

#[test]
fn adapters_do_not_use_the_ui_framework() {
    let hits = offenders(
        "src/adapters",
        &["leptos", "crate::ui"],
        &["leptos", "crate::ui"],
    );
    assert!(
        hits.is_empty(),
        "adapters must not depend on the UI:\n{}",
        hits.join("\n")
    );
}

#[test]
fn the_shell_does_not_use_the_ui() {
    let hits = offenders(
        "src/shell",
        &["leptos", "crate::ui"],
        &["leptos", "crate::ui"],
    );
    assert!(
        hits.is_empty(),
        "src/shell must not depend on Leptos or the UI:\n{}",
        hits.join("\n")
    );
}

/// Where localStorage may be written: the storage adapter (whose raw writes are private to it,
/// so the compiler keeps Rust callers to its records; this check covers the browser's own API).
const STORAGE_WRITER: &str = "src/adapters/storage/";

#[test]
fn only_the_storage_adapter_writes_storage() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let needles = ["set_item", "remove_item", "local_storage"];
    let mut hits = Vec::new();
    for dir in ["src", "crates/core/src"] {
        for file in rust_files(&root.join(dir)) {
            if file.starts_with(root.join(STORAGE_WRITER)) {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("read source");
            for hit in violations(&text, &needles, &[]) {
                hits.push(format!("{}:{hit}", file.display()));
            }
        }
    }
    assert!(
        hits.is_empty(),
        "localStorage is written only by {STORAGE_WRITER}:\n{}",
        hits.join("\n")
    );
}

/// Each `thread_local!` of `text` (by line number) whose block does not say, in a comment starting
/// `Why`, why it must be a static.
fn unexplained_statics(text: &str) -> Vec<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        if !code.contains("thread_local!") {
            continue;
        }
        let said = lines[n..lines.len().min(n + 4)]
            .iter()
            .chain(lines[n.saturating_sub(1)..n].iter())
            .any(|l| l.trim_start().starts_with("// Why"));
        if !said {
            out.push(n + 1);
        }
    }
    out
}

/// The statics each `thread_local!` block of `text` declares: the block's line and the names.
fn thread_local_statics(text: &str) -> Vec<(usize, Vec<String>)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        if !code.contains("thread_local!") {
            continue;
        }
        let (mut depth, mut names) = (0i32, Vec::new());
        for (k, l) in lines[n..].iter().enumerate() {
            let code = l.split("//").next().unwrap_or("");
            // `static NAME:` (a name in capitals), not a `'static` lifetime.
            for (at, _) in code.match_indices("static ") {
                let rest = &code[at + 7..];
                let name = rest.split(':').next().unwrap_or("").trim();
                let capitals = !name.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
                if capitals && rest.contains(':') && !code[..at].ends_with('\'') {
                    names.push(name.to_string());
                }
            }
            depth += code.matches(['{', '(']).count() as i32;
            depth -= code.matches(['}', ')']).count() as i32;
            if depth <= 0 && (k > 0 || code.contains(';')) {
                break;
            }
        }
        out.push((n + 1, names));
    }
    out
}

/// At most this many thread-local statics in the whole program (the app and its modules); a
/// block under `#[cfg(test)]` is in no build of it and is not counted (it still says why). The
/// sync module holds one (its runner and status line, one value), for 13.
const MOST_STATICS: usize = 13;

/// Whether the `thread_local!` block at `line` (1-based) of `text` is compiled for tests only.
fn test_only(text: &str, line: usize) -> bool {
    line >= 2 && text.lines().nth(line - 2).map(str::trim) == Some("#[cfg(test)]")
}

#[test]
fn every_static_says_why_it_is_one() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (mut hits, mut crowded, mut all) = (Vec::new(), Vec::new(), Vec::new());
    for dir in ["src", "crates/core/src"] {
        for file in rust_files(&root.join(dir)) {
            let text = std::fs::read_to_string(&file).expect("read source");
            for n in unexplained_statics(&text) {
                hits.push(format!("{}:{n}", file.display()));
            }
            for (n, names) in thread_local_statics(&text) {
                if names.len() != 1 {
                    crowded.push(format!("{}:{n} {names:?}", file.display()));
                }
                if test_only(&text, n) {
                    continue;
                }
                all.extend(
                    names
                        .into_iter()
                        .map(|s| format!("{}: {s}", file.display())),
                );
            }
        }
    }
    assert!(
        hits.is_empty(),
        "a thread-local static without a `// Why` comment saying why it must be one:\n{}",
        hits.join("\n")
    );
    assert!(
        crowded.is_empty(),
        "one static per `thread_local!`, each with its own `// Why`:\n{}",
        crowded.join("\n")
    );
    assert!(
        all.len() <= MOST_STATICS,
        "{} thread-local statics, at most {MOST_STATICS}:\n{}",
        all.len(),
        all.join("\n")
    );
    assert_eq!(
        unexplained_statics("thread_local! {\n    static A: u8 = 0;\n}\n"),
        [1],
        "the check finds one"
    );
    assert!(unexplained_statics(
        "thread_local! {\n    // Why a static: …\n    static A: u8 = 0;\n}\n"
    )
    .is_empty());
    let blocks = thread_local_statics(concat!(
        "thread_local! {\n    // Why: …\n    static A: S = const {\n        S { a: 1 }\n    };\n",
        "    pub static B: u8 = 0;\n}\nstatic C: u8 = 0;\n",
        "thread_local!(static D: Cell<u64> = const { Cell::new(0) });\nstatic E: u8 = 0;\n"
    ));
    assert_eq!(
        blocks,
        [
            (1, vec!["A".to_string(), "B".to_string()]),
            (9, vec!["D".to_string()])
        ],
        "the count finds every static of a block, and only those"
    );
    let text = "#[cfg(test)]\nthread_local! {\n}\nthread_local! {\n}\n";
    assert!(
        test_only(text, 2) && !test_only(text, 4),
        "test-only blocks are told apart"
    );
}

#[test]
fn use_trees_are_expanded_into_full_paths() {
    let paths = |text: &str| -> Vec<(usize, String)> { imported_paths(text) };
    let own = |v: &[(usize, &str)]| -> Vec<(usize, String)> {
        v.iter().map(|(n, p)| (*n, p.to_string())).collect()
    };
    assert_eq!(
        paths("use std::{fs, time};"),
        own(&[(1, "std::fs"), (1, "std::time")])
    );
    assert_eq!(
        paths("//! header\npub(crate) use ::std::{\n    collections::HashMap, // map\n    time::{self, Instant as I},\n};\nuse crate::{ui::state::AppState};\n"),
        own(&[
            (2, "std::collections::HashMap"),
            (2, "std::time"),
            (2, "std::time::Instant"),
            (6, "crate::ui::state::AppState"),
        ])
    );
    assert_eq!(
        paths("use std::fmt::Write as _;"),
        own(&[(1, "std::fmt::Write")])
    );
    assert_eq!(paths("let used = 1; // use std::fs;"), own(&[]));
}

#[test]
fn grouped_imports_are_caught() {
    let hits = |text: &str| violations(text, CORE_NEEDLES, CORE_MODULES);
    // No line contains `std::fs` or `std::time`, yet both are imported.
    assert_eq!(
        hits("use std::{fs, time};\n"),
        [
            "1: `use` imports `std::fs` (within `std::fs`)",
            "1: `use` imports `std::time` (within `std::time`)",
        ]
    );
    assert_eq!(
        hits("use std::{\n    collections::HashMap,\n    time::Instant,\n};\n"),
        ["1: `use` imports `std::time::Instant` (within `std::time`)"]
    );
    assert_eq!(
        hits("use gloo_timers::future::TimeoutFuture;\n"),
        [
            "1: `gloo` in: use gloo_timers::future::TimeoutFuture;",
            "1: `use` imports `gloo_timers::future::TimeoutFuture` (within `gloo_`)",
        ]
    );
    // Pure imports pass; `std::time` is not `std::timer`.
    assert!(hits(
        "use std::collections::{BTreeMap, HashMap};\nuse crate::core::sse::SseDecoder;\n"
    )
    .is_empty());
    assert!(!is_within("std::timer", "std::time"));
    let adapter_hits = violations("use crate::{ui::state::AppState};\n", &[], &["crate::ui"]);
    assert_eq!(
        adapter_hits,
        ["1: `use` imports `crate::ui::state::AppState` (within `crate::ui`)"]
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

/// The module path of a source file below `root` (a crate's `src`), in `prefix`'s namespace:
/// `src/ui/chat.rs` is `ui::chat`; with prefix `core`, `crates/core/src/turn/mod.rs` is
/// `core::turn` and `crates/core/src/lib.rs` is `core`.
fn module_of(root: &Path, prefix: &str, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let mut parts: Vec<String> = prefix
        .split("::")
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    parts.extend(
        rel.with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts
        .last()
        .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
    {
        parts.pop();
    }
    parts.join("::")
}

/// `path` (as written in `module`) made absolute in the crate's namespace: `crate::` is the
/// crate's `prefix`, each `super::` one module up, `self::` the module itself. Other paths
/// (other crates, `std`) give `None`.
fn absolute(path: &str, module: &str, prefix: &str) -> Option<String> {
    let join = |base: &str, rest: &str| match (base.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (false, true) => base.to_string(),
        (false, false) => format!("{base}::{rest}"),
    };
    if let Some(rest) = path.strip_prefix("crate::") {
        return Some(join(prefix, rest));
    }
    let mut base: Vec<&str> = module.split("::").filter(|p| !p.is_empty()).collect();
    let mut rest = path;
    let mut relative = false;
    loop {
        if let Some(r) = rest.strip_prefix("super::") {
            base.pop()?;
            rest = r;
            relative = true;
        } else if let Some(r) = rest.strip_prefix("self::") {
            rest = r;
            relative = true;
        } else {
            break;
        }
    }
    relative.then(|| join(&base.join("::"), rest))
}

/// `code` with the text of its string and character literals removed (so their braces are not
/// counted); a string still open at the end of the line is cut there.
fn without_literals(code: &str) -> String {
    let mut out = String::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                while let Some(d) = chars.next() {
                    match d {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            // A character literal ('{', '\''), not a lifetime ('a).
            '\'' => {
                let rest: String = chars.clone().take(4).collect();
                let len = if rest.starts_with('\\') {
                    rest.find('\'').map(|i| i + 1)
                } else if rest.chars().nth(1) == Some('\'') {
                    Some(2)
                } else {
                    None
                };
                match len {
                    Some(n) => {
                        for _ in 0..n {
                            chars.next();
                        }
                    }
                    None => out.push(c),
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The inline module (`mod tests { … }`) each line of `text` is in, as the names to add to the
/// file's module. Braces are counted per line, outside comments and literals.
fn inline_modules(text: &str) -> Vec<Vec<String>> {
    let mut open: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut out = Vec::new();
    for line in text.lines() {
        let code = without_literals(line.split("//").next().unwrap_or(""));
        // `mod x {`, also after attributes and visibility: `#[cfg(test)] pub(crate) mod x {`.
        let mut head = code.trim_start();
        while let Some(rest) = head.strip_prefix("#[") {
            head = rest.split_once(']').map_or("", |(_, r)| r).trim_start();
        }
        if let Some(rest) = head.strip_prefix("pub") {
            head = match rest.trim_start().strip_prefix('(') {
                Some(r) => r.split_once(')').map_or("", |(_, r)| r).trim_start(),
                None => rest.trim_start(),
            };
        }
        if let Some(name) = head
            .strip_prefix("mod ")
            .and_then(|r| r.trim_end().strip_suffix('{'))
        {
            open.push((name.trim().to_string(), depth));
        }
        out.push(open.iter().map(|(n, _)| n.clone()).collect());
        for c in code.chars() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if open.last().is_some_and(|(_, d)| *d == depth) {
                        open.pop();
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// Modules of the crate that `text` (the file of `module`, in a crate whose root is `prefix`)
/// refers to through `crate::`, `super::` or `self::` paths, written out in code or imported
/// (grouped imports expanded), each resolved to the longest known module.
fn referenced_modules(text: &str, module: &str, prefix: &str, known: &[String]) -> Vec<String> {
    let inline = inline_modules(text);
    let scope = |line: usize| -> String {
        let mut m = module.to_string();
        for name in inline.get(line.saturating_sub(1)).into_iter().flatten() {
            m = if m.is_empty() {
                name.clone()
            } else {
                format!("{m}::{name}")
            };
        }
        m
    };
    let mut paths: Vec<(String, String)> = imported_paths(text)
        .into_iter()
        .map(|(n, p)| (scope(n), p))
        .collect();
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        for start in ["crate::", "super::", "self::"] {
            for (i, _) in code.match_indices(start) {
                let before = code[..i].chars().next_back();
                if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                let tail: String = code[i..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                // `crate::ui::{…}` is a use tree, expanded above.
                if !tail.ends_with("::") {
                    paths.push((scope(n + 1), tail));
                }
            }
        }
    }
    let mut out = Vec::new();
    for (scope, p) in paths {
        let Some(p) = absolute(&p, &scope, prefix) else {
            continue;
        };
        let best = known
            .iter()
            .filter(|m| is_within(&p, m))
            .max_by_key(|m| m.len());
        if let Some(m) = best {
            if !out.contains(m) {
                out.push(m.clone());
            }
        }
    }
    out
}

/// Import cycles among `edges` (module → modules it uses), ignoring a module's use of its own
/// ancestors or descendants. Each cycle is listed once, as the modules around it.
fn cycles(edges: &[(String, Vec<String>)]) -> Vec<Vec<String>> {
    let related = |a: &str, b: &str| is_within(a, b) || is_within(b, a);
    let next = |m: &str| -> Vec<String> {
        edges
            .iter()
            .find(|(from, _)| from == m)
            .map(|(_, to)| to.iter().filter(|t| !related(m, t)).cloned().collect())
            .unwrap_or_default()
    };
    let mut found: Vec<Vec<String>> = Vec::new();
    for (start, _) in edges {
        // Depth-first search for a way back to `start`.
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = std::collections::BTreeSet::new();
        while let Some((m, path)) = stack.pop() {
            for t in next(&m) {
                if t == *start {
                    let mut cycle = path.clone();
                    let min = cycle
                        .iter()
                        .enumerate()
                        .min_by_key(|(_, n)| n.as_str())
                        .map(|(i, _)| i)
                        .unwrap_or(0);
                    cycle.rotate_left(min);
                    if !found.contains(&cycle) {
                        found.push(cycle);
                    }
                } else if seen.insert(t.clone()) {
                    let mut longer = path.clone();
                    longer.push(t.clone());
                    stack.push((t, longer));
                }
            }
        }
    }
    found
}

/// The crates whose modules are checked for cycles: each one's source folder and the name its
/// modules go by (the app re-exports the core crate as `satori::core`).
const CRATES: &[(&str, &str)] = &[("src", ""), ("crates/core/src", "core")];

#[test]
fn no_import_cycles() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files: Vec<(PathBuf, &str, String)> = CRATES
        .iter()
        .flat_map(|(dir, prefix)| {
            let root = manifest.join(dir);
            rust_files(&root)
                .into_iter()
                .map(move |f| {
                    let m = module_of(&root, prefix, &f);
                    (f, *prefix, m)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let known: Vec<String> = files
        .iter()
        .map(|(_, _, m)| m.clone())
        .filter(|m| !m.is_empty())
        .collect();
    assert!(
        known.iter().any(|m| m == "core::transfer::import"),
        "{known:?}"
    );
    let edges: Vec<(String, Vec<String>)> = files
        .iter()
        .map(|(f, prefix, from)| {
            let text = std::fs::read_to_string(f).unwrap_or_else(|e| panic!("read {f:?}: {e}"));
            let to = referenced_modules(&text, from, prefix, &known)
                .into_iter()
                .filter(|t| t != from)
                .collect();
            (from.clone(), to)
        })
        .collect();
    let found = cycles(&edges);
    assert!(
        found.is_empty(),
        "modules that import each other:\n{}",
        found
            .iter()
            .map(|c| c.join(" → "))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn import_cycles_are_found() {
    let known: Vec<String> = [
        "ui",
        "ui::chat",
        "ui::state",
        "ui::components::a",
        "ui::components::b",
        "core::x",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(
        referenced_modules("use crate::ui::{chat::send, state::{AppState, Live}};\nfn f() { crate::core::x::go(); }", "ui::components::a", "", &known),
        ["ui::chat", "ui::state", "core::x"]
    );
    // In the core crate, `crate::` is `core`; `super::` and `self::` are relative to the file,
    // and inside an inline `mod tests { … }` one level deeper.
    assert_eq!(
        referenced_modules("use crate::x::Y;\n", "core::z", "core", &known),
        ["core::x"]
    );
    assert_eq!(
        referenced_modules(
            "use super::chat::{self, send};\nfn f() { self::a::g(); super::state::go(); }\n",
            "ui::components",
            "",
            &known
        ),
        ["ui::chat", "ui::state", "ui::components::a"]
    );
    assert_eq!(
        referenced_modules("use super::super::chat;\n", "ui::components::a", "", &known),
        ["ui::chat"]
    );
    assert_eq!(
        referenced_modules("fn f() {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::b::B;\n}\nuse super::super::state;\n", "ui::components::a", "", &known),
        ["ui::components::a", "ui::components::b", "ui::state"]
    );
    // Braces in literals are not counted; attributes and visibility before `mod` are read.
    let lines = inline_modules(
        "fn f() { let c = '}'; let s = \"}}\"; }\n#[cfg(test)] pub(crate) mod tests {\n    fn g() { let q = '\\''; }\n}\nfn h() {}\n",
    );
    let own = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(lines[1], own(&["tests"]));
    assert_eq!(lines[2], own(&["tests"]));
    assert_eq!(lines[4], own(&[]), "the module closed");
    assert_eq!(without_literals("x('a', \"{\") // '{'"), "x(, ) // ");
    assert_eq!(
        without_literals("fn f<'a>(x: &'a str) {"),
        "fn f<'a>(x: &'a str) {"
    );
    assert_eq!(absolute("super::x", "", ""), None, "above the crate root");
    assert_eq!(absolute("std::fs", "ui::chat", ""), None, "another crate");
    let e = |from: &str, to: &[&str]| {
        (
            from.to_string(),
            to.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        )
    };
    // Two modules using each other, and a loop of three.
    let found = cycles(&[
        e("ui::chat", &["ui::state"]),
        e("ui::state", &["ui::chat", "core::x"]),
        e("ui::components::a", &["ui::components::b"]),
        e("ui::components::b", &["core::x"]),
        e("core::x", &["ui::components::a"]),
    ]);
    assert!(
        found.contains(&vec!["ui::chat".to_string(), "ui::state".to_string()]),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|c| c.len() == 3 && c.contains(&"core::x".to_string())),
        "{found:?}"
    );
    // A module and its own parent are not a cycle.
    assert!(cycles(&[e("ui", &["ui::chat"]), e("ui::chat", &["ui"])]).is_empty());
    // A cycle written only with `super::` paths, as in one folder of the core crate: found.
    let known: Vec<String> = [
        "core::t",
        "core::t::import",
        "core::t::apps",
        "core::t::error",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let file = |m: &str, text: &str| {
        let to = referenced_modules(text, m, "core", &known)
            .into_iter()
            .filter(|t| t != m)
            .collect::<Vec<_>>();
        (m.to_string(), to)
    };
    let found = cycles(&[
        file("core::t::import", "fn read() { super::apps::read(); }\n"),
        file("core::t::apps", "use super::import::ImportError;\n"),
        file("core::t::error", "pub enum ImportError {}\n"),
    ]);
    assert_eq!(
        found,
        [vec![
            "core::t::apps".to_string(),
            "core::t::import".to_string()
        ]]
    );
    // With the error in a module of its own, no cycle.
    let found = cycles(&[
        file(
            "core::t::import",
            "use super::error::ImportError;\nfn read() { super::apps::read(); }\n",
        ),
        file("core::t::apps", "use super::error::ImportError;\n"),
        file("core::t::error", "pub enum ImportError {}\n"),
    ]);
    assert!(found.is_empty(), "{found:?}");
}

/// The `#[wasm_bindgen]` functions `text` exports: each name with its parameters' types.
fn exported_functions(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut exported = false;
    let lines: Vec<&str> = text.lines().collect();
    for (n, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if t.starts_with("#[wasm_bindgen") {
            exported = true;
            continue;
        }
        if t.starts_with("///") || t.starts_with("#[") {
            continue;
        }
        let sig = t
            .strip_prefix("pub async fn ")
            .or_else(|| t.strip_prefix("pub fn "));
        if let (true, Some(sig)) = (exported, sig) {
            // The parameter list, over as many lines as it takes.
            let whole = lines[n..].join(" ");
            let whole = &whole[whole.find(sig).unwrap_or(0)..];
            let name = whole.split('(').next().unwrap_or("").trim().to_string();
            let (mut depth, mut params, mut at) = (0, String::new(), 0);
            for (i, c) in whole.char_indices() {
                match c {
                    '(' if depth == 0 => {
                        depth = 1;
                        at = i + 1;
                    }
                    '(' | '<' => depth += 1,
                    '>' if depth > 1 => depth -= 1,
                    ')' if depth == 1 => {
                        params = whole[at..i].to_string();
                        break;
                    }
                    ')' => depth -= 1,
                    _ => {}
                }
            }
            // Split at the commas outside `<…>`.
            let (mut parts, mut level, mut from) = (Vec::new(), 0, 0);
            for (i, c) in params.char_indices() {
                match c {
                    '<' => level += 1,
                    '>' => level -= 1,
                    ',' if level == 0 => {
                        parts.push(&params[from..i]);
                        from = i + 1;
                    }
                    _ => {}
                }
            }
            parts.push(&params[from..]);
            let types = parts
                .iter()
                .filter_map(|p| p.split_once(':').map(|(_, ty)| ty.trim().to_string()))
                .collect();
            out.push((name, types));
        }
        exported = false;
    }
    out
}

#[test]
fn every_module_call_names_an_export_of_its_module_with_its_arguments() {
    use satori::core::protocol::every_call;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(root.join("scripts/modules.txt")).expect("manifest");
    // Module name → the functions its bin exports.
    let mut exports = std::collections::BTreeMap::new();
    for line in manifest
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        let text = std::fs::read_to_string(root.join(format!("src/bin/{}.rs", f[2]))).expect("bin");
        exports.insert(f[0].to_string(), exported_functions(&text));
    }
    let mut wrong = Vec::new();
    let mut called = std::collections::BTreeSet::new();
    for (module, function, args, object) in every_call() {
        let Some(functions) = exports.get(module.name()) else {
            wrong.push(format!("{}: not in scripts/modules.txt", module.name()));
            continue;
        };
        let Some((_, types)) = functions.iter().find(|(n, _)| n == function) else {
            wrong.push(format!("{}::{function}: not exported", module.name()));
            continue;
        };
        called.insert((module.name().to_string(), function.to_string()));
        let texts = types
            .iter()
            .filter(|t| *t == "&str" || *t == "String")
            .count();
        let objects: Vec<&str> = types
            .iter()
            .filter(|t| *t != "&str" && *t != "String")
            .map(|t| t.rsplit("::").next().unwrap_or(t))
            .collect();
        if texts != args.len() || objects != object.into_iter().collect::<Vec<_>>() {
            wrong.push(format!(
                "{}::{function}: takes {types:?}, called with {} texts and {object:?}",
                module.name(),
                args.len()
            ));
        }
        // The texts come first, in order.
        if types
            .iter()
            .take(texts)
            .any(|t| t != "&str" && t != "String")
        {
            wrong.push(format!("{}::{function}: texts not first", module.name()));
        }
    }
    for (module, functions) in &exports {
        for (name, _) in functions {
            if !called.contains(&(module.clone(), name.clone())) {
                wrong.push(format!("{module}::{name}: exported, but no call names it"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "module calls and exports differ:\n{}",
        wrong.join("\n")
    );
    // The reader finds what a module exports, over lines.
    assert_eq!(
        exported_functions(concat!(
            "#[wasm_bindgen]\npub async fn a(x: String,\n    s: web_sys::AbortSignal) -> u8 {}\n",
            "/// Not exported.\npub fn b(y: &str) {}\n#[wasm_bindgen]\n/// Doc.\npub fn c() {}\n",
            "#[wasm_bindgen]\npub fn d(m: HashMap<String, Vec<u8>>, n: &str) {}\n"
        )),
        [
            (
                "a".to_string(),
                vec!["String".to_string(), "web_sys::AbortSignal".to_string()]
            ),
            ("c".to_string(), vec![]),
            (
                "d".to_string(),
                vec!["HashMap<String, Vec<u8>>".to_string(), "&str".to_string()]
            ),
        ]
    );
}
