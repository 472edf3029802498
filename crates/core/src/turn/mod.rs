//! One request of a turn — asking the model for a reply and reading its stream — as a pure state
//! machine.
//!
//! The shell feeds [`Event`]s (bytes arrived, the stream ended, the request failed, the user
//! stopped, a retry wait is over) into [`Turn::on`] and runs the [`Effect`]s it returns (send the
//! request, wait, abort, render, checkpoint, finish). Everything else lives here: decoding the
//! event stream, accumulating content, reasoning, tool-call deltas and usage, retrying a rate-limited
//! request, deciding when to checkpoint, and how the reply ends ([`Ending`]: its status, note,
//! the session commands that record it, and which actions the error offers).
//!
//! Invariants (tested in `tests.rs`):
//! - after a [`Effect::Finish`] the turn ignores every further event (no second ending);
//! - the text of the ending equals the concatenation of every content delta, at any byte split;
//! - a reply that failed before any text arrived is discarded, never kept empty and incomplete;
//! - once the user stopped, the ending is `Stopped` whatever error the abort produces;
//! - time comes in with each event; the machine reads no clock.

use crate::provider::error::{backoff_seconds, ApiError};
use crate::provider::stream::{parse_event, StreamUpdate, ToolCallDelta, Usage};
use crate::session::{Command, MessageId, Status, ToolCall};
use crate::sse::{SseDecoder, SseItem};
use serde::{Deserialize, Serialize};

#[cfg(test)]
mod tests;

/// How many times a rate-limited request is retried automatically.
pub const RATE_LIMIT_RETRIES: u32 = 3;
/// Minimum time between checkpoints of a streaming reply, ms.
pub const CHECKPOINT_MS: i64 = 1000;

/// The rules a turn runs by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnConfig {
    /// Seconds without a byte before the stream counts as stalled (reported in the error).
    pub stall_seconds: u32,
    /// Automatic retries of a rate-limited request.
    pub rate_limit_retries: u32,
    /// Minimum time between checkpoints, ms.
    pub checkpoint_ms: i64,
}

impl TurnConfig {
    /// The defaults with this stall timeout.
    pub fn new(stall_seconds: u32) -> Self {
        TurnConfig {
            stall_seconds,
            rate_limit_retries: RATE_LIMIT_RETRIES,
            checkpoint_ms: CHECKPOINT_MS,
        }
    }
}

/// Something that happened to the request.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Bytes of the response body arrived at `now`.
    Bytes(Vec<u8>),
    /// The body ended.
    End,
    /// The request or the stream failed.
    Failed(ApiError),
    /// The request was aborted (by [`Event::Stop`], a chat switch or the page going away).
    Aborted,
    /// The user asked to stop (Stop button, Esc).
    Stop,
    /// A [`Effect::Wait`] is over.
    Waited,
}

/// What the shell must do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send the request (again).
    Request,
    /// Wait `seconds`, showing a countdown, then feed [`Event::Waited`]: retry `attempt` of `of`.
    Wait {
        /// Seconds to wait.
        seconds: u32,
        /// The retry about to happen (1-based).
        attempt: u32,
        /// How many retries there are at most.
        of: u32,
    },
    /// Abort the request in flight (the stream stalled, or the user stopped).
    Abort,
    /// New text arrived: show it (the shell batches this per animation frame).
    Render,
    /// Save the reply as it is so far ([`Turn::snapshot`]).
    Checkpoint,
    /// The reply is over.
    Finish(Ending),
}

/// Why a finished reply carries a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// The reply reached the max tokens limit.
    Truncated,
    /// The provider's content filter cut it.
    Filtered,
    /// The stream ended properly with no visible text.
    NoAnswer,
    /// The reply broke off with this error.
    Failed(ApiError),
}

