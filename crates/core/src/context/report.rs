//! What the context inspector shows about one request, as plain data: how the window is spent,
//! every message's tokens and fate, the summary and what it covers, the stage log, and the exact
//! JSON body with a `curl` command that reproduces it (the API key never appears: the command
//! reads it from an environment variable).
//!
//! The app builds a [`Report`] from the pipeline's [`Context`] and hands it, as JSON, to the
//! on-demand dialogs module that draws the inspector.

use super::models::WindowSource;
use super::{Config, Context, Fate, Source, Verdict};
use crate::attachment::{image_tokens, Kind};
use crate::session::{ContextOverrides, Message, Summary};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One part of the window bar.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Segment {
    /// `system`, `summary`, `pinned`, `history`, `reserve` or `free`.
    pub kind: String,
    /// What the legend calls it.
    pub label: String,
    /// Tokens.
    pub tokens: u32,
}

/// One history message in the inspector.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    /// Message id.
    pub id: String,
    /// Role.
    pub role: String,
    /// The start of its text.
    pub preview: String,
    /// Tokens as stored.
    pub tokens: u32,
    /// Tokens as sent (0 when not sent).
    pub sent: u32,
    /// What became of it.
    pub fate: String,
    /// Pinned by the user.
    pub pinned: bool,
    /// Each attachment: what it is, its tokens and what became of it, in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<String>,
}

/// The summary a request used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummaryView {
    /// Summary id (for editing).
    pub id: String,
    /// Its text.
    pub text: String,
    /// Messages it covers.
    pub covers: u32,
    /// The start of the last message it covers.
    pub through: String,
    /// Key facts the guard restored.
    pub restored: Vec<String>,
    /// Edited by the user.
    pub edited: bool,
}

/// Everything the inspector shows about one request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// "Next request" or when it was sent.
    pub title: String,
    /// Model window.
    pub window: u32,
    /// Where the window came from, as a sentence when the user should act on it.
    pub window_hint: String,
    /// Tokens the request may use.
    pub budget: u32,
    /// Tokens it uses.
    pub total: u32,
    /// Whether every count is exact.
    pub exact: bool,
    /// The bar, in order.
    pub segments: Vec<Segment>,
    /// Empty when it may be sent, else why not.
    pub refused: String,
    /// One row per history message.
    pub rows: Vec<Row>,
    /// The summary in use.
    pub summary: Option<SummaryView>,
    /// The stage log.
    pub log: Vec<String>,
    /// The JSON body, indented.
    pub body: String,
    /// A `curl` command sending it.
    pub curl: String,
    /// The chat's own context settings (on the next request only: they can be edited there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overrides: Option<ContextOverrides>,
}

/// The first `n` characters of `text` on one line.
fn preview(text: &str, n: usize) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out: String = line.chars().take(n).collect();
    if line.chars().count() > n {
        out.push('…');
    }
    out
}

/// The preview of a run of `n` elided messages.
fn earlier(n: usize) -> String {
    match n {
        1 => "1 earlier message (its text was not needed)".into(),
        n => format!("{n} earlier messages (their text was not needed)"),
    }
}

/// A shell command that sends `body` to `url`; the key (if one is used) comes from
/// `$SATORI_API_KEY`, never from the page.
pub fn curl(url: &str, body: &str, with_key: bool) -> String {
    let mut cmd = format!(
        "curl -N '{}' \\\n  -H 'Content-Type: application/json'",
        url.replace('\'', "'\\''")
    );
    if with_key {
        cmd.push_str(" \\\n  -H \"Authorization: Bearer $SATORI_API_KEY\"");
    }
    cmd.push_str(" \\\n  --data-binary @- <<'SATORI_BODY'\n");
    cmd.push_str(body);
    cmd.push_str("\nSATORI_BODY");
    cmd
}

/// What the inspector needs besides the context.
pub struct Inputs<'a> {
    /// "Next request", or when it was sent.
    pub title: String,
    /// The history the context was built from.
    pub history: &'a [Message],
    /// Its first messages came without their text (`ask::elide`): those not kept whole are
    /// shown as runs ("N earlier messages").
    pub elided: usize,
    /// The summary it used.
    pub summary: Option<&'a Summary>,
    /// The configuration.
    pub config: &'a Config,
    /// Where the window came from.
    pub source: WindowSource,
    /// The JSON body (compact).
    pub body: &'a str,
    /// Where it goes.
    pub url: &'a str,
    /// Whether an API key goes with it.
    pub with_key: bool,
    /// The chat's overrides, to offer for editing (next request only).
    pub overrides: Option<&'a ContextOverrides>,
    /// The estimated tokens of each file's block in its question, by the file's hash.
    pub files: &'a BTreeMap<String, u32>,
}

