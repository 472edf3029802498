//! The prompt library: templates written in YAML (`prompts/*.yaml`), validated and embedded at
//! build time, and user templates imported or written in the browser.
//!
//! - [`yaml`] reads YAML into a [`node::Node`] tree with positions (build time and the deferred
//!   YAML module only; the app itself ships no YAML parser),
//! - [`validate`] turns trees into [`Template`]s and [`Fragment`]s or file/key/line diagnostics,
//! - [`template`] renders templates into chat messages (errors are values),
//! - [`emit`] writes templates back as YAML.
//!
//! The built-in library is the build script's output: validated templates and fragments as
//! JSON, parsed on first use.

pub mod catalog;
pub mod emit;
pub mod node;
pub mod template;
pub mod text;
pub mod user;
pub mod validate;
pub mod yaml;

pub use template::{
    Condition, Example, ExamplePart, ExampleSource, Fragment, FragmentKind, Library, Op, Part,
    PromptError, PromptMessage, PromptRole, Rendered, Source, Template, Variable, Vars, Warning,
    What,
};
pub use user::{RoleRef, UserPrompts, UserTemplate, YamlAnswer};
pub use validate::Diagnostic;

use std::sync::OnceLock;

/// Name of the built-in collection (`prompts/agents.yaml` and its fragment files).
pub const BUILTIN: &str = "agents";

/// The role new chats start with.
pub const DEFAULT_ROLE: &str = "assistant";

const BUILTIN_JSON: &str = include_str!(concat!(env!("OUT_DIR"), "/prompts.json"));

/// The built-in templates and fragments.
pub fn builtin() -> &'static Library {
    static LIB: OnceLock<Library> = OnceLock::new();
    // The build script wrote this JSON from validated data; a test checks that it reads back.
    LIB.get_or_init(|| serde_json::from_str(BUILTIN_JSON).unwrap_or_default())
}

/// Load a template collection by name (only [`BUILTIN`] is compiled in).
pub fn load(name: &str) -> Result<&'static Library, PromptError> {
    if name == BUILTIN {
        Ok(builtin())
    } else {
        Err(PromptError::UnknownTemplate(name.to_string()))
    }
}

/// Render template `key` of collection `name`: its system prompt, few-shot examples and (when it
/// has one) its user message.
pub fn render(name: &str, key: &str, vars: &Vars) -> Result<Rendered, PromptError> {
    let lib = load(name)?;
    let what = match lib.get(key) {
        Some(t) if t.user.is_some() => What::All,
        _ => What::Preamble,
    };
    lib.render_with(name, key, what, vars, None)
}

/// The system prompt of template `key` of collection `name`.
pub fn system_prompt(name: &str, key: &str, vars: &Vars) -> Result<String, PromptError> {
    let r = load(name)?.render_with(name, key, What::System, vars, None)?;
    Ok(r.messages
        .into_iter()
        .next()
        .map(|m| m.content)
        .unwrap_or_default())
}

/// Read templates from YAML text (an imported file or the editor), checking fragment
/// references against `fragments`. Syntax errors come back as a single diagnostic.
pub fn templates_from_yaml(
    file: &str,
    text: &str,
    fragments: &std::collections::BTreeMap<String, Fragment>,
) -> Result<Vec<Template>, Vec<Diagnostic>> {
    let root = yaml::parse(text).map_err(|e| {
        vec![Diagnostic {
            file: file.to_string(),
            at: e.at,
            key: String::new(),
            message: format!("invalid YAML: {}", e.message),
        }]
    })?;
    validate::load_templates(file, &root, fragments)
}

#[cfg(test)]
mod tests;
