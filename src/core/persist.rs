//! Storage records: keys and versioned JSON encodings for sessions, the session index,
//! settings and drafts.
//!
//! Every record is a JSON object with a `v` field (schema version); a chat's record may also be
//! stored packed ([`crate::core::packed`]: the same JSON, deflated, behind a header line). Each session is its own
//! record, so saving one session writes that session only; the small index record lists the
//! sessions for the sidebar and remembers the active one. The API key has a record of its own
//! so that no other record (and no export of other records) can carry it.

pub use crate::core::key_binding::ApiKeyRecord;
use crate::core::prompts::UserPrompts;
use crate::core::session::Session;
use crate::core::settings::Settings;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Schema version written into every record.
pub const SCHEMA_VERSION: u32 = 1;
/// Prefix of every key Satori writes.
pub const PREFIX: &str = "satori.";
/// Key of the session index record.
pub const KEY_INDEX: &str = "satori.index";
/// Key of the settings record (never holds the API key).
pub const KEY_SETTINGS: &str = "satori.settings";
/// Key of the API key record (the only place the key is stored).
pub const KEY_API_KEY: &str = "satori.api_key";
/// Key of the user prompt templates record.
pub const KEY_PROMPTS: &str = "satori.prompts";
/// Key of the MCP servers record (URLs and tools; never tokens).
pub const KEY_MCP: &str = "satori.mcp";
/// Key of the MCP bearer tokens record (the only place they are stored).
pub const KEY_MCP_TOKENS: &str = "satori.mcp_tokens";

/// How a packed chat record starts ([`crate::core::packed`]; its version is the `1`).
pub const PACKED_MARK: &str = "z1:";

/// Whether `text` is a packed chat record.
pub fn is_packed(text: &str) -> bool {
    text.starts_with(PACKED_MARK)
}

/// Storage key of one session.
pub fn session_key(id: &str) -> String {
    format!("satori.session.{id}")
}

/// Storage key under which an unreadable record `what` (e.g. `index`) found at time `at` (ms
/// since the epoch) is kept before a rebuilt one replaces it.
pub fn backup_key(what: &str, at: i64) -> String {
    format!("satori.backup.{what}.{at}")
}

/// Storage key of the unsent draft of one session.
pub fn draft_key(id: &str) -> String {
    format!("satori.draft.{id}")
}

/// One line of the chat list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexEntry {
    /// Session id.
    pub id: String,
    /// Title at last save.
    pub title: String,
    /// Last change, ms since epoch.
    pub updated_at: i64,
}

/// The session index: every session, newest first, and the active one.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Index {
    /// Sessions, newest first.
    pub sessions: Vec<IndexEntry>,
    /// The session shown last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<String>,
}

impl Index {
    /// Insert or update the entry of `session` and keep the list newest first.
    pub fn upsert(&mut self, session: &Session) {
        let entry = IndexEntry {
            id: session.id.clone(),
            title: session.display_title().to_string(),
            updated_at: session.updated_at,
        };
        match self.sessions.iter_mut().find(|e| e.id == session.id) {
            Some(e) => *e = entry,
            None => self.sessions.push(entry),
        }
        self.sort();
    }

    /// Remove a session's entry; if it was active, the newest remaining one becomes active.
    pub fn remove(&mut self, id: &str) {
        self.sessions.retain(|e| e.id != id);
        if self.active.as_deref() == Some(id) {
            self.active = self.sessions.first().map(|e| e.id.clone());
        }
    }

    /// Newest first; ties broken by id so the order is stable.
    pub fn sort(&mut self) {
        self.sessions.sort_by(|a, b| {
            b.updated_at
                .cmp(&a.updated_at)
                .then_with(|| a.id.cmp(&b.id))
        });
    }
}

/// Why a stored record could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Not JSON, or JSON of the wrong shape.
    #[error("record is not valid: {0}")]
    Invalid(String),
    /// The record has no `v` field.
    #[error("record has no schema version")]
    MissingVersion,
    /// Written by a newer Satori.
    #[error("record has schema version {0}, newer than this version of Satori understands")]
    TooNew(u32),
    /// A packed chat record ([`crate::core::packed`]): it must be unpacked first.
    #[error("record is packed")]
    Packed,
}

#[derive(Serialize)]
struct Envelope<'a, T> {
    v: u32,
    #[serde(flatten)]
    data: &'a T,
}

