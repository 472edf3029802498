//! Storage records: keys and versioned JSON encodings for sessions, the session index,
//! settings and drafts.
//!
//! Every record is a JSON object with a `v` field (schema version); a chat's record may also be
//! stored packed ([`crate::packed`]: the same JSON, deflated, behind a header line). Each session is its own
//! record, so saving one session writes that session only; the small index record lists the
//! sessions for the sidebar and remembers the active one. The API key has a record of its own
//! so that no other record (and no export of other records) can carry it.

pub use crate::key_binding::ApiKeyRecord;
use crate::prompts::UserPrompts;
use crate::session::Session;
use crate::settings::Settings;
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
/// The interface language chosen in Settings (`en`, `zh-CN`; read by `src/web/i18n.js`).
pub const KEY_LANGUAGE: &str = "satori.language";
/// The colour theme the user chose (`light`, `dark`; none: the system's), read by `src/web/theme.js`.
pub const KEY_THEME: &str = "satori.theme";
/// The models chosen last with "Model for this chat" (a JSON list of `ChatModel`, newest first).
pub const KEY_RECENT_MODELS: &str = "satori.recent_models";
/// What models cost, as the user entered them in Settings ([`crate::settings::Prices`]).
pub const KEY_PRICES: &str = "satori.prices";
/// How images go to models (`settings::ImageSettings`).
pub const KEY_IMAGES: &str = "satori.images";
/// Key of the MCP bearer tokens record (the only place they are stored).
pub const KEY_MCP_TOKENS: &str = "satori.mcp_tokens";
/// The page folder whose shared-origin warning the user dismissed in Settings
/// ([`crate::key_binding::may_share_origin`]).
pub const KEY_ORIGIN_NOTICE: &str = "satori.origin_notice";

/// Where this browser syncs its chats ([`SyncSetup`]): kept here only, never exported (like the
/// API key); the passphrase is not in it (sync keeps the keys it gives, not the passphrase).
pub const KEY_SYNC: &str = "satori.sync";

/// The sync folder this browser syncs with, and its credentials.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncSetup {
    /// The WebDAV folder's URL.
    pub url: String,
    /// The user name (empty: none).
    pub user: String,
    /// The password.
    pub password: String,
}

/// Encode the sync setup record.
pub fn encode_sync(setup: &SyncSetup) -> String {
    encode(setup)
}

/// Decode the sync setup record.
pub fn decode_sync(text: &str) -> Result<SyncSetup, DecodeError> {
    decode(text)
}

/// How a packed chat record of the first version starts ([`crate::packed`]: DEFLATE).
pub const PACKED_MARK: &str = "z1:";
/// How a packed chat record of the second version starts (bzip2, denser characters).
pub const PACKED_MARK_BZ: &str = "z2:";

/// Whether `text` is a packed chat record (of either version).
pub fn is_packed(text: &str) -> bool {
    text.starts_with(PACKED_MARK) || text.starts_with(PACKED_MARK_BZ)
}

/// Storage key of one session.
pub fn session_key(id: &str) -> String {
    format!("satori.session.{id}")
}

/// Version of a chat's head record: a chat stored in parts ([`encode_head`]). Other records
/// (and chat records written before parts) are version [`SCHEMA_VERSION`].
pub const CHAT_VERSION: u32 = 2;
/// Messages per part of a chat record: a save rewrites the parts from the first changed
/// message on (normally only the last one) and the head.
pub const PART_SIZE: usize = 32;
/// Prefix of every part record.
pub const PART_PREFIX: &str = "satori.part.";

/// Storage key of part `k` (from 0) of chat `id`'s messages.
pub fn part_key(id: &str, k: usize) -> String {
    format!("{PART_PREFIX}{id}.{k}")
}

/// How many parts `messages` messages take.
pub fn part_count(messages: usize) -> usize {
    messages.div_ceil(PART_SIZE)
}

