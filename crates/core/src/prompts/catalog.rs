//! What the app itself knows about roles, without parsing any template: the built-in roles as
//! Rust statics written by `build.rs` (with the messages a chat starts with when every variable
//! keeps its default, for roles without an `output_schema`), and the names and descriptions of
//! the user's templates read from their storage record. Rendering anything else is the deferred
//! dialogs module's job, so the template model stays off the first load.

use crate::prompts::RoleRef;
use crate::session::{Preamble, PromptOrigin, PromptSource, Role};
use serde::Deserialize;
use std::collections::BTreeMap;

/// A variable of a built-in role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VarInfo {
    /// Placeholder name.
    pub name: &'static str,
    /// What it is for.
    pub description: &'static str,
    /// Default value (`None`: required).
    pub default: Option<&'static str>,
    /// Allowed values (empty: any).
    pub options: &'static [&'static str],
}

/// A message a built-in role starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StaticMessage {
    /// Author.
    pub role: Role,
    /// Text.
    pub content: &'static str,
    /// Few-shot example.
    pub example: bool,
}

/// A built-in role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinRole {
    /// Template key.
    pub key: &'static str,
    /// Template version.
    pub version: u32,
    /// One-line description.
    pub description: &'static str,
    /// Declared variables.
    pub variables: &'static [VarInfo],
    /// The start of a chat with every variable at its default (`None` when a variable is
    /// required, and for roles with an `output_schema`, which the dialogs module starts).
    pub preamble: Option<&'static [StaticMessage]>,
}

include!(concat!(env!("OUT_DIR"), "/catalog.rs"));

/// A role as the role picker sees it (variables are the dialogs module's business; a chat's
/// values are in its session record).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleInfo {
    /// Built-in or user.
    pub source: PromptSource,
    /// Template key.
    pub key: String,
    /// Template version.
    pub version: u32,
    /// One-line description.
    pub description: String,
}

#[derive(Deserialize)]
struct Record {
    #[serde(default)]
    templates: Vec<Entry>,
}

#[derive(Deserialize)]
struct Entry {
    template: Info,
}

#[derive(Deserialize)]
struct Info {
    key: String,
    version: u32,
    description: String,
}

/// Every role: built-in ones first, then the user's.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Catalog {
    /// In display order.
    pub roles: Vec<RoleInfo>,
}

impl Catalog {
    /// The "Role" select's options as markup, by source ("Built-in", then "Your prompts" when
    /// there are any; the user's own never translated), `selected` chosen. Every text from a
    /// record is escaped.
    pub fn options_html(&self, selected: &RoleRef) -> String {
        use crate::markdown::push_escaped;
        let mut out = String::new();
        for (source, label) in [
            (PromptSource::Builtin, "Built-in"),
            (PromptSource::User, "Your prompts"),
        ] {
            let mut roles = self.roles.iter().filter(|r| r.source == source).peekable();
            if roles.peek().is_none() {
                continue;
            }
            out += "<optgroup label=\"";
            out += label;
            out += "\">";
            for r in roles {
                let value = RoleRef {
                    source,
                    key: r.key.clone(),
                };
                out += "<option";
                if source == PromptSource::User {
                    out += " translate=\"no\"";
                }
                if value == *selected {
                    out += " selected";
                }
                out += " value=\"";
                push_escaped(&mut out, &value.encode());
                out += "\">";
                push_escaped(&mut out, &r.key);
                out += " — ";
                push_escaped(&mut out, &r.description);
                out += "</option>";
            }
            out += "</optgroup>";
        }
        out
    }

    /// The built-in roles plus the user templates in `record` (the `satori.prompts` text;
    /// `None` when there is none). A record that cannot be read gives an error and the
    /// built-in roles only.
    pub fn load(record: Option<&str>) -> (Catalog, Option<String>) {
        let mut roles: Vec<RoleInfo> = BUILTIN_ROLES
            .iter()
            .map(|r| RoleInfo {
                source: PromptSource::Builtin,
                key: r.key.to_string(),
                version: r.version,
                description: r.description.to_string(),
            })
            .collect();
        let mut problem = None;
        if let Some(text) = record {
            match crate::persist::decode_record::<Record>(text) {
                Ok(rec) => roles.extend(rec.templates.into_iter().map(|e| RoleInfo {
                    source: PromptSource::User,
                    key: e.template.key,
                    version: e.template.version,
                    description: e.template.description,
                })),
                Err(e) => problem = Some(e.to_string()),
            }
        }
        (Catalog { roles }, problem)
    }

    /// The role with this source and key.
    pub fn find(&self, source: PromptSource, key: &str) -> Option<&RoleInfo> {
        self.roles
            .iter()
            .find(|r| r.source == source && r.key == key)
    }
}

/// The start of a chat with built-in role `key` when every variable keeps its default:
/// its origin and messages, or `None` when the role needs the dialogs module (unknown role,
/// a required variable, or other values).
pub fn builtin_start(
    key: &str,
    vars: &BTreeMap<String, String>,
    mut new_id: impl FnMut() -> String,
) -> Option<(PromptOrigin, Vec<Preamble>)> {
    let role = BUILTIN_ROLES.iter().find(|r| r.key == key)?;
    // Inserted one by one: collecting would pull a sort into the app for a handful of entries.
    let mut defaults = BTreeMap::new();
    for v in role.variables {
        if let Some(d) = v.default {
            defaults.insert(v.name.to_string(), d.to_string());
        }
    }
    let all_default = vars.iter().all(|(k, v)| defaults.get(k) == Some(v));
    if !all_default {
        return None;
    }
    let messages = role.preamble?;
    let origin = PromptOrigin {
        source: PromptSource::Builtin,
        key: key.to_string(),
        version: role.version,
        vars: defaults,
        system_edited: false,
        // Roles with a schema are not pre-rendered (see `build.rs`).
        output_schema: None,
    };
    let preamble = messages
        .iter()
        .map(|m| Preamble {
            id: new_id(),
            role: m.role,
            content: m.content.to_string(),
            example: m.example,
        })
        .collect();
    Some((origin, preamble))
}

/// What the dialogs module answers when asked to start a chat: `origin` and `messages` when
/// the chat can start; `origin` and `missing` when the template needs values it did not get
/// (the chat waits for them); `error` when the role cannot be used. A plain struct rather than
/// an enum: its decoder is much smaller in the app.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
pub struct StartAnswer {
    /// Template, version and values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<PromptOrigin>,
    /// The messages, without ids.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<StartMessage>,
    /// What is missing, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
    /// Why the role cannot be used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl StartAnswer {
    /// An answer saying the role cannot be used.
    pub fn error(why: impl Into<String>) -> Self {
        StartAnswer {
            error: Some(why.into()),
            ..Default::default()
        }
    }
}

/// A message of a [`StartAnswer`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
pub struct StartMessage {
    /// Author.
    pub role: Role,
    /// Text.
    pub content: String,
    /// Few-shot example.
    #[serde(default)]
    pub example: bool,
}
