//! ChatGPT's data export (`conversations.json`): an array of conversations, each a tree of
//! message nodes (`mapping`) whose branch on screen ends at `current_node`. Each conversation is
//! read on its own: one that cannot be read is skipped with its reason, the others come in.
//!
//! Every node with a message a reader sees becomes a Satori message whose parent is its nearest
//! such ancestor, so regenerated answers and edits stay as branches. Tool steps become tool
//! rounds as agent mode writes them: an assistant message addressed to a tool (`recipient` other
//! than `all`: `browser`, `python`, `web.run`…) is a reply with one tool call (name: the
//! recipient, arguments: its code, id `call_<node>`), and the tool's output that follows (author
//! `tool`: pages quoted, search results, code output) is the `tool` message answering it —
//! consecutive outputs of one call are one result. Citation markers (`【6†source】`, and the newer
//! `\u{e200}cite\u{e202}…\u{e201}`) become numbered links from the message's citations, or are
//! removed. Images and files become a placeholder naming them. Hidden messages, empty system
//! messages, the user's custom instructions and reasoning steps are left out (and counted). An
//! interrupted reply is incomplete. The chat opens at `current_node`, or at the newest leaf when
//! the export's `current_node` is not one of its nodes.

use super::report::{placeholder, session, ChatReport, Read, Skipped};
use crate::session::{Message, Role, Status, ToolCall};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// A tool's name as the servers take it (`^[a-zA-Z0-9_-]{1,64}$`): ChatGPT's recipients
/// (`web.run`, `dalle.text2im`) with every other character as `_`.
fn tool_name(recipient: &str) -> String {
    let name: String = recipient
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' => c,
            _ => '_',
        })
        .take(64)
        .collect();
    if name.is_empty() {
        "tool".into()
    } else {
        name
    }
}

/// A call's arguments as the servers take them, JSON: the call's text as it is when it is a
/// JSON object already, else that text under `code` (`search("…")`, Python).
fn arguments(text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(_)) => text.to_string(),
        _ => serde_json::json!({ "code": text }).to_string(),
    }
}

/// Whether `value` looks like ChatGPT's `conversations.json`: a list in which some conversation
/// has a `mapping`.
pub fn looks_like(value: &Value) -> bool {
    value
        .as_array()
        .is_some_and(|a| a.iter().any(|c| c.get("mapping").is_some()))
}