/// The messages part `k` holds.
pub fn part_range(k: usize, messages: usize) -> std::ops::Range<usize> {
    (k * PART_SIZE).min(messages)..((k + 1) * PART_SIZE).min(messages)
}

/// Part `k`'s record: a JSON array of its messages.
pub fn encode_part(messages: &[crate::session::Message]) -> String {
    serde_json::to_string(messages).unwrap_or_default()
}

/// The head record of `session` stored in parts: every field but the messages, with how many
/// parts and messages there are, version [`CHAT_VERSION`] (a Satori from before parts says
/// the record is newer than it understands instead of reading a chat without messages). The
/// messages are taken out for the encoding and put back.
pub fn encode_head(session: &mut Session) -> String {
    #[derive(Serialize)]
    struct Head<'a> {
        v: u32,
        parts: usize,
        count: usize,
        #[serde(flatten)]
        session: &'a Session,
    }
    let messages = std::mem::take(&mut session.messages);
    let count = messages.len();
    let text = serde_json::to_string(&Head {
        v: CHAT_VERSION,
        parts: part_count(count),
        count,
        session,
    })
    .unwrap_or_default();
    session.messages = messages;
    text
}

/// Every record of `session` in parts: its head and each part, `(k, text)`.
pub fn encode_chat(session: &mut Session) -> (String, Vec<(usize, String)>) {
    encode_from(session, 0)
}

/// The records a save of `session` writes when its first `clean` messages are stored as it has
/// them: the head and the parts from the one holding message `clean` on.
pub fn encode_from(session: &mut Session, clean: usize) -> (String, Vec<(usize, String)>) {
    let n = session.messages.len();
    let parts = (clean / PART_SIZE..part_count(n))
        .map(|k| (k, encode_part(&session.messages[part_range(k, n)])))
        .collect();
    (encode_head(session), parts)
}

/// Whether `key` is one of chat `id`'s part records.
pub fn is_part_of(key: &str, id: &str) -> bool {
    key.strip_prefix(PART_PREFIX)
        .and_then(|rest| rest.strip_prefix(id))
        .and_then(|rest| rest.strip_prefix('.'))
        .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
}

/// `(parts, messages)` that a head record declares; `None` for any other record.
pub fn head_of(text: &str) -> Option<(usize, usize)> {
    // A number, and what follows it.
    fn number(text: &str) -> Option<(usize, &str)> {
        let end = text.bytes().take_while(u8::is_ascii_digit).count();
        Some((text[..end].parse().ok()?, &text[end..]))
    }
    let (parts, rest) = number(text.strip_prefix("{\"v\":2,\"parts\":")?)?;
    let (count, rest) = number(rest.strip_prefix(",\"count\":")?)?;
    (rest.starts_with([',', '}']) && part_count(count) == parts).then_some((parts, count))
}

/// A chat record as read: one JSON text (a head and its parts joined) or a packed record as
/// stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatRecord {
    /// The record's text.
    pub text: String,
    /// How many messages its head says it holds (`None`: not stored in parts).
    pub count: Option<usize>,
}

/// Why a chat record could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChatReadError {
    /// Storage failed to answer.
    #[error("{0}")]
    Storage(String),
    /// The record is damaged (a part is missing, or a head is malformed).
    #[error("{0}")]
    Damaged(DecodeError),
}

