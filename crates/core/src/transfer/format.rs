//! Satori's export format, version 1: what "Export chat" and "Export all" write and "Import"
//! reads back. It is its own set of types, so the storage records can change without changing
//! the files people keep. Timestamps are ISO 8601 in UTC; every message of every branch is
//! there (the tree is the messages' `parent` links, the branch on screen ends at `leaf`).
//! The API key is never part of it: it lives in a record of its own that export never reads.

use super::time::{iso, parse_iso};
use crate::prompts::user::UserPrompts;
use crate::provider::stream::Usage;
use crate::session::{
    AgentConfig, ChatModel, ContextOverrides, Message, PromptOrigin, Role, Session, Status,
    Structured, Summary, ToolCall,
};
use serde::{Deserialize, Serialize};

/// The value of the top-level `format` field.
pub const FORMAT: &str = "satori-export";
/// The version this Satori writes and the newest it reads.
pub const VERSION: u32 = 1;

/// Timestamps as ISO 8601 strings on the outside, milliseconds inside.
mod iso_ms {
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(ms: &i64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::iso(*ms))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        let text = String::deserialize(d)?;
        super::parse_iso(&text).ok_or_else(|| {
            D::Error::custom(format!(
                "not an ISO 8601 date-time such as 2026-12-01T09:30:00Z: {:?}",
                text.chars().take(40).collect::<String>()
            ))
        })
    }
}

/// A whole export file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct File {
    /// Always [`FORMAT`].
    pub format: String,
    /// The format version ([`VERSION`]).
    pub version: u32,
    /// When the file was written.
    #[serde(with = "iso_ms")]
    pub exported_at: i64,
    /// The chats.
    #[serde(default)]
    pub chats: Vec<Chat>,
    /// The user's prompt templates ("Export all" only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<UserPrompts>,
    /// Settings without the API key ("Export all" only; import leaves yours as they are).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<serde_json::Value>,
    /// Stored chat records Satori could not read, exactly as stored ("Export all" only), so a
    /// damaged chat can be taken elsewhere or repaired by hand. Import never reads them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<RawRecord>,
}

/// A stored record as it is, text and all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawRecord {
    /// Its storage key (`satori.session.…`, or `satori.part.…` for a part of a chat in parts).
    pub key: String,
    /// Its text, unchanged.
    pub text: String,
}

/// One chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chat {
    /// The chat's id.
    pub id: String,
    /// Title (empty: "Untitled chat").
    #[serde(default)]
    pub title: String,
    /// The prompt role it started from.
    #[serde(default)]
    pub role: String,
    /// The template and variables it started from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<PromptOrigin>,
    /// Created.
    #[serde(with = "iso_ms")]
    pub created_at: i64,
    /// Last changed.
    #[serde(with = "iso_ms")]
    pub updated_at: i64,
    /// The last message of the branch shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaf: Option<String>,
    /// Every message of every branch, in the order written.
    pub messages: Vec<ChatMessage>,
    /// Stored summaries of older turns.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summaries: Vec<ChatSummary>,
    /// The chat's own context settings.
    #[serde(default, skip_serializing_if = "is_default")]
    pub context: ContextOverrides,
    /// The chat's agent mode.
    #[serde(default, skip_serializing_if = "is_default")]
    pub agent: AgentConfig,
    /// Pinned to the top of the chat list.
    #[serde(default, skip_serializing_if = "is_default")]
    pub pinned: bool,
    /// The model the chat was switched to, and the server it was chosen from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ChatModel>,
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// One message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Id, unique in its chat.
    pub id: String,
    /// The message it follows (`None` for a root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// `system`, `user`, `assistant` or `tool`.
    pub role: Role,
    /// The text.
    pub content: String,
    /// Reasoning a model sent with a reply.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reasoning: String,
    /// `complete`, `streaming`, `stopped` or `incomplete`.
    pub status: Status,
    /// Why the server ended the reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// How the reply ended, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The model that wrote a reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Written.
    #[serde(with = "iso_ms")]
    pub created_at: i64,
    /// A few-shot example of the chat's template.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub example: bool,
    /// Tokens the server reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// A reply's request in tokens as Satori counted them, when the server reported none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    /// `prompt_tokens` counted with the model's own tokenizer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prompt_exact: bool,
    /// A reply's tokens, estimated when the server reported none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_tokens: Option<u64>,
    /// What a reply cost, in billionths of `currency`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_nanos: Option<u64>,
    /// The currency of `cost_nanos`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub currency: String,
    /// Tool calls of a reply.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The call a `tool` message answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Pinned into every request.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
    /// Never sent.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub excluded: bool,
    /// How a reply matched its template's `output_schema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Structured>,
    /// Files attached to a question: references to bytes by their SHA-256, each one line
    /// (`attachment::Attachment`; a line that is not well formed is dropped on import).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<String>,
}

/// A stored summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatSummary {
    /// Id.
    pub id: String,
    /// The last message it covers.
    pub through: String,
    /// How many messages it covers.
    pub covers: u32,
    /// The text.
    pub text: String,
    /// Facts the fact guard restored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restored: Vec<String>,
    /// The model that wrote it.
    #[serde(default)]
    pub model: String,
    /// Edited by the user.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub edited: bool,
    /// Made.
    #[serde(with = "iso_ms")]
    pub created_at: i64,
}

