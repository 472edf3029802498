//! ChatGPT's data export (`conversations.json`): an array of conversations, each a tree of
//! message nodes (`mapping`) whose branch on screen ends at `current_node`. Every node with a
//! visible message becomes a Satori message whose parent is its nearest visible ancestor, so
//! regenerated answers and edits stay as branches; the chat opens at `current_node` (not at the
//! last child). Timestamps and the model name are kept; anything else is ignored.

use super::error::ImportError;
use crate::session::{ContextOverrides, Message, Role, Session, Status};
use serde_json::{Map, Value};
use std::collections::HashMap;

/// Whether `value` looks like ChatGPT's `conversations.json`.
pub fn looks_like(value: &Value) -> bool {
    value
        .as_array()
        .and_then(|a| a.first())
        .and_then(Value::as_object)
        .is_some_and(|c| c.contains_key("mapping"))
}

fn schema(path: String, problem: &str) -> ImportError {
    ImportError::Schema {
        path,
        problem: problem.to_string(),
    }
}

/// Seconds since the epoch (ChatGPT writes them as floats) in milliseconds.
fn ms(v: Option<&Value>) -> Option<i64> {
    v.and_then(Value::as_f64)
        .filter(|s| s.is_finite() && (0.0..1e11).contains(s))
        .map(|s| (s * 1000.0) as i64)
}

/// The text of a message's `content`: its string parts (other parts — images, files — as
/// `[attachment]`), or its `text`.
fn text_of(content: &Value) -> String {
    if let Some(parts) = content.get("parts").and_then(Value::as_array) {
        let pieces: Vec<String> = parts
            .iter()
            .map(|p| match p {
                Value::String(s) => s.clone(),
                _ => "[attachment]".to_string(),
            })
            .filter(|s| !s.is_empty())
            .collect();
        return pieces.join("\n\n");
    }
    content
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// A message a reader sees.
struct Visible {
    role: Role,
    text: String,
    time: Option<i64>,
    model: Option<String>,
}

/// The message of a node if it is one a reader sees: a known role, some text, not hidden.
fn visible(node: &Value) -> Option<Visible> {
    let m = node.get("message")?.as_object()?;
    let role = match m.get("author")?.get("role")?.as_str()? {
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "system" => Role::System,
        "tool" => Role::Tool,
        _ => return None,
    };
    let meta = m.get("metadata");
    if meta
        .and_then(|x| x.get("is_visually_hidden_from_conversation"))
        .and_then(Value::as_bool)
        == Some(true)
    {
        return None;
    }
    let text = text_of(m.get("content")?);
    if text.trim().is_empty() {
        return None;
    }
    let model = meta
        .and_then(|x| x.get("model_slug"))
        .and_then(Value::as_str)
        .map(str::to_string);
    Some(Visible {
        role,
        text,
        time: ms(m.get("create_time")),
        model,
    })
}

/// The nearest ancestor of node `start` that is `shown` (remembered in `memo`, so each node is
/// walked once); a walk longer than the tree is a cycle.
fn nearest_shown(
    mapping: &Map<String, Value>,
    shown: &HashMap<&str, Visible>,
    memo: &mut HashMap<String, Option<String>>,
    start: &str,
    at: &str,
) -> Result<Option<String>, ImportError> {
    let parent_of = |node: &str| -> Option<String> {
        mapping
            .get(node)?
            .get("parent")?
            .as_str()
            .map(str::to_string)
    };
    let mut walk: Vec<String> = Vec::new();
    let mut node = parent_of(start);
    let found = loop {
        let Some(n) = node else { break None };
        if let Some(known) = memo.get(&n) {
            break known.clone();
        }
        if shown.contains_key(n.as_str()) {
            break Some(n);
        }
        if walk.len() > mapping.len() || walk.contains(&n) {
            return Err(schema(
                format!("{at}.mapping.{start}.parent"),
                "the parent links go round in a circle",
            ));
        }
        node = parent_of(&n);
        walk.push(n);
    };
    for n in walk {
        memo.insert(n, found.clone());
    }
    Ok(found)
}

/// The conversations of a `conversations.json`, checked.
pub fn read(value: &Value) -> Result<Vec<Session>, ImportError> {
    let list = value.as_array().map(Vec::as_slice).unwrap_or_default();
    let mut out = Vec::with_capacity(list.len());
    for (ci, conv) in list.iter().enumerate() {
        let at = format!("[{ci}]");
        let conv = conv
            .as_object()
            .ok_or_else(|| schema(at.clone(), "not an object"))?;
        out.push(conversation(conv, &at)?);
    }
    Ok(out)
}

fn conversation(conv: &Map<String, Value>, at: &str) -> Result<Session, ImportError> {
    let mapping = conv
        .get("mapping")
        .and_then(Value::as_object)
        .ok_or_else(|| schema(format!("{at}.mapping"), "missing, or not an object"))?;
    let id = ["conversation_id", "id"]
        .iter()
        .find_map(|k| conv.get(*k).and_then(Value::as_str))
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| schema(format!("{at}.conversation_id"), "missing"))?;
    let title = conv
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim()
        .to_string();
    let created = ms(conv.get("create_time")).unwrap_or(0);
    let updated = ms(conv.get("update_time")).unwrap_or(created);
    let shown: HashMap<&str, Visible> = mapping
        .iter()
        .filter_map(|(k, node)| visible(node).map(|m| (k.as_str(), m)))
        .collect();
    let mut memo: HashMap<String, Option<String>> = HashMap::new();
    let mut messages = Vec::with_capacity(shown.len());
    for (node, v) in &shown {
        let parent = nearest_shown(mapping, &shown, &mut memo, node, at)?;
        let mut m = Message::new(
            (*node).to_string(),
            parent,
            v.role,
            v.text.clone(),
            v.time.unwrap_or(created),
        );
        m.status = Status::Complete;
        if v.role == Role::Assistant {
            m.model = v.model.clone();
        }
        messages.push(m);
    }
    messages.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
    let leaf = match conv.get("current_node").and_then(Value::as_str) {
        Some(n) if shown.contains_key(n) => Some(n.to_string()),
        Some(n) => nearest_shown(mapping, &shown, &mut memo, n, at)?,
        None => messages.last().map(|m| m.id.clone()),
    };
    Ok(Session {
        id: format!("chatgpt-{id}"),
        title,
        role: String::new(),
        prompt: None,
        created_at: created,
        updated_at: updated,
        messages,
        leaf,
        summaries: Vec::new(),
        context: ContextOverrides::default(),
        agent: Default::default(),
    })
}
