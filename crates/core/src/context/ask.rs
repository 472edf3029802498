//! What the app and the turns module say to each other. The pipeline and everything around it
//! (counting, server probes, reports) run in the lazy `context` module; the app sends it an
//! [`Ask`] and gets an [`Answer`], both as JSON.

use super::summary::SummaryRequest;
use super::{Context, Verdict};
use crate::session::{AgentConfig, ContextOverrides, Message, Role, Session, Summary, ToolCall};
use crate::settings::Settings;
use serde::{Deserialize, Serialize};

/// A request to build the context for answering `history`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ask {
    /// Read every message (the inspector) instead of only what the request can hold (sending).
    pub inspect: bool,
    /// The settings in use (they never hold the API key).
    pub settings: Settings,
    /// The branch being answered, root first, without the reply being written.
    pub history: Vec<Message>,
    /// The stored summary for this branch.
    pub summary: Option<Summary>,
    /// The chat's own context settings.
    pub overrides: ContextOverrides,
    /// Also describe the request for the inspector.
    pub report: Option<ReportAsk>,
    /// The first `elided` messages of `history` come without their text ([`elide`]): the app
    /// expects the request to need none of it. When it does, the answer says
    /// [`Answer::need_full`] and the app asks again with every message whole.
    #[serde(default)]
    pub elided: u32,
    /// The chat's summaries wait (the summarizer failed a moment ago): a summary that is due
    /// will not be made for this request, so its turns are not read.
    #[serde(default)]
    pub summaries_paused: bool,
    /// The chat's agent mode: when on, the turns module adds the tools the agent module offers
    /// (as `tools`, or described in the system prompt in ReAct text); they count against the
    /// window like the messages.
    #[serde(default, skip_serializing_if = "is_off")]
    pub agent: AgentConfig,
    /// The JSON the chat's template asks replies to match (its `output_schema`), sent as
    /// `response_format` when no tools go with the request and the server takes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<OutputFormat>,
}

/// A template's `output_schema`, named after the template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputFormat {
    /// The template's key.
    pub name: String,
    /// The JSON Schema, as text.
    pub schema: String,
}

/// The output format `session`'s template asks for, if any.
pub fn format_of(session: &Session) -> Option<OutputFormat> {
    let origin = session.prompt.as_ref()?;
    Some(OutputFormat {
        name: origin.key.clone(),
        schema: origin.output_schema.clone()?,
    })
}

impl OutputFormat {
    /// The `response_format` field of a request (OpenAI's structured output: `json_schema`,
    /// named with the characters OpenAI allows, at most 64), or `None` if the schema is not JSON.
    pub fn wire(&self) -> Option<serde_json::Value> {
        let schema: serde_json::Value = serde_json::from_str(&self.schema).ok()?;
        Some(response_format(&self.name, &schema))
    }
}

/// The `response_format` field asking for JSON matching `schema`, named `name` with only the
/// characters OpenAI allows (letters, digits, `_`, `-`; at most 64; `output` if none is left).
pub fn response_format(name: &str, schema: &serde_json::Value) -> serde_json::Value {
    let name: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .take(64)
        .collect();
    let name = if name.is_empty() {
        "output".into()
    } else {
        name
    };
    serde_json::json!({
        "type": "json_schema",
        "json_schema": {"name": name, "schema": schema},
    })
}

fn is_off(a: &AgentConfig) -> bool {
    *a == AgentConfig::default()
}

/// What the inspector's report of a request needs besides the request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportAsk {
    /// "Next request" (the module adds when a summary comes first), or when it was sent.
    pub title: String,
    /// Whether an API key goes with the request (the curl command then reads `$SATORI_API_KEY`).
    pub with_key: bool,
    /// Offer the chat's context settings for editing (the next request only).
    pub editable: bool,
}

