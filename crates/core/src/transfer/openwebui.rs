//! Open WebUI's export ("Export All Chats", or one chat's "Export chat (.json)"): a list of chats,
//! each with `id`, `title`, `created_at`/`updated_at` (seconds) and `chat.history`: its messages
//! by id (`parentId`, `childrenIds`, `role`, `content`, `timestamp` in seconds, `model`) and the
//! `currentId` on screen. Every message of every branch is kept, the chat opens at `currentId`
//! (or the newest leaf). Older exports without `history` have a plain `chat.messages` list. An
//! interrupted reply (`done: false`, or an `error`) is incomplete; `files` become placeholders.
//! One chat that cannot be read is skipped with its reason.

use super::report::{any_epoch, placeholder, session, ChatReport, Read, Skipped};
use crate::session::{Message, Role, Status};
use serde_json::Value;

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// Whether `value` looks like an Open WebUI export: a list in which some item has a `chat` with
/// a `history` or `messages`.
pub fn looks_like(value: &Value) -> bool {
    value.as_array().is_some_and(|a| {
        a.iter().any(|c| {
            c.get("chat")
                .is_some_and(|c| c.get("history").is_some() || c.get("messages").is_some())
        })
    })
}

/// The chats of an Open WebUI export: each read, or skipped with its reason.
pub fn read(value: &Value) -> Vec<Result<Read, Skipped>> {
    let list = value.as_array().map(Vec::as_slice).unwrap_or_default();
    list.iter().enumerate().map(|(i, c)| item(i, c)).collect()
}

/// Chat `i` of an Open WebUI export, read or skipped with its reason.
pub fn item(i: usize, item: &Value) -> Result<Read, Skipped> {
    let title = str_at(item, "title")
        .or_else(|| item.get("chat").and_then(|c| str_at(c, "title")))
        .unwrap_or_default();
    match item.as_object() {
        None => Err(Skipped::new(i, "", "not an object")),
        Some(_) => chat(item, title).map_err(|reason| Skipped::new(i, title, reason)),
    }
}

/// A message's text: `content` as a string, or the text of its parts.
fn content(m: &Value) -> String {
    match m.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| str_at(p, "text"))
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => String::new(),
    }
}

/// Chat `item` (an object) titled `title`.
fn chat(item: &Value, title: &str) -> Result<Read, String> {
    let chat = item
        .get("chat")
        .filter(|c| c.is_object())
        .ok_or("chat: missing, or not an object")?;
    let id = str_at(item, "id")
        .or_else(|| str_at(chat, "id"))
        .filter(|s| !s.trim().is_empty())
        .ok_or("id: missing")?;
    let mut report = ChatReport {
        chat: format!("openwebui-{id}"),
        title: title.trim().to_string(),
        ..ChatReport::default()
    };
    // (id, message): the history's map, or the older plain list (each the parent of the next).
    let mut listed: Vec<(String, Option<String>, &Value)> = Vec::new();
    let current;
    if let Some(map) = chat
        .get("history")
        .and_then(|h| h.get("messages"))
        .and_then(Value::as_object)
    {
        for (k, m) in map {
            let parent = str_at(m, "parentId")
                .filter(|p| map.contains_key(*p))
                .map(str::to_string);
            listed.push((k.clone(), parent, m));
        }
        current = chat
            .get("history")
            .and_then(|h| str_at(h, "currentId"))
            .map(str::to_string);
    } else if let Some(list) = chat.get("messages").and_then(Value::as_array) {
        let mut before: Option<String> = None;
        for (i, m) in list.iter().enumerate() {
            let k = str_at(m, "id").map_or_else(|| format!("m{i}"), str::to_string);
            listed.push((k.clone(), before.replace(k), m));
        }
        current = None;
    } else {
        return Err("chat.history.messages: missing, or not an object".into());
    }
    let created = any_epoch(item.get("created_at"));
    let mut messages = Vec::with_capacity(listed.len());
    for (k, parent, m) in listed {
        let role = match str_at(m, "role") {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some("system") => Role::System,
            _ => {
                report.left_out += 1;
                continue;
            }
        };
        let mut text = vec![content(m)];
        for f in m
            .get("files")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let name = str_at(f, "name")
                .or_else(|| f.get("file").and_then(|x| str_at(x, "filename")))
                .unwrap_or_default();
            let kind = if str_at(f, "type") == Some("image") {
                "image"
            } else {
                "file"
            };
            report.attachments += 1;
            text.push(placeholder(kind, name));
        }
        let text: Vec<String> = text.into_iter().filter(|t| !t.trim().is_empty()).collect();
        let at = any_epoch(m.get("timestamp")).or(created).unwrap_or(0);
        let mut msg = Message::new(k, parent, role, text.join("\n\n"), at);
        if role == Role::Assistant {
            msg.model = str_at(m, "model")
                .or_else(|| {
                    m.get("models")
                        .and_then(Value::as_array)
                        .and_then(|a| a.first())
                        .and_then(Value::as_str)
                })
                .map(str::to_string);
            let error = m
                .get("error")
                .filter(|e| !e.is_null() && *e != &Value::Bool(false));
            if m.get("done") == Some(&Value::Bool(false)) || error.is_some() {
                msg.status = Status::Incomplete;
                report.incomplete += 1;
            }
            msg.note = error
                .and_then(|e| str_at(e, "content").or_else(|| e.as_str()))
                .map(str::to_string);
        }
        messages.push(msg);
    }
    messages.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
    // A parent left out (an unknown role) leaves its children at the root.
    let kept: std::collections::HashSet<String> = messages.iter().map(|m| m.id.clone()).collect();
    for m in &mut messages {
        if m.parent.as_ref().is_some_and(|p| !kept.contains(p)) {
            m.parent = None;
        }
    }
    let created = created
        .or_else(|| messages.iter().map(|m| m.created_at).min())
        .unwrap_or(0);
    let updated = any_epoch(item.get("updated_at"))
        .or_else(|| messages.iter().map(|m| m.created_at).max())
        .unwrap_or(created);
    let session = session(
        format!("openwebui-{id}"),
        title.trim().to_string(),
        created,
        updated,
        messages,
        current,
    );
    Ok((session, report))
}
