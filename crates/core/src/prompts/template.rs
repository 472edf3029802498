//! The prompt template model and rendering.
//!
//! A [`Template`] is a role: a system prompt assembled from parts (literal text and
//! fragments, each optionally guarded by a condition on the session's variables), few-shot
//! examples (user/assistant pairs), an optional user message template, and declared variables.
//! [`Library`] holds templates and the fragments they use. Rendering never panics: problems come
//! back as [`PromptError`] values, harmless ones as [`Warning`]s.

use super::text;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// A library of templates and fragments (a set of prompt files).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Library {
    /// Templates in file order.
    pub templates: Vec<Template>,
    /// Fragments by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fragments: BTreeMap<String, Fragment>,
}

/// One template (a role a chat can start from).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Template {
    /// Its key in the file (e.g. `coder`).
    pub key: String,
    /// Template version; sessions record it.
    pub version: u32,
    /// One line shown next to the name.
    pub description: String,
    /// The system prompt, in order. Parts whose condition fails are left out.
    pub system: Vec<Part>,
    /// Few-shot examples, rendered as user/assistant message pairs after the system prompt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<ExamplePart>,
    /// Template of the user message, for templates that are called with data (e.g. the
    /// summarizer's conversation text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// Declared variables, in file order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variables: Vec<Variable>,
    /// A JSON Schema the reply must match (e.g. the planner's plan), available to the texts as
    /// the `{output_schema}` placeholder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<String>,
}

/// A part of a system prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// What the part holds.
    pub source: Source,
    /// Included only when this holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Condition>,
}

/// Literal template text or a fragment reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Template text.
    Text(String),
    /// The name of a text fragment (role, constraint or format).
    Fragment(String),
}

/// A few-shot entry of a template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExamplePart {
    /// What the entry holds.
    pub source: ExampleSource,
    /// Included only when this holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<Condition>,
}

/// An inline example pair or an `examples` fragment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExampleSource {
    /// One pair written in the template.
    Pair(Example),
    /// The name of an `examples` fragment.
    Fragment(String),
}

/// A few-shot example: what the user says and what the assistant answers (template text).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Example {
    /// The user message.
    pub input: String,
    /// The assistant reply.
    pub output: String,
}

/// A reusable piece of prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fragment {
    /// What kind of piece it is.
    pub kind: FragmentKind,
    /// The text (for every kind but `examples`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// The pairs (for `examples`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<Example>,
}

/// Kinds of fragment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FragmentKind {
    /// Who the assistant is.
    Role,
    /// A rule it must follow.
    Constraint,
    /// How to shape the output.
    Format,
    /// Few-shot input/output pairs.
    Examples,
}

impl FragmentKind {
    /// The name used in files.
    pub fn as_str(self) -> &'static str {
        match self {
            FragmentKind::Role => "role",
            FragmentKind::Constraint => "constraint",
            FragmentKind::Format => "format",
            FragmentKind::Examples => "examples",
        }
    }

    /// Every kind, for parsing and messages.
    pub const ALL: [FragmentKind; 4] = [
        FragmentKind::Role,
        FragmentKind::Constraint,
        FragmentKind::Format,
        FragmentKind::Examples,
    ];
}

/// A declared variable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Variable {
    /// Placeholder name.
    pub name: String,
    /// What it is for (shown next to its field).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Value used when none is given; a variable without a default is required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// The allowed values, if restricted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
}

/// A condition on a variable: `name == value`, `name != value`, or `name` (set and not empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Condition {
    /// The variable.
    pub var: String,
    /// The comparison.
    pub op: Op,
    /// The value compared with (empty for `Set`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub value: String,
}

/// Comparison of a [`Condition`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// Equal.
    Is,
    /// Not equal.
    IsNot,
    /// Has a non-empty value.
    Set,
}

impl Condition {
    /// Parse `name == value`, `name != value` or `name`. Quotes around the value are optional.
    pub fn parse(s: &str) -> Result<Condition, String> {
        let unquote = |v: &str| {
            let v = v.trim();
            let q = v.len() >= 2
                && ((v.starts_with('"') && v.ends_with('"'))
                    || (v.starts_with('\'') && v.ends_with('\'')));
            if q {
                v[1..v.len() - 1].to_string()
            } else {
                v.to_string()
            }
        };
        let ne = s.find("!=");
        let eq = s.find("==");
        let (var, op, value) = match (ne, eq) {
            (Some(i), e) if e.is_none_or(|e| i < e) => {
                (s[..i].trim(), Op::IsNot, unquote(&s[i + 2..]))
            }
            (_, Some(i)) => (s[..i].trim(), Op::Is, unquote(&s[i + 2..])),
            _ => (s.trim(), Op::Set, String::new()),
        };
        if !is_var_name(var) {
            return Err(format!(
                "condition `{s}` must read `variable == value`, `variable != value` or `variable`"
            ));
        }
        Ok(Condition {
            var: var.to_string(),
            op,
            value,
        })
    }

