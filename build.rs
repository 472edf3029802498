//! Build script: reads every prompt file under `prompts/` (or `$SATORI_PROMPTS_DIR`), validates
//! it with the same code the app uses for user templates (`src/core/prompts/`), and embeds the
//! result as JSON, so the app ships no YAML parser. `agents.yaml` holds the templates; every
//! other `*.yaml` file holds fragments. Any problem stops the build with `file:line:column`,
//! the key and what is wrong.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[allow(dead_code)]
#[path = "src/core/prompts/node.rs"]
mod node;
#[allow(dead_code)]
#[path = "src/core/prompts/template.rs"]
mod template;
#[allow(dead_code)]
#[path = "src/core/prompts/text.rs"]
mod text;
#[allow(dead_code)]
#[path = "src/core/prompts/validate.rs"]
mod validate;
#[allow(dead_code)]
#[path = "src/core/prompts/yaml.rs"]
mod yaml;

use template::{Library, Template};
use validate::Diagnostic;

fn fail(problems: &[String]) -> ! {
    for p in problems {
        eprintln!("error: {p}");
    }
    panic!(
        "{} problem(s) in the prompt files:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

fn read(path: &Path, shown: &str) -> node::Node {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| fail(&[format!("{shown}: cannot read: {e}")]));
    yaml::parse(&text).unwrap_or_else(|e| {
        fail(&[format!(
            "{shown}:{}:{}: invalid YAML: {}",
            e.at.line, e.at.col, e.message
        )])
    })
}

fn show(d: Vec<Diagnostic>) -> Vec<String> {
    d.iter().map(ToString::to_string).collect()
}

fn main() {
    println!("cargo:rerun-if-env-changed=SATORI_PROMPTS_DIR");
    let dir =
        PathBuf::from(std::env::var("SATORI_PROMPTS_DIR").unwrap_or_else(|_| "prompts".into()));
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| fail(&[format!("{}: cannot list: {e}", dir.display())]))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    files.sort();
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    let shown = |p: &Path| {
        format!(
            "{}/{}",
            dir.display(),
            p.file_name().unwrap_or_default().to_string_lossy()
        )
    };

    // Fragments first: templates refer to them.
    let mut problems = Vec::new();
    let mut fragments = BTreeMap::new();
    let mut origin: BTreeMap<String, String> = BTreeMap::new();
    for f in files.iter().filter(|f| !f.ends_with("agents.yaml")) {
        let name = shown(f);
        match validate::load_fragments(&name, &read(f, &name)) {
            Ok(map) => {
                for (k, v) in map {
                    if let Some(first) = origin.get(&k) {
                        problems.push(format!(
                            "{name}: `{k}`: fragment already defined in {first}"
                        ));
                    }
                    origin.insert(k.clone(), name.clone());
                    fragments.insert(k, v);
                }
            }
            Err(d) => problems.extend(show(d)),
        }
    }
    let agents = dir.join("agents.yaml");
    let name = shown(&agents);
    let templates: Vec<Template> =
        match validate::load_templates(&name, &read(&agents, &name), &fragments) {
            Ok(t) => t,
            Err(d) => {
                problems.extend(show(d));
                Vec::new()
            }
        };
    for required in ["assistant", "coder", "planner", "summarizer"] {
        if problems.is_empty() && !templates.iter().any(|t| t.key == required) {
            problems.push(format!(
                "{name}: the built-in template `{required}` is missing"
            ));
        }
    }
    if !problems.is_empty() {
        fail(&problems);
    }
    let lib = Library {
        templates,
        fragments,
    };
    let json =
        serde_json::to_string(&lib).unwrap_or_else(|e| fail(&[format!("cannot encode: {e}")]));
    let dest =
        Path::new(&std::env::var("OUT_DIR").unwrap_or_else(|_| fail(&["OUT_DIR unset".into()])))
            .join("prompts.json");
    std::fs::write(&dest, json).unwrap_or_else(|e| fail(&[format!("cannot write {dest:?}: {e}")]));
}
