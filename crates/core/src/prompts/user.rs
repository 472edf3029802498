//! User templates (written or imported in the "Prompts" view) and starting a session from a
//! template, built-in or user.

use super::template::{Library, PromptError, PromptRole, Template, Vars, What};
use super::validate::Diagnostic;
use crate::session::{Preamble, PromptOrigin, PromptSource, Role};
use serde::{Deserialize, Serialize};

/// A user template with the YAML text it was written as (kept so that comments and layout
/// survive editing).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserTemplate {
    /// The validated template.
    pub template: Template,
    /// Its YAML text (one top-level key).
    pub source: String,
}

/// Every user template (the `satori.prompts` storage record).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UserPrompts {
    /// In the order they were created.
    pub templates: Vec<UserTemplate>,
}

/// What the YAML module answered.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum YamlAnswer {
    /// The templates read.
    Ok(Vec<UserTemplate>),
    /// Why the text was refused.
    Errors(Vec<Diagnostic>),
}

impl UserPrompts {
    /// The template with this key.
    pub fn get(&self, key: &str) -> Option<&UserTemplate> {
        self.templates.iter().find(|t| t.template.key == key)
    }

    /// Add or replace templates by key; returns how many replaced an existing one.
    pub fn merge(&mut self, incoming: Vec<UserTemplate>) -> usize {
        let mut replaced = 0;
        for t in incoming {
            match self
                .templates
                .iter_mut()
                .find(|e| e.template.key == t.template.key)
            {
                Some(e) => {
                    *e = t;
                    replaced += 1;
                }
                None => self.templates.push(t),
            }
        }
        replaced
    }

    /// Remove a template; returns whether it existed.
    pub fn remove(&mut self, key: &str) -> bool {
        let before = self.templates.len();
        self.templates.retain(|t| t.template.key != key);
        before != self.templates.len()
    }

    /// A key not used yet, starting from `base` (`base`, `base-2`, `base-3`, …).
    pub fn free_key(&self, base: &str) -> String {
        let mut key = base.to_string();
        let mut n = 2;
        while self.get(&key).is_some() {
            key = format!("{base}-{n}");
            n += 1;
        }
        key
    }
}

/// A reference to a template: built-in or user, and its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleRef {
    /// Where the template lives.
    pub source: PromptSource,
    /// Its key.
    pub key: String,
}

impl RoleRef {
    /// `builtin:key` or `user:key` (the value of an option of the "Role" select).
    pub fn encode(&self) -> String {
        let s = match self.source {
            PromptSource::Builtin => "builtin",
            PromptSource::User => "user",
        };
        format!("{s}:{}", self.key)
    }

    /// Read [`RoleRef::encode`]'s format.
    pub fn decode(s: &str) -> Option<RoleRef> {
        let (src, key) = s.split_once(':')?;
        let source = match src {
            "builtin" => PromptSource::Builtin,
            "user" => PromptSource::User,
            _ => return None,
        };
        Some(RoleRef {
            source,
            key: key.to_string(),
        })
    }
}

/// The template `role` points at.
pub fn find<'a>(
    role: &RoleRef,
    builtin: &'a Library,
    user: &'a UserPrompts,
) -> Option<&'a Template> {
    match role.source {
        PromptSource::Builtin => builtin.get(&role.key),
        PromptSource::User => user.get(&role.key).map(|t| &t.template),
    }
}

/// The template `role` points at, or the error naming it.
fn lookup<'a>(
    role: &RoleRef,
    builtin: &'a Library,
    user: &'a UserPrompts,
) -> Result<&'a Template, PromptError> {
    find(role, builtin, user).ok_or_else(|| PromptError::UnknownKey {
        template: match role.source {
            PromptSource::Builtin => "built-in prompts",
            PromptSource::User => "your prompts",
        }
        .to_string(),
        key: role.key.clone(),
    })
}

/// Render the template `role` points at (user templates use the built-in fragments).
pub fn render(
    role: &RoleRef,
    what: What,
    vars: &Vars,
    builtin: &Library,
    user: &UserPrompts,
) -> Result<super::Rendered, PromptError> {
    lookup(role, builtin, user)?.render(what, vars, |n| builtin.fragments.get(n))
}

/// What a session starts with for `role` and `vars`: its origin record and its first messages
/// (system prompt, then few-shot examples). `new_id` names the messages.
pub fn start(
    role: &RoleRef,
    vars: &Vars,
    builtin: &Library,
    user: &UserPrompts,
    mut new_id: impl FnMut() -> String,
) -> Result<(PromptOrigin, Vec<Preamble>), PromptError> {
    let t = lookup(role, builtin, user)?;
    let rendered = t.render(What::Preamble, vars, |n| builtin.fragments.get(n))?;
    let mut recorded = t.effective_vars(vars);
    recorded.remove(super::template::OUTPUT_SCHEMA_VAR);
    let origin = PromptOrigin {
        source: role.source,
        key: role.key.clone(),
        version: t.version,
        vars: recorded,
        system_edited: false,
        output_schema: t.output_schema.clone(),
    };
    let preamble = rendered
        .messages
        .into_iter()
        .map(|m| Preamble {
            id: new_id(),
            role: match m.role {
                PromptRole::System => Role::System,
                PromptRole::User => Role::User,
                PromptRole::Assistant => Role::Assistant,
            },
            content: m.content,
            example: m.example,
        })
        .collect();
    Ok((origin, preamble))
}

/// The dialogs module's answer to "start a chat with `role` and `vars`" (see
/// [`super::catalog::StartAnswer`]).
pub fn start_answer(
    role: &RoleRef,
    vars: &Vars,
    builtin: &Library,
    user: &UserPrompts,
) -> super::catalog::StartAnswer {
    use super::catalog::{StartAnswer, StartMessage};
    match start(role, vars, builtin, user, String::new) {
        Ok((origin, preamble)) => StartAnswer {
            origin: Some(origin),
            messages: preamble
                .into_iter()
                .map(|p| StartMessage {
                    role: p.role,
                    content: p.content,
                    example: p.example,
                })
                .collect(),
            ..Default::default()
        },
        Err(e @ PromptError::MissingVariables { .. }) => StartAnswer {
            origin: Some(PromptOrigin {
                source: role.source,
                key: role.key.clone(),
                version: find(role, builtin, user).map_or(0, |t| t.version),
                vars: vars.clone(),
                system_edited: false,
                output_schema: find(role, builtin, user).and_then(|t| t.output_schema.clone()),
            }),
            missing: Some(e.to_string()),
            ..Default::default()
        },
        Err(e) => StartAnswer::error(e.to_string()),
    }
}

/// Read user templates from YAML text (an imported file, or the editor when `keep_source`:
/// a single template keeps its text as its source; otherwise each source is written anew).
pub fn read_yaml(
    file: &str,
    text: &str,
    keep_source: bool,
    fragments: &std::collections::BTreeMap<String, super::Fragment>,
) -> YamlAnswer {
    match super::templates_from_yaml(file, text, fragments) {
        Ok(list) => {
            let single = list.len() == 1;
            YamlAnswer::Ok(
                list.into_iter()
                    .map(|t| {
                        let source = if keep_source && single {
                            text.to_string()
                        } else {
                            super::emit::template(&t)
                        };
                        UserTemplate {
                            template: t,
                            source,
                        }
                    })
                    .collect(),
            )
        }
        Err(d) => YamlAnswer::Errors(d),
    }
}
