//! LibreChat's export of one conversation (JSON): `conversationId`, `title`, the `endpoint` and
//! `model`, and its messages either as a tree (`messagesTree`: each message with its `children`)
//! or as a flat list (`messages`, linked by `parentMessageId`; a root's parent is
//! `00000000-0000-0000-0000-000000000000`). A message has `messageId`, `isCreatedByUser` (or
//! `sender`), `text` or `content` parts (`text`, `think` — kept as reasoning — and `tool_call`,
//! kept as a tool round), `createdAt` (ISO 8601) and the `model`. Every branch is kept; the chat
//! opens at the newest leaf. An unfinished reply, or one that failed (its text is LibreChat's
//! error, kept as the reply's note), is incomplete; `files` become placeholders.

use super::error::ImportError;
use super::report::{placeholder, question, reply, session, Block, ChatReport, Read};
use super::time::parse_iso;
use crate::session::{Message, Role, Status};
use serde_json::Value;

/// LibreChat's id of "no parent".
const ROOT: &str = "00000000-0000-0000-0000-000000000000";

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// Whether `value` looks like a LibreChat export: an object with a `conversationId` (Satori's own
/// files name their format, so they never match).
pub fn looks_like(value: &Value) -> bool {
    value
        .as_object()
        .is_some_and(|o| !o.contains_key("format") && o.contains_key("conversationId"))
}

fn schema(path: &str, problem: &str) -> ImportError {
    ImportError::Schema {
        path: path.to_string(),
        problem: problem.to_string(),
    }
}

/// A part's text: a string, or `{"value": …}`.
fn part_text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        other => other
            .get("value")
            .and_then(Value::as_str)
            .map(str::to_string),
    }
}

