//! Token counts for the context pipeline: the [`Counter`] seam, the estimator used when no exact
//! tokenizer is at hand, and the per-message arithmetic OpenAI documents for chat requests.
//!
//! A request costs the tokens of each message's content, plus [`PER_MESSAGE`] per message, plus
//! one per `name`, plus [`PRIMING`] for the reply's start; tool calls count as their JSON. The
//! pipeline asks a [`Counter`] for content counts; [`Cached`] makes each distinct text cost one
//! count, so old history is never tokenized twice.

use crate::session::{Role, ToolCall};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// Tokens added for every message (role and separators).
pub const PER_MESSAGE: u32 = 3;
/// Tokens that prime the reply (`<|start|>assistant<|message|>`).
pub const PRIMING: u32 = 3;
/// Tokens added for a `name` (and for a tool message's `tool_call_id`).
pub const PER_NAME: u32 = 1;

/// A token count and whether it is exact (a real tokenizer) or estimated ("≈").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    /// Tokens.
    pub tokens: u32,
    /// Counted by the model's own tokenizer.
    pub exact: bool,
}

impl Count {
    /// An exact count.
    pub fn exact(tokens: u32) -> Self {
        Count {
            tokens,
            exact: true,
        }
    }

    /// An estimated count.
    pub fn estimated(tokens: u32) -> Self {
        Count {
            tokens,
            exact: false,
        }
    }

    /// The sum of two counts (exact only if both are).
    pub fn plus(self, other: Count) -> Count {
        Count {
            tokens: self.tokens.saturating_add(other.tokens),
            exact: self.exact && other.exact,
        }
    }
}

/// Counts the tokens of a text.
pub trait Counter {
    /// Tokens of `text` (content only, no message overhead).
    fn count(&mut self, text: &str) -> Count;
}

/// Tokens of `text` estimated from its characters, on the high side for the tokenizers Satori
/// meets (BPE vocabularies of 32k–200k tokens): a run of ASCII letters or digits costs one token
/// per 4 characters (at least one), other ASCII punctuation one each, spaces nothing extra after
/// a word, a CJK character 1.5, any other character one per two UTF-8 bytes.
pub fn estimate(text: &str) -> u32 {
    let mut halves: u64 = 0; // in half tokens
    let mut run = 0u64;
    let flush = |run: &mut u64, halves: &mut u64| {
        if *run > 0 {
            *halves += 2 * run.div_ceil(4);
            *run = 0;
        }
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            run += 1;
            continue;
        }
        flush(&mut run, &mut halves);
        match c {
            ' ' => {}
            c if c.is_ascii() => halves += 2,
            c if is_cjk(c) => halves += 3,
            c => halves += c.len_utf8() as u64,
        }
    }
    flush(&mut run, &mut halves);
    u32::try_from(halves.div_ceil(2)).unwrap_or(u32::MAX)
}

/// Han ideographs, kana, hangul and CJK punctuation (dense scripts).
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF
        | 0xF900..=0xFAFF | 0xFF00..=0xFFEF | 0x20000..=0x3FFFF)
}

/// The estimator as a [`Counter`], scaled by a correction learned from the server's
/// `usage.prompt_tokens` (1.0 until then).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimator {
    /// Multiplier applied to [`estimate`].
    pub ratio: f64,
}

impl Default for Estimator {
    fn default() -> Self {
        Estimator { ratio: 1.0 }
    }
}

impl Counter for Estimator {
    fn count(&mut self, text: &str) -> Count {
        let scaled = (f64::from(estimate(text)) * self.ratio).ceil();
        Count::estimated(if scaled >= f64::from(u32::MAX) {
            u32::MAX
        } else {
            scaled.max(0.0) as u32
        })
    }
}

/// A new estimator ratio after a response: the server counted `actual` prompt tokens for a
/// request the estimator put at `estimated` (with `ratio`). Smoothed, and bounded to 0.5–3 so
/// one odd reply cannot make the budget absurd.
pub fn corrected_ratio(ratio: f64, estimated: u32, actual: u64) -> f64 {
    if estimated == 0 || actual == 0 {
        return ratio;
    }
    let observed = ratio * actual as f64 / f64::from(estimated);
    (0.5 * ratio + 0.5 * observed).clamp(0.5, 3.0)
}

/// A counter that remembers every count by content, so each distinct text is counted once.
#[derive(Debug, Default)]
pub struct Cached<C> {
    inner: C,
    seen: HashMap<(u64, usize), Count>,
}

impl<C: Counter> Cached<C> {
    /// Wrap `inner`.
    pub fn new(inner: C) -> Self {
        Cached {
            inner,
            seen: HashMap::new(),
        }
    }

    /// The wrapped counter.
    pub fn inner_mut(&mut self) -> &mut C {
        &mut self.inner
    }

    /// How many distinct texts were counted.
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    /// Whether nothing was counted yet.
    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }
}

/// The cache key of a text: its hash and length.
pub fn text_key(text: &str) -> (u64, usize) {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    (h.finish(), text.len())
}

impl<C: Counter> Counter for Cached<C> {
    fn count(&mut self, text: &str) -> Count {
        let k = text_key(text);
        if let Some(c) = self.seen.get(&k) {
            return *c;
        }
        let c = self.inner.count(text);
        self.seen.insert(k, c);
        c
    }
}

/// The JSON of a tool call as sent (`{"id":…,"type":"function","function":{…}}`).
pub fn call_json(call: &ToolCall) -> String {
    format!(
        r#"{{"id":{},"type":"function","function":{{"name":{},"arguments":{}}}}}"#,
        json_string(&call.id),
        json_string(&call.name),
        json_string(&call.arguments)
    )
}

/// `text` as a JSON string literal.
pub fn json_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// Tokens of one message as sent: content, overhead, tool calls, `tool_call_id`.
pub fn message_tokens(
    counter: &mut dyn Counter,
    _role: Role,
    content: &str,
    calls: &[ToolCall],
    call_id: Option<&str>,
) -> Count {
    let mut total = counter.count(content).plus(Count::exact(PER_MESSAGE));
    for call in calls {
        total = total.plus(counter.count(&call_json(call)));
    }
    if let Some(id) = call_id {
        total = total.plus(counter.count(id)).plus(Count::exact(PER_NAME));
    }
    total
}
