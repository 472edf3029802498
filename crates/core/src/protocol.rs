//! What crosses a boundary between Satori's parts that do not share Rust types at run time — the
//! app and its lazy wasm modules, the page's window events — as one enum per boundary. No event
//! names per message, no one-letter tags, no JSON picked apart by whoever receives it: the sender
//! builds a variant, the receiver matches on it.

use crate::key_binding::SettingsSaved;
use crate::prompts::{RoleRef, Vars};
use crate::session::{AgentConfig, ContextOverrides};
use serde::{Deserialize, Serialize};

/// The one window event the dialogs module tells the app through; its detail is a
/// [`DialogEvent`] as JSON ([`DialogEvent::encode`]).
pub const DIALOG_EVENT: &str = "satori:dialog";

/// The window event the interface language changed by (detail: `en` or `zh-CN`). The page's
/// translator (`src/web/i18n.js`) listens to it, not the app.
pub const LANGUAGE_EVENT: &str = "satori:language";

/// What a dialog (in the dialogs module) tells the app.
///
/// Externally tagged, its values in order (`{"rename": ["c1", "Title"]}`, `"closed"`): an
/// internally tagged enum is read through serde's buffered content, which cost the first load
/// 20 KB gzip, and named fields 2.8 KB more than values in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DialogEvent {
    /// The user templates record was saved.
    PromptsChanged,
    /// "Use in new chat": start a new chat with this role.
    UseRole(#[serde(with = "role_ref")] RoleRef),
    /// "Chat setup" applied: the chat not yet started starts with the role and its variables'
    /// values.
    Setup(#[serde(with = "role_ref")] RoleRef, Vars),
    /// "System prompt" saved for the open chat.
    SystemPrompt(String),
    /// "Settings" saved: what the app applies.
    Settings(SettingsSaved),
    /// A dialog of the module closed.
    Closed,
    /// A summary was edited in the context inspector: its id, its new text.
    SummaryEdited(String, String),
    /// The open chat's context settings were saved in the inspector.
    ChatContext(ContextOverrides),
    /// An import (or "Undo import") changed the stored chats.
    Imported,
    /// "Rename chat" saved: the chat's id, its new title.
    Rename(String, String),
    /// "Search chats" (or a chat saved from a link) chose a chat: open it (its id), at the
    /// message given, if any.
    OpenAt(String, Option<String>),
    /// "Delete chat" confirmed.
    Delete(String),
    /// "Agent" saved: the chat's id, its agent settings.
    Agent(String, AgentConfig),
}

impl DialogEvent {
    /// The event as the window event's detail.
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The event a detail holds; the error says why it is none.
    pub fn decode(detail: &str) -> Result<DialogEvent, String> {
        serde_json::from_str(detail).map_err(|e| e.to_string())
    }
}

/// What a running turn (in the context module) tells the app as it goes: the app draws it.
///
/// Handed across as three strings ([`TurnEvent::parts`], [`TurnEvent::from_parts`]), not JSON:
/// it goes once per frame while a reply streams, and serde's reader for it cost the first load
/// 0.8 KB gzip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnEvent {
    /// The reply so far, at most once per frame.
    Shown {
        /// Its text.
        content: String,
        /// Its thoughts.
        reasoning: String,
    },
    /// The status line (a retry's countdown); empty clears it.
    Status {
        /// The line.
        text: String,
    },
    /// A checkpoint: the app saves the reply as it stands.
    Checkpoint,
}

impl TurnEvent {
    /// The event's name and its two texts (empty where it has fewer).
    pub fn parts(&self) -> (&'static str, &str, &str) {
        match self {
            TurnEvent::Shown { content, reasoning } => ("shown", content, reasoning),
            TurnEvent::Status { text } => ("status", text, ""),
            TurnEvent::Checkpoint => ("checkpoint", "", ""),
        }
    }

    /// The event [`TurnEvent::parts`] gave; `None` for a name it does not give.
    pub fn from_parts(name: &str, a: String, b: String) -> Option<TurnEvent> {
        match name {
            "shown" => Some(TurnEvent::Shown {
                content: a,
                reasoning: b,
            }),
            "status" => Some(TurnEvent::Status { text: a }),
            "checkpoint" => Some(TurnEvent::Checkpoint),
            _ => None,
        }
    }
}