/// How a reply ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Ending {
    /// Final status of the reply (`Complete`, `Stopped` or `Incomplete`).
    pub status: Status,
    /// The server's finish reason, when it gave one.
    pub finish_reason: Option<String>,
    /// Why the reply carries a note.
    pub note: Option<Note>,
    /// The error to show, if the reply failed.
    pub error: Option<ApiError>,
    /// Whether the reply is discarded (it failed before any text arrived).
    pub discard: bool,
    /// Offer "Retry" with the error (nothing was kept to retry from).
    pub offer_retry: bool,
    /// Offer "Open Settings" with the error (the cause is likely a setting).
    pub offer_settings: bool,
}

impl Ending {
    /// The session commands that record this ending for reply `id`, with `note` already in words.
    pub fn commands(&self, turn: &Turn, note: Option<String>, at: i64) -> Vec<Command> {
        Outcome::of(turn, self, note, None).commands(&turn.reply, at)
    }
}

/// An alert to show with a reply's ending.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alerted {
    /// What happened, in words.
    pub text: String,
    /// Offer "Retry".
    #[serde(default)]
    pub retry: bool,
    /// Offer "Open Settings".
    #[serde(default)]
    pub settings: bool,
    /// Offer unpinning every pinned message and sending again.
    #[serde(default)]
    pub unpin: bool,
    /// Offer "Use the in-browser model" (no local server answered).
    #[serde(default)]
    pub local: bool,
}

/// A reply as it ended, for the app to record: what the turns module hands back when the turn
/// it ran is over (the app turns it into session commands with [`Outcome::commands`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// Final status.
    pub status: Status,
    /// Visible text.
    #[serde(default)]
    pub content: String,
    /// Reasoning.
    #[serde(default)]
    pub reasoning: String,
    /// Tool calls.
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    /// The server's counts.
    #[serde(default)]
    pub usage: Option<Usage>,
    /// The request's tokens as Satori counted them (recorded on the reply when the server
    /// reports none), and whether exactly; see [`Outcome::counted`].
    #[serde(default)]
    pub prompt_tokens: Option<u64>,
    /// Whether `prompt_tokens` is exact.
    #[serde(default)]
    pub prompt_exact: bool,
    /// The reply's tokens, estimated (when the server reported none).
    #[serde(default)]
    pub reply_tokens: Option<u64>,
    /// What the reply cost, in billionths of `currency`, where the price is known.
    #[serde(default)]
    pub cost_nanos: Option<u64>,
    /// The currency of `cost_nanos`.
    #[serde(default)]
    pub currency: String,
    /// The server's finish reason.
    #[serde(default)]
    pub finish_reason: Option<String>,
    /// A note in words.
    #[serde(default)]
    pub note: Option<String>,
    /// The reply holds nothing and is removed.
    #[serde(default)]
    pub discard: bool,
    /// The alert to show, if any.
    #[serde(default)]
    pub alert: Option<Alerted>,
    /// The server refused the tools offered (agent mode switches to ReAct text and asks again).
    #[serde(default)]
    pub refused_tools: bool,
    /// The server refused structured output (`response_format`): the reply is asked again
    /// without it.
    #[serde(default)]
    pub refused_format: bool,
}

impl Outcome {
    /// A reply that was never sent: stopped (`alert: None`: kept, empty and stopped, to
    /// regenerate) or refused before sending (removed).
    pub fn not_sent(alert: Option<Alerted>) -> Outcome {
        Outcome {
            status: if alert.is_some() {
                Status::Incomplete
            } else {
                Status::Stopped
            },
            content: String::new(),
            reasoning: String::new(),
            tool_calls: Vec::new(),
            usage: None,
            prompt_tokens: None,
            prompt_exact: false,
            reply_tokens: None,
            cost_nanos: None,
            currency: String::new(),
            finish_reason: None,
            note: None,
            discard: alert.is_some(),
            alert,
            refused_tools: false,
            refused_format: false,
        }
    }

