//! A chat shared by link, with no server: the branch on screen as a Satori export of one chat,
//! compressed (raw DEFLATE, level 9, `miniz_oxide`) and written in base64url after `#share=` in
//! the link. The fragment of a URL never leaves the browser, so the chat is never sent anywhere by
//! opening the link. Reading a link goes through the same checks as a file import
//! ([`import::read`]) and accepts exactly one chat.
//!
//! What a link carries: title, role, system prompt and the messages of the branch on screen.
//! Never the API key or settings (export files do not have them), summaries, the context
//! settings (the chat's, and the pins and exclusions of its messages), the agent settings or the
//! template's `output_schema` of the chat. A chat that names no branch (no `leaf`) opens at its
//! newest leaf.

use super::format;
use super::import::{self, ImportError};
use crate::session::{Message, MessageId, Session};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use std::collections::HashSet;

/// What starts the fragment of a share link.
pub const PREFIX: &str = "#share=";
/// The longest link Satori makes, in characters (every current browser opens links many times
/// longer; mail and chat apps keep links of this length whole).
pub const MAX_LINK: usize = 64 * 1024;
/// The most a link may unpack to (a compressed payload is small; what it unpacks to is checked
/// while it unpacks, so a hostile link cannot fill memory).
pub const MAX_UNPACKED: usize = 4 * 1000 * 1000;
/// The most messages a shared chat may have (all of them are drawn at once when it is opened).
pub const MAX_MESSAGES: usize = 2000;

/// Why a share link cannot be made or read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ShareError {
    /// The link would be longer than [`MAX_LINK`].
    #[error("the link would be {length} characters long; Satori makes links of up to {limit} characters")]
    TooLong {
        /// Its length.
        length: usize,
        /// The limit.
        limit: usize,
    },
    /// More than a link may carry, whatever it compresses to: [`MAX_UNPACKED`] bytes or
    /// [`MAX_MESSAGES`] messages.
    #[error("the chat is larger than a link may carry ({0})")]
    TooLarge(String),
    /// The fragment is not base64url.
    #[error("the link is not a Satori share link, or it was cut short or changed")]
    Encoding,
    /// It does not unpack (not DEFLATE, cut short, or larger than [`MAX_UNPACKED`]).
    #[error("the chat in the link could not be unpacked ({0})")]
    Unpack(String),
    /// What it unpacked to failed the import checks.
    #[error("the chat in the link is not valid: {0}")]
    Invalid(ImportError),
    /// It holds no chat, several, or more than a chat (templates, settings).
    #[error("a share link holds exactly one chat; this one holds {0}")]
    NotOneChat(String),
}

/// What of `session` a link carries: the branch on screen, root to leaf (the newest leaf when
/// it names none), with no summaries, context settings, pins or exclusions, agent settings,
/// `output_schema`, the chat's pin or its model (which names the sharer's server), or what replies
/// cost. A link opened is read through this too, so a crafted link cannot bring in a
/// hidden branch, a summary the reader never saw, agent mode or replies asked for as JSON.
fn shared(session: &Session) -> Session {
    let mut chat = Session {
        summaries: Vec::new(),
        context: Default::default(),
        agent: Default::default(),
        pinned: false,
        model: None,
        ..session.clone()
    };
    if chat.leaf.is_none() {
        chat.leaf = newest_leaf(&chat.messages);
    }
    let branch: Vec<Message> = chat
        .path()
        .into_iter()
        .map(|m| Message {
            pinned: false,
            excluded: false,
            // What the sharer's replies cost, at their prices, is theirs.
            prompt_tokens: None,
            prompt_exact: false,
            reply_tokens: None,
            cost_nanos: None,
            currency: String::new(),
            // Files stay with the sharer: each leaves a line naming it.
            content: not_shared(&m.content, &m.attachments),
            attachments: String::new(),
            ..m.clone()
        })
        .collect();
    chat.messages = branch;
    if let Some(origin) = chat.prompt.as_mut() {
        origin.output_schema = None;
    }
    chat
}

/// `content` with a line for each of `files` saying it is not in the link.
fn not_shared(content: &str, files: &str) -> String {
    let mut out = content.to_string();
    for a in crate::attachment::read(files) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format!("[{} not shared: {}]", a.kind.as_str(), a.name));
    }
    out
}

