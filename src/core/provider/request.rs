//! Building the JSON body of a streaming `POST {base}/chat/completions`.
//!
//! Only visible text is sent: reasoning is never sent back, and empty replies (a reply that
//! failed before any text arrived) and an emptied system prompt are left out. The API key is not part of the body; the
//! adapter puts it in the `Authorization` header.

use crate::core::session::{Message, Role};
use crate::core::settings::Settings;
use serde::Serialize;

/// One message on the wire.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WireMessage<'a> {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: &'static str,
    /// The text.
    pub content: &'a str,
}

/// The request body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest<'a> {
    /// Model name.
    pub model: &'a str,
    /// Conversation, oldest first.
    pub messages: Vec<WireMessage<'a>>,
    /// Always `true`: Satori reads replies as a stream.
    pub stream: bool,
    /// Sampling temperature, if set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Reply token limit, if set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
}

/// The body for answering the conversation `history` (root first) with `settings`.
pub fn chat_request<'a>(settings: &'a Settings, history: &[&'a Message]) -> ChatRequest<'a> {
    let messages = history
        .iter()
        .filter(|m| !(m.role == Role::Assistant && m.content.is_empty()))
        .filter(|m| !(m.role == Role::System && m.content.trim().is_empty()))
        .map(|m| WireMessage {
            role: m.role.as_str(),
            content: &m.content,
        })
        .collect();
    ChatRequest {
        model: &settings.model,
        messages,
        stream: true,
        temperature: settings.temperature,
        max_tokens: settings.max_tokens,
    }
}

/// The body as JSON text.
pub fn to_json(req: &ChatRequest<'_>) -> String {
    serde_json::to_string(req).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::session::Preamble;
    use crate::core::session::{Command, Session};

    #[test]
    fn body_has_visible_text_only() {
        let mut s = Session::new(
            "s".into(),
            0,
            None,
            vec![Preamble::system("sys", "Be brief.")],
        );
        s.apply(Command::AddUser {
            id: "u".into(),
            text: "hi".into(),
            at: 1,
        })
        .unwrap();
        s.apply(Command::StartReply {
            id: "a".into(),
            parent: "u".into(),
            model: "m".into(),
            at: 2,
        })
        .unwrap();
        s.apply(Command::SetReply {
            id: "a".into(),
            content: String::new(),
            reasoning: "think".into(),
        })
        .unwrap();
        let settings = Settings {
            max_tokens: Some(32),
            temperature: Some(0.5),
            ..Settings::default()
        };
        let path = s.path();
        let json = to_json(&chat_request(&settings, &path));
        assert_eq!(
            json,
            r#"{"model":"smollm2","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}],"stream":true,"temperature":0.5,"max_tokens":32}"#
        );
    }
}