/// The inspector's lines about message `i`'s attachments (`m`, whose fate is `fate`): an image's
/// tokens and whether it was sent, a file's tokens in its question.
fn attachment_lines(
    context: &Context,
    i: usize,
    m: &Message,
    fate: Fate,
    inputs: &Inputs<'_>,
) -> Vec<String> {
    let sent: Vec<&str> = context
        .messages
        .iter()
        .filter(|s| s.source == Source::History(i))
        .flat_map(|s| s.images.iter().map(|a| a.hash.as_str()))
        .collect();
    crate::attachment::read(&m.attachments)
        .iter()
        .map(|a| match a.kind {
            Kind::Image => {
                let t = image_tokens(a.width, a.height);
                let t = if inputs.config.images_exact {
                    t.to_string()
                } else {
                    format!("≈{t}")
                };
                let what = match fate.sent() {
                    true if sent.contains(&a.hash.as_str()) => "sent",
                    true => "placeholder",
                    false => fate.as_str(),
                };
                format!(
                    "Image “{}” ({}×{}): {t} tokens, {what}",
                    a.name, a.width, a.height
                )
            }
            Kind::Text | Kind::Pdf => {
                let t = inputs.files.get(&a.hash).copied().unwrap_or(0);
                format!(
                    "File “{}”: ≈{t} tokens in its message ({})",
                    a.name,
                    fate.as_str()
                )
            }
        })
        .collect()
}