/// Seconds since the epoch (ChatGPT writes them as floats) in milliseconds.
fn ms(v: Option<&Value>) -> Option<i64> {
    v.and_then(Value::as_f64)
        .filter(|s| s.is_finite() && (0.0..1e11).contains(s))
        .map(|s| (s * 1000.0) as i64)
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// What a node of the tree is to Satori.
enum Node {
    /// Not shown; `counted` when something a reader could have seen is left out.
    Skip { counted: bool },
    /// A message: user, assistant (to `all`) or a non-empty system message.
    Say { role: Role, text: String },
    /// An assistant message addressed to the tool `name`, with `code`.
    Call { name: String, code: String },
    /// A tool's output.
    Output { text: String },
}

/// What one node's reading converted, added to the chat's report.
#[derive(Default)]
struct Counts {
    linked: usize,
    removed: usize,
    attachments: usize,
}

/// The id of a file an `asset_pointer` names (`file-service://file-abc` → `file-abc`).
fn asset_id(pointer: &str) -> &str {
    pointer.rsplit("://").next().unwrap_or(pointer)
}

/// The text of a message's `content` with images and files as placeholders named from the
/// message's `attachments` (those not shown in the parts are added at the end).
fn text_of(content: &Value, meta: Option<&Value>, counts: &mut Counts) -> String {
    let names: Vec<(&str, &str, &str)> = meta
        .and_then(|m| m.get("attachments"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|a| {
            Some((
                str_at(a, "id")?,
                str_at(a, "name").unwrap_or_default(),
                str_at(a, "mime_type").unwrap_or_default(),
            ))
        })
        .collect();
    // By id, so a message of many parts and attachments costs no more than its length.
    let by_id: HashMap<&str, &str> = names.iter().rev().map(|(i, n, _)| (*i, *n)).collect();
    let mut shown: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut pieces: Vec<String> = Vec::new();
    match str_at(content, "content_type") {
        Some("tether_quote") => {
            let head: Vec<&str> = ["title", "url"]
                .iter()
                .filter_map(|k| str_at(content, k))
                .filter(|s| !s.trim().is_empty())
                .collect();
            pieces.push(head.join("\n"));
            pieces.push(str_at(content, "text").unwrap_or_default().to_string());
        }
        _ => {
            if let Some(parts) = content.get("parts").and_then(Value::as_array) {
                for p in parts {
                    pieces.push(match p {
                        Value::String(s) => s.clone(),
                        Value::Object(o) => match o.get("asset_pointer").and_then(Value::as_str) {
                            Some(pointer) => {
                                let id = asset_id(pointer);
                                shown.insert(id);
                                counts.attachments += 1;
                                let kind = o
                                    .get("content_type")
                                    .and_then(Value::as_str)
                                    .unwrap_or_default();
                                let kind = ["image", "audio", "video"]
                                    .into_iter()
                                    .find(|k| kind.contains(k))
                                    .unwrap_or("file");
                                let name = by_id.get(id).copied().unwrap_or(id);
                                placeholder(kind, name)
                            }
                            None => match o.get("text").and_then(Value::as_str) {
                                Some(t) => t.to_string(),
                                None => {
                                    counts.attachments += 1;
                                    "[attachment]".to_string()
                                }
                            },
                        },
                        _ => String::new(),
                    });
                }
            } else {
                pieces.push(
                    ["text", "result"]
                        .iter()
                        .find_map(|k| str_at(content, k))
                        .unwrap_or_default()
                        .to_string(),
                );
            }
        }
    }
    for (id, name, mime) in &names {
        if !shown.contains(id) {
            counts.attachments += 1;
            let kind = if mime.starts_with("image/") {
                "image"
            } else {
                "file"
            };
            pieces.push(placeholder(kind, if name.is_empty() { id } else { name }));
        }
    }
    pieces
        .into_iter()
        .filter(|s| !s.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Content types that are not a conversation's text: the user's custom instructions, memory,
/// reasoning steps.
const LEFT_OUT: &[&str] = &[
    "user_editable_context",
    "model_editable_context",
    "thoughts",
    "reasoning_recap",
];

/// What node `node` is, and its message's text (citations done).
fn classify(node: &Value, counts: &mut Counts) -> Node {
    let Some(m) = node.get("message").filter(|m| m.is_object()) else {
        return Node::Skip { counted: false };
    };
    let meta = m.get("metadata");
    let content = m.get("content").unwrap_or(&Value::Null);
    let hidden = meta
        .and_then(|x| x.get("is_visually_hidden_from_conversation"))
        .and_then(Value::as_bool)
        == Some(true);
    let kind = str_at(content, "content_type").unwrap_or_default();
    let role = m
        .get("author")
        .and_then(|a| a.get("role"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    if LEFT_OUT.contains(&kind) {
        return Node::Skip { counted: true };
    }
    let text = text_of(content, meta, counts);
    if hidden {
        return Node::Skip {
            counted: !text.trim().is_empty(),
        };
    }
    let recipient = str_at(m, "recipient").unwrap_or("all");
    match role {
        "assistant" if recipient != "all" => Node::Call {
            name: tool_name(recipient),
            code: arguments(&text),
        },
        "tool" => Node::Output { text },
        _ if text.trim().is_empty() => Node::Skip { counted: false },
        "user" => Node::Say {
            role: Role::User,
            text,
        },
        "system" => Node::Say {
            role: Role::System,
            text,
        },
        "assistant" => {
            let (text, linked, removed) = super::cite::cite(&text, meta);
            counts.linked += linked;
            counts.removed += removed;
            Node::Say {
                role: Role::Assistant,
                text,
            }
        }
        _ => Node::Skip { counted: true },
    }
}

/// The conversations of a `conversations.json`: each read, or skipped with its reason.
pub fn read(value: &Value) -> Vec<Result<Read, Skipped>> {
    let list = value.as_array().map(Vec::as_slice).unwrap_or_default();
    list.iter().enumerate().map(|(i, c)| item(i, c)).collect()
}

/// Conversation `i` of a `conversations.json`, read or skipped with its reason.
pub fn item(i: usize, conv: &Value) -> Result<Read, Skipped> {
    let title = str_at(conv, "title").unwrap_or_default();
    match conv.as_object() {
        None => Err(Skipped::new(i, "", "not an object")),
        Some(c) => conversation(c).map_err(|reason| Skipped::new(i, title, reason)),
    }
}

/// Where the walk down the tree is: the message new ones follow, and the open tool call.
#[derive(Clone, Default)]
struct At {
    parent: Option<String>,
    /// The call id, and its result once written.
    call: Option<(String, Option<String>)>,
}

fn conversation(conv: &Map<String, Value>) -> Result<Read, String> {
    let mapping = conv
        .get("mapping")
        .and_then(Value::as_object)
        .ok_or("mapping: missing, or not an object")?;
    let id = ["conversation_id", "id"]
        .iter()
        .find_map(|k| conv.get(*k).and_then(Value::as_str))
        .filter(|s| !s.trim().is_empty())
        .ok_or("conversation_id: missing")?;
    let title = conv
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim()
        .to_string();
    let created = ms(conv.get("create_time")).unwrap_or(0);
    let updated = ms(conv.get("update_time")).unwrap_or(created);
    // The tree by its parent links; a node whose parent is not in the mapping is a root.
    let mut children: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut roots: Vec<&str> = Vec::new();
    for (k, node) in mapping {
        match node.get("parent").and_then(Value::as_str) {
            Some(p) if mapping.contains_key(p) => children.entry(p).or_default().push(k),
            _ => roots.push(k),
        }
    }
    let mut report = ChatReport {
        chat: format!("chatgpt-{id}"),
        title: title.clone(),
        ..ChatReport::default()
    };
    let mut messages: Vec<Message> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    // The nearest message at or above each node.
    let mut shown_at: HashMap<&str, Option<String>> = HashMap::new();
    let mut stack: Vec<(&str, At)> = roots.iter().rev().map(|r| (*r, At::default())).collect();
    let mut visited = 0usize;
    while let Some((key, at)) = stack.pop() {
        visited += 1;
        let node = &mapping[key];
        let mut counts = Counts::default();
        let kind = classify(node, &mut counts);
        let m = node.get("message");
        let time = ms(m.and_then(|m| m.get("create_time"))).unwrap_or(created);
        let interrupted = m.is_some_and(|m| {
            str_at(m, "status") == Some("in_progress")
                || m.get("metadata")
                    .and_then(|x| x.get("finish_details"))
                    .and_then(|f| f.get("type"))
                    .and_then(Value::as_str)
                    == Some("interrupted")
        });
        let model = m
            .and_then(|m| m.get("metadata"))
            .and_then(|x| x.get("model_slug"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let new = |role: Role, text: String, parent: Option<String>| {
            let mut msg = Message::new(key.to_string(), parent, role, text, time);
            if role == Role::Assistant {
                msg.model = model.clone();
                if interrupted {
                    msg.status = Status::Incomplete;
                }
            }
            msg
        };
        let mut push = |msg: Message, report: &mut ChatReport| {
            report.incomplete += usize::from(msg.status == Status::Incomplete);
            index.insert(msg.id.clone(), messages.len());
            messages.push(msg);
        };
        let next = match kind {
            Node::Skip { counted } => {
                report.left_out += usize::from(counted);
                at.clone()
            }
            Node::Say { role, text } => {
                report.attachments += counts.attachments;
                report.citations_linked += counts.linked;
                report.citations_removed += counts.removed;
                push(new(role, text, at.parent.clone()), &mut report);
                At {
                    parent: Some(key.to_string()),
                    call: None,
                }
            }
            Node::Call { name, code } => {
                let call = format!("call_{key}");
                let mut msg = new(Role::Assistant, String::new(), at.parent.clone());
                msg.tool_calls = vec![ToolCall {
                    index: 0,
                    id: call.clone(),
                    name,
                    arguments: code,
                }];
                push(msg, &mut report);
                report.tool_calls += 1;
                At {
                    parent: Some(key.to_string()),
                    call: Some((call, None)),
                }
            }
            Node::Output { text } => match &at.call {
                // Output with no call before it answers nothing: left out.
                None => {
                    report.left_out += 1;
                    at.clone()
                }
                // More output of the same call: one result.
                Some((_, Some(result))) => {
                    if let Some(i) = index.get(result) {
                        let m = &mut messages[*i];
                        if !text.trim().is_empty() {
                            if !m.content.is_empty() {
                                m.content.push_str("\n\n");
                            }
                            m.content.push_str(&text);
                        }
                    }
                    report.attachments += counts.attachments;
                    at.clone()
                }
                Some((call, None)) => {
                    let call = call.clone();
                    let mut msg = new(Role::Tool, text, at.parent.clone());
                    msg.tool_call_id = Some(call.clone());
                    push(msg, &mut report);
                    report.tool_results += 1;
                    report.attachments += counts.attachments;
                    At {
                        parent: Some(key.to_string()),
                        call: Some((call, Some(key.to_string()))),
                    }
                }
            },
        };
        shown_at.insert(key, next.parent.clone());
        if let Some(kids) = children.get(key) {
            for k in kids.iter().rev() {
                stack.push((k, next.clone()));
            }
        }
    }
    if visited < mapping.len() {
        return Err("the parent links go round in a circle".into());
    }
    messages.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
    let leaf = conv
        .get("current_node")
        .and_then(Value::as_str)
        .and_then(|n| shown_at.get(n).cloned().flatten());
    let chat = session(
        format!("chatgpt-{id}"),
        title,
        created,
        updated,
        messages,
        leaf,
    );
    Ok((chat, report))
}

#[cfg(test)]
mod tests {
    use super::{arguments, tool_name};

    #[test]
    fn tool_calls_go_out_as_servers_take_them() {
        for (recipient, name) in [
            ("browser", "browser"),
            ("web.run", "web_run"),
            ("dalle.text2im", "dalle_text2im"),
            ("canmore.create_textdoc", "canmore_create_textdoc"),
            ("python", "python"),
            ("", "tool"),
            ("工具", "__"),
        ] {
            assert_eq!(tool_name(recipient), name, "{recipient}");
        }
        assert_eq!(tool_name(&"a".repeat(80)).len(), 64);
        for (text, json) in [
            (r#"{"query":"x"}"#, r#"{"query":"x"}"#),
            ("search(\"x\")", r#"{"code":"search(\"x\")"}"#),
            ("[1, 2]", r#"{"code":"[1, 2]"}"#),
            ("", r#"{"code":""}"#),
        ] {
            assert_eq!(arguments(text), json, "{text}");
        }
    }
}
