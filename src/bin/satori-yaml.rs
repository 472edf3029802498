//! The YAML reader for user prompt templates, as its own small wasm module: the app loads it
//! only when the user opens "Prompts" (to import a file or save the editor), so the YAML parser
//! is never on the first-load path. It compiles the prompt modules of `src/core/prompts/`
//! directly (not the whole library) and answers with JSON. `scripts/build.sh` builds it into
//! `dist/yaml-<hash>/`; `src/adapters/yaml_module.rs` loads it.

use std::collections::BTreeMap;
use wasm_bindgen::prelude::wasm_bindgen;

#[allow(dead_code)]
#[path = "../core/prompts/emit.rs"]
mod emit;
#[allow(dead_code)]
#[path = "../core/prompts/node.rs"]
mod node;
#[allow(dead_code)]
#[path = "../core/prompts/template.rs"]
mod template;
#[allow(dead_code)]
#[path = "../core/prompts/text.rs"]
mod text;
#[allow(dead_code)]
#[path = "../core/prompts/validate.rs"]
mod validate;
#[allow(dead_code)]
#[path = "../core/prompts/yaml.rs"]
mod yaml;

use template::{Fragment, Library};
use validate::Diagnostic;

/// Read templates from YAML. Answers `{"ok":[{"template":…,"source":…}]}` or
/// `{"errors":[diagnostic…]}`. With `keep_source`, a file holding one template keeps its text
/// as its source (the editor); otherwise each template's source is written anew (imports).
#[wasm_bindgen]
pub fn read_templates(file: &str, text: &str, keep_source: bool) -> String {
    let builtin: Library =
        serde_json::from_str(include_str!(concat!(env!("OUT_DIR"), "/prompts.json")))
            .unwrap_or_default();
    let fragments: &BTreeMap<String, Fragment> = &builtin.fragments;
    let result = yaml::parse(text)
        .map_err(|e| {
            vec![Diagnostic {
                file: file.to_string(),
                at: e.at,
                key: String::new(),
                message: format!("invalid YAML: {}", e.message),
            }]
        })
        .and_then(|root| validate::load_templates(file, &root, fragments));
    let value = match result {
        Ok(list) => {
            let single = list.len() == 1;
            let items: Vec<serde_json::Value> = list
                .iter()
                .map(|t| {
                    let source = if keep_source && single {
                        text.to_string()
                    } else {
                        emit::template(t)
                    };
                    serde_json::json!({ "template": t, "source": source })
                })
                .collect();
            serde_json::json!({ "ok": items })
        }
        Err(d) => serde_json::json!({ "errors": d }),
    };
    value.to_string()
}

fn main() {}
