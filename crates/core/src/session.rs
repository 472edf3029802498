//! The chat session model and its reducer.
//!
//! A session is a tree of messages: every message points at its parent, siblings are variants
//! (regenerated replies, edited user messages). `leaf` selects the branch the user sees; the
//! visible conversation is the path from the root to `leaf`. Nothing is ever overwritten:
//! regenerating or editing adds a sibling, so every earlier branch stays reachable.
//!
//! All changes go through [`Session::apply`] with a [`Command`]; time and ids are arguments.

use crate::provider::stream::Usage;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// Identifier of a message (unique within a session).
pub type MessageId = String;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions for the model (the role's system prompt).
    System,
    /// The person chatting.
    User,
    /// The model.
    Assistant,
    /// Output of a tool call.
    Tool,
}

impl Role {
    /// The wire name used by OpenAI-compatible APIs and by `data-role` in the UI.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }
}

/// Lifecycle of a message. User and system messages are always `Complete`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Finished normally.
    Complete,
    /// A reply still arriving.
    Streaming,
    /// The user stopped the reply; the partial text is kept.
    Stopped,
    /// The stream broke, stalled, or the page closed mid-reply; the partial text is kept.
    Incomplete,
}

impl Status {
    /// The name used by `data-status` in the UI.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Complete => "complete",
            Status::Streaming => "streaming",
            Status::Stopped => "stopped",
            Status::Incomplete => "incomplete",
        }
    }
}

/// A unit enum read from its name, as serde's derive reads it (same errors), with one decoder
/// for all of them instead of a visitor per enum: every byte of it is in the app's first load.
fn by_name<'de, D: serde::Deserializer<'de>, T: Copy>(
    d: D,
    all: &[T],
    names: &'static [&'static str],
) -> Result<T, D::Error> {
    let name = String::deserialize(d)?;
    names
        .iter()
        .position(|n| *n == name)
        .and_then(|i| all.get(i).copied())
        .ok_or_else(|| serde::de::Error::unknown_variant(&name, names))
}

impl<'de> Deserialize<'de> for Role {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use Role::*;
        by_name(
            d,
            &[System, User, Assistant, Tool],
            &["system", "user", "assistant", "tool"],
        )
    }
}

impl<'de> Deserialize<'de> for Status {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use Status::*;
        let all = [Complete, Streaming, Stopped, Incomplete];
        by_name(d, &all, &["complete", "streaming", "stopped", "incomplete"])
    }
}

impl<'de> Deserialize<'de> for PromptSource {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use PromptSource::*;
        by_name(d, &[Builtin, User], &["builtin", "user"])
    }
}

/// One message of a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Unique id within the session.
    pub id: MessageId,
    /// The message this one answers or follows; `None` for a root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<MessageId>,
    /// Author.
    pub role: Role,
    /// Visible text (markdown for replies).
    pub content: String,
    /// Intermediate reasoning sent by reasoning models; shown collapsed, never sent back.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reasoning: String,
    /// Lifecycle state.
    pub status: Status,
    /// Why the server ended the reply (`stop`, `length`, …), when it said so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// A short human note about how the reply ended (error text, "interrupted").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Model that wrote a reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at: i64,
    /// A few-shot example from the session's prompt template (sent, shown with the system
    /// prompt, never edited or regenerated).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub example: bool,
    /// Token counts the server reported for a reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// A reply's request, in tokens as Satori counted them, when the server reported none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    /// Whether `prompt_tokens` was counted with the model's own tokenizer (else estimated).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prompt_exact: bool,
    /// A reply's own tokens, estimated from its text and reasoning when the server reported
    /// none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_tokens: Option<u64>,
    /// What a reply cost, in billionths of `currency`, at the model's price when it was written
    /// (none when the price was unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_nanos: Option<u64>,
    /// The currency of `cost_nanos` (ISO 4217).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub currency: String,
    /// Tool calls a reply asked for, in the order the server numbered them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a `tool` message: the id of the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// Always sent as it is, whatever the context budget (the user pinned it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
    /// Never sent (the user excluded it from the context); still shown and kept.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub excluded: bool,
    /// How a reply in a chat whose template declares an `output_schema` matched it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured: Option<Structured>,
    /// Files attached to a user message: a reference each, one per line
    /// (`attachment::Attachment`; the browser keeps the bytes). One string: the app's first load
    /// reads it with the code every text field uses.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub attachments: String,
}

/// How a reply matched its template's `output_schema` (checked, and repaired if it can be, once
/// the reply ends; see `agent::repair::Verdict::structured`). Plain strings: their decoder is
/// much smaller in the app, which only shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Structured {
    /// `valid`, `repaired` (locally), `repaired_by_model` or `failed` (see the constants).
    pub outcome: String,
    /// The line shown under the reply: how it matched, or why not.
    pub line: String,
    /// What the model wrote, when the message's content is the repaired JSON instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original: Option<String>,
}

impl Structured {
    /// Matched as the model sent it.
    pub const VALID: &'static str = "valid";
    /// Matched after local repairs.
    pub const REPAIRED: &'static str = "repaired";
    /// Matched after the model was sent the validation errors.
    pub const REPAIRED_BY_MODEL: &'static str = "repaired_by_model";
    /// Never matched; the reply is kept as the model wrote it.
    pub const FAILED: &'static str = "failed";

    /// Whether the reply never matched.
    pub fn failed(&self) -> bool {
        self.outcome == Self::FAILED
    }
}

/// A tool call of a reply, assembled from its streamed fragments.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ToolCall {
    /// The server's number for the call within the reply.
    pub index: u64,
    /// The call's id (a `tool` message answers it by this id).
    pub id: String,
    /// Function name.
    pub name: String,
    /// Arguments as the JSON text the model wrote (not validated here).
    pub arguments: String,
}

/// Where a session's prompt came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PromptSource {
    /// A template built into Satori (`prompts/agents.yaml`).
    Builtin,
    /// A template the user wrote or imported.
    User,
}

/// The template a session started from, recorded so that it can be shown and re-rendered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptOrigin {
    /// Built-in or user template.
    pub source: PromptSource,
    /// Template key (e.g. `coder`).
    pub key: String,
    /// Template version at the start.
    pub version: u32,
    /// Variable values it was rendered with.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub vars: BTreeMap<String, String>,
    /// Whether the user changed the session's system prompt afterwards.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub system_edited: bool,
    /// The template's `output_schema` (JSON Schema text), if it declares one: the chat's replies
    /// are asked for as JSON matching it and checked (see [`Structured`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<String>,
}

/// A message the session starts with (system prompt, few-shot examples).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preamble {
    /// Id for the message.
    pub id: MessageId,
    /// System, user or assistant.
    pub role: Role,
    /// Text.
    pub content: String,
    /// Whether it is a few-shot example.
    pub example: bool,
}

impl Preamble {
    /// A system prompt message.
    pub fn system(id: &str, text: &str) -> Self {
        Preamble {
            id: id.to_string(),
            role: Role::System,
            content: text.to_string(),
            example: false,
        }
    }
}

impl Message {
    /// A complete message with no reasoning, note or model.
    pub fn new(
        id: MessageId,
        parent: Option<MessageId>,
        role: Role,
        content: String,
        at: i64,
    ) -> Self {
        Message {
            id,
            parent,
            role,
            content,
            reasoning: String::new(),
            status: Status::Complete,
            finish_reason: None,
            note: None,
            model: None,
            created_at: at,
            example: false,
            usage: None,
            prompt_tokens: None,
            prompt_exact: false,
            reply_tokens: None,
            cost_nanos: None,
            currency: String::new(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            pinned: false,
            excluded: false,
            structured: None,
            attachments: String::new(),
        }
    }
}

/// A stored summary of the start of a branch: the context pipeline sends it instead of the
/// messages it covers (they stay stored and shown). It covers every message of the path after
/// the preamble up to and including `through`; a later summary that reaches further (made from
/// this one plus the newly retired turns) takes over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Unique id within the session.
    pub id: String,
    /// The last message covered.
    pub through: MessageId,
    /// How many messages it covers (for display).
    pub covers: u32,
    /// The summary text sent to the model (with any restored key facts).
    pub text: String,
    /// Key facts the summarizer left out and Satori appended.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restored: Vec<String>,
    /// Model that wrote it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub model: String,
    /// Whether the user edited the text.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub edited: bool,
    /// Creation time, ms since epoch.
    pub created_at: i64,
}

/// Context settings a chat overrides (unset fields follow Settings).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextOverrides {
    /// Model context window, tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<u32>,
    /// Tokens kept free for the reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_reserve: Option<u32>,
    /// Rounds never summarized.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_recent_rounds: Option<u32>,
    /// Rounds never trimmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_keep_rounds: Option<u32>,
    /// Whether old turns are summarized.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summarize: Option<bool>,
}

