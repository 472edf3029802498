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
/// meets (byte-level BPE vocabularies of 32k–200k tokens; never below the exact o200k or cl100k
/// count of any text of `tests/fixtures/tokens/`). The text is cut as those tokenizers cut it
/// before merging — words, digit runs, punctuation, whitespace — and each piece priced:
///
/// - ASCII letters: a lowercase run one token per 4 letters (a capital before two or more
///   counts as one of them), an uppercase run one per 2, a run of over 20 letters one per 2 (no word is that
///   long), one repeated letter 1 plus one per 4 more; digits one per 3 (numbers are split into
///   groups of 3); a run of letters and digits that changes case or kind at least every 4
///   characters (base64, hashes) at least 3 tokens per 4 characters;
/// - a space before a letter or punctuation is part of its token (not before a digit, CJK or a
///   rare character); other spaces and tabs one token per 16, line breaks one per 8;
/// - ASCII punctuation one token each, a repeat of the mark before it an eighth;
/// - other characters by script: Latin-1, Latin Extended-A, Cyrillic, quotes and dashes one;
///   Greek, Hebrew, Arabic, the Indic scripts, Thai, Vietnamese letters, other punctuation and
///   CJK 1.5; emoji 3; anything rarer (digits of other scripts, combining marks, modifier
///   letters, symbols) one per UTF-8 byte, since rare characters fall apart into byte tokens.
pub fn estimate(text: &str) -> u32 {
    let bytes = text.as_bytes();
    let mut eighths: u64 = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_alphanumeric() {
            let j = run_end(bytes, i, |c| c.is_ascii_alphanumeric());
            eighths += 8 * alphanumeric(&bytes[i..j]);
            i = j;
        } else if is_blank(b) {
            let j = run_end(bytes, i, is_blank);
            let mut n = (j - i) as u64;
            if bytes[j - 1] == b' ' && text[j..].chars().next().is_some_and(takes_a_space) {
                n -= 1;
            }
            eighths += 8 * n.div_ceil(16);
            i = j;
        } else if b == b'\n' || b == b'\r' {
            let j = run_end(bytes, i, |c| c == b'\n' || c == b'\r');
            eighths += 8 * ((j - i) as u64).div_ceil(8);
            i = j;
        } else if b.is_ascii() {
            eighths += if i > 0 && bytes[i - 1] == b { 1 } else { 8 };
            i += 1;
        } else {
            let c = text[i..]
                .chars()
                .next()
                .unwrap_or(char::REPLACEMENT_CHARACTER);
            eighths += other_eighths(c);
            i += c.len_utf8();
        }
    }
    u32::try_from(eighths.div_ceil(8)).unwrap_or(u32::MAX)
}

/// Where the run of bytes matching `f` that starts at `i` ends.
fn run_end(bytes: &[u8], i: usize, f: impl Fn(u8) -> bool) -> usize {
    bytes[i..]
        .iter()
        .position(|&c| !f(c))
        .map_or(bytes.len(), |n| i + n)
}

/// Spaces and tabs (not line breaks).
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | 0x0b | 0x0c)
}

/// Whether a token starting with `c` takes the space before it: letters, punctuation and the
/// common scripts do; digits, whitespace, CJK and rare characters do not.
fn takes_a_space(c: char) -> bool {
    if c.is_ascii() {
        c.is_ascii_alphabetic() || !(c.is_ascii_digit() || c.is_ascii_whitespace())
    } else {
        other_eighths(c) < 16 && !is_cjk(c)
    }
}