    /// Whether the condition holds for these values (an unset variable is empty).
    pub fn holds(&self, vars: &BTreeMap<String, String>) -> bool {
        let v = vars.get(&self.var).map(String::as_str).unwrap_or("");
        match self.op {
            Op::Is => v == self.value,
            Op::IsNot => v != self.value,
            Op::Set => !v.trim().is_empty(),
        }
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.op {
            Op::Is => write!(f, "{} == {}", self.var, self.value),
            Op::IsNot => write!(f, "{} != {}", self.var, self.value),
            Op::Set => write!(f, "{}", self.var),
        }
    }
}

pub use super::text::is_var_name;

/// Whether `s` can name a template or fragment (letters, digits, `-`, `_`; starts with a letter
/// or digit; at most 64 characters).
pub fn is_key(s: &str) -> bool {
    let mut chars = s.chars();
    s.len() <= 64
        && chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// The placeholder the output schema is available as.
pub const OUTPUT_SCHEMA_VAR: &str = "output_schema";

/// Who a rendered message is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptRole {
    /// The system prompt.
    System,
    /// A user message (few-shot input or the user template).
    User,
    /// An assistant message (few-shot output).
    Assistant,
}

/// A rendered message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptMessage {
    /// Its author.
    pub role: PromptRole,
    /// Its text.
    pub content: String,
    /// Whether it is a few-shot example.
    pub example: bool,
}

/// Something harmless the caller may want to know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// A value was given for a variable the rendered text never uses.
    UnusedVariable(String),
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::UnusedVariable(n) => write!(f, "variable `{n}` is not used by this template"),
        }
    }
}

/// Why a template could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptError {
    /// No template collection with this name.
    UnknownTemplate(String),
    /// The collection has no template with this key.
    UnknownKey {
        /// Collection.
        template: String,
        /// Key asked for.
        key: String,
    },
    /// Placeholders without a value (and without a default).
    MissingVariables {
        /// Template key.
        key: String,
        /// The variables, in order of use.
        names: Vec<String>,
    },
    /// A value outside the variable's options.
    InvalidValue {
        /// Variable.
        name: String,
        /// Value given.
        value: String,
        /// Allowed values.
        options: Vec<String>,
    },
    /// The template names a fragment this library does not have (only possible for data that
    /// bypassed validation, such as an edited storage record).
    UnknownFragment(String),
    /// The template has no `user` template.
    NoUserTemplate(String),
}

impl fmt::Display for PromptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PromptError::UnknownTemplate(n) => write!(f, "there is no prompt collection `{n}`"),
            PromptError::UnknownKey { template, key } => {
                write!(f, "there is no prompt `{key}` in `{template}`")
            }
            PromptError::MissingVariables { key, names } => {
                let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
                let s = if names.len() == 1 { "" } else { "s" };
                write!(
                    f,
                    "prompt `{key}` needs a value for variable{s} {}",
                    list.join(", ")
                )
            }
            PromptError::InvalidValue {
                name,
                value,
                options,
            } => write!(
                f,
                "`{value}` is not an allowed value of `{name}` (allowed: {})",
                options.join(", ")
            ),
            PromptError::UnknownFragment(n) => write!(f, "fragment `{n}` does not exist"),
            PromptError::NoUserTemplate(k) => write!(f, "prompt `{k}` has no user template"),
        }
    }
}

/// A rendered template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    /// System prompt, then examples, then (for [`What::All`]) the user message.
    pub messages: Vec<PromptMessage>,
    /// Harmless problems.
    pub warnings: Vec<Warning>,
}

/// How much of a template to render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    /// The system prompt only.
    System,
    /// System prompt and few-shot examples: what a chat session starts with.
    Preamble,
    /// Everything, including the user template (which must exist).
    All,
}

/// Variables as given by a caller.
pub type Vars = BTreeMap<String, String>;