    /// The ending of `turn` (`note` in words).
    pub fn of(turn: &Turn, ending: &Ending, note: Option<String>, alert: Option<Alerted>) -> Self {
        Outcome {
            status: ending.status,
            content: turn.content.clone(),
            reasoning: turn.reasoning.clone(),
            tool_calls: turn.tool_calls.clone(),
            usage: turn.usage.clone(),
            prompt_tokens: None,
            prompt_exact: false,
            reply_tokens: None,
            cost_nanos: None,
            currency: String::new(),
            finish_reason: ending.finish_reason.clone(),
            note: if ending.discard { None } else { note },
            discard: ending.discard,
            alert,
            refused_tools: false,
            refused_format: false,
        }
    }

    /// The ending with the request's size as Satori counted it (`prompt`: tokens, exact) and
    /// the reply's cost at `price` (the model's, if known): the tokens the server reported, else
    /// Satori's count and an estimate of the reply (kept: [`crate::reply_meta::counts`]).
    pub fn counted(mut self, prompt: (u64, bool), price: Option<&crate::settings::Price>) -> Self {
        // Nothing received (the request failed, or was stopped before a word): nothing to count
        // or price.
        let nothing = self.content.is_empty()
            && self.reasoning.is_empty()
            && self.tool_calls.is_empty()
            && self.usage.is_none();
        if nothing {
            return self;
        }
        self.prompt_tokens = Some(prompt.0);
        self.prompt_exact = prompt.1;
        if self
            .usage
            .as_ref()
            .and_then(|u| u.completion_tokens)
            .is_none()
        {
            // Text, reasoning and the calls the reply asked for are all written tokens.
            let estimate = |t: &str| u64::from(crate::context::count::estimate(t));
            let calls: u64 = self
                .tool_calls
                .iter()
                .map(|c| estimate(&c.name) + estimate(&c.arguments))
                .sum();
            self.reply_tokens = Some(estimate(&self.content) + estimate(&self.reasoning) + calls);
        }
        let (input, output) = crate::reply_meta::counts(
            self.usage.as_ref(),
            self.prompt_tokens,
            self.prompt_exact,
            self.reply_tokens,
        );
        if let (Some(price), Some(input), Some(output)) = (price, input, output) {
            self.cost_nanos = Some(crate::reply_meta::cost_nanos(price, input, output));
            self.currency = price.currency.clone();
        }
        self
    }

    /// The session commands that record it for reply `id` (as [`Ending::commands`]).
    pub fn commands(&self, id: &MessageId, at: i64) -> Vec<Command> {
        let mut cmds = vec![Command::SetReply {
            id: id.clone(),
            content: self.content.clone(),
            reasoning: self.reasoning.clone(),
        }];
        if !self.tool_calls.is_empty() {
            cmds.push(Command::SetToolCalls {
                id: id.clone(),
                tool_calls: self.tool_calls.clone(),
            });
        }
        if let Some(usage) = &self.usage {
            cmds.push(Command::SetUsage {
                id: id.clone(),
                usage: usage.clone(),
            });
        }
        let prompt = self
            .prompt_tokens
            .filter(|_| self.usage.as_ref().and_then(|u| u.prompt_tokens).is_none())
            .map(|t| (t, self.prompt_exact));
        let cost = self.cost_nanos.map(|n| (n, self.currency.clone()));
        if prompt.is_some() || cost.is_some() || self.reply_tokens.is_some() {
            cmds.push(Command::SetCounts {
                id: id.clone(),
                prompt,
                reply: self.reply_tokens,
                cost,
            });
        }
        cmds.push(Command::FinishReply {
            id: id.clone(),
            status: self.status,
            finish_reason: self.finish_reason.clone(),
            note: self.note.clone(),
            at,
        });
        if self.discard {
            cmds.push(Command::DiscardEmptyReply { id: id.clone() });
        }
        cmds
    }
}

/// Whether an error is likely fixed in Settings.
pub fn settings_may_fix(err: &ApiError) -> bool {
    matches!(
        err,
        ApiError::Auth { .. }
            | ApiError::NotFound { .. }
            | ApiError::Network
            | ApiError::Redirected
            | ApiError::NotAStream { .. }
            | ApiError::Http { .. }
            | ApiError::ContextTooLarge { .. }
    )
}