#[derive(Deserialize)]
struct VersionOnly {
    v: Option<u32>,
}

fn encode<T: Serialize>(data: &T) -> String {
    // Serialising these plain structs cannot fail (no maps with non-string keys).
    serde_json::to_string(&Envelope {
        v: SCHEMA_VERSION,
        data,
    })
    .unwrap_or_default()
}

fn decode<T: DeserializeOwned>(text: &str) -> Result<T, DecodeError> {
    if is_packed(text) {
        return Err(DecodeError::Packed);
    }
    let version: VersionOnly =
        serde_json::from_str(text).map_err(|e| DecodeError::Invalid(e.to_string()))?;
    match version.v {
        None => Err(DecodeError::MissingVersion),
        Some(v) if v > SCHEMA_VERSION => Err(DecodeError::TooNew(v)),
        Some(_) => serde_json::from_str(text).map_err(|e| DecodeError::Invalid(e.to_string())),
    }
}

/// Decode any versioned record into `T` (fields `T` does not name are ignored).
pub fn decode_record<T: DeserializeOwned>(text: &str) -> Result<T, DecodeError> {
    decode(text)
}

/// Encode a session record.
pub fn encode_session(session: &Session) -> String {
    encode(session)
}

/// Decode a session record.
pub fn decode_session(text: &str) -> Result<Session, DecodeError> {
    decode(text)
}

/// Encode the index record.
pub fn encode_index(index: &Index) -> String {
    encode(index)
}

/// Decode the index record.
pub fn decode_index(text: &str) -> Result<Index, DecodeError> {
    decode(text)
}

/// Encode the settings record.
pub fn encode_settings(settings: &Settings) -> String {
    encode(settings)
}

/// Decode the settings record.
pub fn decode_settings(text: &str) -> Result<Settings, DecodeError> {
    decode(text)
}

/// Encode the user prompt templates record.
pub fn encode_prompts(prompts: &UserPrompts) -> String {
    encode(prompts)
}

/// Decode the user prompt templates record.
pub fn decode_prompts(text: &str) -> Result<UserPrompts, DecodeError> {
    decode(text)
}

/// Encode the API key record.
pub fn encode_api_key(record: &ApiKeyRecord) -> String {
    encode(record)
}

/// Decode the API key record.
pub fn decode_api_key(text: &str) -> Result<ApiKeyRecord, DecodeError> {
    decode(text)
}

/// Encode the MCP servers record.
pub fn encode_mcp(servers: &crate::core::agent::mcp::Servers) -> String {
    encode(servers)
}

/// Decode the MCP servers record.
pub fn decode_mcp(text: &str) -> Result<crate::core::agent::mcp::Servers, DecodeError> {
    decode(text)
}

/// Encode the MCP bearer tokens record.
pub fn encode_mcp_tokens(tokens: &crate::core::agent::mcp::Tokens) -> String {
    encode(tokens)
}

/// Decode the MCP bearer tokens record.
pub fn decode_mcp_tokens(text: &str) -> Result<crate::core::agent::mcp::Tokens, DecodeError> {
    decode(text)
}

/// Encode a draft record.
pub fn encode_draft(text: &str) -> String {
    #[derive(Serialize)]
    struct Draft<'a> {
        text: &'a str,
    }
    encode(&Draft { text })
}