/// Read chat `id` through `read` (the records by key): a head with its parts joined into one
/// JSON text that [`decode_session`] reads — the head without its closing brace, then
/// `"messages":[…]` with each part's messages — or an older single record, or a packed one,
/// as stored.
pub fn read_chat(
    read: &dyn Fn(&str) -> Result<Option<String>, String>,
    id: &str,
) -> Result<Option<ChatRecord>, ChatReadError> {
    let Some(head) = read(&session_key(id)).map_err(ChatReadError::Storage)? else {
        return Ok(None);
    };
    let damaged = |why: String| ChatReadError::Damaged(DecodeError::Invalid(why));
    let Some((parts, count)) = head_of(&head) else {
        if head.starts_with("{\"v\":2,") {
            return Err(damaged("its head record is malformed".into()));
        }
        return Ok(Some(ChatRecord {
            text: head,
            count: None,
        }));
    };
    let open = head
        .strip_suffix('}')
        .ok_or_else(|| damaged("its head record is cut".into()))?;
    let mut text = String::with_capacity(head.len() + 64);
    text.push_str(open);
    text.push_str(",\"messages\":[");
    let mut first = true;
    for k in 0..parts {
        let part = read(&part_key(id, k)).map_err(ChatReadError::Storage)?;
        let inner = part
            .as_deref()
            .and_then(|p| p.strip_prefix('[')?.strip_suffix(']'))
            .ok_or_else(|| {
                damaged(format!(
                    "part {} of its {parts} is missing or damaged",
                    k + 1
                ))
            })?;
        if !inner.trim().is_empty() {
            if !first {
                text.push(',');
            }
            text.push_str(inner);
            first = false;
        }
    }
    text.push_str("]}");
    Ok(Some(ChatRecord {
        text,
        count: Some(count),
    }))
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
    /// Pinned to the top of the list.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
}

impl IndexEntry {
    /// The chat list line of `session`.
    pub fn of(session: &Session) -> IndexEntry {
        IndexEntry {
            id: session.id.clone(),
            title: session.display_title().to_string(),
            updated_at: session.updated_at,
            pinned: session.pinned,
        }
    }
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
        let entry = IndexEntry::of(session);
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
    /// A packed chat record ([`crate::packed`]): it must be unpacked first.
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
    decode_up_to(text, SCHEMA_VERSION)
}

/// The version a record states first (`{"v":2,…`, as Satori writes every record), read without
/// scanning the rest — a long chat is then parsed once, not twice. `None` when the record does
/// not start so; its version is then looked for in the whole record.
fn leading_version(text: &str) -> Option<u32> {
    let rest = text.strip_prefix("{\"v\":")?.as_bytes();
    let mut v = 0u32;
    for (k, &b) in rest.iter().enumerate().take(10) {
        match b {
            // No leading zero (JSON has none: `{"v":02` is left to the full parse to refuse).
            b'0'..=b'9' if k < 9 && (k == 0 || v > 0) => v = v * 10 + u32::from(b - b'0'),
            b',' | b'}' if k > 0 => return Some(v),
            _ => return None,
        }
    }
    None
}

fn decode_up_to<T: DeserializeOwned>(text: &str, newest: u32) -> Result<T, DecodeError> {
    check_version(text, newest)?;
    serde_json::from_str(text).map_err(invalid)
}

/// Whether `text` is a record of a version up to `newest` (not generic: one copy for every
/// record type).
#[inline(never)]
fn check_version(text: &str, newest: u32) -> Result<(), DecodeError> {
    if is_packed(text) {
        return Err(DecodeError::Packed);
    }
    let v = match leading_version(text) {
        Some(v) => Some(v),
        None => {
            serde_json::from_str::<VersionOnly>(text)
                .map_err(invalid)?
                .v
        }
    };
    match v {
        None => Err(DecodeError::MissingVersion),
        Some(v) if v > newest => Err(DecodeError::TooNew(v)),
        Some(_) => Ok(()),
    }
}

#[inline(never)]
fn invalid(e: serde_json::Error) -> DecodeError {
    DecodeError::Invalid(e.to_string())
}

/// Decode any versioned record into `T` (fields `T` does not name are ignored).
pub fn decode_record<T: DeserializeOwned>(text: &str) -> Result<T, DecodeError> {
    decode(text)
}

/// Encode a session record.
pub fn encode_session(session: &Session) -> String {
    encode(session)
}

/// Decode a session record: a single record, or a head and its parts as [`read_chat`] joins
/// them.
pub fn decode_session(text: &str) -> Result<Session, DecodeError> {
    let session: Session = decode_up_to(text, CHAT_VERSION)?;
    // A head read on its own (not joined with its parts) is not the chat.
    match head_of(text) {
        Some((_, count)) if session.messages.len() < count => Err(DecodeError::Invalid(format!(
            "the record holds {} of its {count} messages",
            session.messages.len()
        ))),
        _ => Ok(session),
    }
}

