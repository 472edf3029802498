//! Stage 3, the sliding window: while the request is over budget, the oldest whole round goes —
//! a user message and everything up to the next one, tool calls and all their results included.
//! Never the head (system prompt, examples, summary), never a pinned message's group, never part
//! of a round, never below `min_keep_rounds` rounds.

use super::{groups, Config, Fate, Step, Work};
use crate::core::session::Role;
use std::ops::Range;

/// The rounds of the body (everything after the head), as ranges of item positions, oldest
/// first. A round starts at each user message; anything before the first one is a round too.
pub(crate) fn rounds(work: &Work) -> Vec<Range<usize>> {
    let start = work.items.iter().take_while(|i| i.head).count();
    let mut out: Vec<Range<usize>> = Vec::new();
    for n in start..work.items.len() {
        let item = &work.items[n];
        if n == start || (item.role == Role::User && !item.head) {
            out.push(n..n + 1);
        } else if let Some(last) = out.last_mut() {
            last.end = n + 1;
        }
    }
    out
}

/// Drop the oldest rounds until the request fits `budget` or only `min_keep_rounds` are left.
pub(crate) fn slide(work: &mut Work, cfg: &Config, budget: u32) {
    let mut total = work.total();
    if total <= budget {
        return;
    }
    let rounds = rounds(work);
    let group = groups(&work.items);
    let mut pinned_group = vec![false; group.last().map_or(0, |g| g + 1)];
    for (n, item) in work.items.iter().enumerate() {
        if item.pinned {
            pinned_group[group[n]] = true;
        }
    }
    let mut drop = vec![false; work.items.len()];
    let mut left = rounds.len();
    for round in rounds {
        if total <= budget || left <= cfg.min_keep_rounds as usize {
            break;
        }
        left -= 1;
        let mut messages = 0;
        let mut tokens = 0;
        for n in round.clone() {
            if !pinned_group[group[n]] {
                drop[n] = true;
                messages += 1;
                tokens += work.items[n].count.tokens;
            }
        }
        total = total.saturating_sub(tokens);
        if messages > 0 {
            let first = work.items[round.start].id.clone();
            work.log.push(Step::RoundDropped(first, messages, tokens));
        }
    }
    let items = std::mem::take(&mut work.items);
    for (n, item) in items.into_iter().enumerate() {
        if drop[n] {
            work.set_fate(&item.source, Fate::Dropped);
        } else {
            work.items.push(item);
        }
    }
}
