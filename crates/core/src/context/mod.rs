//! The context pipeline: before every request, the browser builds what the model receives from
//! the chat's history, within the model's window.
//!
//! [`build`] runs pure stages over the visible branch (root first) and one [`Config`]:
//! 1. **role filter** ([`filter`]): excluded messages go, thoughts (`<think>` blocks, ReAct
//!    `Thought:` lines) are dropped from every assistant turn but the latest, tool results older
//!    than the latest tool round become one-line placeholders, long tool output is shortened
//!    head-and-tail, and the tool protocol is repaired (no orphan result, no call without one);
//! 2. **summary** ([`summary`]): a stored summary replaces the turns it covers, right after the
//!    system prompt; when the history is over budget a [`SummaryJob`] says which turns the shell
//!    should summarize next (the pipeline itself never calls anything);
//! 3. **sliding window** ([`window`]): the oldest whole rounds go until the rest fits, never below
//!    `min_keep_rounds`;
//! 4. **pins**: pinned messages (with their tool-call group) are never dropped; when they alone
//!    exceed the budget the request is refused with [`Verdict::PinsOverBudget`];
//! 5. **hard cap** ([`cap`]): the largest content is shortened head-and-tail with a visible marker,
//!    and if even that cannot fit the request is refused ([`Verdict::TooLarge`]).
//!
//! Invariants (checked by property tests): the system prompt comes first, order is kept, a round
//! is never split (a tool result always follows its call, every call has exactly one result, the
//! body never starts with a tool message), the total never exceeds the budget unless the verdict
//! refuses the request, and the history is never changed (it is borrowed). Each stage records what
//! it did in the log and in each message's [`Fate`], for the inspector and the tests.

pub mod ask;
pub mod cap;
pub mod count;
pub mod facts;
pub mod filter;
pub mod models;
pub mod report;
mod scan;
pub mod summary;
pub mod window;

#[cfg(test)]
mod tests;

use crate::attachment::{image_tokens, read, Attachment, Kind};
use crate::session::{Message, MessageId, Role, Summary, ToolCall};
use count::{message_tokens, Count, Counter, PRIMING};
use std::borrow::Cow;
use std::fmt;

/// Everything the pipeline needs to know about the model and the user's preferences.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// The model's context window, tokens.
    pub window: u32,
    /// Tokens kept free for the reply.
    pub reply_reserve: u32,
    /// Tokens kept free for counting error (larger when counts are estimated).
    pub margin: u32,
    /// Rounds at the end never summarized.
    pub keep_recent_rounds: u32,
    /// Rounds at the end never dropped by the sliding window.
    pub min_keep_rounds: u32,
    /// Whether old turns may be summarized.
    pub summarize: bool,
    /// Largest tool result (or recalled text) sent whole, tokens.
    pub item_cap: u32,
    /// Rounds at the end whose images are sent (older ones go as placeholders).
    pub image_rounds: u32,
    /// Whether the model sees images (if not, a request with an image is refused).
    pub images: bool,
    /// Whether images are counted by the model's own formula (else estimated).
    pub images_exact: bool,
}

impl Config {
    /// Tokens the request may use: window − reply reserve − margin.
    pub fn budget(&self) -> u32 {
        self.window
            .saturating_sub(self.reply_reserve)
            .saturating_sub(self.margin)
    }
}

/// What became of a message of the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Sent as it is.
    Kept,
    /// Sent with its thoughts removed.
    Stripped,
    /// Sent shortened head-and-tail (a long tool result, or the hard cap).
    Cut,
    /// A tool result sent as a one-line placeholder.
    Placeholder,
    /// Covered by the summary.
    Summarized,
    /// Removed by the sliding window (or by repair, for an orphan tool result).
    Dropped,
    /// Excluded by the user.
    Excluded,
    /// Not sent because it holds nothing (a reply that failed before any text).
    Empty,
}

impl Fate {
    /// The word the inspector shows.
    pub fn as_str(self) -> &'static str {
        match self {
            Fate::Kept => "kept",
            Fate::Stripped => "kept, thoughts removed",
            Fate::Cut => "cut",
            Fate::Placeholder => "placeholder",
            Fate::Summarized => "summarized",
            Fate::Dropped => "dropped",
            Fate::Excluded => "excluded",
            Fate::Empty => "empty",
        }
    }

    /// Whether the message (in some form) is in the request.
    pub fn sent(self) -> bool {
        matches!(
            self,
            Fate::Kept | Fate::Stripped | Fate::Cut | Fate::Placeholder
        )
    }
}

/// Where a message of the request comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The history message at this index.
    History(usize),
    /// The stored summary.
    Summary,
    /// Added by repair: the result of a call that had none.
    Repair,
    /// Added by agent mode: the ReAct instructions, in a chat without a system prompt.
    Agent,
}

