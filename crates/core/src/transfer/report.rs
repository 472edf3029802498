//! What an import of another app's export says besides its chats: the conversations it skipped
//! (each named by its title, or its place in the file, with the reason) and, per chat, what was
//! converted on the way in (tool steps, citations, attachments, hidden messages). Plain data and
//! the sentences the preview shows; the readers of each format fill them in.

use crate::calls::Waiting;
use crate::session::{ContextOverrides, Message, Session};
use std::collections::HashSet;

/// A conversation of a recognised file that was not imported, and why (the others were).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Skipped {
    /// Its title, or `untitled chat #3` (its 1-based place in the file) when it has none.
    pub name: String,
    /// Why it cannot be read (`mapping: missing, or not an object`).
    pub reason: String,
}

impl Skipped {
    /// Conversation `index` (0-based) of a file, titled `title` (may be empty), skipped for
    /// `reason`.
    pub fn new(index: usize, title: &str, reason: impl Into<String>) -> Self {
        let title = title.trim();
        Skipped {
            name: if title.is_empty() {
                format!("untitled chat #{}", index + 1)
            } else {
                title.chars().take(80).collect()
            },
            reason: reason.into(),
        }
    }
}

impl Skipped {
    /// Skipped from part `file` of an export in parts: an untitled one is numbered within its
    /// part, so the part is named too (`untitled chat #3 of conversations-001.json`).
    pub fn of_part(self, file: &str) -> Self {
        match self.name.starts_with("untitled chat #") {
            true => Skipped {
                name: format!("{} of {file}", self.name),
                ..self
            },
            false => self,
        }
    }
}

/// How many skipped conversations a sentence names (the rest are counted).
pub const NAMED: usize = 5;

impl Skipped {
    /// Whether it is named by its place (`untitled chat #3`), not by a title of its own.
    pub fn is_untitled(&self) -> bool {
        self.name.starts_with("untitled chat #")
    }

    /// Its name as a sentence gives it: the title quoted, or its place as it is.
    pub fn shown_name(&self) -> String {
        if self.is_untitled() {
            self.name.clone()
        } else {
            format!("\"{}\"", self.name)
        }
    }
}

/// The opening of [`skipped_sentence`]: `2 chats could not be read and were skipped:`.
pub fn skipped_lead(n: usize) -> String {
    format!(
        "{n} {} could not be read and {} skipped:",
        if n == 1 { "chat" } else { "chats" },
        if n == 1 { "was" } else { "were" },
    )
}

/// The end of [`skipped_sentence`] past the [`NAMED`] ones: `and 3 more` (`None`: all named).
pub fn skipped_more(n: usize) -> Option<String> {
    let more = n.saturating_sub(NAMED);
    (more > 0).then(|| format!("and {more} more"))
}

/// One sentence for the preview and the result: `2 chats could not be read and were skipped:
/// "Trip" (mapping: missing, or not an object), untitled chat #3 (not an object)`; `None` when
/// nothing was skipped. (The preview draws the same words in pieces, each translated alone.)
pub fn skipped_sentence(skipped: &[Skipped]) -> Option<String> {
    if skipped.is_empty() {
        return None;
    }
    let named: Vec<String> = skipped
        .iter()
        .take(NAMED)
        .map(|s| format!("{} ({})", s.shown_name(), s.reason))
        .collect();
    Some(format!(
        "{} {}{}",
        skipped_lead(skipped.len()),
        named.join(", "),
        skipped_more(skipped.len()).map_or_else(String::new, |m| format!(" {m}"))
    ))
}

