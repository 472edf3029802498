//! One cheap pass over the history that reads flags, roles and tool-call ids — never the text
//! (beyond whether a message is empty) — and tells the stages where everything is: the head, what
//! the summary covers, the rounds, the tool-call groups and which of them are pinned, the latest
//! assistant turn and tool round. The rest of the pipeline then reads only what can be sent.

use super::{Config, Fate};
use crate::session::{Message, Role, Summary};
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
    let mut group = vec![0usize; n];
    let mut pinned_group: Vec<bool> = Vec::new();
    let mut head = Vec::new();
    let mut in_head = true;
    let mut excluded = 0;
    let mut body_start = n;
    // Round starts over the whole body (those the summary covers are dropped below), and which
    // of them hold a pinned message.
    let mut starts: Vec<(usize, bool)> = Vec::new();
    let mut open = false; // the previous candidate is a group that tool results may join
    let mut through = summary.map(|s| s.through.as_str());
    let mut through_at = None;
    let mut latest_assistant = None;
    let mut latest_calls = None;
    for (i, m) in history.iter().enumerate() {
        if through.is_some_and(|t| m.id == t) {
            through_at = Some(i);
            through = None;
        }
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
        // Groups: a tool result joins the group of the assistant message with calls right before
        // it (through other results of that message).
        if !(m.role == Role::Tool && open) {
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
        if m.role == Role::Assistant {
            latest_assistant = Some(i);
            if !m.tool_calls.is_empty() {
                latest_calls = Some(i);
            }
        }
        if !in_head {
            if starts.is_empty() || m.role == Role::User {
                starts.push((i, false));
            }
            if m.pinned {
                if let Some(last) = starts.last_mut() {
                    last.1 = true;
                }
            }
        }
    }
    // The summary covers the body up to its last message (a head message covers nothing), and
    // never splits a tool-call group: the cover reaches the group's last member.
    let cover = through_at.filter(|&p| p >= body_start).map(|p| {
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
    // Rounds after the summary: each starts at a user message (or the first message after it).
    let first = cover.map_or(body_start, |c| c + 1);
    let skip = starts.partition_point(|&(s, _)| s < first);
    let mut rounds: Vec<Range<usize>> = Vec::with_capacity(starts.len() - skip + 1);
    let mut pinned_rounds = Vec::new();
    // A round that began before the cover and goes on after it starts again after it.
    if let Some(f) = (first..n).find(|&i| candidate[i]) {
        if starts.get(skip).is_none_or(|&(s, _)| s != f) {
            let end = starts.get(skip).map_or(n, |&(s, _)| s);
            if (f..end).any(|i| candidate[i] && pinned_group[group[i]]) {
                pinned_rounds.push(0);
            }
            rounds.push(f..end);
        }
    }
    for (k, &(s, pinned)) in starts[skip..].iter().enumerate() {
        let end = starts.get(skip + k + 1).map_or(n, |&(e, _)| e);
        // Groups never cross a user message, so a round holds a pinned group exactly when one of
        // its messages is pinned.
        if pinned {
            pinned_rounds.push(rounds.len());
        }
        rounds.push(s..end);
    }
    // The latest tool round: every result since the last user message (an agent run of several
    // steps needs all it found so far), or else the results of the latest calls.
    let mut latest_round = vec![false; n];
    let run_start = history
        .iter()
        .rposition(|m| m.role == Role::User)
        .map_or(0, |u| u + 1);
    if latest_calls.is_some_and(|a| a >= run_start) {
        for i in run_start..n {
            latest_round[i] = candidate[i] && history[i].role == Role::Tool;
        }
    } else if let Some(a) = latest_calls {
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