/// Most model steps (requests) agent mode makes for one user message, unless the chat says.
pub const DEFAULT_MAX_STEPS: u32 = 8;
/// The highest step limit a chat may set (an imported file saying more gets this).
pub const MAX_STEPS_LIMIT: u32 = 50;

/// A chat's agent mode: whether the model may call tools, and how many steps it may take.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentConfig {
    /// Whether the model is offered tools.
    #[serde(default)]
    pub on: bool,
    /// Most model steps per user message (`None`: [`DEFAULT_MAX_STEPS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<u32>,
    /// Tools are described in the system prompt and called in ReAct text (`Action: tool(…)`)
    /// instead of the API's function calling, for servers without it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub react: bool,
}

impl AgentConfig {
    /// The step limit in force (1 to [`MAX_STEPS_LIMIT`]).
    pub fn steps(&self) -> u32 {
        self.max_steps
            .unwrap_or(DEFAULT_MAX_STEPS)
            .clamp(1, MAX_STEPS_LIMIT)
    }
}

/// A conversation with its whole message tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// Unique id (also part of the storage key).
    pub id: String,
    /// Title shown in the chat list; empty until the first user message or a rename.
    #[serde(default)]
    pub title: String,
    /// The prompt role the session started from (e.g. `assistant`).
    #[serde(default)]
    pub role: String,
    /// The template, version and variables the session started from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<PromptOrigin>,
    /// Creation time, ms since epoch.
    pub created_at: i64,
    /// Last change, ms since epoch.
    pub updated_at: i64,
    /// Every message ever written in this session, in creation order. (Left out of the JSON
    /// when there are none: a chat's head record holds everything but its messages, which are
    /// stored in parts — see [`crate::persist::encode_head`].)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<Message>,
    /// The last message of the visible branch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leaf: Option<MessageId>,
    /// Stored summaries of branch starts (see [`Summary`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summaries: Vec<Summary>,
    /// Context settings this chat overrides.
    #[serde(default, skip_serializing_if = "is_default")]
    pub context: ContextOverrides,
    /// The chat's agent mode.
    #[serde(default, skip_serializing_if = "is_default")]
    pub agent: AgentConfig,
    /// Its text came from outside Satori (an import or a shared link): agent mode counts it as
    /// untrusted content (see `crate::agent::trust`). Not exported: an import sets it again.
    #[serde(default, skip_serializing_if = "is_default")]
    pub foreign: bool,
    /// Pinned to the top of the chat list ("Pin chat").
    #[serde(default, skip_serializing_if = "is_default")]
    pub pinned: bool,
    /// The model this chat uses instead of Settings' ("Model for this chat"; `None`: Settings').
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ChatModel>,
}

/// The model a chat was switched to, on the server it was chosen from: it is used while Settings
/// name that server (or it runs in this browser); after a switch of server the chat follows
/// Settings again, so a model name never goes to a server it was not chosen from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatModel {
    /// The model's name, as the server lists it.
    pub name: String,
    /// The server's base URL (`crate::settings::IN_BROWSER_URL` for the model in the tab).
    pub base_url: String,
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// Whether copy `later` of a reply goes on from copy `earlier`: its text and thoughts start with
/// theirs.
fn continues(later: &Message, earlier: &Message) -> bool {
    later.content.starts_with(&earlier.content) && later.reasoning.starts_with(&earlier.reasoning)
}

/// What [`Session::merge_stored`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Merged {
    /// Messages and summaries taken in.
    pub added: usize,
    /// The other copy lacks something of this one.
    pub theirs_lack: bool,
}

/// A change to a session.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Set the title (trimmed, must not be empty).
    Rename {
        /// New title.
        title: String,
    },
    /// Append a user message after the current leaf.
    AddUser {
        /// Id of the new message.
        id: MessageId,
        /// Its text (may be empty when files are attached).
        text: String,
        /// Files attached to it, a line each (`attachment::Attachment`; the app takes them as
        /// the page's attachments module wrote them, and what reads them skips a line that is not
        /// well formed).
        attachments: String,
        /// Time, ms since epoch.
        at: i64,
    },
    /// Add an edited copy of user message `of` as its sibling (the old branch stays).
    EditUser {
        /// Id of the new message.
        id: MessageId,
        /// The user message being edited.
        of: MessageId,
        /// The new text.
        text: String,
        /// Time, ms since epoch.
        at: i64,
    },
    /// Start a streaming reply to `parent` (a new variant if `parent` already has replies).
    StartReply {
        /// Id of the new reply.
        id: MessageId,
        /// The message being answered.
        parent: MessageId,
        /// Model asked.
        model: String,
        /// Time, ms since epoch.
        at: i64,
    },
    /// Replace the text of a streaming reply with everything received so far (idempotent, so
    /// checkpoints and the final save never duplicate text).
    SetReply {
        /// The reply.
        id: MessageId,
        /// Visible text so far.
        content: String,
        /// Reasoning so far.
        reasoning: String,
    },
    /// End a reply.
    FinishReply {
        /// The reply.
        id: MessageId,
        /// Final state (`Complete`, `Stopped` or `Incomplete`).
        status: Status,
        /// Server's finish reason, if any.
        finish_reason: Option<String>,
        /// Human note, if any.
        note: Option<String>,
        /// Time, ms since epoch.
        at: i64,
    },
    /// Record the token counts the server reported for a streaming reply.
    SetUsage {
        /// The reply.
        id: MessageId,
        /// The counts.
        usage: Usage,
    },
    /// Record what a streaming reply's request held in tokens as Satori counted them (when the
    /// server reported none), and what the reply cost.
    SetCounts {
        /// The reply.
        id: MessageId,
        /// The request's tokens, and whether counted with the model's own tokenizer.
        prompt: Option<(u64, bool)>,
        /// The reply's tokens, estimated.
        reply: Option<u64>,
        /// The cost in billionths of the currency, and the currency.
        cost: Option<(u64, String)>,
    },
    /// Replace the tool calls of a streaming reply with everything received so far, or give a
    /// finished reply without calls the call its ReAct text asks for (agent mode).
    SetToolCalls {
        /// The reply.
        id: MessageId,
        /// The calls.
        tool_calls: Vec<ToolCall>,
    },
    /// Record how a finished reply matched its template's `output_schema`; `content`, when
    /// given, replaces its text (the repaired JSON; the model's text goes to
    /// [`Structured::original`]).
    SetStructured {
        /// The reply.
        id: MessageId,
        /// The repaired JSON text, if the reply's text is to be replaced.
        content: Option<String>,
        /// The outcome.
        structured: Structured,
    },
    /// Remove a reply that failed before any text arrived (it holds nothing to keep).
    DiscardEmptyReply {
        /// The reply.
        id: MessageId,
    },
    /// Show the branch through message `id` (switch variant).
    SelectVariant {
        /// The variant to show.
        id: MessageId,
    },
    /// Replace the text of the session's system prompt (the template is not touched). A session
    /// without one gets one as its new root.
    SetSystem {
        /// Id for a new system message, used only if the session has none.
        id: MessageId,
        /// The new system prompt (may be empty: nothing is sent then).
        text: String,
        /// Time, ms since epoch.
        at: i64,
    },
    /// Pin a message (always sent as it is) or unpin it.
    SetPinned {
        /// The message.
        id: MessageId,
        /// Pinned or not.
        pinned: bool,
    },
    /// Exclude a message from the context (never sent) or include it again.
    SetExcluded {
        /// The message.
        id: MessageId,
        /// Excluded or not.
        excluded: bool,
    },
    /// Store a summary (replacing one with the same id).
    PutSummary {
        /// The summary.
        summary: Summary,
    },
    /// Replace a stored summary's text (the user edited it).
    EditSummary {
        /// The summary.
        id: String,
        /// New text (must not be empty).
        text: String,
    },
    /// Set the chat's context overrides.
    SetContext {
        /// The overrides.
        context: ContextOverrides,
    },
    /// Set the chat's agent mode.
    SetAgent {
        /// The new settings.
        agent: AgentConfig,
    },
    /// Pin the chat to the top of the chat list, or unpin it.
    PinChat {
        /// Pinned or not.
        pinned: bool,
    },
    /// Switch the chat's model (`None`: follow Settings).
    SetModel {
        /// The model.
        model: Option<ChatModel>,
    },
    /// Add the result of tool call `call_id` after `parent` (the reply that made the call, or
    /// the result of an earlier call of the same reply).
    AddTool {
        /// Id of the new message.
        id: MessageId,
        /// The message it follows.
        parent: MessageId,
        /// The call it answers.
        call_id: String,
        /// The result, as text for the model.
        content: String,
        /// Time, ms since epoch.
        at: i64,
    },
    /// Start an untouched session (no user message yet, system prompt not edited) over from
    /// another template or other variables.
    Restart {
        /// The new origin.
        origin: Option<PromptOrigin>,
        /// The new starting messages.
        preamble: Vec<Preamble>,
        /// Time, ms since epoch.
        at: i64,
    },
}

