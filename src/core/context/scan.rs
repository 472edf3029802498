//! One cheap pass over the history that reads flags, roles and tool-call ids — never the text
//! (beyond whether a message is empty) — and tells the stages where everything is: the head, what
//! the summary covers, the rounds, the tool-call groups and which of them are pinned, the latest
//! assistant turn and tool round. The rest of the pipeline then reads only what can be sent.

use super::{Config, Fate};
use crate::core::session::{Message, Role, Summary};
use std::ops::Range;

/// Where things are in a history.
#[derive(Debug, Clone)]
pub(crate) struct Scan {
    /// Per message: its fate unless a later stage says otherwise (`Dropped` for candidates).
    pub fates: Vec<Fate>,
    /// Per message: whether it may be sent at all (not excluded, not empty).
    pub candidate: Vec<bool>,
    /// Head messages (system prompt, examples), in order.
    pub head: Vec<usize>,
    /// Messages up to this index are covered by the summary (`None`: no summary in use).
    pub cover: Option<usize>,
    /// How many messages the summary stands in for.
    pub summarized: u32,
    /// Rounds of the body after the summary, oldest first (ranges of history indices).
    pub rounds: Vec<Range<usize>>,
    /// Per message: its tool-call group (an assistant message with calls and the results right
    /// after it share one).
    pub group: Vec<usize>,
    /// Per group: pinned (any member pinned).
    pub pinned_group: Vec<bool>,
    /// Rounds (positions in `rounds`) that hold pinned messages.
    pub pinned_rounds: Vec<usize>,
    /// Groups covered by the summary that are pinned (sent anyway), as index lists.
    pub pinned_covered: Vec<Vec<usize>>,
    /// The latest assistant message (it keeps its thoughts).
    pub latest_assistant: Option<usize>,
    /// Per message: a tool result of the latest tool round (sent whole, up to the cap).
    pub latest_round: Vec<bool>,
    /// Excluded messages.
    pub excluded: u32,
}

pub(crate) fn scan(history: &[&Message], summary: Option<&Summary>, _cfg: &Config) -> Scan {
    let n = history.len();
    let mut fates = vec![Fate::Dropped; n];
    let mut candidate = vec![false; n];
    let mut head = Vec::new();
    let mut in_head = true;
    let mut excluded = 0;
    let mut body_start = n;
    for (i, m) in history.iter().enumerate() {
        if m.excluded {
            fates[i] = Fate::Excluded;
            excluded += 1;
            continue;
        }
        let empty = match m.role {
            Role::Assistant => m.content.is_empty() && m.tool_calls.is_empty(),
            Role::System => m.content.trim().is_empty(),
            _ => false,
        };
        if empty {
            fates[i] = Fate::Empty;
            continue;
        }
        candidate[i] = true;
        in_head &= m.role == Role::System || m.example;
        if in_head {
            head.push(i);
        } else if body_start == n {
            body_start = i;
        }
    }
    // Groups: a tool result joins the group of the assistant message with calls right before it
    // (through other results of that message).
    let mut group = vec![0usize; n];
    let mut pinned_group: Vec<bool> = Vec::new();
    let mut open = false; // the previous candidate belongs to a group that results may join
    for i in 0..n {
        if !candidate[i] {
            continue;
        }
        let m = history[i];
        let joins = m.role == Role::Tool && open;
        if !joins {
            pinned_group.push(false);
        }
        let g = pinned_group.len() - 1;
        group[i] = g;
        pinned_group[g] |= m.pinned;
        open = match m.role {
            Role::Assistant => !m.tool_calls.is_empty(),
            Role::Tool => open,
            _ => false,
        };
    }
    // The summary covers the body up to its last message (a head message covers nothing).
    let cover = summary
        .and_then(|s| history.iter().position(|m| m.id == s.through))
        .filter(|&p| p >= body_start)
        .map(|p| {
            // Never split a tool-call group: the cover reaches the group's last member.
            let Some(c) = (0..=p).rev().find(|&i| candidate[i]) else {
                return p;
            };
            (c..n)
                .filter(|&i| candidate[i])
                .take_while(|&i| group[i] == group[c])
                .last()
                .map_or(p, |last| last.max(p))
        });
    let mut summarized = 0;
    let mut pinned_covered: Vec<Vec<usize>> = Vec::new();
    if let Some(c) = cover {
        for i in body_start..=c {
            if !candidate[i] {
                continue;
            }
            if pinned_group[group[i]] {
                match pinned_covered.last_mut() {
                    Some(last) if last.last().is_some_and(|&l| group[l] == group[i]) => {
                        last.push(i)
                    }
                    _ => pinned_covered.push(vec![i]),
                }
            } else {
                fates[i] = Fate::Summarized;
                summarized += 1;
            }
        }
    }
    // Rounds after the summary: each starts at a user message (or the first body message).
    let first = cover.map_or(body_start, |c| c + 1);
    let mut rounds: Vec<Range<usize>> = Vec::new();
    for i in first..n {
        if !candidate[i] {
            continue;
        }
        if rounds.is_empty() || history[i].role == Role::User {
            if let Some(last) = rounds.last_mut() {
                last.end = i;
            }
            rounds.push(i..n);
        }
    }
    let pinned_rounds = rounds
        .iter()
        .enumerate()
        .filter(|(_, r)| (r.start..r.end).any(|i| candidate[i] && pinned_group[group[i]]))
        .map(|(k, _)| k)
        .collect();
    let latest_assistant = (0..n)
        .rev()
        .find(|&i| candidate[i] && history[i].role == Role::Assistant);
    let mut latest_round = vec![false; n];
    if let Some(a) = (0..n).rev().find(|&i| {
        candidate[i] && history[i].role == Role::Assistant && !history[i].tool_calls.is_empty()
    }) {
        for i in a + 1..n {
            if !candidate[i] {
                continue;
            }
            if history[i].role != Role::Tool {
                break;
            }
            latest_round[i] = true;
        }
    }
    Scan {
        fates,
        candidate,
        head,
        cover,
        summarized,
        rounds,
        group,
        pinned_group,
        pinned_rounds,
        pinned_covered,
        latest_assistant,
        latest_round,
        excluded,
    }
}