/// Decode a head record on its own: the chat without its messages (its title, times, summaries
/// and settings).
pub fn decode_head(text: &str) -> Result<Session, DecodeError> {
    if head_of(text).is_none() {
        return Err(DecodeError::Invalid("not a head record".into()));
    }
    decode_up_to(text, CHAT_VERSION)
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

/// The prices record: `{"v":…,"prices":{MODEL:{"input","output","currency"}}}`.
#[derive(Serialize, Deserialize)]
struct PricesRecord {
    #[serde(default)]
    prices: crate::settings::Prices,
}

/// Encode the prices record.
pub fn encode_prices(prices: &crate::settings::Prices) -> String {
    encode(&PricesRecord {
        prices: prices.clone(),
    })
}

/// Decode the prices record.
pub fn decode_prices(text: &str) -> Result<crate::settings::Prices, DecodeError> {
    decode::<PricesRecord>(text).map(|r| r.prices)
}

/// Encode the images record (`settings::ImageSettings`).
pub fn encode_images(images: &crate::settings::ImageSettings) -> String {
    encode(images)
}

/// Decode the images record.
pub fn decode_images(text: &str) -> Result<crate::settings::ImageSettings, DecodeError> {
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
pub fn encode_mcp(servers: &crate::agent::mcp::Servers) -> String {
    encode(servers)
}

/// Decode the MCP servers record.
pub fn decode_mcp(text: &str) -> Result<crate::agent::mcp::Servers, DecodeError> {
    decode(text)
}

/// Encode the MCP bearer tokens record.
pub fn encode_mcp_tokens(tokens: &crate::agent::mcp::Tokens) -> String {
    encode(tokens)
}

/// Decode the MCP bearer tokens record.
pub fn decode_mcp_tokens(text: &str) -> Result<crate::agent::mcp::Tokens, DecodeError> {
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

/// Where part records that no head names are noted until they are removed ([`sweep`]).
pub const KEY_SWEEP: &str = "satori.sweep";

/// How long a part record must stay unnamed, unchanged, before [`sweep`] removes it, ms: far
/// longer than any save (another tab writes a chat's parts, then its head, in one task).
pub const SWEEP_AFTER_MS: i64 = 60_000;

/// Chat `id` and part number of a part record's key (`satori.part.<id>.<k>`).
pub fn part_of_key(key: &str) -> Option<(&str, usize)> {
    let rest = key.strip_prefix(PART_PREFIX)?;
    let (id, k) = rest.rsplit_once('.')?;
    if id.is_empty() || k.is_empty() || !k.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((id, k.parse().ok()?))
}

/// A part record no head names: of a chat with no record, or beyond the parts its head declares
/// (an older single or packed record declares none). Left by a crash between a save's writes in
/// an older Satori; a save in another tab makes one for a moment (parts first, then the head).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unnamed {
    /// The record's key.
    pub key: String,
    /// Its text's length: a record written anew since is not the one noted.
    pub len: usize,
    /// Its text's FNV-1a hash, for the same reason (53 bits: exact as a JSON number, which
    /// JavaScript reads as a double).
    pub hash: u64,
    /// When it was first seen unnamed (ms since the epoch).
    pub at: i64,
}

impl Unnamed {
    /// Part record `key` with `text`, seen unnamed at `at`.
    pub fn new(key: String, text: &str, at: i64) -> Unnamed {
        let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        }) & ((1 << 53) - 1);
        Unnamed {
            key,
            len: text.len(),
            hash,
            at,
        }
    }
}

