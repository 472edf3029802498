//! Backups of two other chat apps, each chat a plain list of messages:
//! - **NextChat** ("Export" in its settings, `Backup-….json`): the app's stores by name; the chats
//!   are `chat-next-web-store.sessions`, each with `topic`, `messages` (`role`, `content`, a
//!   `date` written in the browser's locale) and a `mask` whose `context` messages (its preset
//!   prompt) come first. The stores that hold API keys and settings are never read.
//! - **BetterChatGPT** ("Export"): `{ "chats": [...], "folders": {...}, "version": 1 }`, each chat
//!   with `title`, `messages` (`role`, `content`) and the `config.model` it used; no timestamps.
//!
//! In both, `content` is a string or a list of parts (text parts are kept, images and other
//! attachments become `[attachment]`). Message ids are made from positions, so importing the same
//! file twice yields identical chats (the second import skips them).

use super::error::ImportError;
use super::report::{session, Skipped};
use crate::session::{Message, Role, Session, Status};
use serde_json::{Map, Value};

/// NextChat's chat store in its backup.
const NEXTCHAT_CHATS: &str = "chat-next-web-store";

/// Which app wrote `value`, if it is one of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum App {
    /// NextChat's backup.
    NextChat,
    /// BetterChatGPT's export.
    BetterChatGpt,
}

/// Whether `value` looks like a NextChat backup or a BetterChatGPT export (Satori's own files
/// name their format, so they never match).
pub fn recognise(value: &Value) -> Option<App> {
    let top = value.as_object()?;
    if top.contains_key("format") {
        return None;
    }
    if top
        .get(NEXTCHAT_CHATS)
        .and_then(|s| s.get("sessions"))
        .is_some()
    {
        return Some(App::NextChat);
    }
    (top.contains_key("version") && top.get("chats").is_some_and(Value::is_array))
        .then_some(App::BetterChatGpt)
}

impl App {
    /// What the file is, for sentences (`the file is a NextChat backup, but …`).
    pub fn what(self) -> &'static str {
        match self {
            App::NextChat => "a NextChat backup",
            App::BetterChatGpt => "a BetterChatGPT export",
        }
    }
}

/// The chats of `value` as `app` wrote them, each read or skipped (named by its title, or its
/// place, with the reason); the error is a file whose list of chats cannot be read at all.
pub fn read(app: App, value: &Value) -> Result<Vec<Result<Session, Skipped>>, ImportError> {
    let (list, at, title_key) = match app {
        App::NextChat => (
            value.get(NEXTCHAT_CHATS).and_then(|s| s.get("sessions")),
            format!("[\"{NEXTCHAT_CHATS}\"].sessions"),
            "topic",
        ),
        App::BetterChatGpt => (value.get("chats"), "chats".to_string(), "title"),
    };
    let list = array(list, &at)?;
    Ok(list
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let here = format!("{at}[{i}]");
            let chat = match app {
                App::NextChat => nextchat(v, &here),
                App::BetterChatGpt => betterchatgpt(v, i, &here),
            };
            chat.map_err(|e| {
                let title = v.get(title_key).and_then(Value::as_str).unwrap_or_default();
                Skipped::new(i, title, reason(e, &here))
            })
        })
        .collect())
}

/// Why a chat at `here` was skipped, with the path inside it (`messages[1].role: unknown role`).
fn reason(e: ImportError, here: &str) -> String {
    match e {
        ImportError::Schema { path, problem } => {
            match path.strip_prefix(here).map(|p| p.trim_start_matches('.')) {
                Some("") => problem,
                Some(inner) => format!("{inner}: {problem}"),
                None => format!("{path}: {problem}"),
            }
        }
        other => other.to_string(),
    }
}

fn schema(path: String, problem: impl Into<String>) -> ImportError {
    ImportError::Schema {
        path,
        problem: problem.into(),
    }
}

fn array<'a>(v: Option<&'a Value>, at: &str) -> Result<&'a [Value], ImportError> {
    v.and_then(Value::as_array)
        .map(Vec::as_slice)
        .ok_or_else(|| schema(at.to_string(), "missing, or not a list"))
}

fn object<'a>(v: &'a Value, at: &str) -> Result<&'a Map<String, Value>, ImportError> {
    v.as_object()
        .ok_or_else(|| schema(at.to_string(), "not an object"))
}