impl Template {
    /// The values rendering uses: defaults, overridden by `given` (unknown names ignored here,
    /// reported as warnings by [`Template::render`]; an empty value leaves a required variable
    /// missing).
    pub fn effective_vars(&self, given: &Vars) -> Vars {
        let mut out = Vars::new();
        for v in &self.variables {
            // An empty value does not satisfy a required variable (one without a default).
            let given = given
                .get(&v.name)
                .filter(|g| !g.is_empty() || v.default.is_some());
            if let Some(val) = given.or(v.default.as_ref()) {
                out.insert(v.name.clone(), val.clone());
            }
        }
        if let Some(schema) = &self.output_schema {
            out.insert(OUTPUT_SCHEMA_VAR.into(), schema.clone());
        }
        out
    }

    /// Render with `given` values; fragments are looked up with `fragment`.
    pub fn render<'f>(
        &self,
        what: What,
        given: &Vars,
        fragment: impl Fn(&str) -> Option<&'f Fragment>,
    ) -> Result<Rendered, PromptError> {
        for v in &self.variables {
            if let Some(val) = given.get(&v.name) {
                if !v.options.is_empty() && !v.options.contains(val) {
                    return Err(PromptError::InvalidValue {
                        name: v.name.clone(),
                        value: val.clone(),
                        options: v.options.clone(),
                    });
                }
            }
        }
        if what == What::All && self.user.is_none() {
            return Err(PromptError::NoUserTemplate(self.key.clone()));
        }
        let vars = self.effective_vars(given);
        let mut used: Vec<String> = Vec::new();
        let mut missing: Vec<String> = Vec::new();
        let check = |c: &Option<Condition>, used: &mut Vec<String>| match c {
            Some(c) => {
                if !used.contains(&c.var) {
                    used.push(c.var.clone());
                }
                c.holds(&vars)
            }
            None => true,
        };

        let mut system: Vec<String> = Vec::new();
        for part in &self.system {
            if !check(&part.when, &mut used) {
                continue;
            }
            let raw = match &part.source {
                Source::Text(t) => t.as_str(),
                Source::Fragment(name) => {
                    let f = fragment(name)
                        .filter(|f| f.kind != FragmentKind::Examples)
                        .ok_or_else(|| PromptError::UnknownFragment(name.clone()))?;
                    f.text.as_str()
                }
            };
            let s = text::substitute(raw, &vars, &mut used, &mut missing);
            let s = s.trim();
            if !s.is_empty() {
                system.push(s.to_string());
            }
        }
        let mut messages = vec![PromptMessage {
            role: PromptRole::System,
            content: system.join("\n\n"),
            example: false,
        }];
        if what != What::System {
            for ex in &self.examples {
                if !check(&ex.when, &mut used) {
                    continue;
                }
                let pairs: &[Example] = match &ex.source {
                    ExampleSource::Pair(p) => std::slice::from_ref(p),
                    ExampleSource::Fragment(name) => {
                        let f = fragment(name)
                            .filter(|f| f.kind == FragmentKind::Examples)
                            .ok_or_else(|| PromptError::UnknownFragment(name.clone()))?;
                        &f.examples
                    }
                };
                for p in pairs {
                    for (role, t) in [
                        (PromptRole::User, &p.input),
                        (PromptRole::Assistant, &p.output),
                    ] {
                        let content = text::substitute(t, &vars, &mut used, &mut missing);
                        messages.push(PromptMessage {
                            role,
                            content: content.trim().to_string(),
                            example: true,
                        });
                    }
                }
            }
        }
        if what == What::All {
            if let Some(u) = &self.user {
                let content = text::substitute(u, &vars, &mut used, &mut missing);
                messages.push(PromptMessage {
                    role: PromptRole::User,
                    content: content.trim().to_string(),
                    example: false,
                });
            }
        }
        if !missing.is_empty() {
            return Err(PromptError::MissingVariables {
                key: self.key.clone(),
                names: missing,
            });
        }
        let warnings = given
            .keys()
            .filter(|k| !used.contains(k))
            .map(|k| Warning::UnusedVariable(k.clone()))
            .collect();
        Ok(Rendered { messages, warnings })
    }
}

impl Library {
    /// The template with this key.
    pub fn get(&self, key: &str) -> Option<&Template> {
        self.templates.iter().find(|t| t.key == key)
    }

    /// Render template `key` (`name` is the collection name used in errors); fragments come
    /// from this library, then from `fallback` (user templates use the built-in fragments).
    pub fn render_with(
        &self,
        name: &str,
        key: &str,
        what: What,
        vars: &Vars,
        fallback: Option<&Library>,
    ) -> Result<Rendered, PromptError> {
        let t = self.get(key).ok_or_else(|| PromptError::UnknownKey {
            template: name.to_string(),
            key: key.to_string(),
        })?;
        t.render(what, vars, |n| {
            self.fragments
                .get(n)
                .or_else(|| fallback.and_then(|f| f.fragments.get(n)))
        })
    }
}