/// One message of the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// Where it comes from.
    pub source: Source,
    /// Its role.
    pub role: Role,
    /// Text as sent.
    pub content: String,
    /// Tool calls (assistant).
    pub tool_calls: Vec<ToolCall>,
    /// The call a `tool` message answers.
    pub tool_call_id: Option<String>,
    /// Pinned by the user (or in a pinned tool-call group).
    pub pinned: bool,
    /// Tokens with overhead.
    pub tokens: u32,
    /// Images sent with it (a question's, in the rounds whose images are kept).
    pub images: Vec<Attachment>,
}

/// What the pipeline did to one history message (`entries[i]` is about `history[i]`), for the
/// inspector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Tokens of the message as stored (with overhead); 0 when not counted ([`build_lean`]).
    pub tokens: u32,
    /// Tokens as sent (0 when not sent).
    pub sent_tokens: u32,
    /// What became of it.
    pub fate: Fate,
}

/// One thing a stage did, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Messages excluded by the user.
    Excluded(u32),
    /// Thoughts removed from an older assistant turn.
    Stripped(MessageId),
    /// An older tool result replaced by a placeholder.
    Placeholder(MessageId, u32),
    /// A tool result shortened to the per-item cap.
    Capped(MessageId, u32, u32),
    /// A question's images sent as placeholders (the message, how many).
    ImagesOmitted(MessageId, u32),
    /// A tool result with no matching call (or a second one) was left out.
    Orphan(MessageId),
    /// A call without a result got a placeholder result.
    NoResult(String),
    /// The stored summary replaced this many messages.
    Summary(u32, u32),
    /// A new summary of this many rounds would bring the history within budget.
    SummaryWanted(u32),
    /// The oldest rounds were left out (rounds, messages).
    RoundsDropped(u32, u32),
    /// A message was cut to fit (id or "summary", tokens before, after).
    Cut(String, u32, u32),
    /// The request was refused.
    Refused,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Excluded(n) => write!(f, "filter: {n} excluded message(s) left out"),
            Step::Stripped(id) => write!(f, "filter: thoughts removed from {id}"),
            Step::Placeholder(id, t) => {
                write!(
                    f,
                    "filter: older tool result {id} ({t} tokens) → placeholder"
                )
            }
            Step::Capped(id, a, b) => write!(f, "filter: tool result {id} cut {a} → {b} tokens"),
            Step::ImagesOmitted(id, n) => write!(
                f,
                "filter: {n} image(s) of {id} sent as placeholders (older rounds, or a model that does not see images)"
            ),
            Step::Orphan(id) => write!(f, "repair: tool result {id} has no call; left out"),
            Step::NoResult(call) => {
                write!(f, "repair: call {call} had no result; placeholder added")
            }
            Step::Summary(n, t) => {
                write!(f, "summary: {n} message(s) sent as a summary of {t} tokens")
            }
            Step::SummaryWanted(r) => write!(f, "summary: {r} older round(s) should be summarized"),
            Step::RoundsDropped(r, n) => write!(
                f,
                "window: the oldest {r} round(s) left out ({n} message(s))"
            ),
            Step::Cut(id, a, b) => write!(f, "hard cap: {id} cut {a} → {b} tokens"),
            Step::Refused => write!(f, "refused: the request cannot fit the budget"),
        }
    }
}

/// Whether the request may be sent. Between the turns module and the app it travels as
/// [`VerdictWire`] (a flat record decodes with much less code in the app's first load).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(from = "VerdictWire", into = "VerdictWire")]
pub enum Verdict {
    /// Within budget.
    Fits,
    /// Pinned messages (with the system prompt and summary) alone exceed the budget.
    PinsOverBudget {
        /// Tokens the pins need.
        pinned: u32,
        /// The budget.
        budget: u32,
    },
    /// Even with everything cut as far as allowed, the request does not fit.
    TooLarge {
        /// Tokens it would still need.
        need: u32,
        /// The budget.
        budget: u32,
    },
}

/// [`Verdict`] as it is written: `{}` fits, `pinned` says the pins are over budget, `need` that
/// the request is too large.
#[derive(Debug, Clone, Copy, Default, serde::Serialize, serde::Deserialize)]
struct VerdictWire {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pinned: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    need: Option<u32>,
    #[serde(default)]
    budget: u32,
}

impl From<VerdictWire> for Verdict {
    fn from(w: VerdictWire) -> Self {
        match (w.pinned, w.need) {
            (Some(pinned), _) => Verdict::PinsOverBudget {
                pinned,
                budget: w.budget,
            },
            (None, Some(need)) => Verdict::TooLarge {
                need,
                budget: w.budget,
            },
            (None, None) => Verdict::Fits,
        }
    }
}