/// A message's `content`: a string, or a list of parts (`{"type": "text", "text": …}`; any other
/// part is an attachment).
fn content(v: Option<&Value>, at: &str) -> Result<String, ImportError> {
    match v {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(parts)) => Ok(parts
            .iter()
            .map(
                |p| match (p.get("type").and_then(Value::as_str), p.get("text")) {
                    (Some("text"), Some(Value::String(t))) => t.clone(),
                    _ => "[attachment]".to_string(),
                },
            )
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n")),
        Some(_) => Err(schema(
            format!("{at}.content"),
            "not text or a list of parts",
        )),
    }
}

fn role(v: &Map<String, Value>, at: &str) -> Result<Role, ImportError> {
    match v.get("role").and_then(Value::as_str) {
        Some("user") => Ok(Role::User),
        Some("assistant") => Ok(Role::Assistant),
        Some("system") => Ok(Role::System),
        Some(other) => Err(schema(
            format!("{at}.role"),
            format!(
                "unknown role {:?}",
                other.chars().take(40).collect::<String>()
            ),
        )),
        None => Err(schema(format!("{at}.role"), "missing")),
    }
}

/// One message of a plain list.
struct Turn {
    role: Role,
    text: String,
    at: i64,
    model: Option<String>,
    status: Status,
    example: bool,
    /// Why a reply failed (NextChat writes its error into the reply).
    note: Option<String>,
}

/// A chat of `turns` in order, each the parent of the next.
fn chat(id: String, title: String, created: i64, updated: i64, turns: Vec<Turn>) -> Session {
    let mut messages: Vec<Message> = Vec::with_capacity(turns.len());
    for (i, t) in turns.into_iter().enumerate() {
        let parent = messages.last().map(|m| m.id.clone());
        let mut m = Message::new(format!("m{i}"), parent, t.role, t.text, t.at);
        m.status = t.status;
        m.example = t.example;
        m.note = t.note;
        if t.role == Role::Assistant {
            m.model = t.model;
        }
        messages.push(m);
    }
    let leaf = messages.last().map(|m| m.id.clone());
    session(id, title, created, updated, messages, leaf)
}

/// One chat of a NextChat backup (`at`: its place in the file, for errors).
fn nextchat(s: &Value, at: &str) -> Result<Session, ImportError> {
    {
        let s = object(s, at)?;
        let id = match s.get("id") {
            Some(Value::String(id)) if !id.trim().is_empty() => id.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => return Err(schema(format!("{at}.id"), "missing")),
        };
        let updated = s
            .get("lastUpdate")
            .and_then(Value::as_f64)
            .filter(|t| t.is_finite() && (0.0..1e14).contains(t))
            .map_or(0, |t| t as i64);
        let mut turns = Vec::new();
        // The mask's preset prompt comes first: system messages as they are, other roles as
        // examples (sent before the chat, like NextChat does).
        let context = s
            .get("mask")
            .and_then(|m| m.get("context"))
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut context_len = 0;
        for (ki, m) in context.iter().enumerate() {
            let mat = format!("{at}.mask.context[{ki}]");
            let obj = object(m, &mat)?;
            let role = role(obj, &mat)?;
            let text = content(obj.get("content"), &mat)?;
            if text.trim().is_empty() {
                continue;
            }
            turns.push(Turn {
                role,
                text,
                at: updated,
                model: None,
                status: Status::Complete,
                example: role != Role::System,
                note: None,
            });
            context_len += 1;
        }
        for (mi, m) in array(s.get("messages"), &format!("{at}.messages"))?
            .iter()
            .enumerate()
        {
            let mat = format!("{at}.messages[{mi}]");
            let obj = object(m, &mat)?;
            let role = role(obj, &mat)?;
            let text = content(obj.get("content"), &mat)?;
            let failed = obj.get("isError").and_then(Value::as_bool) == Some(true);
            let streaming = obj.get("streaming").and_then(Value::as_bool) == Some(true);
            if text.trim().is_empty() && !failed {
                continue;
            }
            // A failed reply holds NextChat's error text, not the model's words: it is kept as
            // the reply's note, never sent back to the model.
            let (text, note) = match failed {
                true => (String::new(), Some(text).filter(|t| !t.trim().is_empty())),
                false => (text, None),
            };
            turns.push(Turn {
                role,
                text,
                note,
                at: obj
                    .get("date")
                    .and_then(Value::as_str)
                    .and_then(locale_time)
                    .unwrap_or(updated),
                model: obj.get("model").and_then(Value::as_str).map(str::to_string),
                status: if failed || streaming {
                    Status::Incomplete
                } else {
                    Status::Complete
                },
                example: false,
            });
        }
        // The preset prompt takes the time of the first message; the chat was last changed no
        // earlier than its last message.
        let created = turns
            .iter()
            .skip(context_len)
            .map(|t| t.at)
            .min()
            .unwrap_or(updated);
        for t in turns.iter_mut().take(context_len) {
            t.at = created;
        }
        let updated = turns
            .iter()
            .map(|t| t.at)
            .max()
            .unwrap_or(updated)
            .max(updated);
        let title = s
            .get("topic")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_string();
        Ok(chat(
            format!("nextchat-{id}"),
            title,
            created,
            updated,
            turns,
        ))
    }
}

