//! Stage 1, the role filter: which history messages go in and in what form, and the repair of
//! the tool protocol.
//!
//! - Excluded messages, replies that hold nothing and an emptied system prompt are left out.
//! - Thoughts (`<think>…</think>` blocks, ReAct `Thought:` sections) are removed from every
//!   assistant turn but the latest (reasoning sent separately is never sent back at all).
//! - Tool results older than the latest tool round (every result since the last user message —
//!   all steps of an agent run —, or else the latest calls' results) become
//!   `[tool result omitted: N tokens]`, so
//!   every call keeps exactly one answer; results of the latest round longer than the per-item
//!   cap are shortened head-and-tail with a visible marker. Pinned results are never touched.
//! - `repair` leaves out tool results with no call right before them (or a second result for
//!   one call) and gives a call without a result a placeholder result, logging each.

use super::cap::head_tail;
use super::count::{Count, Counter};
use super::scan::Scan;
use super::{images_count, Config, Fate, Item, Source, Step};
use crate::attachment::{image_placeholder, read, Kind};
use crate::calls::Waiting;
use crate::session::{Message, Role};
use std::borrow::Cow;

/// The text that stands for a tool result older than the latest tool round.
pub fn placeholder(tokens: u32) -> String {
    format!("[tool result omitted: {tokens} tokens]")
}

/// The result given to a call that had none.
pub const NO_RESULT: &str = "[no result: the tool did not answer]";

/// Removes thoughts: `<think>…</think>` blocks (an unclosed one runs to the end; text before a
/// lone `</think>` is a thought too) and, in a ReAct reply (one with an `Action:` or
/// `Final Answer:` line), every `Thought:` section.
pub fn strip_thoughts(text: &str) -> String {
    let mut rest = text;
    let mut out = String::with_capacity(text.len());
    if let Some(end) = rest.find("</think>") {
        if !rest[..end].contains("<think>") {
            rest = &rest[end + "</think>".len()..];
        }
    }
    while let Some(start) = rest.find("<think>") {
        out.push_str(&rest[..start]);
        match rest[start..].find("</think>") {
            Some(len) => rest = &rest[start + len + "</think>".len()..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    let react = out.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with("Action:") || l.starts_with("Final Answer:")
    });
    if react {
        let mut kept = String::with_capacity(out.len());
        let mut in_thought = false;
        for line in out.split_inclusive('\n') {
            let l = line.trim_start();
            if l.starts_with("Thought:") {
                in_thought = true;
            } else if ["Action:", "Action Input:", "Observation:", "Final Answer:"]
                .iter()
                .any(|p| l.starts_with(p))
            {
                in_thought = false;
            }
            if !in_thought {
                kept.push_str(line);
            }
        }
        out = kept;
    }
    if out.len() == text.len() {
        return text.to_string();
    }
    out.trim().to_string()
}

/// The items for history messages `indices` (ascending, candidates only), shaped — thoughts out
/// of older turns, placeholders for older tool results, the per-item cap — and repaired.
pub(crate) fn materialize<'a>(
    history: &[&'a Message],
    scan: &Scan,
    indices: impl Iterator<Item = usize>,
    cfg: &Config,
    counter: &mut dyn Counter,
    log: &mut Vec<Step>,
) -> Vec<Item<'a>> {
    let mut out = Vec::new();
    for i in indices {
        if let Some(item) = shape(history, scan, i, cfg, counter, log) {
            out.push(item);
        }
    }
    repair(out, counter, log)
}