/// Tokens of a run of ASCII letters and digits.
fn alphanumeric(run: &[u8]) -> u64 {
    let n = run.len() as u64;
    let same = |s: &[u8]| s.iter().all(|&c| c == s[0]);
    if same(run) && !run[0].is_ascii_digit() {
        return 1 + (n - 1).div_ceil(4);
    }
    let mut tokens = 0;
    let mut i = 0;
    while i < run.len() {
        if run[i].is_ascii_digit() {
            let j = run_end(run, i, |c| c.is_ascii_digit());
            tokens += ((j - i) as u64).div_ceil(3);
            i = j;
            continue;
        }
        let j = run_end(run, i, |c| c.is_ascii_uppercase());
        let m = run_end(run, j, |c| c.is_ascii_lowercase());
        let (upper, lower) = ((j - i) as u64, (m - j) as u64);
        tokens += if m - i > 1 && same(&run[i..m]) {
            1 + (upper + lower - 1).div_ceil(4)
        } else if upper + lower > 20 {
            (upper + lower).div_ceil(2)
        } else if upper == 1 && lower >= 2 {
            (1 + lower).div_ceil(4)
        } else {
            upper.div_ceil(2) + lower.div_ceil(4)
        };
        i = m;
    }
    let kind = |c: u8| (c.is_ascii_digit(), c.is_ascii_uppercase());
    let changes = run.windows(2).filter(|w| kind(w[0]) != kind(w[1])).count() as u64;
    if n > 16 && 4 * changes >= n {
        tokens = tokens.max((3 * n).div_ceil(4));
    }
    tokens
}

/// Eighths of a token for a character outside ASCII.
fn other_eighths(c: char) -> u64 {
    let bytes = 8 * c.len_utf8() as u64;
    if is_numeric(c) {
        return bytes;
    }
    match c as u32 {
        _ if is_cjk(c) => 12,
        0x1F000..=0x1FAFF | 0x2600..=0x27BF => 24,
        0xA0..=0x17F | 0x400..=0x4FF | 0x2010..=0x2027 => 8,
        0x370..=0x3FF
        | 0x590..=0x6FF
        | 0x900..=0xDFF
        | 0xE00..=0xE7F
        | 0x1E00..=0x1EFF
        | 0x2000..=0x206F => 12,
        _ => bytes,
    }
}

/// Digits and number signs outside ASCII that the ranges of [`other_eighths`] would price below a
/// token per byte (`char::is_numeric` would bring its whole table into the first load; a test
/// checks every numeric character against it).
fn is_numeric(c: char) -> bool {
    matches!(c as u32,
        0xB2 | 0xB3 | 0xB9 | 0xBC..=0xBE
        | 0x660..=0x669 | 0x6F0..=0x6F9
        | 0x966..=0x96F | 0x9E6..=0x9EF | 0x9F4..=0x9F9 | 0xA66..=0xA6F | 0xAE6..=0xAEF
        | 0xB66..=0xB6F | 0xB72..=0xB77 | 0xBE6..=0xBF2 | 0xC66..=0xC6F | 0xC78..=0xC7E
        | 0xCE6..=0xCEF | 0xD58..=0xD5E | 0xD66..=0xD78 | 0xDE6..=0xDEF | 0xE50..=0xE59
        | 0x3007 | 0x3021..=0x3029 | 0x3038..=0x303A | 0xFF10..=0xFF19 | 0x1F100..=0x1F10C)
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

#[cfg(test)]
mod numeric_tests {
    use super::{is_numeric, other_eighths};

    /// Every numeric character outside ASCII is priced a token per byte or more, as Unicode's own
    /// table would have it, and the short list names only numeric characters.
    #[test]
    fn every_numeric_character_costs_a_token_per_byte() {
        let mut low = Vec::new();
        for c in (0x80..=0x10FFFF).filter_map(char::from_u32) {
            if c.is_numeric() && other_eighths(c) < 8 * c.len_utf8() as u64 {
                low.push(format!("U+{:04X}", c as u32));
            }
            assert!(
                !is_numeric(c) || c.is_numeric(),
                "U+{:04X} is not numeric",
                c as u32
            );
        }
        assert!(low.is_empty(), "priced below a token per byte: {low:?}");
    }
}
