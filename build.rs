//! Build script: validates `prompts/agents.yaml` and embeds it as Rust data, so the app ships
//! no YAML parser. A malformed file, a role without `system` or `description`, or a duplicate
//! key stops the build with a message naming the file, the key and the line.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Role {
    version: u32,
    description: String,
    system: String,
}

fn fail(msg: String) -> ! {
    eprintln!("error: {msg}");
    panic!("{msg}");
}

fn main() {
    let file = "prompts/agents.yaml";
    println!("cargo:rerun-if-changed={file}");
    let text = std::fs::read_to_string(Path::new(file))
        .unwrap_or_else(|e| fail(format!("{file}: cannot read: {e}")));
    // serde_yaml reports duplicate keys and syntax errors with a line and column.
    let roles: BTreeMap<String, serde_yaml::Value> =
        serde_yaml::from_str(&text).unwrap_or_else(|e| fail(format!("{file}: invalid YAML: {e}")));
    let line_of = |key: &str| {
        text.lines()
            .position(|l| l.starts_with(&format!("{key}:")))
            .map_or(0, |i| i + 1)
    };
    let mut out = String::from("/// Built-in roles from `prompts/agents.yaml`, sorted by name.\npub const ROLES: &[BuiltinRole] = &[\n");
    for (key, value) in &roles {
        let role: Role = serde_yaml::from_value(value.clone())
            .unwrap_or_else(|e| fail(format!("{file}: role `{key}` (line {}): {e}", line_of(key))));
        if role.system.trim().is_empty() {
            fail(format!(
                "{file}: role `{key}` (line {}): `system` is empty",
                line_of(key)
            ));
        }
        let _ = writeln!(
            out,
            "    BuiltinRole {{ name: {:?}, version: {}, description: {:?}, system: {:?} }},",
            key,
            role.version,
            role.description.trim(),
            role.system.trim()
        );
    }
    out.push_str("];\n");
    if !roles.contains_key("assistant") {
        fail(format!("{file}: the default role `assistant` is missing"));
    }
    let dest =
        Path::new(&std::env::var("OUT_DIR").unwrap_or_else(|_| fail("OUT_DIR unset".into())))
            .join("prompts.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| fail(format!("cannot write {dest:?}: {e}")));
}
