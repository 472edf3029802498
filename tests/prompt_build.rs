//! Build-level check: a broken prompt folder really stops the build, and the message names the
//! file, the key and the line. Runs `cargo check` on this crate with `SATORI_PROMPTS_DIR`
//! pointing at `tests/fixtures/prompts-broken/`, in its own target directory (so it never
//! waits for the lock of the build running this test).

use std::path::Path;
use std::process::Command;

#[test]
fn a_broken_prompt_file_stops_the_build_naming_file_key_and_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(root)
        .args(["check", "--lib", "--offline", "--quiet"])
        .env("SATORI_PROMPTS_DIR", "tests/fixtures/prompts-broken")
        .env("CARGO_TARGET_DIR", root.join("target/prompt-build-check"))
        .output()
        .expect("run cargo");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the build must fail:\n{stderr}");
    for want in [
        "tests/fixtures/prompts-broken/agents.yaml:7:1: `coder`: missing `system` (the system prompt)",
        "tests/fixtures/prompts-broken/agents.yaml:15:17: `planner.system[0].fragment`: unknown fragment `no-such-fragment`",
    ] {
        assert!(stderr.contains(want), "missing {want:?} in:\n{stderr}");
    }
}