impl From<&Message> for ChatMessage {
    fn from(m: &Message) -> Self {
        ChatMessage {
            id: m.id.clone(),
            parent: m.parent.clone(),
            role: m.role,
            content: m.content.clone(),
            reasoning: m.reasoning.clone(),
            // A reply still arriving when the file was written ends there: it is incomplete.
            status: match m.status {
                Status::Streaming => Status::Incomplete,
                other => other,
            },
            finish_reason: m.finish_reason.clone(),
            note: m.note.clone(),
            model: m.model.clone(),
            created_at: m.created_at,
            example: m.example,
            usage: m.usage.clone(),
            prompt_tokens: m.prompt_tokens,
            prompt_exact: m.prompt_exact,
            reply_tokens: m.reply_tokens,
            cost_nanos: m.cost_nanos,
            currency: m.currency.clone(),
            tool_calls: m.tool_calls.clone(),
            tool_call_id: m.tool_call_id.clone(),
            pinned: m.pinned,
            excluded: m.excluded,
            structured: m.structured.clone(),
            attachments: m.attachments.lines().map(str::to_string).collect(),
        }
    }
}

impl From<ChatMessage> for Message {
    fn from(m: ChatMessage) -> Self {
        // A cost is kept only in a currency's code (a file is anyone's: its text is not shown).
        let priced = m.currency.len() == 3 && m.currency.bytes().all(|b| b.is_ascii_uppercase());
        Message {
            id: m.id,
            parent: m.parent,
            role: m.role,
            content: m.content,
            reasoning: m.reasoning,
            status: m.status,
            finish_reason: m.finish_reason,
            note: m.note,
            model: m.model,
            created_at: m.created_at,
            example: m.example,
            usage: m.usage,
            prompt_tokens: m.prompt_tokens,
            prompt_exact: m.prompt_exact,
            reply_tokens: m.reply_tokens,
            cost_nanos: m.cost_nanos.filter(|_| priced),
            currency: if priced { m.currency } else { String::new() },
            tool_calls: m.tool_calls,
            tool_call_id: m.tool_call_id,
            pinned: m.pinned,
            excluded: m.excluded,
            structured: m.structured,
            attachments: m
                .attachments
                .into_iter()
                .filter(|l| crate::attachment::Attachment::try_from(l.clone()).is_ok())
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

impl From<&Summary> for ChatSummary {
    fn from(s: &Summary) -> Self {
        ChatSummary {
            id: s.id.clone(),
            through: s.through.clone(),
            covers: s.covers,
            text: s.text.clone(),
            restored: s.restored.clone(),
            model: s.model.clone(),
            edited: s.edited,
            created_at: s.created_at,
        }
    }
}

impl From<ChatSummary> for Summary {
    fn from(s: ChatSummary) -> Self {
        Summary {
            id: s.id,
            through: s.through,
            covers: s.covers,
            text: s.text,
            restored: s.restored,
            model: s.model,
            edited: s.edited,
            created_at: s.created_at,
        }
    }
}

impl From<&Session> for Chat {
    fn from(s: &Session) -> Self {
        Chat {
            id: s.id.clone(),
            title: s.title.clone(),
            role: s.role.clone(),
            prompt: s.prompt.clone(),
            created_at: s.created_at,
            updated_at: s.updated_at,
            leaf: s.leaf.clone(),
            messages: s.messages.iter().map(ChatMessage::from).collect(),
            summaries: s.summaries.iter().map(ChatSummary::from).collect(),
            context: s.context.clone(),
            agent: s.agent,
            pinned: s.pinned,
            model: s.model.clone(),
        }
    }
}

impl From<Chat> for Session {
    fn from(c: Chat) -> Self {
        Session {
            id: c.id,
            title: c.title,
            role: c.role,
            prompt: c.prompt,
            created_at: c.created_at,
            updated_at: c.updated_at,
            messages: c.messages.into_iter().map(Message::from).collect(),
            leaf: c.leaf,
            summaries: c.summaries.into_iter().map(Summary::from).collect(),
            context: c.context,
            agent: c.agent,
            foreign: false,
            pinned: c.pinned,
            model: c.model,
        }
    }
}

/// An export file of `chats` (with the user's `prompts` and `settings` for "Export all"), written
/// at `now` (ms), pretty-printed.
pub fn export(
    chats: &[&Session],
    prompts: Option<&UserPrompts>,
    settings: Option<serde_json::Value>,
    unreadable: Vec<RawRecord>,
    now: i64,
) -> String {
    let file = File {
        format: FORMAT.into(),
        version: VERSION,
        exported_at: now,
        chats: chats.iter().map(|s| Chat::from(*s)).collect(),
        prompts: prompts.cloned(),
        settings,
        unreadable,
    };
    serde_json::to_string_pretty(&file).unwrap_or_default()
}

/// The file name for an export of `what` (`chat`, `all`) written at `now`:
/// `satori-chat-2026-12-01-0930.json`.
pub fn file_name(what: &str, now: i64, extension: &str) -> String {
    let stamp = iso(now);
    format!(
        "satori-{what}-{}-{}{}.{extension}",
        &stamp[..10],
        &stamp[11..13],
        &stamp[14..16]
    )
}