/// A message's blocks: its `content` parts, or its `text`.
fn blocks(m: &Value) -> Vec<Block> {
    let parts = m
        .get("content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut out = Vec::new();
    for p in parts {
        match str_at(p, "type") {
            Some("text") => out.extend(part_text(p.get("text")).map(Block::Text)),
            Some("think") => out.extend(part_text(p.get("think")).map(Block::Reasoning)),
            Some("tool_call") => {
                let Some(call) = p.get("tool_call") else {
                    continue;
                };
                let id = str_at(call, "id").map(str::to_string);
                out.push(Block::Call {
                    id: id.clone(),
                    name: str_at(call, "name").unwrap_or("tool").to_string(),
                    arguments: match call.get("args") {
                        Some(Value::String(s)) => s.clone(),
                        Some(v) => v.to_string(),
                        None => "{}".into(),
                    },
                });
                if let Some(output) = part_text(call.get("output")) {
                    out.push(Block::Output {
                        call: id,
                        text: output,
                    });
                }
            }
            _ => {}
        }
    }
    let texted = out
        .iter()
        .any(|b| matches!(b, Block::Text(t) if !t.trim().is_empty()));
    if !texted {
        if let Some(t) = str_at(m, "text").filter(|t| !t.trim().is_empty()) {
            out.insert(0, Block::Text(t.to_string()));
        }
    }
    out
}

/// The messages, each with the parent its place in a tree gives it (flat lists: `None`).
fn flatten(value: &Value) -> Result<Vec<(&Value, Option<&str>)>, ImportError> {
    if let Some(tree) = value.get("messagesTree").and_then(Value::as_array) {
        let mut out = Vec::new();
        let mut stack: Vec<(&Value, Option<&str>)> = tree.iter().rev().map(|m| (m, None)).collect();
        while let Some((m, parent)) = stack.pop() {
            out.push((m, parent));
            let id = str_at(m, "messageId");
            if let Some(kids) = m.get("children").and_then(Value::as_array) {
                stack.extend(kids.iter().rev().map(|k| (k, id)));
            }
        }
        return Ok(out);
    }
    match value.get("messages").and_then(Value::as_array) {
        Some(list) => Ok(list.iter().map(|m| (m, None)).collect()),
        None => Err(schema(
            "messages",
            "missing, or not a list (a LibreChat export holds `messages` or `messagesTree`)",
        )),
    }
}

/// The conversation of a LibreChat export.
pub fn read(value: &Value) -> Result<Read, ImportError> {
    let id = str_at(value, "conversationId")
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| schema("conversationId", "empty, or not text"))?;
    let title = str_at(value, "title")
        .unwrap_or_default()
        .trim()
        .to_string();
    let model = str_at(value, "model")
        .or_else(|| value.get("options").and_then(|o| str_at(o, "model")))
        .map(str::to_string);
    let mut report = ChatReport {
        chat: format!("librechat-{id}"),
        title: title.clone(),
        ..ChatReport::default()
    };
    let mut messages: Vec<Message> = Vec::new();
    for (m, tree_parent) in flatten(value)? {
        let Some(mid) = str_at(m, "messageId").filter(|s| !s.is_empty()) else {
            report.left_out += 1;
            continue;
        };
        let parent = tree_parent
            .or_else(|| str_at(m, "parentMessageId"))
            .filter(|p| *p != ROOT && !p.is_empty())
            .map(str::to_string);
        let user = match m.get("isCreatedByUser").and_then(Value::as_bool) {
            Some(u) => u,
            None => str_at(m, "sender").is_some_and(|s| s.eq_ignore_ascii_case("user")),
        };
        let at = str_at(m, "createdAt").and_then(parse_iso).unwrap_or(0);
        let files: Vec<String> = m
            .get("files")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|f| {
                let kind = match str_at(f, "type") {
                    Some(t) if t.starts_with("image") => "image",
                    _ => "file",
                };
                placeholder(kind, str_at(f, "filename").unwrap_or_default())
            })
            .collect();
        report.attachments += files.len();
        if user {
            let text = question(blocks(m), files);
            messages.push(Message::new(mid.to_string(), parent, Role::User, text, at));
            continue;
        }
        let failed = m.get("error").and_then(Value::as_bool) == Some(true);
        let unfinished = m.get("unfinished").and_then(Value::as_bool) == Some(true);
        let mut out = if failed {
            let mut r = Message::new(mid.to_string(), parent, Role::Assistant, String::new(), at);
            r.note = str_at(m, "text")
                .filter(|t| !t.trim().is_empty())
                .map(str::to_string);
            vec![r]
        } else {
            reply(mid, parent, at, blocks(m), &mut report)
        };
        if let Some(first) = out.first_mut().filter(|_| !files.is_empty()) {
            let mut text = vec![std::mem::take(&mut first.content)];
            text.extend(files);
            text.retain(|t| !t.is_empty());
            first.content = text.join("\n\n");
        }
        let own = str_at(m, "model").map(str::to_string).or(model.clone());
        for r in &mut out {
            if r.role == Role::Assistant {
                r.model = own.clone();
            }
        }
        if failed || unfinished {
            if let Some(r) = out.last_mut() {
                r.status = Status::Incomplete;
                report.incomplete += 1;
            }
        }
        messages.append(&mut out);
    }
    // A message left out (no id) leaves its replies without their parent: they start the chat
    // anew rather than failing its check.
    let ids: std::collections::HashSet<String> = messages.iter().map(|m| m.id.clone()).collect();
    for m in &mut messages {
        if m.parent.as_ref().is_some_and(|p| !ids.contains(p)) {
            m.parent = None;
        }
    }
    messages.sort_by_key(|m| m.created_at);
    let created = str_at(value, "createdAt")
        .and_then(parse_iso)
        .or_else(|| messages.iter().map(|m| m.created_at).min())
        .unwrap_or(0);
    let updated = str_at(value, "updatedAt")
        .and_then(parse_iso)
        .or_else(|| messages.iter().map(|m| m.created_at).max())
        .unwrap_or(created);
    Ok((
        session(
            format!("librechat-{id}"),
            title,
            created,
            updated,
            messages,
            None,
        ),
        report,
    ))
}
