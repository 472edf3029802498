//! Build script: reads every prompt file under `prompts/` (or `$SATORI_PROMPTS_DIR`), validates
//! it with the same code the app uses for user templates (`crates/core/src/prompts/`), and embeds the
//! result as JSON, so the app ships no YAML parser. `agents.yaml` holds the templates; every
//! other `*.yaml` file holds fragments. Any problem stops the build with `file:line:column`,
//! the key and what is wrong.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[allow(dead_code)]
#[path = "src/prompts/node.rs"]
mod node;
#[allow(dead_code)]
#[path = "src/prompts/template.rs"]
mod template;
#[allow(dead_code)]
#[path = "src/prompts/text.rs"]
mod text;
#[allow(dead_code)]
#[path = "src/prompts/validate.rs"]
mod validate;
#[allow(dead_code)]
#[path = "src/prompts/yaml.rs"]
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
    // Paths are the workspace's (this crate is `crates/core`), as are the names in messages.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::env::set_current_dir(&root)
        .unwrap_or_else(|e| fail(&[format!("{}: cannot enter: {e}", root.display())]));
    let dir =
        PathBuf::from(std::env::var("SATORI_PROMPTS_DIR").unwrap_or_else(|_| "prompts".into()));
    println!("cargo:rerun-if-changed={}", root.join(&dir).display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| fail(&[format!("{}: cannot list: {e}", dir.display())]))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    files.sort();
    for f in &files {
        println!("cargo:rerun-if-changed={}", root.join(f).display());
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
    write_out("catalog.rs", &catalog(&lib));
    let json =
        serde_json::to_string(&lib).unwrap_or_else(|e| fail(&[format!("cannot encode: {e}")]));
    write_out("prompts.json", &json);
}

fn write_out(name: &str, text: &str) {
    let dest =
        Path::new(&std::env::var("OUT_DIR").unwrap_or_else(|_| fail(&["OUT_DIR unset".into()])))
            .join(name);
    std::fs::write(&dest, text).unwrap_or_else(|e| fail(&[format!("cannot write {dest:?}: {e}")]));
}

/// Rust statics for the app: each built-in role's name, description and variables, and what a
/// chat starts with when every variable keeps its default (so the app starts chats without
/// parsing templates, even when the dialogs module cannot load) — except for roles with an
/// `output_schema`: their replies need the agent module anyway, and their long prompts and
/// examples stay out of the first load (the dialogs module renders them). Other values are
/// rendered by the dialogs module too.
fn catalog(lib: &Library) -> String {
    use std::fmt::Write as _;
    let mut out = String::from(
        "/// Built-in roles, in file order (generated by build.rs).\npub static BUILTIN_ROLES: &[BuiltinRole] = &[\n",
    );
    for t in &lib.templates {
        let vars: Vec<String> = t
            .variables
            .iter()
            .map(|v| {
                format!(
                    "VarInfo {{ name: {:?}, description: {:?}, default: {:?}, options: &{:?} }}",
                    v.name, v.description, v.default, v.options
                )
            })
            .collect();
        let rendered = t.render(template::What::Preamble, &Default::default(), |n| {
            lib.fragments.get(n)
        });
        let preamble = match rendered {
            Ok(_) if t.output_schema.is_some() => "None".to_string(),
            Ok(r) => {
                let msgs: Vec<String> = r
                    .messages
                    .iter()
                    .map(|m| {
                        let role = match m.role {
                            template::PromptRole::System => "Role::System",
                            template::PromptRole::User => "Role::User",
                            template::PromptRole::Assistant => "Role::Assistant",
                        };
                        format!(
                            "StaticMessage {{ role: {role}, content: {:?}, example: {} }}",
                            m.content, m.example
                        )
                    })
                    .collect();
                format!("Some(&[{}])", msgs.join(", "))
            }
            Err(_) => "None".to_string(),
        };
        let _ = writeln!(
            out,
            "    BuiltinRole {{ key: {:?}, version: {}, description: {:?}, variables: &[{}], preamble: {preamble} }},",
            t.key,
            t.version,
            t.description,
            vars.join(", "),
        );
    }
    out.push_str("];\n");
    out
}
