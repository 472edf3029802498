//! Reading JSON a model was asked for (a planner's plan, tool-call arguments), which small models
//! often get wrong: cheap local repairs first ([`parse_lenient`]), then validation against the
//! schema, then — while tries remain — asking the model itself to fix its output with the exact
//! violations ([`Repairer`], a state machine the shell feeds each reply), and finally a failure
//! the UI can show ("Plan unavailable: …").
//!
//! Invariants, checked by the tests:
//! - [`parse_lenient`] never panics; strict JSON comes back as it is, with no fixes;
//! - a repair never changes the text inside a valid string (Chinese, emoji, `//`, `'`, `True`
//!   inside strings survive byte for byte); only what is outside strings, or a string that is not
//!   valid JSON (single or typographic quotes, raw line breaks), is rewritten;
//! - every repair made is reported ([`Fix`]), in a fixed order, so the UI can say what was done;
//!   closing a truncated reply is the last resort, tried only where no complete JSON was found;
//! - [`Repairer`] asks for at most `max_model_repairs` retries (so at most `1 + max_model_repairs`
//!   requests in all), and every retry prompt quotes the violations exactly as
//!   [`Violation`](super::schema::Violation) displays them.
//!
//! Pure: no IO; the shell sends the retry prompts and shows the verdict.

use super::schema::validate;
use crate::session::{Message, Role, Structured};
use serde_json::{Map, Value};

/// One local repair of a model's JSON output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fix {
    /// The JSON was inside a markdown code fence (```` ```json ````).
    Fence,
    /// There was other text around the JSON (a preface, an explanation, a second object).
    Prose,
    /// A byte-order mark, zero-width characters or non-ASCII spaces outside strings.
    Invisible,
    /// `//` and `/* */` comments.
    Comments,
    /// A comma before `}` or `]`.
    TrailingComma,
    /// No comma between two values (`"a": 1 "b": 2`, often across lines).
    MissingComma,
    /// Strings in single quotes (`'goal'`).
    SingleQuotes,
    /// Strings in typographic quotes (“goal”, ‘goal’).
    SmartQuotes,
    /// Quotes written as `&quot;`.
    HtmlQuotes,
    /// Object keys without quotes (`{goal: "x"}`).
    UnquotedKeys,
    /// `True`, `False`, `None`, `undefined`, `NaN`, `Infinity` outside strings.
    PythonLiterals,
    /// Raw line breaks or tabs inside strings.
    ControlChars,
    /// The reply stopped early: open strings, arrays and objects were closed.
    Unclosed,
}

const ALL_FIXES: [Fix; 13] = [
    Fix::Fence,
    Fix::Prose,
    Fix::Invisible,
    Fix::Comments,
    Fix::TrailingComma,
    Fix::MissingComma,
    Fix::SingleQuotes,
    Fix::SmartQuotes,
    Fix::HtmlQuotes,
    Fix::UnquotedKeys,
    Fix::PythonLiterals,
    Fix::ControlChars,
    Fix::Unclosed,
];

impl Fix {
    /// What was done, in a few words, for the UI: "removed a markdown code fence".
    pub fn label(self) -> &'static str {
        match self {
            Fix::Fence => "removed a markdown code fence",
            Fix::Prose => "took the JSON out of the surrounding text",
            Fix::Invisible => "removed invisible characters",
            Fix::Comments => "removed comments",
            Fix::TrailingComma => "removed trailing commas",
            Fix::MissingComma => "added missing commas",
            Fix::SingleQuotes => "replaced single quotes with double quotes",
            Fix::SmartQuotes => "replaced typographic quotes with plain ones",
            Fix::HtmlQuotes => "decoded HTML-escaped quotes",
            Fix::UnquotedKeys => "quoted bare object keys",
            Fix::PythonLiterals => "replaced True/False/None with JSON literals",
            Fix::ControlChars => "escaped line breaks inside strings",
            Fix::Unclosed => "closed a reply that was cut off",
        }
    }
}

/// A set of fixes, one bit each.
#[derive(Debug, Clone, Copy, Default)]
struct Fixes(u16);

impl Fixes {
    fn add(&mut self, fix: Fix) {
        self.0 |= 1 << fix as u16;
    }

    fn list(self) -> Vec<Fix> {
        ALL_FIXES
            .into_iter()
            .filter(|f| self.0 & (1 << *f as u16) != 0)
            .collect()
    }
}