/// What was converted on the way in for one chat. All zero: imported as it was.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChatReport {
    /// The chat's id (as imported; [`super::import::plan`] follows it when a copy gets a new id).
    pub chat: String,
    /// The chat's title.
    pub title: String,
    /// Tool calls made from tool steps (ChatGPT's browsing and code steps, Claude's `tool_use`).
    pub tool_calls: usize,
    /// Tool results made from the tools' output (pages read, code output, `tool_result`).
    pub tool_results: usize,
    /// Citation markers replaced by a numbered link.
    pub citations_linked: usize,
    /// Citation markers removed (no citation, or one without a web address).
    pub citations_removed: usize,
    /// Images and files shown as a placeholder naming them.
    pub attachments: usize,
    /// Messages left out: hidden ones, empty system messages, the user's custom instructions,
    /// reasoning steps.
    pub left_out: usize,
    /// Replies that were interrupted, imported as incomplete.
    pub incomplete: usize,
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl ChatReport {
    /// Whether nothing was converted.
    pub fn is_empty(&self) -> bool {
        ChatReport {
            chat: self.chat.clone(),
            title: self.title.clone(),
            ..ChatReport::default()
        } == *self
    }

    /// What was converted, one phrase per kind: `2 tool calls and 3 results kept as tool steps`,
    /// `4 citations linked`, … (the preview shows each on its own, so each is translated alone).
    pub fn parts(&self) -> Vec<String> {
        let mut parts = Vec::new();
        if self.tool_calls + self.tool_results > 0 {
            parts.push(format!(
                "{} and {} kept as tool steps",
                count(self.tool_calls, "tool call", "tool calls"),
                count(self.tool_results, "result", "results")
            ));
        }
        if self.citations_linked > 0 {
            parts.push(format!(
                "{} linked",
                count(self.citations_linked, "citation", "citations")
            ));
        }
        if self.citations_removed > 0 {
            parts.push(format!(
                "{} removed",
                count(
                    self.citations_removed,
                    "citation marker",
                    "citation markers"
                )
            ));
        }
        if self.attachments > 0 {
            parts.push(format!(
                "{} shown by name only",
                count(self.attachments, "attachment", "attachments")
            ));
        }
        if self.incomplete > 0 {
            parts.push(format!(
                "{} marked incomplete",
                count(self.incomplete, "interrupted reply", "interrupted replies")
            ));
        }
        if self.left_out > 0 {
            parts.push(format!(
                "{} left out",
                count(self.left_out, "hidden message", "hidden messages")
            ));
        }
        parts
    }

    /// The chat's title as the preview names it: quoted, or "Untitled chat".
    pub fn named(&self) -> String {
        if self.title.trim().is_empty() {
            "Untitled chat".to_string()
        } else {
            format!("\"{}\"", self.title)
        }
    }

    /// One sentence for the preview: `"Trip": 2 tool calls and 3 results kept as tool steps, 4
    /// citations linked, 1 citation marker removed.`; `None` when nothing was converted.
    pub fn sentence(&self) -> Option<String> {
        let parts = self.parts();
        if parts.is_empty() {
            return None;
        }
        Some(format!("{}: {}.", self.named(), parts.join(", ")))
    }
}

/// A chat read from another app, with what its reading converted.
pub type Read = (Session, ChatReport);

/// A chat of `messages` (a tree by their `parent` links) that opens at `leaf`, or at the newest
/// leaf when `leaf` is not one of its messages.
pub(super) fn session(
    id: String,
    title: String,
    created: i64,
    updated: i64,
    messages: Vec<Message>,
    leaf: Option<String>,
) -> Session {
    let leaf = leaf
        .filter(|l| messages.iter().any(|m| m.id == *l))
        .or_else(|| newest_leaf(&messages));
    Session {
        id,
        title,
        role: String::new(),
        prompt: None,
        created_at: created,
        updated_at: updated,
        messages,
        leaf,
        summaries: Vec::new(),
        context: ContextOverrides::default(),
        agent: Default::default(),
        foreign: false,
        pinned: false,
        model: None,
    }
}

/// The newest message no other message follows (the latest by time, then the last listed).
pub(super) fn newest_leaf(messages: &[Message]) -> Option<String> {
    let parents: HashSet<&str> = messages
        .iter()
        .filter_map(|m| m.parent.as_deref())
        .collect();
    messages
        .iter()
        .enumerate()
        .filter(|(_, m)| !parents.contains(m.id.as_str()))
        .max_by_key(|(i, m)| (m.created_at, *i))
        .map(|(_, m)| m.id.clone())
}