/// The inspector's view of `context`.
pub fn report(context: &Context, inputs: &Inputs<'_>) -> Report {
    let cfg = inputs.config;
    let p = &context.parts;
    let used = context.total.min(cfg.window);
    let free = cfg
        .window
        .saturating_sub(used)
        .saturating_sub(cfg.reply_reserve);
    let segment = |kind: &str, label: &str, tokens: u32| Segment {
        kind: kind.into(),
        label: label.into(),
        tokens,
    };
    let segments = vec![
        segment("system", "System prompt", p.system + p.priming),
        segment("summary", "Summary", p.summary),
        segment("pinned", "Pinned", p.pinned),
        segment("history", "Recent history", p.history),
        segment("reserve", "Reply reserve", cfg.reply_reserve),
        segment("free", "Free", free),
    ];
    let refused = match context.verdict {
        Verdict::Fits => String::new(),
        Verdict::PinsOverBudget { pinned, budget } => {
            format!("Not sendable: pinned messages need {pinned} tokens, budget {budget}.")
        }
        Verdict::TooLarge { need, budget } => {
            format!("Not sendable: {need} tokens even when cut, budget {budget}.")
        }
    };
    let window_hint = match inputs.source {
        WindowSource::Default => format!(
            "Satori does not know this model's context window and assumes {}. Set it in Settings (Context window).",
            cfg.window
        ),
        WindowSource::Server => "Window reported by the server.".into(),
        WindowSource::Table => "Window from Satori's model table.".into(),
        WindowSource::User => "Window set in Settings.".into(),
        WindowSource::Chat => "Window set for this chat.".into(),
    };
    let through = inputs.summary.map(|s| s.through.as_str());
    let mut rows: Vec<Row> = Vec::new();
    let mut run = 0; // elided messages in the last row
    for (i, (e, m)) in context.entries.iter().zip(inputs.history).enumerate() {
        let fate = e.fate.as_str();
        if i >= inputs.elided || super::ask::kept_whole(m, through) {
            run = 0;
            rows.push(Row {
                id: m.id.clone(),
                role: m.role.as_str().into(),
                preview: preview(&m.content, 80),
                tokens: e.tokens,
                sent: e.sent_tokens,
                fate: fate.into(),
                pinned: m.pinned,
                attachments: attachment_lines(context, i, m, e.fate, inputs),
            });
            continue;
        }
        match rows.last_mut() {
            Some(last) if run > 0 && last.fate == fate => run += 1,
            _ => {
                run = 1;
                rows.push(Row {
                    id: String::new(),
                    role: "…".into(),
                    preview: String::new(),
                    tokens: 0,
                    sent: 0,
                    fate: fate.into(),
                    pinned: false,
                    attachments: Vec::new(),
                });
            }
        }
        if let Some(last) = rows.last_mut() {
            last.preview = earlier(run);
        }
    }
    let summary = inputs
        .summary
        .filter(|_| cfg.summarize)
        .map(|s| SummaryView {
            id: s.id.clone(),
            text: s.text.clone(),
            covers: s.covers,
            through: inputs
                .history
                .iter()
                .find(|m| m.id == s.through)
                .map(|m| preview(&m.content, 60))
                .unwrap_or_default(),
            restored: s.restored.clone(),
            edited: s.edited,
        });
    let body = serde_json::from_str::<serde_json::Value>(inputs.body)
        .and_then(|v| serde_json::to_string_pretty(&v))
        .unwrap_or_else(|_| inputs.body.to_string());
    Report {
        title: inputs.title.clone(),
        window: cfg.window,
        window_hint,
        budget: context.budget,
        total: context.total,
        exact: context.exact,
        segments,
        refused,
        rows,
        summary,
        log: context.log.iter().map(ToString::to_string).collect(),
        curl: curl(inputs.url, inputs.body, inputs.with_key),
        body,
        overrides: inputs.overrides.cloned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curl_never_carries_the_key_and_quotes_the_url() {
        let c = curl("http://h/v1/chat/completions", "{\"a\":1}", true);
        assert_eq!(
            c,
            "curl -N 'http://h/v1/chat/completions' \\\n  -H 'Content-Type: application/json' \\\n  -H \"Authorization: Bearer $SATORI_API_KEY\" \\\n  --data-binary @- <<'SATORI_BODY'\n{\"a\":1}\nSATORI_BODY"
        );
        assert!(!curl("http://h/x'y", "{}", false).contains("Authorization"));
        assert!(curl("http://h/x'y", "{}", false).contains("'http://h/x'\\''y'"));
    }

    #[test]
    fn elided_messages_are_shown_as_runs_of_one_fate() {
        use crate::context::{ask, build_lean, count::Estimator};
        use crate::session::Role;
        let mut history = vec![Message::new(
            "sys".into(),
            None,
            Role::System,
            "Be brief.".into(),
            0,
        )];
        for i in 0..8 {
            let role = if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            };
            let text = format!("message {i} {}", "word ".repeat(40));
            history.push(Message::new(format!("m{i}"), None, role, text, 0));
        }
        history[2].excluded = true;
        let config = Config {
            window: 200,
            reply_reserve: 20,
            margin: 0,
            keep_recent_rounds: 1,
            min_keep_rounds: 1,
            summarize: false,
            item_cap: 100,
            image_rounds: 1,
            images: true,
            images_exact: false,
        };
        let lean = ask::elide(&history, 5, None);
        let refs: Vec<&Message> = lean.iter().collect();
        let context = build_lean(&refs, None, &config, &mut Estimator::default());
        // The round of m4 and m5 (whole) was counted and does not fit: nothing older is read.
        assert_eq!(ask::read_from(&context, &lean, None, true), Some(5));
        let r = report(
            &context,
            &Inputs {
                title: "Sent".into(),
                history: &lean,
                elided: 5,
                summary: None,
                config: &config,
                source: WindowSource::User,
                body: "{}",
                url: "http://h/v1/chat/completions",
                with_key: false,
                overrides: None,
                files: &BTreeMap::new(),
            },
        );
        let rows: Vec<(&str, &str, &str)> = r
            .rows
            .iter()
            .map(|r| (r.id.as_str(), r.preview.as_str(), r.fate.as_str()))
            .collect();
        let m = |i: usize| preview(&history[i + 1].content, 80);
        let (m4, m5, m6, m7) = (m(4), m(5), m(6), m(7));
        assert_eq!(
            rows,
            [
                ("sys", "Be brief.", "kept"),
                ("", "1 earlier message (its text was not needed)", "dropped"),
                (
                    "",
                    "1 earlier message (its text was not needed)",
                    "excluded"
                ),
                (
                    "",
                    "2 earlier messages (their text was not needed)",
                    "dropped"
                ),
                ("m4", m4.as_str(), "dropped"),
                ("m5", m5.as_str(), "dropped"),
                ("m6", m6.as_str(), "kept"),
                ("m7", m7.as_str(), "kept"),
            ]
        );
    }

    #[test]
    fn previews_are_one_short_line() {
        assert_eq!(preview("a\n  b\tc", 80), "a b c");
        assert_eq!(preview("abcdef", 3), "abc…");
    }
}