/// Why a command was refused. The session is unchanged when `apply` returns one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// No message with that id.
    #[error("unknown message {0}")]
    UnknownMessage(MessageId),
    /// The message has the wrong role for the command.
    #[error("message {0} has the wrong role for this change")]
    WrongRole(MessageId),
    /// The message is not streaming (or not empty, for discard).
    #[error("message {0} is not in a state that allows this change")]
    WrongStatus(MessageId),
    /// Empty text or title.
    #[error("text is empty")]
    Empty,
    /// A message with that id already exists.
    #[error("duplicate message id {0}")]
    DuplicateId(MessageId),
    /// The session already has user messages.
    #[error("the chat has already started")]
    Started,
    /// The user edited the session's system prompt; starting over would discard it.
    #[error("the chat's system prompt was edited")]
    SystemEdited,
}

/// Longest automatic title, in characters.
pub const TITLE_MAX_CHARS: usize = 48;

/// The name of the first attachment of `lines` (`attachment::Attachment`: what follows the
/// seventh space of the first line).
fn file_name(lines: &str) -> &str {
    let first = lines.split('\n').next().unwrap_or("");
    let mut spaces = 0;
    for (i, b) in first.bytes().enumerate() {
        if b == b' ' {
            spaces += 1;
            if spaces == 7 {
                return &first[i + 1..];
            }
        }
    }
    ""
}

/// Title derived from the first user message: its first non-empty line, shortened.
pub fn title_from(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let mut title: String = line.chars().take(TITLE_MAX_CHARS).collect();
    if line.chars().count() > TITLE_MAX_CHARS {
        title = title.trim_end().to_string();
        title.push('…');
    }
    title
}

impl Session {
    /// A new session starting with `preamble` (system prompt, then few-shot examples), chained
    /// from the root.
    pub fn new(id: String, at: i64, origin: Option<PromptOrigin>, preamble: Vec<Preamble>) -> Self {
        let mut session = Session {
            id,
            title: String::new(),
            role: origin.as_ref().map(|o| o.key.clone()).unwrap_or_default(),
            prompt: origin,
            created_at: at,
            updated_at: at,
            messages: Vec::new(),
            leaf: None,
            summaries: Vec::new(),
            context: ContextOverrides::default(),
            agent: AgentConfig::default(),
            foreign: false,
            pinned: false,
            model: None,
        };
        session.push_preamble(preamble, at);
        session
    }

    fn push_preamble(&mut self, preamble: Vec<Preamble>, at: i64) {
        for p in preamble {
            let mut m = Message::new(p.id, self.leaf.clone(), p.role, p.content, at);
            m.example = p.example;
            self.push(m);
        }
    }

    /// Whether the user has written anything yet.
    pub fn started(&self) -> bool {
        self.messages
            .iter()
            .any(|m| m.role == Role::User && !m.example)
    }

    /// The system prompt message (the root), if any.
    pub fn system(&self) -> Option<&Message> {
        self.messages
            .iter()
            .find(|m| m.role == Role::System && m.parent.is_none())
    }

    /// Title for display: the stored one, or "Untitled chat".
    pub fn display_title(&self) -> &str {
        if self.title.is_empty() {
            "Untitled chat"
        } else {
            &self.title
        }
    }

    /// The message with this id.
    pub fn get(&self, id: &str) -> Option<&Message> {
        self.messages.iter().find(|m| m.id == id)
    }

    fn get_mut(&mut self, id: &str) -> Option<&mut Message> {
        self.messages.iter_mut().find(|m| m.id == id)
    }

    /// Take in what another tab wrote for this chat (`stored`): messages and summaries this copy
    /// lacks are added (by id; none of this copy's is dropped), a reply still streaming here that
    /// this tab is not writing (`live` is the one it writes) takes the other tab's newer text, and
    /// the branch shown moves to theirs when it continues ours; the chat's pin and model are
    /// theirs (set from another tab's chat list). Answers whether anything was added, and whether
    /// `stored` lacks something of this copy (then this copy should be written back).
    pub fn merge_stored(&mut self, stored: &Session, live: Option<&str>) -> Merged {
        let mut added = 0;
        for m in &stored.messages {
            match self.messages.iter_mut().find(|x| x.id == m.id) {
                None => {
                    self.messages.push(m.clone());
                    added += 1;
                }
                // A reply another tab is writing only moves forward: take its newer text.
                Some(ours)
                    if ours.status == Status::Streaming
                        && live != Some(m.id.as_str())
                        && ours != m =>
                {
                    *ours = m.clone();
                    added += 1;
                }
                // A reply another tab checked against its template's schema (once, for good):
                // take the outcome and the repaired text.
                // A reply this tab marked interrupted when it read the chat (another tab was
                // still writing it): that tab's copy goes on from ours; take it.
                Some(ours)
                    if ours.status == Status::Incomplete
                        && m.status != Status::Incomplete
                        && continues(m, ours) =>
                {
                    *ours = m.clone();
                    added += 1;
                }
                Some(ours) if ours.structured.is_none() && m.structured.is_some() => {
                    ours.content = m.content.clone();
                    ours.structured = m.structured.clone();
                    added += 1;
                }
                Some(_) => {}
            }
        }
        for sum in &stored.summaries {
            if !self.summaries.iter().any(|x| x.id == sum.id) {
                self.summaries.push(sum.clone());
                added += 1;
            }
        }
        if self.title.is_empty() && !stored.title.is_empty() {
            self.title = stored.title.clone();
        }
        // Their branch continues ours: show it.
        if let (Some(theirs), true) = (&stored.leaf, added > 0) {
            let continues = match &self.leaf {
                None => true,
                Some(ours) => self.ancestors(theirs).any(|id| id == ours),
            };
            if continues {
                self.leaf = Some(theirs.clone());
            }
        }
        self.updated_at = self.updated_at.max(stored.updated_at);
        // The chat's pin and model, set in another tab (from its chat list): theirs, written
        // after this tab last wrote the chat.
        if self.pinned != stored.pinned || self.model != stored.model {
            self.pinned = stored.pinned;
            self.model = stored.model.clone();
            added += 1;
        }
        // What the stored copy lacks: a message, a schema check, or the end of a reply it still
        // has streaming — ours ended and goes on from theirs (a reply never streams again once
        // ended, so theirs is an older copy a tab wrote over the end). A copy this tab marked
        // interrupted when it read the chat, with no more text than theirs, is not an end.
        let theirs_lack = self.messages.iter().any(|m| match stored.get(&m.id) {
            None => true,
            Some(theirs) => {
                (m.structured.is_some() && theirs.structured.is_none())
                    || (theirs.status == Status::Streaming
                        && m.status != Status::Streaming
                        && continues(m, theirs)
                        && (m.status != Status::Incomplete
                            || m.content.len() > theirs.content.len()))
            }
        }) || self
            .summaries
            .iter()
            .any(|x| !stored.summaries.iter().any(|y| y.id == x.id));
        Merged { added, theirs_lack }
    }