/// One reply being asked for and read.
#[derive(Debug)]
pub struct Turn {
    reply: MessageId,
    cfg: TurnConfig,
    decoder: SseDecoder,
    content: String,
    reasoning: String,
    tool_calls: Vec<ToolCall>,
    rendered: (usize, usize),
    usage: Option<Usage>,
    finish_reason: Option<String>,
    attempt: u32,
    received: bool,
    stopping: bool,
    last_checkpoint: i64,
    ended: bool,
}

impl Turn {
    /// A turn for reply `reply`, started at `now`; the first effect is [`Effect::Request`].
    pub fn new(reply: MessageId, cfg: TurnConfig, now: i64) -> (Turn, Vec<Effect>) {
        let turn = Turn {
            reply,
            cfg,
            decoder: SseDecoder::new(),
            content: String::new(),
            reasoning: String::new(),
            tool_calls: Vec::new(),
            rendered: (0, 0),
            usage: None,
            finish_reason: None,
            attempt: 0,
            received: false,
            stopping: false,
            last_checkpoint: now,
            ended: false,
        };
        (turn, vec![Effect::Request])
    }

    /// Visible text so far.
    pub fn content(&self) -> &str {
        &self.content
    }

    /// Whether the user asked to stop (or the request was aborted).
    pub fn stopping(&self) -> bool {
        self.stopping
    }

    /// Whether the turn has finished.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Content and reasoning that arrived since the last call (what a render must append).
    pub fn unrendered(&mut self) -> (&str, &str) {
        let (c, r) = self.rendered;
        self.rendered = (self.content.len(), self.reasoning.len());
        (&self.content[c..], &self.reasoning[r..])
    }

    /// The token counts the server reported, if it did.
    pub fn usage(&self) -> Option<&Usage> {
        self.usage.as_ref()
    }

    /// The command that writes the reply as it is now (checkpoints and the final save).
    pub fn snapshot(&self) -> Command {
        Command::SetReply {
            id: self.reply.clone(),
            content: self.content.clone(),
            reasoning: self.reasoning.clone(),
        }
    }

    /// Feed one event that happened at `now`; returns what to do, in order.
    pub fn on(&mut self, event: Event, now: i64) -> Vec<Effect> {
        if self.ended {
            return Vec::new();
        }
        match event {
            Event::Bytes(bytes) => {
                self.received = true;
                let before = (self.content.len(), self.reasoning.len());
                let items = self.decoder.push(&bytes);
                if let Some(result) = self.take(items) {
                    return self.end(result);
                }
                let mut out = Vec::new();
                if (self.content.len(), self.reasoning.len()) != before {
                    out.push(Effect::Render);
                }
                if now - self.last_checkpoint >= self.cfg.checkpoint_ms {
                    self.last_checkpoint = now;
                    out.push(Effect::Checkpoint);
                }
                out
            }
            Event::End => {
                let items = self.decoder.finish();
                let result = self.take(items).unwrap_or_else(|| {
                    if self.finish_reason.is_some() {
                        Ok(self.finish_reason.clone())
                    } else {
                        Err(ApiError::Cut)
                    }
                });
                self.end(result)
            }
            Event::Failed(err) => {
                if let ApiError::RateLimited { retry_after, .. } = &err {
                    if !self.received
                        && !self.stopping
                        && self.attempt < self.cfg.rate_limit_retries
                    {
                        let seconds = backoff_seconds(*retry_after, self.attempt);
                        self.attempt += 1;
                        return vec![Effect::Wait {
                            seconds,
                            attempt: self.attempt,
                            of: self.cfg.rate_limit_retries,
                        }];
                    }
                }
                let stalled = matches!(err, ApiError::Stalled { .. });
                let mut out = if stalled {
                    vec![Effect::Abort]
                } else {
                    Vec::new()
                };
                out.extend(self.end(Err(err)));
                out
            }
            Event::Aborted => {
                self.stopping = true;
                self.end(Ok(self.finish_reason.clone()))
            }
            Event::Stop => {
                self.stopping = true;
                vec![Effect::Abort]
            }
            Event::Waited if self.stopping => self.end(Ok(None)),
            Event::Waited => vec![Effect::Request],
        }
    }

