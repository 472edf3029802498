//! Claude's data export (`conversations.json`, alone or in the export's `.zip`): a list of
//! conversations (`uuid`, `name`, `created_at`/`updated_at` in ISO 8601, `chat_messages`). Each
//! message has a `sender` (`human` or `assistant`), its `text` and its `content` blocks: `text`,
//! `thinking` (kept as the reply's reasoning), `tool_use` and `tool_result` (kept as tool rounds,
//! as agent mode writes them: see [`super::report::reply`]); `attachments` and `files` become a
//! placeholder naming them. Messages follow `parent_message_uuid` when the file gives it (so
//! branches stay branches), else the message before; the chat opens at the newest leaf. The
//! model is kept when the conversation names it. One conversation that cannot be read is
//! skipped with its reason.

use super::report::{placeholder, question, reply, session, Block, ChatReport, Read, Skipped};
use super::time::parse_iso;
use crate::session::{Message, Role};
use serde_json::Value;
use std::collections::HashMap;

/// Claude's id of "no parent".
const ROOT: &str = "00000000-0000-4000-8000-000000000000";

/// Whether `value` looks like Claude's `conversations.json`: a list in which some conversation
/// has `chat_messages`.
pub fn looks_like(value: &Value) -> bool {
    value
        .as_array()
        .is_some_and(|a| a.iter().any(|c| c.get("chat_messages").is_some()))
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn time(v: &Value, key: &str) -> Option<i64> {
    str_at(v, key).and_then(parse_iso)
}

/// The conversations of Claude's `conversations.json`: each read, or skipped with its reason.
pub fn read(value: &Value) -> Vec<Result<Read, Skipped>> {
    let list = value.as_array().map(Vec::as_slice).unwrap_or_default();
    list.iter().enumerate().map(|(i, c)| item(i, c)).collect()
}

/// Conversation `i` of Claude's `conversations.json`, read or skipped with its reason.
pub fn item(i: usize, conv: &Value) -> Result<Read, Skipped> {
    let title = str_at(conv, "name").unwrap_or_default();
    match conv.as_object() {
        None => Err(Skipped::new(i, "", "not an object")),
        Some(_) => conversation(conv).map_err(|reason| Skipped::new(i, title, reason)),
    }
}

/// The text of a tool result's `content`: a string, or text blocks.
fn result_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.clone()),
                _ => str_at(p, "text").map(str::to_string),
            })
            .collect::<Vec<_>>()
            .join("\n\n"),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// A message's blocks (its `content`, or its `text` when it has none).
fn blocks(m: &Value) -> Vec<Block> {
    let content = m
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut out: Vec<Block> = content
        .iter()
        .filter_map(|b| match str_at(b, "type")? {
            "text" => Some(Block::Text(str_at(b, "text")?.to_string())),
            "thinking" => Some(Block::Reasoning(str_at(b, "thinking")?.to_string())),
            "tool_use" => Some(Block::Call {
                id: str_at(b, "id").map(str::to_string),
                name: str_at(b, "name").unwrap_or("tool").to_string(),
                arguments: match b.get("input") {
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                    None => "{}".to_string(),
                },
            }),
            "tool_result" => Some(Block::Output {
                call: str_at(b, "tool_use_id").map(str::to_string),
                text: result_text(b.get("content")),
            }),
            _ => None,
        })
        .collect();
    if !out
        .iter()
        .any(|b| matches!(b, Block::Text(t) if !t.trim().is_empty()))
    {
        if let Some(t) = str_at(m, "text").filter(|t| !t.trim().is_empty()) {
            out.insert(0, Block::Text(t.to_string()));
        }
    }
    out
}

/// Placeholders for a message's `attachments` and `files`.
fn attachments(m: &Value) -> Vec<String> {
    ["attachments", "files"]
        .iter()
        .flat_map(|k| {
            m.get(*k)
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default()
        })
        .map(|a| {
            let name = str_at(a, "file_name").unwrap_or_default();
            let image = match str_at(a, "file_type").or_else(|| str_at(a, "file_kind")) {
                Some(t) => t.starts_with("image"),
                // `files` name no type: an image by its name.
                None => {
                    let lower = name.to_ascii_lowercase();
                    [".png", ".jpg", ".jpeg", ".gif", ".webp"]
                        .iter()
                        .any(|e| lower.ends_with(e))
                }
            };
            let kind = if image { "image" } else { "file" };
            placeholder(kind, name)
        })
        .collect()
}

/// Conversation `conv` (an object).
fn conversation(conv: &Value) -> Result<Read, String> {
    let id = conv
        .get("uuid")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .ok_or("uuid: missing")?;
    let list = conv
        .get("chat_messages")
        .and_then(Value::as_array)
        .ok_or("chat_messages: missing, or not a list")?;
    let title = str_at(conv, "name").unwrap_or_default().trim().to_string();
    let model = str_at(conv, "model").map(str::to_string);
    let mut report = ChatReport {
        chat: format!("claude-{id}"),
        title: title.clone(),
        ..ChatReport::default()
    };
    let mut messages: Vec<Message> = Vec::new();
    // Each Claude message's last Satori message (a reply with tool steps is several).
    let mut last: HashMap<&str, String> = HashMap::new();
    let mut before: Option<String> = None;
    let created = time(conv, "created_at");
    for (mi, m) in list.iter().enumerate() {
        let role = match str_at(m, "sender") {
            Some("human") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => {
                report.left_out += 1;
                continue;
            }
        };
        let uuid = str_at(m, "uuid")
            .filter(|u| !u.is_empty())
            .map_or_else(|| format!("m{mi}"), str::to_string);
        let parent = match str_at(m, "parent_message_uuid") {
            Some(ROOT) => None,
            Some(p) => last.get(p).cloned().or(before.clone()),
            None => before.clone(),
        };
        let at = time(m, "created_at").or(created).unwrap_or(0);
        let placeholders = attachments(m);
        report.attachments += placeholders.len();
        let mut made = match role {
            Role::User => vec![Message::new(
                uuid.clone(),
                parent,
                Role::User,
                question(blocks(m), placeholders),
                at,
            )],
            _ => {
                let mut out = reply(&uuid, parent, at, blocks(m), &mut report);
                if let Some(first) = out.first_mut().filter(|_| !placeholders.is_empty()) {
                    let mut text = vec![first.content.clone()];
                    text.extend(placeholders);
                    first.content = text
                        .into_iter()
                        .filter(|t| !t.is_empty())
                        .collect::<Vec<_>>()
                        .join("\n\n");
                }
                for r in &mut out {
                    if r.role == Role::Assistant {
                        r.model = model.clone();
                    }
                }
                out
            }
        };
        let end = made.last().map(|m| m.id.clone());
        if let (Some(u), Some(e)) = (str_at(m, "uuid"), &end) {
            last.insert(u, e.clone());
        }
        before = end;
        messages.append(&mut made);
    }
    let first = messages.iter().map(|m| m.created_at).min();
    let newest = messages.iter().map(|m| m.created_at).max();
    let created = created.or(first).unwrap_or(0);
    let updated = time(conv, "updated_at").or(newest).unwrap_or(created);
    let leaf = str_at(conv, "current_leaf_message_uuid").and_then(|u| last.get(u).cloned());
    Ok((
        session(
            format!("claude-{id}"),
            title,
            created,
            updated,
            messages,
            leaf,
        ),
        report,
    ))
}