/// Decode a draft record.
pub fn decode_draft(text: &str) -> Result<String, DecodeError> {
    #[derive(Deserialize)]
    struct Draft {
        text: String,
    }
    decode::<Draft>(text).map(|d| d.text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::session::Preamble;
    use crate::core::session::{Command, Status};

    fn sample() -> Session {
        let mut s = Session::new("abc".into(), 5, None, vec![Preamble::system("m0", "sys")]);
        let cmds = [
            Command::AddUser {
                id: "m1".into(),
                text: "Hi <b>\"there\"</b> 🌍".into(),
                at: 6,
            },
            Command::StartReply {
                id: "m2".into(),
                parent: "m1".into(),
                model: "x".into(),
                at: 7,
            },
            Command::SetReply {
                id: "m2".into(),
                content: "yo".into(),
                reasoning: "hmm".into(),
            },
            Command::FinishReply {
                id: "m2".into(),
                status: Status::Stopped,
                finish_reason: Some("length".into()),
                note: None,
                at: 8,
            },
        ];
        for c in cmds {
            s.apply(c).unwrap();
        }
        s
    }

    #[test]
    fn session_round_trips_with_version() {
        let s = sample();
        let text = encode_session(&s);
        assert!(text.starts_with("{\"v\":1,"), "{text}");
        assert_eq!(decode_session(&text), Ok(s));
    }

    #[test]
    fn settings_and_draft_round_trip() {
        let s = Settings::default();
        assert_eq!(decode_settings(&encode_settings(&s)), Ok(s));
        assert_eq!(
            decode_draft(&encode_draft("half a\nthought")),
            Ok("half a\nthought".into())
        );
    }

    #[test]
    fn index_keeps_newest_first_and_moves_active_on_remove() {
        let mut idx = Index::default();
        let mut a = sample();
        a.id = "a".into();
        a.updated_at = 10;
        let mut b = sample();
        b.id = "b".into();
        b.updated_at = 20;
        idx.upsert(&a);
        idx.upsert(&b);
        assert_eq!(
            idx.sessions
                .iter()
                .map(|e| e.id.as_str())
                .collect::<Vec<_>>(),
            ["b", "a"]
        );
        a.updated_at = 30;
        idx.upsert(&a);
        assert_eq!(idx.sessions[0].id, "a");
        idx.active = Some("a".into());
        idx.remove("a");
        assert_eq!(idx.active.as_deref(), Some("b"));
        assert_eq!(decode_index(&encode_index(&idx)), Ok(idx));
    }

    #[test]
    fn bad_records_are_errors_not_panics() {
        let cases: &[(&str, DecodeError)] = &[
            (
                "",
                DecodeError::Invalid("EOF while parsing a value at line 1 column 0".into()),
            ),
            ("{\"id\":\"x\"}", DecodeError::MissingVersion),
            ("{\"v\":99,\"id\":\"x\"}", DecodeError::TooNew(99)),
        ];
        for (text, err) in cases {
            assert_eq!(&decode_session(text).unwrap_err(), err, "{text}");
        }
        assert!(matches!(
            decode_session("{\"v\":1,\"id\":3}"),
            Err(DecodeError::Invalid(_))
        ));
        assert!(matches!(
            decode_index("[1,2]"),
            Err(DecodeError::Invalid(_))
        ));
    }

    /// Saving Settings writes two records: `satori.settings` (from [`encode_settings`]) and
    /// `satori.api_key` (from [`encode_api_key`]). Each is checked whole, so a field added to
    /// [`Settings`] that could carry the key, or a key record that drops its base URL, fails here.
    #[test]
    fn settings_and_key_records_keep_the_key_in_the_key_record_only() {
        let settings = Settings {
            provider: "custom".into(),
            base_url: "https://api.example.test/v1".into(),
            model: "m-1".into(),
            temperature: Some(0.5),
            max_tokens: Some(256),
            stall_seconds: 30,
            windows: [("m-1".to_string(), 8192)].into_iter().collect(),
            reply_reserve: Some(512),
            keep_recent_rounds: 4,
            min_keep_rounds: 1,
            summarize: true,
            summarizer_model: "m-small".into(),
        };
        let record = ApiKeyRecord {
            key: "sk-secret-4f2a".into(),
            base_url: "https://api.example.test/v1".into(),
        };
        let settings_text = r#"{"v":1,"provider":"custom","base_url":"https://api.example.test/v1","model":"m-1","temperature":0.5,"max_tokens":256,"stall_seconds":30,"windows":{"m-1":8192},"reply_reserve":512,"keep_recent_rounds":4,"min_keep_rounds":1,"summarize":true,"summarizer_model":"m-small"}"#;
        assert_eq!(encode_settings(&settings), settings_text);
        assert_eq!(
            encode_api_key(&record),
            r#"{"v":1,"key":"sk-secret-4f2a","base_url":"https://api.example.test/v1"}"#
        );
        assert_eq!(decode_api_key(&encode_api_key(&record)), Ok(record));
        // A settings record that holds a key (hand-edited, or written by a buggy build) loses
        // it when read and saved again: nothing carries unknown fields forward.
        let tainted =
            settings_text.replace("\"model\"", "\"api_key\":\"sk-secret-4f2a\",\"model\"");
        let read = decode_settings(&tainted).expect("readable");
        assert_eq!(encode_settings(&read), settings_text);
    }
}