/// The error for a reply with nothing that looks like JSON (empty, prose only).
const NO_JSON: &str = "no JSON found";
/// `{` / `[` positions tried as the start of the JSON in one text.
const MAX_CANDIDATES: usize = 16;

/// Parse a model's reply as JSON: strictly if it is valid (no fixes), otherwise after the cheap
/// repairs of [`Fix`], reporting which were needed. Only objects and arrays are looked for inside
/// other text. `Err` is "no JSON found", or "invalid JSON: …" with the parser's complaint about
/// the first object found.
pub fn parse_lenient(text: &str) -> Result<(Value, Vec<Fix>), String> {
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return Ok((v, Vec::new()));
    }
    // Fenced blocks, those marked `json` (or not marked) first: a ```python block before the
    // ```json one may hold something that parses too.
    let fences = fence_lines(text);
    let blocks = fences.windows(2).filter(|pair| pair[1].2);
    let (json, other): (Vec<_>, Vec<_>) = blocks.partition(|pair| {
        let info = text.get(pair[0].0..pair[0].1).unwrap_or("");
        let info = info.trim().trim_start_matches('`').trim();
        info.is_empty()
            || info
                .get(..4)
                .is_some_and(|t| t.eq_ignore_ascii_case("json"))
    });
    for pair in json.into_iter().chain(other) {
        let [(open, content_start, _), (content_end, close_end, _)] = [pair[0], pair[1]];
        let Some(content) = text.get(content_start..content_end) else {
            continue;
        };
        if let Ok((v, mut fixes)) = extract(content, false) {
            fixes.add(Fix::Fence);
            outside(text.get(..open).unwrap_or(""), &mut fixes);
            outside(text.get(close_end..).unwrap_or(""), &mut fixes);
            return Ok((v, fixes.list()));
        }
    }
    extract(text, true).map(|(v, fixes)| (v, fixes.list()))
}

/// Lines starting with ```` ``` ````: (start, end including the line break, nothing but
/// backticks — a closing fence).
fn fence_lines(text: &str) -> Vec<(usize, usize, bool)> {
    let mut lines = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let end = start + line.len();
        let t = line.trim_matches(|c: char| c.is_whitespace() || is_invisible(c));
        if t.starts_with("```") {
            lines.push((start, end, t.trim_start_matches('`').is_empty()));
        }
        start = end;
    }
    lines
}

/// The first JSON object or array in `region` that parses after local repairs, with the fixes
/// made; a reply cut off is closed only if `close` and nothing complete parsed before it.
fn extract(region: &str, close: bool) -> Result<(Value, Fixes), String> {
    if let Ok(v) = serde_json::from_str::<Value>(region) {
        return Ok((v, Fixes::default()));
    }
    let mut error = None;
    let mut from = 0;
    for _ in 0..MAX_CANDIDATES {
        let Some(start) = region
            .get(from..)
            .and_then(|rest| rest.find(['{', '[']))
            .map(|at| from + at)
        else {
            break;
        };
        let rest = region.get(start..).unwrap_or("");
        let scan = Scan::run(rest);
        let balanced = scan.balanced;
        let end = if balanced {
            start + scan.end
        } else {
            region.len()
        };
        let (json, mut fixes) = if balanced {
            (scan.out, scan.fixes)
        } else if close {
            let mut fixes = scan.fixes;
            fixes.add(Fix::Unclosed);
            (scan.close(), fixes)
        } else {
            from = start + 1;
            continue;
        };
        match serde_json::from_str::<Value>(&json) {
            Ok(v) => {
                outside(region.get(..start).unwrap_or(""), &mut fixes);
                outside(region.get(end..).unwrap_or(""), &mut fixes);
                return Ok((v, fixes));
            }
            Err(e) => {
                if error.is_none() && rest.starts_with('{') {
                    error = Some(format!("invalid JSON: {e}"));
                }
                // Skip what a balanced candidate enclosed: a part of it is not the answer.
                from = if balanced { end } else { start + 1 };
            }
        }
    }
    Err(error.unwrap_or_else(|| NO_JSON.into()))
}

/// Note what text around the JSON held: fence lines, prose, invisible characters.
fn outside(text: &str, fixes: &mut Fixes) {
    for line in text.lines() {
        if line.chars().any(is_invisible) {
            fixes.add(Fix::Invisible);
        }
        let t = line.trim_matches(|c: char| c.is_whitespace() || is_invisible(c));
        if t.starts_with("```") {
            fixes.add(Fix::Fence);
        } else if !t.is_empty() {
            fixes.add(Fix::Prose);
        }
    }
}

fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{feff}' | '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}'
    )
}

/// The last token written, outside strings.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok {
    Open,
    Comma,
    Colon,
    Key,
    Value,
}

/// One pass over text that starts with `{` or `[`, writing it out as JSON with the repairs
/// made, up to where the first bracket is closed (`balanced`) or the text ends.
struct Scan<'t> {
    src: &'t str,
    i: usize,
    out: String,
    /// Open brackets, `b'{'` or `b'['`.
    stack: Vec<u8>,
    prev: Tok,
    fixes: Fixes,
    /// `out.len()` where the JSON last was complete but for closing brackets.
    safe: usize,
    balanced: bool,
    /// Bytes of `src` read when balanced.
    end: usize,
    /// The text ended inside a string: `Some(is_key)`.
    open_string: Option<bool>,
}

impl<'t> Scan<'t> {
    fn run(src: &'t str) -> Scan<'t> {
        let mut s = Scan {
            src,
            i: 0,
            out: String::with_capacity(src.len() + 8),
            stack: Vec::new(),
            prev: Tok::Open,
            fixes: Fixes::default(),
            safe: 0,
            balanced: false,
            end: 0,
            open_string: None,
        };
        while let Some(c) = s.rest().chars().next() {
            match c {
                '{' | '[' => {
                    s.before_value();
                    s.i += 1;
                    s.out.push(c);
                    s.stack.push(c as u8);
                    s.prev = Tok::Open;
                    s.safe = s.out.len();
                }
                '}' | ']' => {
                    s.i += 1;
                    let kept = s.out.trim_end().len();
                    if s.out.get(..kept).is_some_and(|t| t.ends_with(',')) {
                        s.out.truncate(kept - 1);
                        s.fixes.add(Fix::TrailingComma);
                    }
                    s.out.push(c);
                    s.stack.pop();
                    if s.stack.is_empty() {
                        s.balanced = true;
                        s.end = s.i;
                        break;
                    }
                    s.prev = Tok::Value;
                    s.safe = s.out.len();
                }
                ',' | ':' => {
                    s.i += 1;
                    s.out.push(c);
                    s.prev = if c == ',' { Tok::Comma } else { Tok::Colon };
                }
                '"' => s.string("\"", &["\""], None),
                '\'' => s.string("'", &["'"], Some(Fix::SingleQuotes)),
                // Either typographic quote may open (the opener's length is the same, 3 bytes).
                '“' | '”' => s.string("“", &["”", "“"], Some(Fix::SmartQuotes)),
                '‘' | '’' => s.string("‘", &["’", "‘"], Some(Fix::SmartQuotes)),
                '&' if s.rest().starts_with("&quot;") => {
                    s.string("&quot;", &["&quot;"], Some(Fix::HtmlQuotes))
                }
                '/' if s.rest().starts_with("//") => {
                    s.i += s.rest().find('\n').unwrap_or(s.rest().len());
                    s.fixes.add(Fix::Comments);
                }
                '/' if s.rest().starts_with("/*") => {
                    let rest = s.rest();
                    s.i += rest
                        .get(2..)
                        .and_then(|r| r.find("*/"))
                        .map_or(rest.len(), |at| at + 4);
                    s.fixes.add(Fix::Comments);
                }
                ' ' | '\t' | '\n' | '\r' => {
                    s.i += 1;
                    s.out.push(c);
                }
                c if is_invisible(c) || c.is_whitespace() => {
                    s.i += c.len_utf8();
                    if c.is_whitespace() {
                        s.out.push(' ');
                    }
                    s.fixes.add(Fix::Invisible);
                }
                c if c.is_alphabetic() || c == '_' || c == '$' => s.word(),
                c if c.is_ascii_digit() || matches!(c, '-' | '+' | '.') => s.number(),
                c => {
                    s.i += c.len_utf8();
                    s.out.push(c);
                }
            }
        }
        s
    }

    fn rest(&self) -> &'t str {
        self.src.get(self.i..).unwrap_or("")
    }

    /// Whether a string or bare word starting now is an object key.
    fn at_key(&self) -> bool {
        self.stack.last() == Some(&b'{') && self.prev != Tok::Colon
    }

    /// A value or key starts: put in the comma the model left out.
    fn before_value(&mut self) {
        if self.prev == Tok::Value {
            self.out.push(',');
            self.fixes.add(Fix::MissingComma);
        }
    }