impl From<Verdict> for VerdictWire {
    fn from(v: Verdict) -> Self {
        match v {
            Verdict::Fits => VerdictWire::default(),
            Verdict::PinsOverBudget { pinned, budget } => VerdictWire {
                pinned: Some(pinned),
                budget,
                ..Default::default()
            },
            Verdict::TooLarge { need, budget } => VerdictWire {
                need: Some(need),
                budget,
                ..Default::default()
            },
        }
    }
}

/// How the window is spent, for the inspector's bar.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Parts {
    /// System prompt and few-shot examples.
    pub system: u32,
    /// The summary.
    pub summary: u32,
    /// Pinned messages.
    pub pinned: u32,
    /// The rest of the history.
    pub history: u32,
    /// Reply priming.
    pub priming: u32,
}

/// Turns the shell should summarize next: everything after the preamble up to `through`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryJob {
    /// The last message to cover.
    pub through: MessageId,
    /// Messages it will cover in all (with those of the previous summary).
    pub covers: u32,
    /// The previous summary's text, to extend.
    pub previous: Option<String>,
    /// The history indices of the newly retired turns (read them with [`SummaryJob::turns`]).
    pub range: std::ops::Range<usize>,
    /// Rounds newly retired.
    pub rounds: u32,
}

impl SummaryJob {
    /// The newly retired turns of `history` (the history the job was planned on), oldest first,
    /// as the summarizer reads them: thoughts removed, tool output shortened, excluded and empty
    /// messages left out.
    pub fn turns(&self, history: &[&Message]) -> Vec<(Role, String)> {
        history
            .get(self.range.clone())
            .unwrap_or_default()
            .iter()
            .filter(|m| !m.excluded)
            .map(|m| (m.role, summary::turn_text(m)))
            .filter(|(_, t)| !t.trim().is_empty())
            .collect()
    }
}

/// The request the pipeline built and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Context {
    /// The messages to send, in order.
    pub messages: Vec<Sent>,
    /// One entry per history message.
    pub entries: Vec<Entry>,
    /// What the stages did.
    pub log: Vec<Step>,
    /// Tokens of the request (messages + priming).
    pub total: u32,
    /// The budget it had.
    pub budget: u32,
    /// Whether every count was exact.
    pub exact: bool,
    /// How the total divides.
    pub parts: Parts,
    /// Whether it may be sent.
    pub verdict: Verdict,
    /// A summary that would help (the shell makes it, stores it and builds again).
    pub summary_job: Option<SummaryJob>,
    /// The first history message of the oldest round the sliding window read (counted), whether
    /// it kept that round or not: nothing older was read but pinned groups and the head.
    pub reached: Option<usize>,
}

/// A message being worked on: a history message (possibly changed), the summary, or a repair.
#[derive(Debug, Clone)]
pub(crate) struct Item<'a> {
    pub source: Source,
    pub id: &'a str,
    pub role: Role,
    pub content: Cow<'a, str>,
    pub tool_calls: &'a [ToolCall],
    pub tool_call_id: Option<&'a str>,
    pub pinned: bool,
    pub count: Count,
    pub fate: Fate,
    /// Images sent with it.
    pub images: Vec<Attachment>,
    /// What they cost.
    pub image_count: Count,
}

impl Item<'_> {
    pub(crate) fn recount(&mut self, counter: &mut dyn Counter) {
        self.count = message_tokens(
            counter,
            self.role,
            &self.content,
            self.tool_calls,
            self.tool_call_id,
        )
        .plus(self.image_count);
    }
}

/// What `images` cost: the tile formula, exact for the models it is theirs
/// ([`Config::images_exact`]), else an estimate.
pub(crate) fn images_count<'a>(
    images: impl Iterator<Item = &'a Attachment>,
    cfg: &Config,
) -> Count {
    let tokens = images.filter(|a| a.kind == Kind::Image).fold(0u32, |t, a| {
        t.saturating_add(image_tokens(a.width, a.height))
    });
    match tokens {
        0 => Count::exact(0),
        t if cfg.images_exact => Count::exact(t),
        t => Count::estimated(t),
    }
}

/// The request being assembled: head (system prompt, examples, summary), then the body.
pub(crate) struct Work<'a> {
    pub items: Vec<Item<'a>>,
    /// Items before this position are the head (never dropped by the window).
    pub head: usize,
    pub log: Vec<Step>,
}

impl Work<'_> {
    pub(crate) fn total(&self) -> u32 {
        sum(&self.items)
    }
}