    /// Apply decoded stream items; `Some(result)` when they end the reply.
    fn take(&mut self, items: Vec<SseItem>) -> Option<Result<Option<String>, ApiError>> {
        for item in items {
            let SseItem::Event(event) = item else {
                continue;
            };
            let updates = match parse_event(&event) {
                Ok(u) => u,
                Err(e) => return Some(Err(ApiError::BadChunk(e.to_string()))),
            };
            for u in updates {
                match u {
                    StreamUpdate::Content(t) => self.content.push_str(&t),
                    StreamUpdate::Reasoning(t) => self.reasoning.push_str(&t),
                    StreamUpdate::ToolCall(d) => self.add_tool_call(d),
                    StreamUpdate::Finish(r) => self.finish_reason = Some(r),
                    StreamUpdate::Usage(u) => self.usage = Some(u),
                    StreamUpdate::Error { message, .. } => {
                        return Some(Err(ApiError::InStream { message }))
                    }
                    StreamUpdate::Done => return Some(Ok(self.finish_reason.clone())),
                }
            }
        }
        None
    }

    /// Merge a streamed tool-call fragment: the first fragment of an index names the call,
    /// later ones append to its arguments.
    fn add_tool_call(&mut self, d: ToolCallDelta) {
        let at = match self.tool_calls.iter().position(|c| c.index == d.index) {
            Some(i) => i,
            None => {
                self.tool_calls.push(ToolCall {
                    index: d.index,
                    ..ToolCall::default()
                });
                self.tool_calls.len() - 1
            }
        };
        let call = &mut self.tool_calls[at];
        if let Some(id) = d.id {
            call.id = id;
        }
        if let Some(name) = d.name {
            call.name.push_str(&name);
        }
        call.arguments.push_str(&d.arguments);
    }

    fn end(&mut self, result: Result<Option<String>, ApiError>) -> Vec<Effect> {
        self.ended = true;
        // Every call needs an id of its own for its result to answer it: a server that sent
        // none (or the same one twice) gets one made up.
        let mut seen: Vec<String> = Vec::new();
        for (i, call) in self.tool_calls.iter_mut().enumerate() {
            if call.id.is_empty() || seen.contains(&call.id) {
                call.id = format!("call-{}-{i}", self.reply);
            }
            seen.push(call.id.clone());
        }
        let empty =
            self.content.is_empty() && self.reasoning.is_empty() && self.tool_calls.is_empty();
        let ending = match result {
            Ok(reason) if self.stopping => Ending {
                status: Status::Stopped,
                finish_reason: reason,
                ..Ending::quiet()
            },
            Ok(reason) => {
                let note = match reason.as_deref() {
                    Some("length") => Some(Note::Truncated),
                    Some("content_filter") => Some(Note::Filtered),
                    _ if self.content.is_empty() && self.tool_calls.is_empty() => {
                        Some(Note::NoAnswer)
                    }
                    _ => None,
                };
                Ending {
                    status: Status::Complete,
                    finish_reason: reason,
                    note,
                    ..Ending::quiet()
                }
            }
            Err(_) if self.stopping => Ending {
                status: Status::Stopped,
                ..Ending::quiet()
            },
            Err(err) => Ending {
                status: Status::Incomplete,
                finish_reason: None,
                note: Some(Note::Failed(err.clone())),
                discard: empty,
                offer_retry: empty,
                offer_settings: settings_may_fix(&err),
                error: Some(err),
            },
        };
        vec![Effect::Finish(ending)]
    }
}

impl Ending {
    fn quiet() -> Self {
        Ending {
            status: Status::Complete,
            finish_reason: None,
            note: None,
            error: None,
            discard: false,
            offer_retry: false,
            offer_settings: false,
        }
    }
}