/// Chat `ci` of a BetterChatGPT export (`at`: its place in the file, for errors).
fn betterchatgpt(c: &Value, ci: usize, at: &str) -> Result<Session, ImportError> {
    {
        let c = object(c, at)?;
        let id = match c.get("id").and_then(Value::as_str) {
            Some(id) if !id.trim().is_empty() => id.to_string(),
            // `#` never appears in BetterChatGPT's ids (UUIDs).
            _ => format!("#{ci}"),
        };
        let model = c
            .get("config")
            .and_then(|k| k.get("model"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let mut turns = Vec::new();
        for (mi, m) in array(c.get("messages"), &format!("{at}.messages"))?
            .iter()
            .enumerate()
        {
            let mat = format!("{at}.messages[{mi}]");
            let obj = object(m, &mat)?;
            turns.push(Turn {
                role: role(obj, &mat)?,
                text: content(obj.get("content"), &mat)?,
                at: 0,
                model: model.clone(),
                status: Status::Complete,
                example: false,
                note: None,
            });
        }
        let title = c
            .get("title")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_string();
        Ok(chat(format!("betterchatgpt-{id}"), title, 0, 0, turns))
    }
}

/// A time as `Date.toLocaleString()` writes it in the two most common forms — `1/15/2025,
/// 9:05:00 AM` (US English, always with AM/PM) and `2025/1/15 09:05:00` (Chinese, year first) —
/// as milliseconds, read as UTC (the writer's zone is not in the text). Anything else (other
/// orders, which are ambiguous) is `None`.
fn locale_time(text: &str) -> Option<i64> {
    let number = |p: &str| -> Option<i64> {
        (!p.is_empty() && p.len() <= 4 && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse().ok())
            .flatten()
    };
    let mut parts = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|p| !p.is_empty());
    let date: Vec<i64> = parts
        .next()?
        .split('/')
        .map(number)
        .collect::<Option<_>>()?;
    let clock: Vec<i64> = parts
        .next()?
        .split(':')
        .map(number)
        .collect::<Option<_>>()?;
    let half = parts.next();
    if parts.next().is_some() {
        return None;
    }
    let (year, month, day) = match (&date[..], half) {
        ([m, d, y], Some(_)) if *y > 999 => (*y, *m, *d),
        ([y, m, d], None) if *y > 999 => (*y, *m, *d),
        _ => return None,
    };
    let [mut hour, minute, second] = clock[..] else {
        return None;
    };
    match half {
        Some(h @ ("AM" | "PM")) if (1..=12).contains(&hour) => {
            hour %= 12;
            if h == "PM" {
                hour += 12;
            }
        }
        Some(_) => return None,
        None => {}
    }
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let iso = format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z");
    super::time::parse_iso(&iso)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locale_times_in_english_and_chinese() {
        let at = |s| super::super::time::parse_iso(s);
        for (text, want) in [
            ("1/15/2025, 9:05:00 AM", at("2025-01-15T09:05:00Z")),
            ("1/15/2025, 12:30:00 AM", at("2025-01-15T00:30:00Z")),
            ("12/1/2026, 3:04:05 PM", at("2026-12-01T15:04:05Z")),
            ("2025/1/15 21:05:00", at("2025-01-15T21:05:00Z")),
            ("15.1.2025, 09:05:00", None),
            ("1/15/2025, 9:05:00\u{202f}PM", at("2025-01-15T21:05:00Z")),
            ("05/01/2025, 09:05:00", None),
            ("1/15/2025, 13:05:00 AM", None),
            ("1/15/2025, 0:05:00 PM", None),
            ("1/15/2025, -5:00:00 PM", None),
            ("1/15/2025, +5:00:00 PM", None),
            ("13/45/2025, 9:05:00 AM", None),
            ("yesterday", None),
            ("", None),
        ] {
            assert_eq!(locale_time(text), want, "{text}");
        }
    }

    #[test]
    fn content_parts_keep_text_and_mark_attachments() {
        let v: Value = serde_json::json!([
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
            {"type": "text", "text": ""}
        ]);
        assert_eq!(content(Some(&v), "m").unwrap(), "look\n\n[attachment]");
        assert!(content(Some(&serde_json::json!(5)), "m").is_err());
    }
}