/// The leaf (a message nothing answers) written last: the latest `created_at`, on a tie the later
/// in the chat's order.
fn newest_leaf(messages: &[Message]) -> Option<MessageId> {
    let answered: HashSet<&str> = messages
        .iter()
        .filter_map(|m| m.parent.as_deref())
        .collect();
    messages
        .iter()
        .filter(|m| !answered.contains(m.id.as_str()))
        .max_by_key(|m| m.created_at)
        .map(|m| m.id.clone())
}

/// Whether `session` (as [`shared`] made it, written as `text`) is within what a link may carry.
fn within(session: &Session, text: &str) -> Result<(), ShareError> {
    if text.len() > MAX_UNPACKED {
        return Err(ShareError::TooLarge(format!(
            "more than {} MB",
            MAX_UNPACKED / 1_000_000
        )));
    }
    if session.messages.len() > MAX_MESSAGES {
        return Err(ShareError::TooLarge(format!(
            "more than {MAX_MESSAGES} messages"
        )));
    }
    Ok(())
}

/// The export file a link carries before compression (compact JSON).
fn payload(session: &Session, now: i64) -> String {
    let file = format::export(&[session], None, None, Vec::new(), now);
    // The export is pretty-printed for people; a link wants it compact.
    serde_json::from_str::<serde_json::Value>(&file)
        .map(|v| v.to_string())
        .unwrap_or(file)
}

/// The link to `page` (the app's address; a fragment it has is dropped) that carries the branch
/// on screen of `session`, or why not (too long).
pub fn link(page: &str, session: &Session, now: i64) -> Result<String, ShareError> {
    let session = shared(session);
    let text = payload(&session, now);
    within(&session, &text)?;
    let packed = miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 9);
    let page = page.split('#').next().unwrap_or(page);
    let link = format!("{page}{PREFIX}{}", URL_SAFE_NO_PAD.encode(packed));
    if link.len() > MAX_LINK {
        return Err(ShareError::TooLong {
            length: link.len(),
            limit: MAX_LINK,
        });
    }
    Ok(link)
}

/// The chat a link's fragment (`#share=…`) carries, checked as an imported file is; `None` when
/// the fragment is not a share link at all (the app leaves it alone).
pub fn open(fragment: &str) -> Option<Result<Session, ShareError>> {
    let data = fragment.strip_prefix(PREFIX)?;
    Some(unpack(data).and_then(|text| read(&text)))
}

fn unpack(data: &str) -> Result<String, ShareError> {
    if data.len() > MAX_LINK {
        return Err(ShareError::Encoding);
    }
    let packed = URL_SAFE_NO_PAD
        .decode(data.trim_end_matches('='))
        .map_err(|_| ShareError::Encoding)?;
    let bytes =
        miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_UNPACKED).map_err(|e| {
            ShareError::Unpack(match e.status {
                miniz_oxide::inflate::TINFLStatus::HasMoreOutput => {
                    format!("it unpacks to more than {} MB", MAX_UNPACKED / 1_000_000)
                }
                _ => "it is cut short or damaged".into(),
            })
        })?;
    String::from_utf8(bytes).map_err(|_| ShareError::Unpack("it is not UTF-8 text".into()))
}

/// The chat a link's unpacked payload holds, checked as an imported file is.
fn read(unpacked: &str) -> Result<Session, ShareError> {
    let incoming = import::read(unpacked).map_err(ShareError::Invalid)?;
    let extra = !incoming.templates.is_empty() || incoming.settings || incoming.damaged > 0;
    let mut chats = incoming.chats;
    match (chats.len(), extra) {
        (1, false) => {
            let chat = shared(&chats.remove(0));
            within(&chat, "")?;
            Ok(chat)
        }
        (0, _) => Err(ShareError::NotOneChat("no chat".into())),
        (n, false) => Err(ShareError::NotOneChat(format!("{n} chats"))),
        (_, true) => Err(ShareError::NotOneChat(
            "prompt templates, settings or damaged records besides".into(),
        )),
    }
}
