//! Stage 1, the role filter: which history messages go in and in what form, and the repair of
//! the tool protocol.
//!
//! - Excluded messages, replies that hold nothing and an emptied system prompt are left out.
//! - Thoughts (`<think>…</think>` blocks, ReAct `Thought:` sections) are removed from every
//!   assistant turn but the latest (reasoning sent separately is never sent back at all).
//! - Tool results older than the latest tool round become `[tool result omitted: N tokens]`, so
//!   every call keeps exactly one answer; results of the latest round longer than the per-item
//!   cap are shortened head-and-tail with a visible marker. Pinned results are never touched.
//! - [`repair`] leaves out tool results with no call right before them (or a second result for
//!   one call) and gives a call without a result a placeholder result, logging each.

use super::cap::head_tail;
use super::count::Counter;
use super::{Fate, Item, Source, Step, Work};
use crate::core::session::{Message, Role};

/// The text that stands for a tool result older than the latest tool round.
pub fn placeholder(tokens: u32) -> String {
    format!("[tool result omitted: {tokens} tokens]")
}

/// The result given to a call that had none.
pub const NO_RESULT: &str = "[no result: the tool did not answer]";

/// The working items for `history`: everything that may be sent, with its counts.
pub(crate) fn items(history: &[&Message], counter: &mut dyn Counter) -> Work {
    let mut work = Work {
        items: Vec::with_capacity(history.len()),
        fates: vec![Fate::Kept; history.len()],
        log: Vec::new(),
    };
    let mut excluded = 0u32;
    let mut in_head = true;
    for (i, m) in history.iter().enumerate() {
        if m.excluded {
            work.fates[i] = Fate::Excluded;
            excluded += 1;
            continue;
        }
        let empty = match m.role {
            Role::Assistant => m.content.is_empty() && m.tool_calls.is_empty(),
            Role::System => m.content.trim().is_empty(),
            _ => false,
        };
        if empty {
            work.fates[i] = Fate::Empty;
            continue;
        }
        in_head &= m.role == Role::System || m.example;
        let mut item = Item {
            source: Source::History(i),
            id: m.id.clone(),
            role: m.role,
            content: m.content.clone(),
            tool_calls: m.tool_calls.clone(),
            tool_call_id: m.tool_call_id.clone(),
            pinned: m.pinned,
            head: in_head,
            count: super::count::Count::exact(0),
        };
        item.recount(counter);
        work.items.push(item);
    }
    if excluded > 0 {
        work.log.push(Step::Excluded(excluded));
    }
    work
}

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

/// Thoughts out of older turns, placeholders for older tool results, the per-item cap.
pub(crate) fn role_filter(work: &mut Work, cfg: &super::Config, counter: &mut dyn Counter) {
    let latest = work
        .items
        .iter()
        .rposition(|i| i.role == Role::Assistant && matches!(i.source, Source::History(_)));
    let latest_calls = work
        .items
        .iter()
        .rposition(|i| i.role == Role::Assistant && !i.tool_calls.is_empty());
    // The tool results right after the latest assistant message with calls.
    let latest_round = latest_calls.map_or(0..0, |a| {
        let end = work.items[a + 1..]
            .iter()
            .position(|i| i.role != Role::Tool)
            .map_or(work.items.len(), |p| a + 1 + p);
        a + 1..end
    });
    let mut n = 0;
    while n < work.items.len() {
        let item = &work.items[n];
        let source = item.source.clone();
        if item.role == Role::Assistant && Some(n) != latest && !item.pinned {
            let stripped = strip_thoughts(&item.content);
            if stripped != item.content {
                let id = item.id.clone();
                if stripped.is_empty() && item.tool_calls.is_empty() {
                    work.items.remove(n);
                    work.set_fate(&source, Fate::Empty);
                    work.log.push(Step::Stripped(id));
                    continue;
                }
                let item = &mut work.items[n];
                item.content = stripped;
                item.recount(counter);
                work.set_fate(&source, Fate::Stripped);
                work.log.push(Step::Stripped(id));
            }
        } else if item.role == Role::Tool && !item.pinned {
            let content_tokens = counter.count(&item.content).tokens;
            let id = item.id.clone();
            if !latest_round.contains(&n) {
                let item = &mut work.items[n];
                item.content = placeholder(content_tokens);
                item.recount(counter);
                work.set_fate(&source, Fate::Placeholder);
                work.log.push(Step::Placeholder(id, content_tokens));
            } else if content_tokens > cfg.item_cap {
                let item = &mut work.items[n];
                item.content = head_tail(&item.content, cfg.item_cap, counter);
                item.recount(counter);
                let after = counter.count(&item.content).tokens;
                work.set_fate(&source, Fate::Cut);
                work.log.push(Step::Capped(id, content_tokens, after));
            }
        }
        n += 1;
    }
}

/// Makes the tool protocol valid: each tool result directly follows the assistant message whose
/// call it answers, once; each call gets a result (a placeholder if it had none).
pub(crate) fn repair(work: &mut Work, counter: &mut dyn Counter) {
    let items = std::mem::take(&mut work.items);
    let mut out: Vec<Item> = Vec::with_capacity(items.len());
    let mut open: Vec<String> = Vec::new();
    let mut open_pinned = false;
    for item in items {
        if item.role == Role::Tool {
            let answered = item
                .tool_call_id
                .as_deref()
                .and_then(|id| open.iter().position(|o| o == id));
            match answered {
                Some(p) => {
                    open.remove(p);
                    out.push(item);
                }
                None => {
                    work.set_fate(&item.source, Fate::Dropped);
                    work.log.push(Step::Orphan(item.id));
                }
            }
            continue;
        }
        close(&mut open, open_pinned, &mut out, &mut work.log, counter);
        if item.role == Role::Assistant {
            open_pinned = item.pinned;
            for call in &item.tool_calls {
                if !open.contains(&call.id) {
                    open.push(call.id.clone());
                }
            }
        }
        out.push(item);
    }
    close(&mut open, open_pinned, &mut out, &mut work.log, counter);
    work.items = out;
}

fn close(
    open: &mut Vec<String>,
    pinned: bool,
    out: &mut Vec<Item>,
    log: &mut Vec<Step>,
    counter: &mut dyn Counter,
) {
    for id in open.drain(..) {
        let mut item = Item {
            source: Source::Repair,
            id: id.clone(),
            role: Role::Tool,
            content: NO_RESULT.to_string(),
            tool_calls: Vec::new(),
            tool_call_id: Some(id.clone()),
            pinned,
            head: false,
            count: super::count::Count::exact(0),
        };
        item.recount(counter);
        out.push(item);
        log.push(Step::NoResult(id));
    }
}
