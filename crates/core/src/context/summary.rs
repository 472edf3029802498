//! Stage 2, summaries: a stored [`Summary`] stands in for the turns it covers, and when the
//! history is over budget [`plan`] names the turns the shell should summarize next.
//!
//! The summary is sent as a `system` message right after the system prompt (and the template's
//! examples): it is context the model should rely on, not something the user said (a `user`
//! message would be answered) nor something the model said (an `assistant` message would be
//! continued). Pinned messages it covers are still sent as they are.
//!
//! A new summary is made only when turns newly leave the recent part: the first time when
//! anything older than the last `keep_recent_rounds` rounds exists, afterwards only once at least
//! half of `keep_recent_rounds` more rounds have aged out — never once per send. Until then the
//! sliding window trims, and the trimmed rounds go into the next summary (the history keeps them).

use super::count::{Count, Counter};
use super::filter::strip_thoughts;
use super::scan::Scan;
use super::{Config, Fate, Item, Source, SummaryJob};
use crate::session::{Message, Role, Summary};
use std::borrow::Cow;

/// The summary as the model receives it.
pub fn message_text(summary: &str) -> String {
    format!("Summary of the earlier conversation:\n\n{summary}")
}

/// Longest tool output given to the summarizer, characters (start and end kept).
pub const TOOL_CHARS: usize = 4000;

/// The summary as an item of the head.
pub(crate) fn item<'a>(summary: &'a Summary, counter: &mut dyn Counter) -> Item<'a> {
    let mut item = Item {
        source: Source::Summary,
        id: &summary.id,
        role: Role::System,
        content: Cow::Owned(message_text(&summary.text)),
        tool_calls: &[],
        tool_call_id: None,
        pinned: false,
        count: Count::exact(0),
        fate: Fate::Kept,
        images: Vec::new(),
        image_count: Count::exact(0),
    };
    item.recount(counter);
    item
}

/// The next summary to make, if one is due (the history did not fit and enough rounds have aged
/// out of the recent part).
pub(crate) fn plan(
    history: &[&Message],
    scan: &Scan,
    summary: Option<&Summary>,
    cfg: &Config,
) -> Option<SummaryJob> {
    // The round being answered is never summarized.
    let keep = (cfg.keep_recent_rounds as usize).max(1);
    let retire = scan.rounds.len().checked_sub(keep)?;
    let needed = if summary.is_some() && scan.cover.is_some() {
        (keep / 2).max(1)
    } else {
        1
    };
    if retire < needed {
        return None;
    }
    let retired = scan.rounds[0].start..scan.rounds[retire - 1].end;
    let last = retired.clone().rev().find(|&i| scan.candidate[i])?;
    let covers = history[..=last]
        .iter()
        .filter(|m| m.role != Role::System && !m.example)
        .count();
    Some(SummaryJob {
        through: history[last].id.clone(),
        covers: u32::try_from(covers).unwrap_or(u32::MAX),
        previous: summary
            .filter(|_| scan.cover.is_some())
            .map(|s| s.text.clone()),
        range: retired.start..last + 1,
        rounds: u32::try_from(retire).unwrap_or(u32::MAX),
    })
}

/// A message as the summarizer reads it: without thoughts; tool output shortened.
pub(crate) fn turn_text(m: &Message) -> String {
    match m.role {
        Role::Assistant => {
            let mut t = strip_thoughts(&m.content);
            for call in &m.tool_calls {
                t.push_str(&format!("\n[called {}({})]", call.name, call.arguments));
            }
            t
        }
        Role::Tool => {
            let chars = m.content.chars().count();
            if chars <= TOOL_CHARS {
                m.content.clone()
            } else {
                let head: String = m.content.chars().take(TOOL_CHARS / 2).collect();
                let tail: String = m.content.chars().skip(chars - TOOL_CHARS / 2).collect();
                format!("{head}{}{tail}", super::cap::marker(chars - TOOL_CHARS))
            }
        }
        _ => m.content.clone(),
    }
}

/// The conversation the summarizer is asked to summarize, as plain text: the previous summary
/// (to extend) and the retired turns labelled by role.
pub fn transcript(previous: Option<&str>, turns: &[(Role, String)]) -> String {
    let mut out = String::new();
    if let Some(prev) = previous {
        out.push_str("Summary so far:\n");
        out.push_str(prev);
        out.push_str("\n\nConversation since then:\n");
    }
    for (role, text) in turns {
        let who = match role {
            Role::User => "User",
            Role::Assistant => "Assistant",
            Role::Tool => "Tool",
            Role::System => "System",
        };
        out.push_str(who);
        out.push_str(": ");
        out.push_str(text);
        out.push_str("\n\n");
    }
    out.trim_end().to_string()
}

/// What the shell asks the summarizer (in the dialogs module) to do: summarize `turns` (after
/// `previous`, to extend it) into a summary with this id that reaches `through`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SummaryRequest {
    /// Id for the new summary.
    pub id: String,
    /// Time, ms since epoch.
    pub at: i64,
    /// The last message it covers.
    pub through: String,
    /// Messages it covers in all.
    pub covers: u32,
    /// The summary it extends.
    pub previous: Option<String>,
    /// The newly retired turns as the summarizer reads them.
    pub turns: Vec<(Role, String)>,
    /// The chat model's window as the app resolved it.
    pub window: Option<u32>,
}

/// How a summary request ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SummaryAnswer {
    /// Made and guarded: store it.
    Made(Summary),
    /// Failed, with the reason in words.
    Failed(String),
    /// Stopped by the user.
    Stopped,
}