/// How many of its chat's parts session record `record` names, for a sweep (parts from that
/// number on are unnamed): none without a record, or for a single record (version 1, written
/// before parts) or a packed one; the head's count for a head. Any other record — unreadable,
/// a head whose numbers disagree, or a newer version — may name any part: all are left alone.
pub fn parts_named(record: Option<&str>) -> usize {
    match record {
        None => 0,
        Some(text) if is_packed(text) || text.starts_with("{\"v\":1,") => 0,
        Some(text) => head_of(text).map_or(usize::MAX, |(parts, _)| parts),
    }
}

/// Whether part record `key` is named by no head: `named(id)` is [`parts_named`] of chat `id`'s
/// record.
pub fn is_unnamed(key: &str, named: impl Fn(&str) -> usize) -> bool {
    part_of_key(key).is_some_and(|(id, k)| k >= named(id))
}

/// What a sweep does at `now`, given the parts noted before (`noted`) and those unnamed now
/// (`seen`, each with `at == now`): the keys to remove — those noted at least
/// [`SWEEP_AFTER_MS`] ago and unchanged since — and the note to keep (the rest of `seen`, each
/// with the time it was first noted). A part named again, or written anew, is forgotten.
pub fn sweep(noted: &[Unnamed], seen: Vec<Unnamed>, now: i64) -> (Vec<String>, Vec<Unnamed>) {
    let mut remove = Vec::new();
    let mut keep = Vec::new();
    for mut u in seen {
        match noted
            .iter()
            .find(|n| n.key == u.key && n.len == u.len && n.hash == u.hash)
        {
            Some(n) if now - n.at >= SWEEP_AFTER_MS => remove.push(u.key),
            Some(n) => {
                u.at = n.at;
                keep.push(u);
            }
            None => keep.push(u),
        }
    }
    (remove, keep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Preamble;
    use crate::session::{Command, Status};

    fn sample() -> Session {
        let mut s = Session::new("abc".into(), 5, None, vec![Preamble::system("m0", "sys")]);
        let cmds = [
            Command::AddUser {
                attachments: String::new(),
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
    fn part_keys_name_their_chat_and_number() {
        for (key, want) in [
            ("satori.part.a.0", Some(("a", 0))),
            ("satori.part.a.b.12", Some(("a.b", 12))),
            ("satori.part.a.", None),
            ("satori.part..3", None),
            ("satori.part.a.1x", None),
            ("satori.session.a", None),
        ] {
            assert_eq!(part_of_key(key), want, "{key}");
        }
    }

    #[test]
    fn parts_named_by_each_kind_of_record() {
        let head = |parts: usize, count: usize| {
            format!("{{\"v\":2,\"parts\":{parts},\"count\":{count},\"id\":\"a\"}}")
        };
        for (record, named) in [
            (None, 0),
            (Some("{\"v\":1,\"data\":{}}".to_string()), 0),
            (Some(format!("{PACKED_MARK}AAAA")), 0),
            (Some(format!("{PACKED_MARK_BZ}AAAA")), 0),
            (Some(head(2, 40)), 2),
            (Some(head(0, 0)), 0),
            // A head whose numbers disagree, a newer version, a damaged or empty record: any
            // part may be its own.
            (Some(head(1, 40)), usize::MAX),
            (
                Some("{\"v\":3,\"parts\":1,\"count\":1}".to_string()),
                usize::MAX,
            ),
            (Some("{\"v\":2,\"parts\":".to_string()), usize::MAX),
            (Some("{\"data\":{}}".to_string()), usize::MAX),
            (Some(String::new()), usize::MAX),
        ] {
            assert_eq!(parts_named(record.as_deref()), named, "{record:?}");
        }
    }

    #[test]
    fn unnamed_parts_are_those_no_head_declares() {
        // Chat "a" names 2 parts; "p" is a packed or single record or none (0); "bad" cannot be
        // read (all).
        let named = |id: &str| match id {
            "a" => 2,
            "bad" => usize::MAX,
            _ => 0,
        };
        for (key, unnamed) in [
            ("satori.part.a.0", false),
            ("satori.part.a.1", false),
            ("satori.part.a.2", true),
            ("satori.part.p.0", true),
            ("satori.part.bad.0", false),
            ("satori.part.bad.99", false),
            ("satori.index", false),
        ] {
            assert_eq!(is_unnamed(key, named), unnamed, "{key}");
        }
    }

    #[test]
    fn a_sweep_removes_only_parts_unnamed_and_unchanged_for_a_minute() {
        let u = |key: &str, text: &str, at: i64| Unnamed::new(key.into(), text, at);
        let minute = SWEEP_AFTER_MS;
        let noted = vec![
            u("satori.part.old.0", "[1]", 0),
            u("satori.part.recent.0", "[2]", minute - 1),
            u("satori.part.rewritten.0", "[3]", 0),
            u("satori.part.named.0", "[4]", 0),
        ];
        let seen = vec![
            u("satori.part.old.0", "[1]", minute),
            u("satori.part.recent.0", "[2]", minute),
            u("satori.part.rewritten.0", "[3, 4]", minute),
            u("satori.part.new.0", "[5]", minute),
        ];
        let (remove, keep) = sweep(&noted, seen, minute);
        assert_eq!(remove, ["satori.part.old.0"]);
        let kept: Vec<(&str, i64)> = keep.iter().map(|k| (k.key.as_str(), k.at)).collect();
        assert_eq!(
            kept,
            [
                ("satori.part.recent.0", minute - 1),
                ("satori.part.rewritten.0", minute),
                ("satori.part.new.0", minute),
            ]
        );
        // Same length, other bytes: written anew.
        assert_ne!(
            Unnamed::new("k".into(), "ab", 0).hash,
            Unnamed::new("k".into(), "ba", 0).hash
        );
        // Nothing noted before: nothing removed, everything noted.
        let (remove, keep) = sweep(&[], vec![u("satori.part.x.0", "[]", 5)], 5);
        assert!(remove.is_empty());
        assert_eq!(keep.len(), 1);
    }
    #[test]
    fn session_round_trips_with_version() {
        let s = sample();
        let text = encode_session(&s);
        assert!(text.starts_with("{\"v\":1,"), "{text}");
        assert_eq!(decode_session(&text), Ok(s));
    }

    fn chat_of(n: usize) -> Session {
        let mut s = Session::new("c".into(), 1, None, vec![Preamble::system("m0", "sys")]);
        for i in 1..n {
            s.apply(Command::AddUser {
                attachments: String::new(),
                id: format!("m{i}"),
                text: format!("message {i} \"quoted\" ]}} 中文"),
                at: 1 + i as i64,
            })
            .unwrap();
        }
        if n == 0 {
            s.messages.clear();
            s.leaf = None;
        }
        s
    }

    fn records_of(s: &Session) -> std::collections::BTreeMap<String, String> {
        let mut s = s.clone();
        let (head, parts) = encode_chat(&mut s);
        let mut map: std::collections::BTreeMap<String, String> = parts
            .into_iter()
            .map(|(k, t)| (part_key(&s.id, k), t))
            .collect();
        map.insert(session_key(&s.id), head);
        map
    }

    fn read_from(
        map: &std::collections::BTreeMap<String, String>,
        id: &str,
    ) -> Result<Option<ChatRecord>, ChatReadError> {
        read_chat(&|k: &str| Ok(map.get(k).cloned()), id)
    }

    #[test]
    fn a_chat_in_parts_reads_back_as_it_was() {
        for n in [0, 1, 2, 31, 32, 33, 64, 70] {
            let s = chat_of(n);
            let map = records_of(&s);
            assert_eq!(map.len(), 1 + part_count(n), "{n} messages");
            let head = &map[&session_key("c")];
            assert_eq!(head_of(head), Some((part_count(n), n)), "{head}");
            assert!(
                !head.contains("\"content\""),
                "the head holds no message: {head}"
            );
            let read = read_from(&map, "c").unwrap().unwrap();
            assert_eq!(read.count, Some(n));
            assert_eq!(decode_session(&read.text), Ok(s), "{n} messages");
        }
    }

    #[test]
    fn parts_hold_fixed_runs_of_messages() {
        assert_eq!(part_count(0), 0);
        assert_eq!(part_count(PART_SIZE), 1);
        assert_eq!(part_count(PART_SIZE + 1), 2);
        assert_eq!(part_range(1, PART_SIZE + 5), PART_SIZE..PART_SIZE + 5);
        assert_eq!(part_range(2, PART_SIZE + 5), PART_SIZE + 5..PART_SIZE + 5);
        assert_eq!(part_key("a.b", 3), "satori.part.a.b.3");
    }

    #[test]
    fn older_and_packed_records_read_as_stored() {
        let s = chat_of(3);
        let single = encode_session(&s);
        let mut map = std::collections::BTreeMap::new();
        map.insert(session_key("c"), single.clone());
        let read = read_from(&map, "c").unwrap().unwrap();
        assert_eq!((read.text.as_str(), read.count), (single.as_str(), None));
        map.insert(session_key("c"), "z1:{}\nxyz".into());
        assert_eq!(read_from(&map, "c").unwrap().unwrap().text, "z1:{}\nxyz");
        assert_eq!(read_from(&map, "gone"), Ok(None));
    }

    #[test]
    fn damaged_chats_in_parts_are_errors_never_shorter_chats() {
        let s = chat_of(70);
        let head = records_of(&s)[&session_key("c")].clone();
        // A part gone.
        let mut map = records_of(&s);
        map.remove(&part_key("c", 1));
        assert_eq!(
            read_from(&map, "c"),
            Err(ChatReadError::Damaged(DecodeError::Invalid(
                "part 2 of its 3 is missing or damaged".into()
            )))
        );
        // A part that is not a list.
        let mut map = records_of(&s);
        map.insert(part_key("c", 0), "{}".into());
        assert!(matches!(
            read_from(&map, "c"),
            Err(ChatReadError::Damaged(_))
        ));
        // A head whose numbers disagree, or that is cut.
        for bad in [
            head.replacen("\"parts\":3", "\"parts\":2", 1),
            head.replacen("\"count\":70", "\"count\":x", 1),
            "{\"v\":2,\"id\":\"c\"}".to_string(),
        ] {
            let mut map = records_of(&s);
            map.insert(session_key("c"), bad.clone());
            assert!(
                matches!(read_from(&map, "c"), Err(ChatReadError::Damaged(_))),
                "{bad}"
            );
        }
        // A head decoded on its own is not a chat without messages.
        assert!(matches!(
            decode_session(&head),
            Err(DecodeError::Invalid(_))
        ));
        // Storage failing is said as such.
        assert_eq!(
            read_chat(&|_: &str| Err("denied".to_string()), "c"),
            Err(ChatReadError::Storage("denied".into()))
        );
    }

    #[test]
    fn parts_written_before_a_head_that_was_not_add_messages_never_lose_them() {
        // A save writes the changed parts, then the head: stopped in between, the parts hold
        // more messages than the head counts.
        let old = chat_of(40);
        let new = chat_of(41);
        let mut map = records_of(&old);
        let newer = records_of(&new);
        map.insert(part_key("c", 1), newer[&part_key("c", 1)].clone());
        let read = read_from(&map, "c").unwrap().unwrap();
        assert_eq!(read.count, Some(40));
        let s = decode_session(&read.text).unwrap();
        assert_eq!(s.messages, new.messages);
        assert_eq!(s.leaf, old.leaf);
    }

    #[test]
    fn a_cut_head_is_damaged_not_a_panic() {
        let head = records_of(&chat_of(2))[&session_key("c")].clone();
        for cut in [
            head.trim_end_matches('}').to_string(),
            format!("{}\"title\":\"中", head.trim_end_matches('}')),
        ] {
            let mut map = records_of(&chat_of(2));
            map.insert(session_key("c"), cut.clone());
            assert!(
                matches!(read_from(&map, "c"), Err(ChatReadError::Damaged(_))),
                "{cut}"
            );
        }
    }

    #[test]
    fn part_keys_belong_to_their_chat_only() {
        assert!(is_part_of("satori.part.a.0", "a"));
        assert!(is_part_of("satori.part.a.12", "a"));
        for (key, id) in [
            ("satori.part.a.b.0", "a"),
            ("satori.part.ab.0", "a"),
            ("satori.part.a.", "a"),
            ("satori.part.a.x", "a"),
            ("satori.session.a", "a"),
        ] {
            assert!(!is_part_of(key, id), "{key}");
        }
    }

    #[test]
    fn a_head_is_too_new_for_a_satori_that_reads_version_1_only() {
        let head = records_of(&chat_of(2))[&session_key("c")].clone();
        assert_eq!(decode::<Session>(&head), Err(DecodeError::TooNew(2)));
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

    /// The version read from a record's start is the one a full scan finds, and a record that
    /// does not start with it is scanned whole.
    #[test]
    fn the_leading_version_agrees_with_a_full_scan() {
        let cases: &[(&str, Option<u32>)] = &[
            ("{\"v\":2,\"id\":\"x\"}", Some(2)),
            ("{\"v\":1}", Some(1)),
            ("{\"v\":123456789,\"id\":\"x\"}", Some(123456789)),
            // Not at the start, or not plainly written: scanned.
            ("{\"id\":\"x\",\"v\":2}", None),
            ("{ \"v\":2}", None),
            ("{\"v\": 2}", None),
            ("{\"v\":2.5}", None),
            ("{\"v\":-1}", None),
            ("{\"v\":02,\"id\":\"x\"}", None),
            ("{\"v\":0,\"id\":\"x\"}", Some(0)),
            ("{\"v\":}", None),
            ("{\"v\":1234567890,\"id\":\"x\"}", None),
            ("{\"v\":2", None),
            ("{\"v\":", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(leading_version(text), *want, "{text}");
            if let Some(v) = want {
                let scanned: VersionOnly = serde_json::from_str(text).unwrap();
                assert_eq!(scanned.v, Some(*v), "{text}");
            }
        }
        // Both ways give the same answers on whole records.
        assert_eq!(
            decode_session("{\"id\":\"x\",\"v\":99}").unwrap_err(),
            DecodeError::TooNew(99)
        );
        assert_eq!(
            decode_session("{\"v\":99,\"id\":\"x\"}").unwrap_err(),
            DecodeError::TooNew(99)
        );
        let s = sample();
        assert_eq!(decode_session(&encode_session(&s)), Ok(s));
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

    #[test]
    fn images_record_round_trips_and_keeps_only_marks_that_differ() {
        use crate::settings::ImageSettings;
        let images = ImageSettings::default()
            .marked("smollm2", true)
            .marked("gpt-4o", true)
            .marked("deepseek-chat", false);
        assert_eq!(
            encode_images(&images),
            r#"{"v":1,"rounds":3,"sees":{"smollm2":true}}"#
        );
        assert_eq!(decode_images(&encode_images(&images)), Ok(images.clone()));
        assert!(images.sees("smollm2") && images.sees("gpt-4o") && !images.sees("deepseek-chat"));
        assert_eq!(decode_images(r#"{"v":1}"#), Ok(ImageSettings::default()));
        assert!(decode_images(r#"{"v":1,"rounds":"x"}"#).is_err());
    }

    #[test]
    fn prices_record_round_trips_and_refuses_garbage() {
        let prices: crate::settings::Prices = [(
            "gpt-4o-mini".to_string(),
            crate::settings::Price {
                input: 0.15,
                output: 0.6,
                currency: "USD".into(),
            },
        )]
        .into();
        let text = encode_prices(&prices);
        assert!(text.starts_with("{\"v\":"), "{text}");
        assert_eq!(decode_prices(&text), Ok(prices));
        assert!(decode_prices("{\"v\":1,\"prices\":{\"m\":{\"input\":\"x\"}}}").is_err());
        assert!(decode_prices("not json").is_err());
    }
}
