//! A chat as a synced record ([`super::doc::Doc`]): its fields and its parts under keys, so two
//! devices that change different parts of one chat keep both changes.
//!
//! Keys: `c:<field>` for each field of the chat (title, role, prompt origin, context overrides,
//! agent settings, leaf, times, …: every field the stored chat has, so a field added later is
//! synced too), `m:<id>` for each message (without its pin and exclusion), `f:<id>` for a
//! message's pin and exclusion (only when one is set), `s:<id>` for each summary. Messages merge
//! by id, as two tabs do; fields, flags and summaries by the later write. A reply still streaming
//! is left out until it ends.

use crate::session::{Session, Status};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// What of `session` is synced, by key.
pub fn view_of(session: &Session) -> BTreeMap<String, Value> {
    let mut view = BTreeMap::new();
    let Ok(Value::Object(fields)) = serde_json::to_value(session) else {
        return view;
    };
    for (name, value) in fields {
        match name.as_str() {
            "id" | "messages" | "summaries" => {}
            _ => {
                view.insert(format!("c:{name}"), value);
            }
        }
    }
    // A reply still arriving is left out, and the chat reads as ending where it was asked.
    if let Some(m) = session
        .leaf
        .as_deref()
        .and_then(|id| session.get(id))
        .filter(|m| m.status == Status::Streaming)
    {
        match &m.parent {
            Some(parent) => view.insert("c:leaf".into(), Value::String(parent.clone())),
            None => view.remove("c:leaf"),
        };
    }
    for m in session
        .messages
        .iter()
        .filter(|m| m.status != Status::Streaming)
    {
        let mut plain = m.clone();
        let flags = (
            std::mem::take(&mut plain.pinned),
            std::mem::take(&mut plain.excluded),
        );
        if let Ok(v) = serde_json::to_value(&plain) {
            view.insert(format!("m:{}", m.id), v);
        }
        if flags != (false, false) {
            view.insert(format!("f:{}", m.id), serde_json::json!([flags.0, flags.1]));
        }
    }
    for s in &session.summaries {
        if let Ok(v) = serde_json::to_value(s) {
            view.insert(format!("s:{}", s.id), v);
        }
    }
    view
}

/// The chat `id` a synced record reads as (`view`: [`super::doc::Doc::view`]); what went wrong if
/// its parts do not make a chat (a record of a newer Satori, or damaged).
pub fn session_of(id: &str, view: &BTreeMap<String, Value>) -> Result<Session, String> {
    let mut fields = Map::new();
    let mut messages = Vec::new();
    let mut summaries = Vec::new();
    for (key, value) in view {
        match key.split_once(':') {
            Some(("c", name)) => {
                fields.insert(name.to_string(), value.clone());
            }
            Some(("m", mid)) => {
                let mut m = value.clone();
                if let (Some(obj), Some(Value::Array(flags))) =
                    (m.as_object_mut(), view.get(&format!("f:{mid}")))
                {
                    obj.insert("pinned".into(), flags.first().cloned().unwrap_or_default());
                    obj.insert("excluded".into(), flags.get(1).cloned().unwrap_or_default());
                }
                messages.push(m);
            }
            Some(("s", _)) => summaries.push(value.clone()),
            _ => {}
        }
    }
    fields.insert("id".into(), Value::String(id.to_string()));
    fields.insert("messages".into(), Value::Array(messages));
    fields.insert("summaries".into(), Value::Array(summaries));
    let mut session: Session =
        serde_json::from_value(Value::Object(fields)).map_err(|e| e.to_string())?;
    // In the order they were written, as a stored chat keeps them.
    session
        .messages
        .sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
    session
        .summaries
        .sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
    Ok(session)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Message, Role};
    use crate::sync::clock::Clock;
    use crate::sync::doc::Doc;

    fn chat() -> Session {
        let mut s = Session::new("c1".into(), 1_000, None, Vec::new());
        s.title = "订单 #4417".into();
        let q = Message::new("q".into(), None, Role::User, "How much?".into(), 1_001);
        let mut a = Message::new(
            "a".into(),
            Some("q".into()),
            Role::Assistant,
            "¥1 280".into(),
            1_002,
        );
        a.pinned = true;
        s.messages = vec![q, a];
        s.leaf = Some("a".into());
        s
    }

    #[test]
    fn a_chat_reads_back_as_it_was() {
        let s = chat();
        let view = view_of(&s);
        assert!(view.contains_key("c:title") && view.contains_key("m:q"));
        assert_eq!(view["f:a"], serde_json::json!([true, false]));
        assert!(!view["m:a"].to_string().contains("pinned"));
        assert_eq!(session_of("c1", &view).unwrap(), s);
    }

    #[test]
    fn two_devices_adding_to_one_chat_and_pinning_keep_everything() {
        let (mut a, mut b) = (Clock::new("a"), Clock::new("b"));
        let s = chat();
        let mut base = Doc::default();
        base.record(&view_of(&s), &mut a, 2_000);
        let (mut on_a, mut on_b) = (base.clone(), base.clone());
        b.observe(base.newest().unwrap());
        // A goes on with a question; B unpins the answer and renames the chat.
        let mut sa = s.clone();
        sa.messages.push(Message::new(
            "q2".into(),
            Some("a".into()),
            Role::User,
            "And shipping?".into(),
            3_000,
        ));
        sa.leaf = Some("q2".into());
        on_a.record(&view_of(&sa), &mut a, 3_000);
        let mut sb = s.clone();
        sb.messages[1].pinned = false;
        sb.title = "Order 4417".into();
        on_b.record(&view_of(&sb), &mut b, 3_500);
        on_a.merge(&on_b);
        let merged = session_of("c1", &on_a.view()).unwrap();
        assert_eq!(merged.title, "Order 4417");
        assert_eq!(merged.messages.len(), 3);
        assert!(!merged.messages[1].pinned);
        assert_eq!(merged.leaf.as_deref(), Some("q2"));
    }

    #[test]
    fn a_streaming_reply_waits_and_a_damaged_record_says_why() {
        let mut s = chat();
        s.messages[1].status = Status::Streaming;
        assert!(!view_of(&s).contains_key("m:a"));
        assert_eq!(
            view_of(&s)["c:leaf"],
            "q",
            "the chat ends where the reply was asked"
        );
        let mut view = view_of(&chat());
        view.insert("m:a".into(), serde_json::json!({"id": "a"}));
        assert!(session_of("c1", &view).is_err());
    }
}