/// A [`RoleRef`] as its text (`builtin:key`, `user:key`).
mod role_ref {
    use crate::prompts::RoleRef;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(role: &RoleRef, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&role.encode())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<RoleRef, D::Error> {
        let text = String::deserialize(d)?;
        RoleRef::decode(&text).ok_or_else(|| D::Error::custom(format!("not a role: {text:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key_binding::KeySave;
    use crate::settings::Settings;

    /// One of each dialog event, with values that are not their defaults.
    fn dialog_events() -> Vec<DialogEvent> {
        let role = RoleRef::decode("user:reviewer").expect("a role");
        vec![
            DialogEvent::PromptsChanged,
            DialogEvent::UseRole(role.clone()),
            DialogEvent::Setup(role, [("lang".to_string(), "中文".to_string())].into()),
            DialogEvent::SystemPrompt("Be brief.\n简洁".into()),
            DialogEvent::Settings(SettingsSaved {
                settings: Settings::default(),
                key: KeySave::Remove,
                problem: Some("browser storage is full".into()),
            }),
            DialogEvent::Closed,
            DialogEvent::SummaryEdited("s1".into(), "订单 #4417".into()),
            DialogEvent::ChatContext(ContextOverrides {
                window: Some(4096),
                ..ContextOverrides::default()
            }),
            DialogEvent::Imported,
            DialogEvent::Rename("c1".into(), "\"Quoted\" title".into()),
            DialogEvent::OpenAt("c2".into(), Some("m9".into())),
            DialogEvent::OpenAt("c3".into(), None),
            DialogEvent::Delete("c4".into()),
            DialogEvent::Agent(
                "c5".into(),
                AgentConfig {
                    on: true,
                    max_steps: Some(7),
                    ..AgentConfig::default()
                },
            ),
        ]
    }

    /// Which variant `e` is: a new variant does not compile until it is listed here, and the
    /// round-trip test then asks for a sample of it.
    fn dialog_variant(e: &DialogEvent) -> usize {
        match e {
            DialogEvent::PromptsChanged => 0,
            DialogEvent::UseRole(_) => 1,
            DialogEvent::Setup(..) => 2,
            DialogEvent::SystemPrompt(_) => 3,
            DialogEvent::Settings(_) => 4,
            DialogEvent::Closed => 5,
            DialogEvent::SummaryEdited(..) => 6,
            DialogEvent::ChatContext(_) => 7,
            DialogEvent::Imported => 8,
            DialogEvent::Rename(..) => 9,
            DialogEvent::OpenAt(..) => 10,
            DialogEvent::Delete(_) => 11,
            DialogEvent::Agent(..) => 12,
        }
    }

    #[test]
    fn every_dialog_event_round_trips() {
        let events = dialog_events();
        let mut seen: Vec<usize> = events.iter().map(dialog_variant).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(
            seen,
            (0..13).collect::<Vec<_>>(),
            "a sample of every variant"
        );
        for e in events {
            let text = e.encode();
            assert_eq!(DialogEvent::decode(&text), Ok(e.clone()), "{text}");
        }
    }

    #[test]
    fn dialog_events_read_as_named_fields() {
        assert_eq!(
            DialogEvent::Rename("c1".into(), "T".into()).encode(),
            r#"{"rename":["c1","T"]}"#
        );
        assert_eq!(
            DialogEvent::UseRole(RoleRef::decode("builtin:coder").expect("a role")).encode(),
            r#"{"use_role":"builtin:coder"}"#
        );
    }

    #[test]
    fn a_bad_detail_is_an_error_not_an_event() {
        assert_eq!(DialogEvent::Closed.encode(), r#""closed""#);
        for bad in [
            "",
            "{}",
            r#""no_such_event""#,
            r#"{"rename":["c1"]}"#,
            r#"{"use_role":"nowhere:x"}"#,
            r#""delete""#,
        ] {
            assert!(DialogEvent::decode(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_turn_event_round_trips() {
        let events = [
            TurnEvent::Shown {
                content: "Paris 巴黎".into(),
                reasoning: "<think>".into(),
            },
            TurnEvent::Status {
                text: "Retrying in 3 s".into(),
            },
            TurnEvent::Status { text: "".into() },
            TurnEvent::Checkpoint,
        ];
        for e in events {
            // Exhaustive: a new variant needs a sample above.
            match &e {
                TurnEvent::Shown { .. } | TurnEvent::Status { .. } | TurnEvent::Checkpoint => {}
            }
            let (name, a, b) = e.parts();
            assert_eq!(
                TurnEvent::from_parts(name, a.to_string(), b.to_string()),
                Some(e.clone()),
                "{name}"
            );
        }
        assert_eq!(TurnEvent::from_parts("d", "x".into(), "".into()), None);
        assert_eq!(TurnEvent::Checkpoint.parts(), ("checkpoint", "", ""));
    }
}