/// One history message as it is sent, or `None` when shaping leaves nothing of it.
fn shape<'a>(
    history: &[&'a Message],
    scan: &Scan,
    i: usize,
    cfg: &Config,
    counter: &mut dyn Counter,
    log: &mut Vec<Step>,
) -> Option<Item<'a>> {
    let m = history[i];
    let mut item = Item {
        source: Source::History(i),
        id: &m.id,
        role: m.role,
        content: Cow::Borrowed(m.content.as_str()),
        tool_calls: &m.tool_calls,
        tool_call_id: m.tool_call_id.as_deref(),
        pinned: scan.pinned_group[scan.group[i]],
        count: Count::exact(0),
        fate: Fate::Kept,
        images: Vec::new(),
        image_count: Count::exact(0),
    };
    if m.role == Role::User && !m.attachments.is_empty() {
        images(&mut item, history, scan, i, cfg, log);
    }
    if m.role == Role::Assistant && Some(i) != scan.latest_assistant && !m.pinned {
        let stripped = strip_thoughts(&m.content);
        if stripped != m.content {
            log.push(Step::Stripped(m.id.clone()));
            if stripped.is_empty() && m.tool_calls.is_empty() {
                return None;
            }
            item.content = Cow::Owned(stripped);
            item.fate = Fate::Stripped;
        }
    } else if m.role == Role::Tool && !m.pinned {
        let tokens = counter.count(&m.content).tokens;
        if !scan.latest_round[i] {
            item.content = Cow::Owned(placeholder(tokens));
            item.fate = Fate::Placeholder;
            log.push(Step::Placeholder(m.id.clone(), tokens));
        } else if tokens > cfg.item_cap {
            let cut = head_tail(&m.content, cfg.item_cap, counter);
            let after = counter.count(&cut).tokens;
            item.content = Cow::Owned(cut);
            item.fate = Fate::Cut;
            log.push(Step::Capped(m.id.clone(), tokens, after));
        }
    }
    item.recount(counter);
    Some(item)
}

/// A question's images: sent when its round is among the last [`Config::image_rounds`] (at
/// least the latest) — to a model that does not see images only the latest question's, which the
/// turns module then refuses to send, saying why —, else each a placeholder line in its text.
fn images<'a>(
    item: &mut Item<'a>,
    history: &[&'a Message],
    scan: &Scan,
    i: usize,
    cfg: &Config,
    log: &mut Vec<Step>,
) {
    let m = history[i];
    let latest = !history[i + 1..]
        .iter()
        .any(|n| n.role == Role::User && !n.example);
    let kept = scan
        .rounds
        .len()
        .saturating_sub(cfg.image_rounds.max(1) as usize);
    let recent = scan.rounds.get(kept).is_some_and(|r| i >= r.start);
    let all: Vec<_> = read(&m.attachments)
        .into_iter()
        .filter(|a| a.kind == Kind::Image)
        .collect();
    if all.is_empty() {
        return;
    }
    if latest || (recent && cfg.images) {
        item.images = all;
        item.image_count = images_count(item.images.iter(), cfg);
        return;
    }
    let mut text = item.content.to_string();
    for a in &all {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&image_placeholder(&a.name));
    }
    item.content = Cow::Owned(text);
    log.push(Step::ImagesOmitted(m.id.clone(), all.len() as u32));
}

/// Makes the tool protocol valid: each tool result directly follows the assistant message whose
/// call it answers, once; each call gets a result (a placeholder if it had none). Results left
/// out are marked `Dropped` in their item's fate by being absent (the caller's default).
pub(crate) fn repair<'a>(
    items: Vec<Item<'a>>,
    counter: &mut dyn Counter,
    log: &mut Vec<Step>,
) -> Vec<Item<'a>> {
    let mut out: Vec<Item<'a>> = Vec::with_capacity(items.len());
    let mut open: Waiting<&'a str> = Waiting::default();
    let mut open_pinned = false;
    for item in items {
        if item.role == Role::Tool {
            match item.tool_call_id {
                Some(id) if open.answer(&id) => out.push(item),
                _ => log.push(Step::Orphan(item.id.to_string())),
            }
            continue;
        }
        close(&mut open, open_pinned, &mut out, log, counter);
        if item.role == Role::Assistant {
            open_pinned = item.pinned;
            for call in item.tool_calls {
                open.push(&call.id);
            }
        }
        out.push(item);
    }
    close(&mut open, open_pinned, &mut out, log, counter);
    out
}

fn close<'a>(
    open: &mut Waiting<&'a str>,
    pinned: bool,
    out: &mut Vec<Item<'a>>,
    log: &mut Vec<Step>,
    counter: &mut dyn Counter,
) {
    for id in open.drain() {
        let mut item = Item {
            source: Source::Repair,
            id,
            role: Role::Tool,
            content: Cow::Borrowed(NO_RESULT),
            tool_calls: &[],
            tool_call_id: Some(id),
            pinned,
            count: Count::exact(0),
            fate: Fate::Kept,
            images: Vec::new(),
            image_count: Count::exact(0),
        };
        item.recount(counter);
        out.push(item);
        log.push(Step::NoResult(id.to_string()));
    }
}
