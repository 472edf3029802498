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

use super::count::Counter;
use super::filter::strip_thoughts;
use super::window::rounds;
use super::{groups, Config, Fate, Item, Source, Step, SummaryJob, Work};
use crate::core::session::{Message, Role, Summary};

/// The summary as the model receives it.
pub fn message_text(summary: &str) -> String {
    format!("Summary of the earlier conversation:\n\n{summary}")
}

/// Longest tool output given to the summarizer, characters (start and end kept).
pub const TOOL_CHARS: usize = 4000;

/// Replace the messages `summary` covers by the summary (pinned groups stay).
pub(crate) fn apply(
    work: &mut Work,
    history: &[&Message],
    summary: Option<&Summary>,
    counter: &mut dyn Counter,
) {
    let Some(summary) = summary else { return };
    let Some(through) = history.iter().position(|m| m.id == summary.through) else {
        return;
    };
    if history[through].role == Role::System || history[through].example {
        return; // it covers nothing of the conversation
    }
    let group = groups(&work.items);
    let mut pinned_group = vec![false; group.last().map_or(0, |g| g + 1)];
    for (n, item) in work.items.iter().enumerate() {
        if item.pinned {
            pinned_group[group[n]] = true;
        }
    }
    let mut covered = 0u32;
    let mut kept = Vec::with_capacity(work.items.len());
    for (n, item) in std::mem::take(&mut work.items).into_iter().enumerate() {
        let inside = matches!(item.source, Source::History(i) if i <= through) && !item.head;
        if inside && !pinned_group[group[n]] {
            covered += 1;
            work.set_fate(&item.source, Fate::Summarized);
        } else {
            kept.push(item);
        }
    }
    work.items = kept;
    let mut item = Item {
        source: Source::Summary,
        id: summary.id.clone(),
        role: Role::System,
        content: message_text(&summary.text),
        tool_calls: Vec::new(),
        tool_call_id: None,
        pinned: false,
        head: true,
        count: super::count::Count::exact(0),
    };
    item.recount(counter);
    let at = work.items.iter().take_while(|i| i.head).count();
    work.log.push(Step::Summary(covered, item.count.tokens));
    work.items.insert(at, item);
}

/// The next summary to make, if one is due (the request is over budget and enough rounds have
/// aged out of the recent part).
pub(crate) fn plan(
    work: &Work,
    history: &[&Message],
    summary: Option<&Summary>,
    cfg: &Config,
) -> Option<SummaryJob> {
    let rounds = rounds(work);
    let keep = cfg.keep_recent_rounds as usize;
    let retire = rounds.len().checked_sub(keep)?;
    let needed = if summary.is_some() {
        (keep / 2).max(1)
    } else {
        1
    };
    if retire < needed {
        return None;
    }
    let retired = rounds[0].start..rounds[retire - 1].end;
    let last = work.items[retired.clone()]
        .iter()
        .rev()
        .find_map(|i| match i.source {
            Source::History(h) => Some(h),
            _ => None,
        })?;
    let turns = work.items[retired]
        .iter()
        .filter_map(|i| match i.source {
            Source::History(h) => Some(history[h]),
            _ => None,
        })
        .map(|m| (m.role, turn_text(m)))
        .filter(|(_, t)| !t.trim().is_empty())
        .collect();
    let covers = history[..=last]
        .iter()
        .filter(|m| m.role != Role::System && !m.example)
        .count();
    Some(SummaryJob {
        through: history[last].id.clone(),
        covers: u32::try_from(covers).unwrap_or(u32::MAX),
        previous: summary.map(|s| s.text.clone()),
        turns,
        rounds: u32::try_from(retire).unwrap_or(u32::MAX),
    })
}

/// A message as the summarizer reads it: without thoughts; tool output shortened.
fn turn_text(m: &Message) -> String {
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
pub fn transcript(job: &SummaryJob) -> String {
    let mut out = String::new();
    if let Some(prev) = &job.previous {
        out.push_str("Summary so far:\n");
        out.push_str(prev);
        out.push_str("\n\nConversation since then:\n");
    }
    for (role, text) in &job.turns {
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