/// A time in seconds, milliseconds, microseconds or nanoseconds since the epoch (apps write all
/// four), in milliseconds; `None` if it is not a plausible time.
pub(super) fn any_epoch(v: Option<&serde_json::Value>) -> Option<i64> {
    let t = v.and_then(serde_json::Value::as_f64)?;
    if !t.is_finite() || t < 0.0 {
        return None;
    }
    let ms = if t < 1e11 {
        t * 1000.0
    } else if t < 1e14 {
        t
    } else if t < 1e17 {
        t / 1000.0
    } else {
        t / 1e6
    };
    (ms < 1e14).then_some(ms.round() as i64)
}

/// An attachment's placeholder: `[image: receipt.png]`, `[file: report.pdf]`.
pub(super) fn placeholder(kind: &str, name: &str) -> String {
    let name: String = name
        .chars()
        .filter(|c| !c.is_control() && *c != '[' && *c != ']')
        .take(120)
        .collect();
    if name.trim().is_empty() {
        format!("[{kind}]")
    } else {
        format!("[{kind}: {}]", name.trim())
    }
}

/// A question's text: its text blocks, then the placeholders of what it attached, a paragraph
/// each.
pub(super) fn question(blocks: Vec<Block>, attached: Vec<String>) -> String {
    blocks
        .into_iter()
        .filter_map(|b| match b {
            Block::Text(t) if !t.trim().is_empty() => Some(t),
            _ => None,
        })
        .chain(attached)
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// A piece of a reply as another app stores it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Block {
    /// Text shown.
    Text(String),
    /// The model's thinking (kept as the reply's reasoning).
    Reasoning(String),
    /// A tool call (`id` when the app gives one).
    Call {
        id: Option<String>,
        name: String,
        arguments: String,
    },
    /// A tool's output, answering the call `call` (or the first one still open).
    Output { call: Option<String>, text: String },
}