/// Tokens of `items` plus the reply's priming.
pub(crate) fn sum(items: &[Item<'_>]) -> u32 {
    items
        .iter()
        .fold(PRIMING, |t, i| t.saturating_add(i.count.tokens))
}

/// Build the request for answering `history` (the visible branch, root first, without the reply
/// being written), using `summary` if one covers part of it. Every history message gets its
/// stored token count in [`Context::entries`] (for the inspector); [`build_lean`] skips that.
pub fn build(
    history: &[&Message],
    summary: Option<&Summary>,
    cfg: &Config,
    counter: &mut dyn Counter,
) -> Context {
    let mut ctx = build_lean(history, summary, cfg, counter);
    for (entry, m) in ctx.entries.iter_mut().zip(history) {
        let c = message_tokens(
            counter,
            m.role,
            &m.content,
            &m.tool_calls,
            m.tool_call_id.as_deref(),
        )
        .plus(images_count(read(&m.attachments).iter(), cfg));
        entry.tokens = c.tokens;
        ctx.exact &= c.exact;
    }
    ctx
}

/// [`build`] for sending: it reads only what the request can hold — the head, the pinned
/// messages and the newest rounds — so its cost does not grow with the history's text (old
/// rounds that cannot fit are never counted). `entries[i].tokens` is 0 for messages not sent.
pub fn build_lean(
    history: &[&Message],
    summary: Option<&Summary>,
    cfg: &Config,
    counter: &mut dyn Counter,
) -> Context {
    let budget = cfg.budget();
    let summary = summary.filter(|_| cfg.summarize);
    let mut scan = scan::scan(history, summary, cfg);
    let mut fates = std::mem::take(&mut scan.fates);
    let mut log = Vec::new();
    if scan.excluded > 0 {
        log.push(Step::Excluded(scan.excluded));
    }
    // The head, and the summary right after it.
    let mut head = filter::materialize(
        history,
        &scan,
        scan.head.iter().copied(),
        cfg,
        counter,
        &mut log,
    );
    if let (Some(s), Some(covered)) = (summary, scan.cover) {
        let item = summary::item(s, counter);
        log.push(Step::Summary(scan.summarized, item.count.tokens));
        let _ = covered;
        head.push(item);
    }
    let selection = window::select(history, &scan, &head, cfg, budget, counter, &mut log);
    let reached = selection.reached;
    let summary_job = if cfg.summarize && selection.over {
        summary::plan(history, &scan, summary, cfg)
    } else {
        None
    };
    if let Some(job) = &summary_job {
        log.push(Step::SummaryWanted(job.rounds));
    }
    let mut work = Work {
        head: head.len(),
        items: head,
        log,
    };
    work.items.extend(selection.body);
    let mut verdict = Verdict::Fits;
    if work.total() > budget {
        let pinned_need = sum(&work
            .items
            .iter()
            .enumerate()
            .filter(|(n, i)| *n < work.head || i.pinned)
            .map(|(_, i)| i.clone())
            .collect::<Vec<_>>());
        if pinned_need > budget && work.items.iter().any(|i| i.pinned) {
            verdict = Verdict::PinsOverBudget {
                pinned: pinned_need,
                budget,
            };
        } else if !cap::fit(&mut work, budget, counter) {
            verdict = Verdict::TooLarge {
                need: work.total(),
                budget,
            };
        }
    }
    if verdict != Verdict::Fits {
        work.log.push(Step::Refused);
    }
    for item in &work.items {
        if let Source::History(i) = item.source {
            fates[i] = item.fate;
        }
    }
    let mut context = finish(work, history, fates, budget, verdict, summary_job);
    context.reached = reached;
    context
}

fn finish(
    work: Work<'_>,
    history: &[&Message],
    fates: Vec<Fate>,
    budget: u32,
    verdict: Verdict,
    summary_job: Option<SummaryJob>,
) -> Context {
    let total = work.total();
    let mut parts = Parts {
        priming: PRIMING,
        ..Parts::default()
    };
    let mut sent_tokens = vec![0u32; history.len()];
    let mut exact = true;
    for (n, item) in work.items.iter().enumerate() {
        exact &= item.count.exact;
        let t = item.count.tokens;
        match &item.source {
            Source::Summary => parts.summary += t,
            _ if n < work.head => parts.system += t,
            _ if item.pinned => parts.pinned += t,
            _ => parts.history += t,
        }
        if let Source::History(i) = item.source {
            if let Some(s) = sent_tokens.get_mut(i) {
                *s = t;
            }
        }
    }
    let entries = sent_tokens
        .iter()
        .zip(&fates)
        .map(|(&t, &fate)| Entry {
            tokens: t,
            sent_tokens: t,
            fate,
        })
        .collect();
    let messages = work
        .items
        .into_iter()
        .map(|i| Sent {
            source: i.source,
            role: i.role,
            content: i.content.into_owned(),
            tool_calls: i.tool_calls.to_vec(),
            tool_call_id: i.tool_call_id.map(str::to_string),
            pinned: i.pinned,
            tokens: i.count.tokens,
            images: i.images,
        })
        .collect();
    Context {
        messages,
        entries,
        log: work.log,
        total,
        budget,
        exact,
        parts,
        verdict,
        summary_job,
        reached: None,
    }
}