    /// The ids from `id` up through its parents (at most as many as there are messages).
    fn ancestors<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        let mut at = Some(id);
        std::iter::from_fn(move || {
            let id = at?;
            at = self.get(id).and_then(|m| m.parent.as_deref());
            Some(id)
        })
        .take(self.messages.len() + 1)
    }

    /// The visible conversation: messages from the root to `leaf`.
    pub fn path(&self) -> Vec<&Message> {
        let mut by_id: HashMap<&str, &Message> =
            self.messages.iter().map(|m| (m.id.as_str(), m)).collect();
        let mut out: Vec<&Message> = Vec::new();
        let mut cursor = self.leaf.as_deref();
        // Each message is taken out of the map when visited, so corrupt data with a cycle stops
        // the walk where it would repeat a message.
        while let Some(m) = cursor.and_then(|id| by_id.remove(id)) {
            out.push(m);
            cursor = m.parent.as_deref();
        }
        out.reverse();
        out
    }

    /// The summary the context pipeline uses for `path` (root first): of the stored summaries
    /// whose last covered message is on the path, the one reaching furthest.
    pub fn summary_for(&self, path: &[&Message]) -> Option<&Summary> {
        let pos: HashMap<&str, usize> = path
            .iter()
            .enumerate()
            .map(|(i, m)| (m.id.as_str(), i))
            .collect();
        self.summaries
            .iter()
            .filter_map(|s| pos.get(s.through.as_str()).map(|&i| (i, s)))
            .max_by_key(|(i, s)| (*i, s.created_at))
            .map(|(_, s)| s)
    }

    /// Ids of the messages sharing `id`'s parent (its variants, itself included), oldest first.
    pub fn siblings(&self, id: &str) -> Vec<&str> {
        let Some(msg) = self.get(id) else {
            return Vec::new();
        };
        self.messages
            .iter()
            .filter(|m| m.parent == msg.parent && m.role == msg.role)
            .map(|m| m.id.as_str())
            .collect()
    }

    /// The branch shown ([`Session::path`]), each message with its 1-based place among its
    /// variants and their number (as [`Session::siblings`] counts them), in linear time.
    pub fn branch(&self) -> Vec<(&Message, usize, usize)> {
        let path = self.path();
        // The parent of path[i + 1] is path[i]: siblings are found by their parent's place.
        let at: HashMap<&str, usize> = path
            .iter()
            .enumerate()
            .map(|(i, m)| (m.id.as_str(), i + 1))
            .collect();
        // (message, its place among its variants (0: not met yet), their number)
        let mut out: Vec<(&Message, usize, usize)> = path.iter().map(|m| (*m, 0, 0)).collect();
        let root = path.first().and_then(|m| m.parent.as_deref());
        for m in &self.messages {
            // Siblings of the first message share its parent (none, or one that is missing).
            let i = match m.parent.as_deref() {
                p if p == root => 0,
                None => continue,
                Some(p) => match at.get(p) {
                    Some(&i) => i,
                    None => continue,
                },
            };
            if let Some((shown, place, n)) = out.get_mut(i) {
                if shown.role == m.role && shown.parent == m.parent {
                    *n += 1;
                    if *place == 0 && m.id == shown.id {
                        *place = *n;
                    }
                }
            }
        }
        out.into_iter()
            .map(|(m, place, n)| (m, place.max(1), n.max(1)))
            .collect()
    }

    /// The sibling `step` places away from `id` (negative = older), if there is one.
    pub fn variant(&self, id: &str, step: isize) -> Option<&str> {
        let sibs = self.siblings(id);
        let pos = sibs.iter().position(|s| *s == id)? as isize + step;
        usize::try_from(pos).ok().and_then(|p| sibs.get(p).copied())
    }

    /// The newest leaf below `id`, following the most recent child at each level.
    fn newest_leaf_under(&self, id: &str) -> MessageId {
        let mut current = id.to_string();
        for _ in 0..=self.messages.len() {
            match self
                .messages
                .iter()
                .rev()
                .find(|m| m.parent.as_deref() == Some(current.as_str()))
            {
                Some(child) => current = child.id.clone(),
                None => break,
            }
        }
        current
    }

    /// Mark replies left `Streaming` (the page closed mid-reply) as `Incomplete`.
    /// Returns whether anything changed.
    pub fn recover_interrupted(&mut self) -> bool {
        let mut changed = false;
        for m in &mut self.messages {
            if m.status == Status::Streaming {
                m.status = Status::Incomplete;
                m.note = Some("interrupted: the page was closed while this reply arrived".into());
                changed = true;
            }
        }
        changed
    }

    fn ensure_new_id(&self, id: &str) -> Result<(), SessionError> {
        if self.get(id).is_some() {
            Err(SessionError::DuplicateId(id.to_string()))
        } else {
            Ok(())
        }
    }

    fn push(&mut self, msg: Message) {
        self.leaf = Some(msg.id.clone());
        self.updated_at = self.updated_at.max(msg.created_at);
        self.messages.push(msg);
    }

    /// The first message `cmd` may change, add or remove (`messages.len()` when it changes
    /// none): every message before it is left as it is, at the same place. A save writes the
    /// stored parts from there on ([`crate::persist::PART_SIZE`]).
    pub fn touched(&self, cmd: &Command) -> usize {
        let at = |id: &str| {
            self.messages
                .iter()
                .position(|m| m.id == id)
                .unwrap_or(self.messages.len())
        };
        match cmd {
            Command::Rename { .. }
            | Command::AddUser { .. }
            | Command::EditUser { .. }
            | Command::StartReply { .. }
            | Command::AddTool { .. }
            | Command::SelectVariant { .. }
            | Command::PutSummary { .. }
            | Command::EditSummary { .. }
            | Command::SetContext { .. }
            | Command::SetAgent { .. }
            | Command::PinChat { .. }
            | Command::SetModel { .. } => self.messages.len(),
            Command::SetReply { id, .. }
            | Command::SetUsage { id, .. }
            | Command::SetCounts { id, .. }
            | Command::SetToolCalls { id, .. }
            | Command::SetStructured { id, .. }
            | Command::FinishReply { id, .. }
            | Command::DiscardEmptyReply { id }
            | Command::SetPinned { id, .. }
            | Command::SetExcluded { id, .. } => at(id),
            // A new system prompt is put first and becomes the old roots' parent.
            Command::SetSystem { .. } | Command::Restart { .. } => 0,
        }
    }

    /// Apply one change. On error the session is left unchanged.
    pub fn apply(&mut self, cmd: Command) -> Result<(), SessionError> {
        match cmd {
            Command::Rename { title } => {
                let title = title.trim();
                if title.is_empty() {
                    return Err(SessionError::Empty);
                }
                self.title = title.to_string();
            }
            Command::AddUser {
                id,
                text,
                attachments,
                at,
            } => {
                if text.trim().is_empty() && attachments.trim().is_empty() {
                    return Err(SessionError::Empty);
                }
                self.ensure_new_id(&id)?;
                if self.title.is_empty() {
                    // A question of files alone is named after the first (its line's end).
                    self.title = title_from(match text.trim().is_empty() {
                        true => file_name(&attachments),
                        false => &text,
                    });
                }
                let parent = self.leaf.clone();
                let mut m = Message::new(id, parent, Role::User, text, at);
                m.attachments = attachments;
                self.push(m);
            }
            Command::EditUser { id, of, text, at } => {
                self.ensure_new_id(&id)?;
                let old = self
                    .get(&of)
                    .ok_or_else(|| SessionError::UnknownMessage(of.clone()))?;
                if old.role != Role::User {
                    return Err(SessionError::WrongRole(of));
                }
                // The edited question keeps its files.
                if text.trim().is_empty() && old.attachments.is_empty() {
                    return Err(SessionError::Empty);
                }
                let parent = old.parent.clone();
                let attachments = old.attachments.clone();
                let mut m = Message::new(id, parent, Role::User, text, at);
                m.attachments = attachments;
                self.push(m);
            }
            Command::StartReply {
                id,
                parent,
                model,
                at,
            } => {
                self.ensure_new_id(&id)?;
                let p = self
                    .get(&parent)
                    .ok_or_else(|| SessionError::UnknownMessage(parent.clone()))?;
                if !matches!(p.role, Role::User | Role::Tool) {
                    return Err(SessionError::WrongRole(parent));
                }
                let mut reply = Message::new(id, Some(parent), Role::Assistant, String::new(), at);
                reply.status = Status::Streaming;
                reply.model = Some(model);
                self.push(reply);
            }
            Command::SetReply {
                id,
                content,
                reasoning,
            } => {
                let m = self.streaming_reply(&id)?;
                m.content = content;
                m.reasoning = reasoning;
            }
            Command::SetUsage { id, usage } => {
                self.streaming_reply(&id)?.usage = Some(usage);
            }
            Command::SetCounts {
                id,
                prompt,
                reply,
                cost,
            } => {
                let m = self.streaming_reply(&id)?;
                if reply.is_some() {
                    m.reply_tokens = reply;
                }
                if let Some((tokens, exact)) = prompt {
                    m.prompt_tokens = Some(tokens);
                    m.prompt_exact = exact;
                }
                if let Some((nanos, currency)) = cost {
                    m.cost_nanos = Some(nanos);
                    m.currency = currency;
                }
            }
            Command::SetToolCalls { id, tool_calls } => {
                let m = self
                    .get_mut(&id)
                    .ok_or_else(|| SessionError::UnknownMessage(id.clone()))?;
                if m.role != Role::Assistant {
                    return Err(SessionError::WrongRole(id));
                }
                // A finished reply takes calls only once (those read from its ReAct text).
                if m.status != Status::Streaming && !m.tool_calls.is_empty() {
                    return Err(SessionError::WrongStatus(id));
                }
                m.tool_calls = tool_calls;
            }
            Command::SetStructured {
                id,
                content,
                mut structured,
            } => {
                let m = self
                    .get_mut(&id)
                    .ok_or_else(|| SessionError::UnknownMessage(id.clone()))?;
                if m.role != Role::Assistant {
                    return Err(SessionError::WrongRole(id));
                }
                // Checked once, when the reply ended.
                if m.status == Status::Streaming || m.structured.is_some() {
                    return Err(SessionError::WrongStatus(id));
                }
                if let Some(json) = content.filter(|c| *c != m.content) {
                    structured.original = Some(std::mem::replace(&mut m.content, json));
                }
                m.structured = Some(structured);
            }
            Command::FinishReply {
                id,
                status,
                finish_reason,
                note,
                at,
            } => {
                let m = self.streaming_reply(&id)?;
                m.status = status;
                m.finish_reason = finish_reason;
                m.note = note;
                self.updated_at = self.updated_at.max(at);
            }
            Command::DiscardEmptyReply { id } => {
                let m = self
                    .get(&id)
                    .ok_or_else(|| SessionError::UnknownMessage(id.clone()))?;
                if m.role != Role::Assistant {
                    return Err(SessionError::WrongRole(id));
                }
                if !m.content.is_empty() || !m.reasoning.is_empty() || !m.tool_calls.is_empty() {
                    return Err(SessionError::WrongStatus(id));
                }
                if self
                    .messages
                    .iter()
                    .any(|c| c.parent.as_deref() == Some(id.as_str()))
                {
                    return Err(SessionError::WrongStatus(id));
                }
                let parent = m.parent.clone();
                self.messages.retain(|m| m.id != id);
                if self.leaf.as_deref() == Some(id.as_str()) {
                    self.leaf = parent;
                }
            }
            Command::SelectVariant { id } => {
                if self.get(&id).is_none() {
                    return Err(SessionError::UnknownMessage(id));
                }
                self.leaf = Some(self.newest_leaf_under(&id));
            }
            Command::SetSystem { id, text, at } => {
                if self.system().is_some_and(|m| m.content == text) {
                    return Ok(()); // unchanged: not an edit
                }
                let root = self.system().map(|m| m.id.clone());
                match root {
                    Some(root) => {
                        if let Some(m) = self.get_mut(&root) {
                            m.content = text;
                        }
                    }
                    None => {
                        self.ensure_new_id(&id)?;
                        // The new system message becomes the parent of the old roots.
                        for m in self.messages.iter_mut().filter(|m| m.parent.is_none()) {
                            m.parent = Some(id.clone());
                        }
                        self.messages
                            .insert(0, Message::new(id.clone(), None, Role::System, text, at));
                        if self.leaf.is_none() {
                            self.leaf = Some(id);
                        }
                    }
                }
                if let Some(o) = &mut self.prompt {
                    o.system_edited = true;
                }
                self.updated_at = self.updated_at.max(at);
            }
            Command::SetPinned { id, pinned } => {
                let m = self
                    .get_mut(&id)
                    .ok_or_else(|| SessionError::UnknownMessage(id.clone()))?;
                m.pinned = pinned;
                if pinned {
                    m.excluded = false;
                }
            }
            Command::SetExcluded { id, excluded } => {
                let m = self
                    .get_mut(&id)
                    .ok_or_else(|| SessionError::UnknownMessage(id.clone()))?;
                m.excluded = excluded;
                if excluded {
                    m.pinned = false;
                }
            }
            Command::PutSummary { summary } => {
                if summary.text.trim().is_empty() {
                    return Err(SessionError::Empty);
                }
                if self.get(&summary.through).is_none() {
                    return Err(SessionError::UnknownMessage(summary.through));
                }
                self.summaries.retain(|s| s.id != summary.id);
                self.summaries.push(summary);
            }
            Command::EditSummary { id, text } => {
                if text.trim().is_empty() {
                    return Err(SessionError::Empty);
                }
                let s = self
                    .summaries
                    .iter_mut()
                    .find(|s| s.id == id)
                    .ok_or(SessionError::UnknownMessage(id))?;
                s.text = text;
                s.edited = true;
            }
            Command::SetContext { context } => self.context = context,
            Command::SetAgent { agent } => self.agent = agent,
            Command::PinChat { pinned } => self.pinned = pinned,
            Command::SetModel { model } => self.model = model,
            Command::AddTool {
                id,
                parent,
                call_id,
                content,
                at,
            } => {
                self.ensure_new_id(&id)?;
                let p = self
                    .get(&parent)
                    .ok_or_else(|| SessionError::UnknownMessage(parent.clone()))?;
                if !matches!(p.role, Role::Assistant | Role::Tool) {
                    return Err(SessionError::WrongRole(parent));
                }
                let mut m = Message::new(id, Some(parent), Role::Tool, content, at);
                m.tool_call_id = Some(call_id);
                self.push(m);
            }
            Command::Restart {
                origin,
                preamble,
                at,
            } => {
                if self.started() {
                    return Err(SessionError::Started);
                }
                if self.prompt.as_ref().is_some_and(|o| o.system_edited) {
                    return Err(SessionError::SystemEdited);
                }
                self.messages.clear();
                self.summaries.clear();
                self.leaf = None;
                self.role = origin.as_ref().map(|o| o.key.clone()).unwrap_or_default();
                self.prompt = origin;
                self.push_preamble(preamble, at);
                self.updated_at = self.updated_at.max(at);
            }
        }
        Ok(())
    }

    fn streaming_reply(&mut self, id: &str) -> Result<&mut Message, SessionError> {
        let m = self
            .get_mut(id)
            .ok_or_else(|| SessionError::UnknownMessage(id.to_string()))?;
        if m.role != Role::Assistant {
            return Err(SessionError::WrongRole(id.to_string()));
        }
        if m.status != Status::Streaming {
            return Err(SessionError::WrongStatus(id.to_string()));
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> Session {
        Session::new(
            "s".into(),
            0,
            None,
            vec![Preamble::system("sys", "Be kind.")],
        )
    }

    fn ids(s: &Session) -> Vec<&str> {
        s.path().iter().map(|m| m.id.as_str()).collect()
    }

    fn user(id: &str, text: &str) -> Command {
        Command::AddUser {
            attachments: String::new(),
            id: id.into(),
            text: text.into(),
            at: 1,
        }
    }

    fn start(id: &str, parent: &str) -> Command {
        Command::StartReply {
            id: id.into(),
            parent: parent.into(),
            model: "m".into(),
            at: 2,
        }
    }

    /// The reply's text so far (replies are saved whole, never appended to).
    fn set(id: &str, text: &str) -> Command {
        Command::SetReply {
            id: id.into(),
            content: text.into(),
            reasoning: String::new(),
        }
    }

    fn finish(id: &str, status: Status) -> Command {
        Command::FinishReply {
            id: id.into(),
            status,
            finish_reason: None,
            note: None,
            at: 3,
        }
    }

    /// Applies commands in order, panicking with the failing step on error.
    fn run(cmds: Vec<Command>) -> Session {
        let mut s = session();
        for (i, c) in cmds.into_iter().enumerate() {
            if let Err(e) = s.apply(c.clone()) {
                panic!("step {i} ({c:?}) failed: {e}");
            }
        }
        s
    }

    /// A question may be files alone (the chat is then named after the first); an edited
    /// question keeps its files; a question with neither text nor files is refused.
    #[test]
    fn questions_carry_their_files() {
        let line = format!(
            "{} pdf application/pdf 9 0x0 2 - Q3 report.pdf",
            "a".repeat(64)
        );
        let mut s = session();
        let files = |text: &str, attachments: String| Command::AddUser {
            id: "u1".into(),
            text: text.into(),
            attachments,
            at: 1,
        };
        assert_eq!(s.apply(files(" ", String::new())), Err(SessionError::Empty));
        s.apply(files("", line.clone())).unwrap();
        assert_eq!(s.title, "Q3 report.pdf");
        assert_eq!(s.get("u1").unwrap().attachments, line);
        s.apply(Command::EditUser {
            id: "u2".into(),
            of: "u1".into(),
            text: "Summarize it.".into(),
            at: 2,
        })
        .unwrap();
        assert_eq!(s.get("u2").unwrap().attachments, line);
        assert_eq!(ids(&s), ["sys", "u2"]);
    }

    /// Every message before the one [`Session::touched`] names stays as it was, at its place,
    /// whatever the command does (a save rewrites only the stored parts from there on).
    #[test]
    fn a_command_leaves_the_messages_before_the_touched_one_alone() {
        let base = run(vec![
            user("u1", "hi"),
            start("a1", "u1"),
            set("a1", "Hello"),
            finish("a1", Status::Complete),
            user("u2", "more"),
            start("a2", "u2"),
        ]);
        let summary = Summary {
            id: "s1".into(),
            through: "a1".into(),
            covers: 3,
            text: "They said hello.".into(),
            restored: Vec::new(),
            model: String::new(),
            edited: false,
            created_at: 4,
        };
        let cmds = vec![
            Command::Rename { title: "t".into() },
            user("u3", "again"),
            Command::EditUser {
                id: "u1b".into(),
                of: "u1".into(),
                text: "hey".into(),
                at: 5,
            },
            start("a1b", "u1"),
            set("a2", "partly"),
            Command::SetUsage {
                id: "a2".into(),
                usage: Usage::default(),
            },
            Command::SetToolCalls {
                id: "a2".into(),
                tool_calls: Vec::new(),
            },
            Command::SetStructured {
                id: "a1".into(),
                content: Some("{}".into()),
                structured: Structured {
                    outcome: Structured::REPAIRED.into(),
                    line: "repaired".into(),
                    original: None,
                },
            },
            finish("a2", Status::Stopped),
            Command::DiscardEmptyReply { id: "a2".into() },
            Command::SelectVariant { id: "u1".into() },
            Command::SetSystem {
                id: "sys2".into(),
                text: "Be brief.".into(),
                at: 6,
            },
            Command::SetPinned {
                id: "u1".into(),
                pinned: true,
            },
            Command::SetExcluded {
                id: "a1".into(),
                excluded: true,
            },
            Command::PutSummary { summary },
            Command::SetContext {
                context: ContextOverrides::default(),
            },
            Command::SetAgent {
                agent: AgentConfig::default(),
            },
            Command::AddTool {
                id: "t1".into(),
                parent: "a1".into(),
                call_id: "c1".into(),
                content: "42".into(),
                at: 7,
            },
        ];
        for cmd in cmds {
            let mut s = base.clone();
            let touched = s.touched(&cmd);
            let before = s.messages[..touched].to_vec();
            s.apply(cmd.clone())
                .unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
            assert_eq!(
                s.messages.get(..touched),
                Some(&before[..]),
                "{cmd:?} changed a message before {touched}"
            );
        }
        // A session without a system prompt gets one first.
        let mut bare = base.clone();
        bare.messages.remove(0);
        for m in &mut bare.messages {
            if m.parent.as_deref() == Some("sys") {
                m.parent = None;
            }
        }
        let cmd = Command::SetSystem {
            id: "sys2".into(),
            text: "New.".into(),
            at: 8,
        };
        assert_eq!(bare.touched(&cmd), 0);
    }

    #[test]
    fn first_user_message_sets_title_and_path() {
        let s = run(vec![user("u1", "  \nHow do I bake bread?\nthanks")]);
        assert_eq!(s.title, "How do I bake bread?");
        assert_eq!(ids(&s), ["sys", "u1"]);
    }

    #[test]
    fn long_titles_are_shortened() {
        let t = title_from(&"word ".repeat(40));
        assert!(t.ends_with('…'));
        assert!(t.chars().count() <= TITLE_MAX_CHARS + 1);
        assert_eq!(title_from("short"), "short");
        assert_eq!(title_from(""), "");
    }

    #[test]
    fn streaming_reply_accumulates_and_finishes() {
        let s = run(vec![
            user("u1", "hi"),
            start("a1", "u1"),
            set("a1", "Hel"),
            set("a1", "Hello"),
            finish("a1", Status::Complete),
        ]);
        let a = s.get("a1").unwrap();
        assert_eq!((a.content.as_str(), a.status), ("Hello", Status::Complete));
        assert_eq!(ids(&s), ["sys", "u1", "a1"]);
    }

    #[test]
    fn the_step_limit_stays_in_range_whatever_was_stored() {
        let steps = |max_steps| {
            AgentConfig {
                on: true,
                max_steps,
                react: false,
            }
            .steps()
        };
        assert_eq!(steps(None), DEFAULT_MAX_STEPS);
        assert_eq!(steps(Some(0)), 1);
        assert_eq!(steps(Some(12)), 12);
        assert_eq!(steps(Some(4_000_000_000)), MAX_STEPS_LIMIT);
    }

    #[test]
    fn tool_results_follow_calls_and_replies_follow_results() {
        let call = ToolCall {
            index: 0,
            id: "c1".into(),
            name: "calculator".into(),
            arguments: "{}".into(),
        };
        let tool = |id: &str, parent: &str| Command::AddTool {
            id: id.into(),
            parent: parent.into(),
            call_id: "c1".into(),
            content: "2".into(),
            at: 3,
        };
        let mut s = run(vec![
            user("u1", "hi"),
            start("a1", "u1"),
            finish("a1", Status::Complete),
        ]);
        // A finished reply without calls takes the call read from its ReAct text, once.
        let set = Command::SetToolCalls {
            id: "a1".into(),
            tool_calls: vec![call.clone()],
        };
        s.apply(set.clone()).unwrap();
        assert_eq!(s.apply(set), Err(SessionError::WrongStatus("a1".into())));
        assert_eq!(
            s.apply(tool("t0", "u1")),
            Err(SessionError::WrongRole("u1".into()))
        );
        s.apply(tool("t1", "a1")).unwrap();
        s.apply(start("a2", "t1")).unwrap();
        assert_eq!(ids(&s), ["sys", "u1", "a1", "t1", "a2"]);
        let t = s.get("t1").unwrap();
        assert_eq!(
            (t.role, t.tool_call_id.as_deref()),
            (Role::Tool, Some("c1"))
        );
        assert_eq!(
            s.apply(tool("t1", "a1")),
            Err(SessionError::DuplicateId("t1".into()))
        );
    }

    #[test]
    fn set_reply_replaces_instead_of_appending() {
        let set = |text: &str| Command::SetReply {
            id: "a1".into(),
            content: text.into(),
            reasoning: String::new(),
        };
        let s = run(vec![
            user("u1", "hi"),
            start("a1", "u1"),
            set("Hel"),
            set("Hello"),
            set("Hello"),
            finish("a1", Status::Stopped),
        ]);
        assert_eq!(s.get("a1").unwrap().content, "Hello");
        let mut done = s.clone();
        assert_eq!(
            done.apply(set("late")),
            Err(SessionError::WrongStatus("a1".into()))
        );
    }

    /// `branch` gives every message of the path its place among `siblings`, and their number.
    fn branch_agrees(s: &Session) {
        let slow: Vec<(String, usize, usize)> = s
            .path()
            .iter()
            .map(|m| {
                let sibs = s.siblings(&m.id);
                let at = sibs.iter().position(|x| *x == m.id).map_or(1, |p| p + 1);
                (m.id.clone(), at, sibs.len().max(1))
            })
            .collect();
        let fast: Vec<(String, usize, usize)> = s
            .branch()
            .into_iter()
            .map(|(m, at, n)| (m.id.clone(), at, n))
            .collect();
        assert_eq!(fast, slow);
    }

    #[test]
    fn branch_places_variants_like_siblings() {
        let mut s = run(vec![
            user("u1", "hi"),
            start("a1", "u1"),
            finish("a1", Status::Complete),
            start("a2", "u1"),
            finish("a2", Status::Complete),
            start("a3", "u1"),
            finish("a3", Status::Complete),
        ]);
        s.apply(Command::SelectVariant { id: "a2".into() }).unwrap();
        // Another role under the same parent (not a variant), listed first; a duplicate of the
        // shown id (an imported file), listed last: the first one is the one placed.
        let mut tool = s.get("a1").unwrap().clone();
        (tool.id, tool.role) = ("t1".into(), Role::Tool);
        s.messages.insert(0, tool);
        let mut dup = s.get("a3").unwrap().clone();
        dup.id = "a2".into();
        s.messages.push(dup);
        branch_agrees(&s);
        let places: Vec<(usize, usize)> = s.branch().iter().map(|b| (b.1, b.2)).collect();
        assert_eq!(places, [(1, 1), (1, 1), (2, 4)]);
        // A damaged record: the first message's parent is missing, and it has a sibling.
        for m in s.messages.iter_mut().filter(|m| m.parent.is_none()) {
            m.parent = Some("gone".into());
        }
        let mut twin = s.messages.iter().find(|m| m.id == "sys").unwrap().clone();
        twin.id = "sys2".into();
        s.messages.push(twin);
        branch_agrees(&s);
        assert_eq!((s.branch()[0].1, s.branch()[0].2), (1, 2));
    }

    #[test]
    fn regenerate_keeps_old_variant_reachable() {
        let mut s = run(vec![
            user("u1", "hi"),
            start("a1", "u1"),
            set("a1", "first"),
            finish("a1", Status::Complete),
            start("a2", "u1"),
            set("a2", "second"),
            finish("a2", Status::Complete),
        ]);
        assert_eq!(ids(&s), ["sys", "u1", "a2"]);
        assert_eq!(s.siblings("a2"), ["a1", "a2"]);
        branch_agrees(&s);
        assert_eq!(s.variant("a2", -1), Some("a1"));
        assert_eq!(s.variant("a2", 1), None);
        s.apply(Command::SelectVariant { id: "a1".into() }).unwrap();
        assert_eq!(ids(&s), ["sys", "u1", "a1"]);
        assert_eq!(s.get("a1").unwrap().content, "first");
    }

    #[test]
    fn edit_creates_sibling_branch() {
        let mut s = run(vec![
            user("u1", "hi"),
            start("a1", "u1"),
            finish("a1", Status::Complete),
            user("u2", "tell me more"),
            start("a2", "u2"),
            finish("a2", Status::Complete),
        ]);
        s.apply(Command::EditUser {
            id: "u1b".into(),
            of: "u1".into(),
            text: "hello".into(),
            at: 9,
        })
        .unwrap();
        assert_eq!(ids(&s), ["sys", "u1b"]);
        branch_agrees(&s);
        assert_eq!(s.branch()[1].1, 2);
        // Switching back to the old user message restores its whole newest branch.
        s.apply(Command::SelectVariant { id: "u1".into() }).unwrap();
        assert_eq!(ids(&s), ["sys", "u1", "a1", "u2", "a2"]);
        assert_eq!(s.siblings("u1"), ["u1", "u1b"]);
        branch_agrees(&s);
    }

    fn structured(outcome: &str) -> Structured {
        Structured {
            outcome: outcome.into(),
            line: format!("{outcome} line"),
            original: None,
        }
    }

    #[test]
    fn a_structured_reply_keeps_what_the_model_wrote() {
        let mut s = run(vec![
            user("u1", "plan"),
            start("a1", "u1"),
            set("a1", "```json\n{\"a\": 1,}\n```"),
            finish("a1", Status::Complete),
            start("a2", "u1"),
        ]);
        let repaired = Command::SetStructured {
            id: "a1".into(),
            content: Some("{\n  \"a\": 1\n}".into()),
            structured: structured(Structured::REPAIRED),
        };
        s.apply(repaired.clone()).unwrap();
        let m = s.get("a1").unwrap();
        assert_eq!(m.content, "{\n  \"a\": 1\n}");
        let kept = m.structured.as_ref().unwrap();
        assert_eq!(kept.original.as_deref(), Some("```json\n{\"a\": 1,}\n```"));
        assert_eq!(kept.outcome, Structured::REPAIRED);
        // Checked once; never a user message, never a reply still arriving.
        let cases = [
            (repaired, SessionError::WrongStatus("a1".into())),
            (
                Command::SetStructured {
                    id: "u1".into(),
                    content: None,
                    structured: structured(Structured::VALID),
                },
                SessionError::WrongRole("u1".into()),
            ),
            (
                Command::SetStructured {
                    id: "a2".into(),
                    content: None,
                    structured: structured(Structured::VALID),
                },
                SessionError::WrongStatus("a2".into()),
            ),
            (
                Command::SetStructured {
                    id: "zz".into(),
                    content: None,
                    structured: structured(Structured::VALID),
                },
                SessionError::UnknownMessage("zz".into()),
            ),
        ];
        for (cmd, err) in cases {
            let before = s.clone();
            assert_eq!(s.apply(cmd), Err(err));
            assert_eq!(s, before);
        }
        // Valid as sent (or never valid): the text stays, nothing is recorded as original.
        let mut s = run(vec![
            user("u1", "plan"),
            start("a1", "u1"),
            set("a1", "{}"),
            finish("a1", Status::Complete),
        ]);
        s.apply(Command::SetStructured {
            id: "a1".into(),
            content: Some("{}".into()),
            structured: structured(Structured::VALID),
        })
        .unwrap();
        let m = s.get("a1").unwrap();
        assert_eq!(
            (
                m.content.as_str(),
                m.structured.as_ref().unwrap().original.as_ref()
            ),
            ("{}", None)
        );
    }

    #[test]
    fn a_check_made_in_another_tab_is_taken_in_and_never_lost() {
        let base = run(vec![
            user("u1", "plan"),
            start("a1", "u1"),
            set("a1", "not json"),
            finish("a1", Status::Complete),
        ]);
        let mut checked = base.clone();
        checked
            .apply(Command::SetStructured {
                id: "a1".into(),
                content: Some("{}".into()),
                structured: structured(Structured::REPAIRED_BY_MODEL),
            })
            .unwrap();
        // This tab has not seen the check: it takes the outcome and the repaired text.
        let mut ours = base.clone();
        let merged = ours.merge_stored(&checked, None);
        assert_eq!((merged.added, merged.theirs_lack), (1, false));
        assert_eq!(ours.get("a1"), checked.get("a1"));
        // This tab made the check and the stored copy lacks it: written back, never taken away.
        let mut ours = checked.clone();
        let merged = ours.merge_stored(&base, None);
        assert_eq!((merged.added, merged.theirs_lack), (0, true));
        assert_eq!(ours.get("a1"), checked.get("a1"));
    }

    #[test]
    fn refused_commands_leave_session_unchanged() {
        let base = run(vec![
            user("u1", "hi"),
            start("a1", "u1"),
            finish("a1", Status::Stopped),
        ]);
        let cases: Vec<(Command, SessionError)> = vec![
            (user("u2", "   "), SessionError::Empty),
            (user("u1", "again"), SessionError::DuplicateId("u1".into())),
            (set("a1", "late"), SessionError::WrongStatus("a1".into())),
            (set("zz", "x"), SessionError::UnknownMessage("zz".into())),
            (start("a2", "a1"), SessionError::WrongRole("a1".into())),
            (
                Command::EditUser {
                    id: "e".into(),
                    of: "a1".into(),
                    text: "x".into(),
                    at: 1,
                },
                SessionError::WrongRole("a1".into()),
            ),
            (Command::Rename { title: " ".into() }, SessionError::Empty),
            (
                Command::SelectVariant { id: "nope".into() },
                SessionError::UnknownMessage("nope".into()),
            ),
        ];
        for (cmd, err) in cases {
            let mut s = base.clone();
            assert_eq!(s.apply(cmd.clone()), Err(err), "{cmd:?}");
            assert_eq!(s, base, "{cmd:?} changed the session");
        }
    }

    #[test]
    fn discard_only_removes_empty_replies() {
        let mut s = run(vec![user("u1", "hi"), start("a1", "u1")]);
        s.apply(Command::DiscardEmptyReply { id: "a1".into() })
            .unwrap();
        assert_eq!(ids(&s), ["sys", "u1"]);
        let mut s = run(vec![
            user("u1", "hi"),
            start("a1", "u1"),
            set("a1", "partial"),
        ]);
        assert_eq!(
            s.apply(Command::DiscardEmptyReply { id: "a1".into() }),
            Err(SessionError::WrongStatus("a1".into()))
        );
    }

    #[test]
    fn interrupted_replies_are_recovered_as_incomplete() {
        let mut s = run(vec![user("u1", "hi"), start("a1", "u1"), set("a1", "half")]);
        assert!(s.recover_interrupted());
        let a = s.get("a1").unwrap();
        assert_eq!((a.status, a.content.as_str()), (Status::Incomplete, "half"));
        assert!(!s.recover_interrupted());
    }

    #[test]
    fn system_prompt_edits_change_only_this_session_text() {
        let mut s = session();
        s.prompt = Some(PromptOrigin {
            source: PromptSource::Builtin,
            key: "coder".into(),
            version: 2,
            vars: BTreeMap::new(),
            system_edited: false,
            output_schema: None,
        });
        s.apply(user("u1", "hi")).unwrap();
        s.apply(Command::SetSystem {
            id: "new".into(),
            text: "Be terse.".into(),
            at: 9,
        })
        .unwrap();
        assert_eq!(s.system().unwrap().content, "Be terse.");
        assert_eq!(
            s.system().unwrap().id,
            "sys",
            "the existing root is edited, no new message"
        );
        assert_eq!(ids(&s), vec!["sys", "u1"]);
        assert!(s.prompt.as_ref().unwrap().system_edited);
        // Saving the same text again is not an edit.
        let mut same = session();
        same.prompt = Some(PromptOrigin {
            source: PromptSource::Builtin,
            key: "assistant".into(),
            version: 1,
            vars: BTreeMap::new(),
            system_edited: false,
            output_schema: None,
        });
        let text = same.system().unwrap().content.clone();
        same.apply(Command::SetSystem {
            id: "n".into(),
            text,
            at: 3,
        })
        .unwrap();
        assert!(!same.prompt.as_ref().unwrap().system_edited);
        // An untouched chat whose system prompt was edited is not started over (that would
        // discard the edit).
        same.apply(Command::SetSystem {
            id: "n".into(),
            text: "Mine.".into(),
            at: 4,
        })
        .unwrap();
        assert_eq!(
            same.apply(Command::Restart {
                origin: None,
                preamble: vec![],
                at: 5
            }),
            Err(SessionError::SystemEdited)
        );
        assert_eq!(same.system().unwrap().content, "Mine.");
        // A session without a system prompt gets one as its new root.
        let mut bare = Session::new("b".into(), 0, None, vec![]);
        bare.apply(user("u1", "hi")).unwrap();
        bare.apply(Command::SetSystem {
            id: "sys2".into(),
            text: "Hello.".into(),
            at: 1,
        })
        .unwrap();
        assert_eq!(ids(&bare), vec!["sys2", "u1"]);
    }

    #[test]
    fn restart_replaces_an_untouched_session_only() {
        let mut s = session();
        let pre = vec![
            Preamble::system("s2", "Plan."),
            Preamble {
                id: "e1".into(),
                role: Role::User,
                content: "goal".into(),
                example: true,
            },
            Preamble {
                id: "e2".into(),
                role: Role::Assistant,
                content: "{}".into(),
                example: true,
            },
        ];
        let origin = PromptOrigin {
            source: PromptSource::User,
            key: "mine".into(),
            version: 3,
            vars: BTreeMap::from([("a".to_string(), "b".to_string())]),
            system_edited: false,
            output_schema: None,
        };
        s.apply(Command::Restart {
            origin: Some(origin.clone()),
            preamble: pre.clone(),
            at: 5,
        })
        .unwrap();
        assert_eq!(ids(&s), vec!["s2", "e1", "e2"]);
        assert!(!s.started(), "examples are not the user's messages");
        assert_eq!(
            (s.role.as_str(), s.prompt.as_ref()),
            ("mine", Some(&origin))
        );
        s.apply(user("u1", "hi")).unwrap();
        assert_eq!(s.get("u1").unwrap().parent.as_deref(), Some("e2"));
        let before = s.clone();
        assert_eq!(
            s.apply(Command::Restart {
                origin: None,
                preamble: pre,
                at: 6
            }),
            Err(SessionError::Started)
        );
        assert_eq!(s, before);
    }

    #[test]
    fn rename_sets_title() {
        let s = run(vec![
            user("u1", "hi"),
            Command::Rename {
                title: "  Bread  ".into(),
            },
        ]);
        assert_eq!(s.display_title(), "Bread");
        assert_eq!(session().display_title(), "Untitled chat");
    }

    #[test]
    fn a_pin_or_model_set_in_another_tab_is_taken_in() {
        let ours = Session::new("c".into(), 1, None, Vec::new());
        let mut theirs = ours.clone();
        theirs.apply(Command::PinChat { pinned: true }).unwrap();
        theirs
            .apply(Command::SetModel {
                model: Some(ChatModel {
                    name: "o3".into(),
                    base_url: "https://api.openai.com/v1".into(),
                }),
            })
            .unwrap();
        let mut a = ours.clone();
        assert_eq!(a.merge_stored(&theirs, None).added, 1);
        assert!(a.pinned);
        assert_eq!(a.model, theirs.model);
        // And back: unpinned there, unpinned here.
        theirs.apply(Command::PinChat { pinned: false }).unwrap();
        theirs.apply(Command::SetModel { model: None }).unwrap();
        assert_eq!(a.merge_stored(&theirs, None).added, 1);
        assert!(!a.pinned);
        assert_eq!(a.model, None);
        assert_eq!(a.merge_stored(&theirs, None).added, 0);
    }

    #[test]
    fn two_copies_merge_by_id_and_converge() {
        let base = {
            let mut s = Session::new("s".into(), 0, None, Vec::new());
            s.messages = vec![
                Message::new("u1".into(), None, Role::User, "hi".into(), 1),
                Message::new(
                    "a1".into(),
                    Some("u1".into()),
                    Role::Assistant,
                    "hello".into(),
                    2,
                ),
            ];
            s.leaf = Some("a1".into());
            s
        };
        // Tab A appends a round; tab B appends another one at the same time.
        let mut a = base.clone();
        a.messages.push(Message::new(
            "u2".into(),
            Some("a1".into()),
            Role::User,
            "from A".into(),
            3,
        ));
        a.leaf = Some("u2".into());
        let mut b = base.clone();
        b.messages.push(Message::new(
            "u3".into(),
            Some("a1".into()),
            Role::User,
            "from B".into(),
            4,
        ));
        b.leaf = Some("u3".into());
        // B's write lands last; A takes it in.
        let merged = a.merge_stored(&b, None);
        assert_eq!(
            merged,
            Merged {
                added: 1,
                theirs_lack: true
            }
        );
        assert_eq!(
            a.leaf.as_deref(),
            Some("u2"),
            "B's branch does not continue A's: A keeps its own"
        );
        // A writes back; B takes that in and has everything; nothing left to write.
        let merged = b.merge_stored(&a, None);
        assert_eq!(
            merged,
            Merged {
                added: 1,
                theirs_lack: false
            }
        );
        let ids = |s: &Session| {
            let mut v: Vec<String> = s.messages.iter().map(|m| m.id.clone()).collect();
            v.sort();
            v
        };
        assert_eq!(ids(&a), ids(&b));
        assert_eq!(
            a.merge_stored(&b, None),
            Merged {
                added: 0,
                theirs_lack: false
            }
        );
        // A branch that continues ours is followed.
        let mut c = base.clone();
        let mut d = base.clone();
        d.messages.push(Message::new(
            "u4".into(),
            Some("a1".into()),
            Role::User,
            "more".into(),
            5,
        ));
        d.leaf = Some("u4".into());
        assert_eq!(c.merge_stored(&d, None).added, 1);
        assert_eq!(c.leaf.as_deref(), Some("u4"));
        // A reply the other tab is streaming: its newer text comes in; one this tab writes does not.
        let mut streaming = base.clone();
        streaming.messages[1].status = Status::Streaming;
        streaming.messages[1].content = "hel".into();
        let mut other = streaming.clone();
        other.messages[1].content = "hello there".into();
        other.messages[1].status = Status::Complete;
        let mut mine = streaming.clone();
        assert_eq!(mine.merge_stored(&other, Some("a1")).added, 0);
        assert_eq!(mine.messages[1].content, "hel");
        assert_eq!(streaming.merge_stored(&other, None).added, 1);
        assert_eq!(streaming.messages[1].content, "hello there");
        assert_eq!(streaming.messages[1].status, Status::Complete);
        // A tab wrote its older copy over the end another tab had stored: the reply is streaming
        // in storage again. The tab that has the end keeps it and writes it back; a tab that
        // has the same streaming copy has nothing to write.
        let stale = {
            let mut s = streaming.clone();
            s.messages[1].status = Status::Streaming;
            s.messages[1].content = "hel".into();
            s
        };
        let mut ended = streaming.clone();
        let merged = ended.merge_stored(&stale, None);
        assert_eq!(merged.added, 0);
        assert!(merged.theirs_lack, "the end is written back");
        assert_eq!(ended.messages[1].status, Status::Complete);
        assert_eq!(ended.messages[1].content, "hello there");
        let mut same = stale.clone();
        assert!(!same.merge_stored(&stale, None).theirs_lack);
        // A tab that read the chat while another tab was writing the reply marked its copy
        // interrupted: it writes nothing back over the reply still arriving, and takes it.
        let writing = {
            let mut s = base.clone();
            s.messages[1].status = Status::Streaming;
            s.messages[1].content = "hel".into();
            s
        };
        let arriving = {
            let mut s = writing.clone();
            s.messages[1].content = "hello th".into();
            s
        };
        let interrupted = {
            let mut s = writing.clone();
            s.messages[1].status = Status::Incomplete;
            s
        };
        let mut reloaded = interrupted.clone();
        let merged = reloaded.merge_stored(&arriving, None);
        assert!(
            !merged.theirs_lack,
            "an interrupted copy is not written back"
        );
        assert_eq!(merged.added, 1);
        assert_eq!(reloaded.messages[1].content, "hello th");
        assert_eq!(reloaded.messages[1].status, Status::Streaming);
        // …and its interrupted copy with as much text as the stored one is not an end either.
        let mut reloaded = interrupted.clone();
        assert!(!reloaded.merge_stored(&writing, None).theirs_lack);
        // An ended copy that is not the stored one's continuation (another branch of history)
        // is not written over it.
        let mut other_text = other.clone();
        other_text.messages[1].content = "goodbye".into();
        assert!(!other_text.merge_stored(&writing, None).theirs_lack);
        // The ended copy that goes on from it is.
        assert!(other.clone().merge_stored(&writing, None).theirs_lack);
    }

    #[test]
    fn path_shows_each_message_once_when_corrupt_data_has_a_cycle() {
        // The root is its own parent: the system prompt is shown once.
        let mut s = session();
        s.messages[0].parent = Some("sys".into());
        assert_eq!(ids(&s), ["sys"]);
        // A loop below the root (u1 → a1 → u1 …): the walk from the leaf stops where it would
        // repeat a message.
        let mut s = run(vec![
            user("u1", "hi"),
            start("a1", "u1"),
            set("a1", "yo"),
            finish("a1", Status::Complete),
        ]);
        if let Some(u1) = s.messages.iter_mut().find(|m| m.id == "u1") {
            u1.parent = Some("a1".into());
        }
        assert_eq!(ids(&s), ["u1", "a1"]);
    }
}