    /// A value (not a key) ended at the end of `out`.
    fn value_done(&mut self) {
        self.prev = Tok::Value;
        // The text may have been cut in the middle of a bare word or number.
        if !self.rest().is_empty() {
            self.safe = self.out.len();
        }
    }

    /// A string opened by `open`, written out with double quotes. Strict JSON strings (no
    /// `fix`) are copied as they are but for raw control characters; the others end at a
    /// closing quote followed by `,` `:` `}` `]` `/` or the end (so `'Bob's'` keeps its
    /// apostrophe), with `"` escaped and `\'` unescaped.
    fn string(&mut self, open: &str, closers: &[&str], fix: Option<Fix>) {
        let key = self.at_key();
        self.before_value();
        if let Some(f) = fix {
            self.fixes.add(f);
        }
        self.i += open.len();
        self.out.push('"');
        loop {
            let rest = self.rest();
            let Some(c) = rest.chars().next() else {
                self.open_string = Some(key);
                return;
            };
            if c == '\\' {
                let Some(d) = rest.get(1..).and_then(|r| r.chars().next()) else {
                    self.i += 1;
                    self.open_string = Some(key);
                    return;
                };
                self.i += 1 + d.len_utf8();
                if fix.is_some() && d != '"' && closers.iter().any(|q| q.starts_with(d)) {
                    self.out.push(d);
                } else {
                    self.out.push('\\');
                    self.out.push(d);
                }
                continue;
            }
            if let Some(q) = closers.iter().find(|q| rest.starts_with(**q)) {
                if fix.is_none() || closes_here(rest.get(q.len()..).unwrap_or("")) {
                    self.i += q.len();
                    self.out.push('"');
                    break;
                }
            }
            self.i += c.len_utf8();
            match c {
                '"' => self.out.push_str("\\\""),
                '\n' | '\r' | '\t' => {
                    self.out.push_str(match c {
                        '\n' => "\\n",
                        '\r' => "\\r",
                        _ => "\\t",
                    });
                    self.fixes.add(Fix::ControlChars);
                }
                c if (c as u32) < 0x20 => {
                    self.out.push_str("\\u00");
                    self.out.push(hex_digit(c as u32 >> 4));
                    self.out.push(hex_digit(c as u32 & 15));
                    self.fixes.add(Fix::ControlChars);
                }
                c => self.out.push(c),
            }
        }
        if key {
            self.prev = Tok::Key;
        } else {
            self.prev = Tok::Value;
            self.safe = self.out.len();
        }
    }

    /// A bare word: a key to quote, a literal (Python's too), or anything else as it is.
    fn word(&mut self) {
        let rest = self.rest();
        let len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
            .unwrap_or(rest.len());
        let word = rest.get(..len).unwrap_or("");
        self.i += len;
        let key = self.at_key() && self.rest().trim_start().starts_with(':');
        self.before_value();
        if key {
            self.out.push('"');
            self.out.push_str(word);
            self.out.push('"');
            self.fixes.add(Fix::UnquotedKeys);
            self.prev = Tok::Key;
            return;
        }
        let literal = match word {
            "True" => "true",
            "False" => "false",
            "None" | "undefined" | "NaN" | "Infinity" => "null",
            word => word,
        };
        if literal != word {
            self.fixes.add(Fix::PythonLiterals);
        }
        self.out.push_str(literal);
        if matches!(literal, "true" | "false" | "null") {
            self.value_done();
        } else {
            self.prev = Tok::Value;
        }
    }

    fn number(&mut self) {
        let rest = self.rest();
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-')))
            .unwrap_or(rest.len());
        let token = rest.get(..len).unwrap_or("");
        self.i += len;
        self.before_value();
        if matches!(token, "-Infinity" | "+Infinity") {
            self.out.push_str("null");
            self.fixes.add(Fix::PythonLiterals);
        } else {
            self.out.push_str(token);
        }
        self.value_done();
    }

    /// The JSON of a reply that was cut off: an open string closed (dropped if it was a key),
    /// a dangling key, colon, comma or unfinished word dropped, open brackets closed.
    fn close(mut self) -> String {
        if let Some(key) = self.open_string {
            trim_partial_escape(&mut self.out);
            self.out.push('"');
            if !key {
                self.safe = self.out.len();
            }
        }
        if self.out.is_char_boundary(self.safe) {
            self.out.truncate(self.safe);
        }
        while let Some(open) = self.stack.pop() {
            self.out.push(if open == b'{' { '}' } else { ']' });
        }
        self.out
    }
}