/// The messages of one reply made of `blocks`, as agent mode writes a tool round: an assistant
/// message (text, reasoning, its tool calls), then the results answering them, then the next
/// assistant message… The last message is `base` (so what follows the reply in the other app
/// follows it here), the ones before `base-1`, `base-2`…; the first follows `parent`, each the
/// one before. A reply of nothing is one empty assistant message.
pub(super) fn reply(
    base: &str,
    parent: Option<String>,
    at: i64,
    blocks: Vec<Block>,
    report: &mut ChatReport,
) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::new();
    let mut current: Option<Message> = None;
    let mut open: Waiting<String> = Waiting::default();
    let mut calls = 0;
    for b in blocks {
        if let Block::Output { call, text } = b {
            if let Some(m) = current.take() {
                out.push(m);
            }
            let call = call
                .filter(|c| open.contains(c))
                .or_else(|| open.first().cloned());
            match call {
                Some(c) => {
                    open.answer(&c);
                    let mut m =
                        Message::new(String::new(), None, crate::session::Role::Tool, text, at);
                    m.tool_call_id = Some(c);
                    report.tool_results += 1;
                    out.push(m);
                }
                None => report.left_out += 1,
            }
            continue;
        }
        if current.is_none() {
            open.clear();
            current = Some(Message::new(
                String::new(),
                None,
                crate::session::Role::Assistant,
                String::new(),
                at,
            ));
        }
        let Some(m) = current.as_mut() else { continue };
        match b {
            Block::Text(t) if !t.trim().is_empty() => {
                if !m.content.is_empty() {
                    m.content.push_str("\n\n");
                }
                m.content.push_str(&t);
            }
            Block::Reasoning(r) if !r.trim().is_empty() => {
                if !m.reasoning.is_empty() {
                    m.reasoning.push_str("\n\n");
                }
                m.reasoning.push_str(&r);
            }
            Block::Call {
                id,
                name,
                arguments,
            } => {
                calls += 1;
                let id = id
                    .filter(|i| !i.trim().is_empty())
                    .unwrap_or_else(|| format!("{base}-call{calls}"));
                open.push(id.clone());
                m.tool_calls.push(crate::session::ToolCall {
                    index: m.tool_calls.len() as u64,
                    id,
                    name,
                    arguments,
                });
                report.tool_calls += 1;
            }
            _ => {}
        }
    }
    if let Some(m) = current.take() {
        out.push(m);
    }
    if out.is_empty() {
        out.push(Message::new(
            String::new(),
            None,
            crate::session::Role::Assistant,
            String::new(),
            at,
        ));
    }
    let n = out.len();
    let mut before = parent;
    for (k, m) in out.iter_mut().enumerate() {
        m.id = if k + 1 == n {
            base.to_string()
        } else {
            format!("{base}-{}", k + 1)
        };
        m.parent = before.replace(m.id.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences() {
        let cases: &[(&[Skipped], Option<&str>)] = &[
            (&[], None),
            (
                &[Skipped {
                    name: "Trip".into(),
                    reason: "mapping: missing, or not an object".into(),
                }],
                Some("1 chat could not be read and was skipped: \"Trip\" (mapping: missing, or not an object)"),
            ),
        ];
        for (skipped, want) in cases {
            assert_eq!(skipped_sentence(skipped).as_deref(), *want);
        }
        let many: Vec<Skipped> = (0..7)
            .map(|i| Skipped::new(i, "", "not an object"))
            .collect();
        assert_eq!(
            skipped_sentence(&many).unwrap(),
            "7 chats could not be read and were skipped: untitled chat #1 (not an object), untitled chat #2 (not an object), untitled chat #3 (not an object), untitled chat #4 (not an object), untitled chat #5 (not an object) and 2 more"
        );
        let report = ChatReport {
            chat: "c".into(),
            title: "Trip".into(),
            tool_calls: 2,
            tool_results: 1,
            citations_linked: 3,
            citations_removed: 1,
            attachments: 1,
            left_out: 2,
            incomplete: 1,
        };
        assert_eq!(
            report.sentence().unwrap(),
            "\"Trip\": 2 tool calls and 1 result kept as tool steps, 3 citations linked, 1 citation marker removed, 1 attachment shown by name only, 1 interrupted reply marked incomplete, 2 hidden messages left out."
        );
        let plain = ChatReport {
            chat: "c".into(),
            title: "Trip".into(),
            ..ChatReport::default()
        };
        assert!(plain.is_empty());
        assert_eq!(plain.sentence(), None);
    }

    /// A reply of many tool calls whose outputs come last first, then outputs naming no call:
    /// each output finds its call in a few steps, not a step per waiting call.
    #[test]
    fn a_reply_of_many_tool_calls_is_read_in_linear_steps() {
        let k = 2000;
        let mut blocks: Vec<Block> = (0..k)
            .map(|i| Block::Call {
                id: Some(format!("c{i}")),
                name: "t".into(),
                arguments: "{}".into(),
            })
            .collect();
        blocks.extend((0..k).rev().filter(|i| i % 2 == 1).map(|i| Block::Output {
            call: Some(format!("c{i}")),
            text: format!("r{i}"),
        }));
        blocks.extend((0..k / 2).map(|i| Block::Output {
            call: None,
            text: format!("n{i}"),
        }));
        let mut report = ChatReport::default();
        let before = crate::calls::STEPS.with(std::cell::Cell::get);
        let out = reply("m", None, 0, blocks, &mut report);
        let steps = crate::calls::STEPS.with(std::cell::Cell::get) - before;
        assert_eq!(out.len(), 1 + k);
        assert_eq!(out[1].tool_call_id.as_deref(), Some("c1999"));
        // Outputs naming no call answer the calls still waiting, first made first.
        assert_eq!(out[1 + k / 2].tool_call_id.as_deref(), Some("c0"));
        assert_eq!(out[k].tool_call_id.as_deref(), Some("c1998"));
        assert_eq!(report.tool_results, k);
        assert!((k..=6 * k).contains(&steps), "{steps} steps for {k} calls");
    }

    #[test]
    fn epochs_in_any_unit() {
        let v = |x: f64| serde_json::json!(x);
        for (t, want) in [
            (1_764_581_400.25, Some(1_764_581_400_250)),
            (1_764_581_400_250.0, Some(1_764_581_400_250)),
            (1_764_581_400_250_000.0, Some(1_764_581_400_250)),
            (1_764_581_400_250_000_000.0, Some(1_764_581_400_250)),
            (-1.0, None),
        ] {
            assert_eq!(any_epoch(Some(&v(t))), want, "{t}");
        }
        assert_eq!(any_epoch(Some(&serde_json::json!("x"))), None);
    }
}
