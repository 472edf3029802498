//! Stage 3, the sliding window, newest first: rounds are taken from the end while they fit —
//! a round is a user message and everything up to the next one, tool calls and all their results
//! included — and everything older is left out, never read. Never the head (system prompt,
//! examples, summary), never a pinned message's group, never part of a round, and never fewer
//! than `min_keep_rounds` rounds (the hard cap deals with what that leaves over).
//!
//! Taking the longest suffix of rounds that fits is the same as dropping the oldest rounds until
//! the rest fits; going from the end means old rounds cost nothing.

use super::filter::materialize;
use super::scan::Scan;
use super::{sum, Config, Item, Step};
use crate::context::count::Counter;
use crate::session::Message;

/// What the window chose.
pub(crate) struct Selection<'a> {
    /// The body, in history order: pinned groups and the rounds kept.
    pub body: Vec<Item<'a>>,
    /// The history did not fit whole (something was left out, or is over budget).
    pub over: bool,
    /// The first message of the oldest round whose text was read (counted), kept or not.
    pub reached: Option<usize>,
}

pub(crate) fn select<'a>(
    history: &[&'a Message],
    scan: &Scan,
    head: &[Item<'a>],
    cfg: &Config,
    budget: u32,
    counter: &mut dyn Counter,
    log: &mut Vec<Step>,
) -> Selection<'a> {
    let pinned_of = |range: std::ops::Range<usize>| {
        range.filter(|&i| scan.candidate[i] && scan.pinned_group[scan.group[i]])
    };
    // Pinned groups cost what they cost wherever they are: the summary's part and every round.
    let mut pinned: Vec<Item<'a>> = Vec::new();
    for g in &scan.pinned_covered {
        pinned.extend(materialize(
            history,
            scan,
            g.iter().copied(),
            cfg,
            counter,
            log,
        ));
    }
    // Each round's pins, with what shaping them logged (kept only if the round is left out:
    // a kept round is shaped whole again and logs it then).
    // (round, its pins, what shaping them logged) for the rounds that have pins.
    let mut round_pins: Vec<(usize, Vec<Item<'a>>, Vec<Step>)> = Vec::new();
    for &k in &scan.pinned_rounds {
        let r = scan.rounds[k].clone();
        let mut pin_log = Vec::new();
        let items = materialize(history, scan, pinned_of(r), cfg, counter, &mut pin_log);
        round_pins.push((k, items, pin_log));
    }
    let fixed = sum(head)
        + sum(&pinned).saturating_sub(super::count::PRIMING)
        + round_pins
            .iter()
            .map(|(_, p, _)| sum(p).saturating_sub(super::count::PRIMING))
            .sum::<u32>();
    // Rounds from the newest while they fit (at least `min_keep_rounds`).
    let mut used = fixed;
    let mut kept: Vec<(Vec<Item<'a>>, Vec<Step>)> = Vec::new();
    let n = scan.rounds.len();
    // The newest round (the one being answered) is always kept.
    let min_keep = (cfg.min_keep_rounds as usize).max(1);
    let mut reached = None;
    for r in scan.rounds.iter().rev() {
        reached = Some(r.start);
        let mut round_log = Vec::new();
        let items = materialize(
            history,
            scan,
            r.clone().filter(|&i| scan.candidate[i]),
            cfg,
            counter,
            &mut round_log,
        );
        let cost: u32 = items
            .iter()
            .filter(|i| !i.pinned)
            .map(|i| i.count.tokens)
            .sum();
        if used.saturating_add(cost) > budget && kept.len() >= min_keep {
            break;
        }
        used = used.saturating_add(cost);
        kept.push((items, round_log));
    }
    let dropped = n - kept.len();
    // Messages of the rounds left out keep the scan's fate (`Dropped`); their pins go in.
    let mut body: Vec<Item<'a>> = pinned;
    for (k, items, pin_log) in &mut round_pins {
        if *k < dropped {
            body.append(items);
            log.append(pin_log);
        }
    }
    if dropped > 0 {
        let messages = scan.rounds[..dropped]
            .iter()
            .flat_map(|r| r.clone())
            .filter(|&i| scan.candidate[i] && !scan.pinned_group[scan.group[i]])
            .count();
        log.push(Step::RoundsDropped(dropped as u32, messages as u32));
    }
    for (mut items, mut round_log) in kept.into_iter().rev() {
        body.append(&mut items);
        log.append(&mut round_log);
    }
    Selection {
        body,
        over: dropped > 0 || used > budget,
        reached,
    }
}