/// Whether a quote followed by `after` ends a string written with non-JSON quotes.
fn closes_here(after: &str) -> bool {
    after
        .trim_start()
        .chars()
        .next()
        .is_none_or(|c| matches!(c, ',' | ':' | '}' | ']' | '/'))
}

fn hex_digit(n: u32) -> char {
    char::from_digit(n & 15, 16).unwrap_or('0')
}

/// Drop an escape cut short at the end of `out` (`\u12`; a lone `\` is never written).
fn trim_partial_escape(out: &mut String) {
    let b = out.as_bytes();
    let n = b.len();
    for digits in 0..4 {
        let Some(slash) = n.checked_sub(digits + 2) else {
            break;
        };
        let escape = b[slash] == b'\\'
            && b[slash + 1] == b'u'
            && b[slash + 2..].iter().all(u8::is_ascii_hexdigit);
        let backslashes = b[..=slash]
            .iter()
            .rev()
            .take_while(|&&c| c == b'\\')
            .count();
        if escape && backslashes % 2 == 1 {
            out.truncate(slash);
            return;
        }
    }
}

// ----------------------------------------------------------------------------- the machine

/// How a structured output ended up, for the UI.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Valid as the model sent it.
    Valid,
    /// Valid after these local repairs.
    RepairedLocally(Vec<Fix>),
    /// Valid after asking the model to fix it `tries` times (local repairs of that last reply
    /// are not listed).
    RepairedByModel {
        /// Repair requests sent to the model.
        tries: u32,
    },
    /// Still invalid when the tries ran out.
    Failed {
        /// Why, for "Plan unavailable: {reason}".
        reason: String,
    },
}

impl Verdict {
    /// The outcome as a reply records it, with the line shown under it: "Valid JSON: matches the template's schema", "JSON repaired locally: …",
    /// "JSON repaired by the model (n tries)", or "Plan unavailable: …" for the planner's
    /// template (`plan`), "Output unavailable: …" for any other.
    pub fn structured(&self, plan: bool) -> Structured {
        let (outcome, line) = match self {
            Verdict::Valid => (
                Structured::VALID,
                "Valid JSON: matches the template's schema".to_string(),
            ),
            Verdict::RepairedLocally(fixes) => {
                let labels: Vec<&str> = fixes.iter().map(|f| f.label()).collect();
                let line = format!("JSON repaired locally: {}", labels.join(", "));
                (Structured::REPAIRED, line)
            }
            Verdict::RepairedByModel { tries } => {
                let n = if *tries == 1 { "try" } else { "tries" };
                let line = format!("JSON repaired by the model ({tries} {n})");
                (Structured::REPAIRED_BY_MODEL, line)
            }
            Verdict::Failed { reason } => {
                let what = if plan { "Plan" } else { "Output" };
                (Structured::FAILED, format!("{what} unavailable: {reason}"))
            }
        };
        Structured {
            outcome: outcome.into(),
            line,
            original: None,
        }
    }
}

/// What a repair request of reply `path.last()` carries besides the invalid reply and the
/// errors: the chat's first messages while they are the template's (system prompt, examples),
/// then the question the reply answers — never a message the user excluded, nor an empty system
/// prompt. `None` unless `path` ends with a reply to a question.
pub fn repair_context<'a>(path: &[&'a Message]) -> Option<Vec<&'a Message>> {
    let (reply, before) = path.split_last()?;
    if reply.role != Role::Assistant {
        return None;
    }
    let question = before
        .iter()
        .rev()
        .find(|m| m.role == Role::User && !m.example && !m.excluded)?;
    let mut out: Vec<&Message> = before
        .iter()
        .take_while(|m| m.role == Role::System || m.example)
        .filter(|m| !(m.excluded || (m.role == Role::System && m.content.trim().is_empty())))
        .copied()
        .collect();
    out.push(question);
    Some(out)
}

/// What to do with a model's output, from [`Repairer::step`].
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// A value that matches the schema.
    Done {
        /// The value.
        value: Value,
        /// How it was obtained.
        verdict: Verdict,
    },
    /// Ask the model again: send `prompt` as a user message after its invalid output.
    Retry {
        /// The request to fix it, quoting the errors.
        prompt: String,
        /// Every error found (the prompt quotes the first [`MAX_PROMPT_ERRORS`]).
        errors: Vec<String>,
    },
    /// No tries left.
    Failed {
        /// Always [`Verdict::Failed`].
        verdict: Verdict,
        /// The errors of the last output.
        errors: Vec<String>,
    },
}