/// The turns module's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// Whether the request may be sent.
    pub verdict: Verdict,
    /// Prompt tokens of the request.
    pub total: u32,
    /// Whether every count is exact (else `total` is an estimate, to learn from `usage`).
    pub exact: bool,
    /// The window used.
    pub window: u32,
    /// A summary is due first: the request for it (the turns module makes it before sending,
    /// unless the chat's summaries are paused; the inspector only shows that one is due).
    #[serde(skip)]
    pub summary: Option<SummaryRequest>,
    /// The request body (JSON).
    pub body: String,
    /// The inspector's report (a `report::Report` as JSON), when asked for.
    pub report: Option<String>,
    /// The request needs the text of an elided message: ask again with the whole history
    /// (nothing else in this answer counts).
    #[serde(default)]
    pub need_full: bool,
    /// The oldest message (history index) whose text the request needs, among those that may be
    /// elided; `None` when it needs none of them.
    #[serde(default)]
    pub read_from: Option<u32>,
    /// Whether the body asks for structured output (`response_format`).
    #[serde(default)]
    pub formatted: bool,
    /// Images the request would send to a model that does not see them: it is not sent.
    #[serde(default)]
    pub blind: u32,
}

/// What an elided message with text carries instead of it: one character, so it counts no more
/// than its real text (which is never empty) and stays non-empty for the pipeline's scan.
pub const ELIDED: &str = "\u{1}";

/// Whether `m` always goes to the module whole: the head (system prompts, examples), pinned
/// messages (always sent) and the last message the summary covers (the inspector quotes it).
pub fn kept_whole(m: &Message, through: Option<&str>) -> bool {
    m.role == Role::System || m.example || m.pinned || through == Some(m.id.as_str())
}

/// `history` for the module with the text of its first `elided` messages left out (those not
/// [`kept_whole`]): a long chat's old turns, which the window no longer reaches, cost nothing to
/// send. An elided message keeps everything the pipeline's scan reads — id, role, flags, whether
/// it is empty, its tool calls' ids — and [`ELIDED`] for its text.
pub fn elide(history: &[Message], elided: usize, through: Option<&str>) -> Vec<Message> {
    history
        .iter()
        .enumerate()
        .map(|(i, m)| {
            if i >= elided || kept_whole(m, through) {
                return m.clone();
            }
            Message {
                id: m.id.clone(),
                parent: None,
                role: m.role,
                content: if m.content.is_empty() { "" } else { ELIDED }.into(),
                reasoning: String::new(),
                status: m.status,
                finish_reason: None,
                note: None,
                model: None,
                created_at: m.created_at,
                example: m.example,
                usage: None,
                prompt_tokens: None,
                prompt_exact: false,
                reply_tokens: None,
                cost_nanos: None,
                currency: String::new(),
                tool_calls: m
                    .tool_calls
                    .iter()
                    .map(|c| ToolCall {
                        index: c.index,
                        id: c.id.clone(),
                        name: String::new(),
                        arguments: String::new(),
                    })
                    .collect(),
                tool_call_id: m.tool_call_id.clone(),
                pinned: m.pinned,
                excluded: m.excluded,
                structured: None,
                attachments: m.attachments.clone(),
            }
        })
        .collect()
}

/// The oldest message of `history` whose text `context` read or needs: the oldest round the
/// sliding window counted (kept or not: its count decided what was sent), and any message not
/// [`kept_whole`] that is sent in some form or among the turns its summary job retires (when
/// `summarizing`: the summary will be made).
pub fn read_from(
    context: &Context,
    history: &[Message],
    through: Option<&str>,
    summarizing: bool,
) -> Option<usize> {
    let job = context
        .summary_job
        .as_ref()
        .filter(|_| summarizing)
        .map(|j| j.range.clone());
    let needed = context
        .entries
        .iter()
        .zip(history)
        .enumerate()
        .find(|(i, (e, m))| {
            (e.fate.sent() || job.as_ref().is_some_and(|r| r.contains(i)))
                && !kept_whole(m, through)
        })
        .map(|(i, _)| i);
    match (needed, context.reached) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