/// Errors quoted in a retry prompt.
pub const MAX_PROMPT_ERRORS: usize = 10;

/// The structured-output machine: feed it each output of the model in turn; it says whether the
/// output is done, needs another request, or has failed for good.
#[derive(Debug, Clone)]
pub struct Repairer {
    schema: Value,
    max_model_repairs: u32,
    tries: u32,
}

impl Repairer {
    /// Repair requests allowed by default: at most three requests in all.
    pub const DEFAULT_MODEL_REPAIRS: u32 = 2;

    /// A machine for outputs that must match `schema` (check it first with
    /// [`check_schema`](super::schema::check_schema)), asking the model to fix an invalid output
    /// at most `max_model_repairs` times.
    pub fn new(schema: Value, max_model_repairs: u32) -> Self {
        Repairer {
            schema,
            max_model_repairs,
            tries: 0,
        }
    }

    /// Repair requests made so far.
    pub fn tries(&self) -> u32 {
        self.tries
    }

    /// The next output of the model (the first reply, then the reply to each retry prompt).
    /// After [`Step::Failed`] every invalid output fails again and a valid one still counts.
    pub fn step(&mut self, output: &str) -> Step {
        let (errors, parsed) = match parse_lenient(output) {
            Ok((value, fixes)) => {
                let violations = validate(&self.schema, &value);
                if violations.is_empty() {
                    let verdict = if self.tries > 0 {
                        Verdict::RepairedByModel { tries: self.tries }
                    } else if fixes.is_empty() {
                        Verdict::Valid
                    } else {
                        Verdict::RepairedLocally(fixes)
                    };
                    return Step::Done { value, verdict };
                }
                (violations.iter().map(ToString::to_string).collect(), true)
            }
            Err(e) => (vec![e], false),
        };
        if self.tries < self.max_model_repairs {
            self.tries += 1;
            let prompt = retry_prompt(&self.schema, &errors, parsed);
            return Step::Retry { prompt, errors };
        }
        let first = errors.first().map_or("", String::as_str);
        let mut reason = match self.tries {
            0 => format!("invalid: {first}"),
            1 => format!("still invalid after 1 repair attempt: {first}"),
            n => format!("still invalid after {n} repair attempts: {first}"),
        };
        if errors.len() > 1 {
            reason.push_str(&format!(" (and {} more)", errors.len() - 1));
        }
        Step::Failed {
            verdict: Verdict::Failed { reason },
            errors,
        }
    }
}

/// The user message asking the model to fix its output.
fn retry_prompt(schema: &Value, errors: &[String], parsed: bool) -> String {
    let mut p = String::from(if parsed {
        "Your reply does not match the required JSON Schema:\n"
    } else {
        "Your reply could not be read as JSON:\n"
    });
    for e in errors.iter().take(MAX_PROMPT_ERRORS) {
        p.push_str("- ");
        p.push_str(e);
        p.push('\n');
    }
    if errors.len() > MAX_PROMPT_ERRORS {
        p.push_str(&format!(
            "- … and {} more\n",
            errors.len() - MAX_PROMPT_ERRORS
        ));
    }
    let what = match schema.get("type").and_then(Value::as_str) {
        Some("array") => "array",
        Some("object") | None => "object",
        Some(_) => "value",
    };
    p.push_str(&format!(
        "Reply with the corrected JSON {what} only: no prose, no code fence."
    ));
    p
}

/// Tool-call arguments checked against the tool's `schema`: empty means `{}`; parsed leniently
/// (arguments sent as a JSON string holding the object are unwrapped); `Err` is one message
/// listing every violation, to send back to the model as the tool's result.
pub fn tool_args(arguments: &str, schema: &Value) -> Result<Value, String> {
    let mut value = if arguments.trim().is_empty() {
        Value::Object(Map::new())
    } else {
        parse_lenient(arguments)
            .map(|(v, _)| v)
            .map_err(|e| format!("the arguments are not JSON: {e}"))?
    };
    if let Value::String(inner) = &value {
        if let Ok(object @ Value::Object(_)) = serde_json::from_str::<Value>(inner) {
            value = object;
        }
    }
    let violations = validate(schema, &value);
    if violations.is_empty() {
        return Ok(value);
    }
    let mut message = String::from("invalid arguments:");
    for v in &violations {
        message.push_str("\n- ");
        message.push_str(&v.to_string());
    }
    Err(message)
}

#[cfg(test)]
#[path = "repair_tests.rs"]
mod tests;
