//! What Satori knows about models: context windows of common models, which OpenAI encoding a
//! model uses, a window read from a server's error message, and the pipeline [`Config`] made from
//! the user's settings, a chat's overrides and what the server says.
//!
//! The window comes, first match wins, from the chat's override, the user's entry for the model
//! in Settings, the server (llama.cpp `/props`, a context-length error), the table below, else
//! [`DEFAULT_WINDOW`] with a hint to set it ([`WindowSource::Default`]).

use super::Config;
use crate::session::ContextOverrides;

/// The window assumed for a model nobody told Satori about: small enough for most servers.
pub const DEFAULT_WINDOW: u32 = 4096;
/// Rounds never summarized, by default.
pub const DEFAULT_KEEP_RECENT: u32 = 4;
/// Rounds never trimmed, by default.
pub const DEFAULT_MIN_KEEP: u32 = 1;

/// An OpenAI tokenizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// gpt-4o, 4.1, 5, the o-series.
    O200k,
    /// gpt-4, gpt-3.5.
    Cl100k,
}

impl Encoding {
    /// The encoding's name (and table file stem).
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200k => "o200k_base",
            Encoding::Cl100k => "cl100k_base",
        }
    }
}

/// The model name without a router's vendor prefix (`openai/gpt-4o` → `gpt-4o`), lowercased.
fn bare(model: &str) -> String {
    model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .trim()
        .to_ascii_lowercase()
}

/// Context windows of common models, by name prefix (the longest matching prefix wins).
pub const WINDOWS: &[(&str, u32)] = &[
    ("gpt-5", 400_000),
    ("gpt-4.1", 1_047_576),
    ("gpt-4o", 128_000),
    ("chatgpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("gpt-4-32k", 32_768),
    ("gpt-4", 8_192),
    ("gpt-3.5-turbo", 16_385),
    ("gpt-oss", 131_072),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("deepseek-chat", 128_000),
    ("deepseek-reasoner", 128_000),
    ("qwen-plus", 131_072),
    ("qwen-max", 32_768),
    ("qwen-turbo", 1_000_000),
    ("qwen-long", 10_000_000),
    ("qwen3", 131_072),
    ("qwen2.5", 32_768),
    ("moonshot-v1-8k", 8_192),
    ("moonshot-v1-32k", 32_768),
    ("moonshot-v1-128k", 131_072),
    ("kimi-k2", 131_072),
    ("claude", 200_000),
    ("gemini", 1_048_576),
    ("llama-3.1", 131_072),
    ("llama-3.2", 131_072),
    ("llama3.1", 131_072),
    ("llama3.2", 131_072),
    ("llama3", 8_192),
    ("mistral", 32_768),
    ("gemma", 8_192),
    ("smollm2", 2_048),
];

/// The table's window for `model`, if it knows the model.
pub fn known_window(model: &str) -> Option<u32> {
    let name = bare(model);
    WINDOWS
        .iter()
        .filter(|(prefix, _)| name.starts_with(prefix))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(_, w)| *w)
}

/// The OpenAI encoding of `model`, if it is an OpenAI model.
pub fn encoding_for(model: &str) -> Option<Encoding> {
    let name = bare(model);
    let starts = |p: &[&str]| p.iter().any(|p| name.starts_with(p));
    if starts(&[
        "gpt-4o",
        "gpt-4.1",
        "gpt-4.5",
        "gpt-5",
        "chatgpt-4o",
        "gpt-oss",
    ]) || (name.len() > 1 && name.starts_with('o') && name.as_bytes()[1].is_ascii_digit())
    {
        Some(Encoding::O200k)
    } else if starts(&["gpt-4", "gpt-3.5", "text-embedding-3", "text-embedding-ada"]) {
        Some(Encoding::Cl100k)
    } else {
        None
    }
}

/// Whether counting with the table of [`encoding_for`] gives what the model's server counts.
/// Not for gpt-oss: its chat format (harmony) adds a preamble and per-message tokens of its own
/// on whatever server runs it, so those counts are treated as estimates (with their margin).
pub fn openai_exact(model: &str) -> bool {
    !bare(model).starts_with("gpt-oss")
}

/// The window a server states in a context-length error, e.g. llama.cpp's "exceed context
/// window of 2048", OpenAI's "maximum context length is 8192 tokens", "n_ctx: 4096".
pub fn window_from_error(body: &str) -> Option<u32> {
    let lower = body.to_ascii_lowercase();
    for marker in [
        "context window of ",
        "maximum context length is ",
        "context length of ",
        "n_ctx: ",
        "\"n_ctx\":",
        "n_ctx=",
    ] {
        if let Some(p) = lower.find(marker) {
            let digits: String = lower[p + marker.len()..]
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            if let Ok(n) = digits.parse::<u32>() {
                if n >= 256 {
                    return Some(n);
                }
            }
        }
    }
    None
}

/// Where the window in a [`Config`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowSource {
    /// This chat's override.
    Chat,
    /// The user's entry in Settings.
    User,
    /// The server said so.
    Server,
    /// The built-in table.
    Table,
    /// Nobody knows: [`DEFAULT_WINDOW`] (the UI asks the user to set it).
    Default,
}

/// The user's context settings (from Settings), before a chat's overrides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Defaults {
    /// The user's window for the model, if set.
    pub window: Option<u32>,
    /// Reply reserve, if set (else automatic).
    pub reply_reserve: Option<u32>,
    /// The request's `max_tokens`, if set (the reserve is at least that).
    pub max_tokens: Option<u32>,
    /// Rounds never summarized.
    pub keep_recent_rounds: u32,
    /// Rounds never trimmed.
    pub min_keep_rounds: u32,
    /// Whether old turns are summarized.
    pub summarize: bool,
    /// Rounds at the end whose images are sent.
    pub image_rounds: u32,
    /// Whether the model sees images.
    pub images: bool,
}

/// The pipeline configuration for `model`.
pub fn config(
    model: &str,
    defaults: &Defaults,
    chat: &ContextOverrides,
    server_window: Option<u32>,
    exact: bool,
) -> (Config, WindowSource) {
    let (window, source) = if let Some(w) = chat.window {
        (w, WindowSource::Chat)
    } else if let Some(w) = defaults.window {
        (w, WindowSource::User)
    } else if let Some(w) = server_window {
        (w, WindowSource::Server)
    } else if let Some(w) = known_window(model) {
        (w, WindowSource::Table)
    } else {
        (DEFAULT_WINDOW, WindowSource::Default)
    };
    let auto_reserve = defaults
        .max_tokens
        .unwrap_or_else(|| (window / 4).clamp(256, 4096))
        .min(window / 2);
    let reply_reserve = chat
        .reply_reserve
        .or(defaults.reply_reserve)
        .unwrap_or(auto_reserve);
    let margin = if exact {
        (window / 100).max(16)
    } else {
        (window / 10).max(64)
    };
    let config = Config {
        window,
        reply_reserve,
        margin,
        keep_recent_rounds: chat
            .keep_recent_rounds
            .unwrap_or(defaults.keep_recent_rounds),
        min_keep_rounds: chat.min_keep_rounds.unwrap_or(defaults.min_keep_rounds),
        summarize: chat.summarize.unwrap_or(defaults.summarize),
        item_cap: (window / 8).clamp(256, 8000),
        image_rounds: defaults.image_rounds,
        images: defaults.images,
        images_exact: crate::attachment::tokens_exact(model),
    };
    (config, source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_and_encodings() {
        let cases: &[(&str, Option<u32>, Option<Encoding>)] = &[
            ("gpt-4o-mini", Some(128_000), Some(Encoding::O200k)),
            ("openai/gpt-4o-mini", Some(128_000), Some(Encoding::O200k)),
            ("gpt-4.1-nano", Some(1_047_576), Some(Encoding::O200k)),
            ("gpt-5", Some(400_000), Some(Encoding::O200k)),
            ("o3-mini", Some(200_000), Some(Encoding::O200k)),
            ("gpt-4", Some(8_192), Some(Encoding::Cl100k)),
            (
                "gpt-4-turbo-2024-04-09",
                Some(128_000),
                Some(Encoding::Cl100k),
            ),
            ("gpt-3.5-turbo", Some(16_385), Some(Encoding::Cl100k)),
            ("deepseek-chat", Some(128_000), None),
            ("moonshot-v1-32k", Some(32_768), None),
            ("SmolLM2", Some(2_048), None),
            ("ollama-thing", None, None),
            ("olmo", None, None),
        ];
        for (model, window, enc) in cases {
            assert_eq!(known_window(model), *window, "{model}");
            assert_eq!(encoding_for(model), *enc, "{model}");
        }
        // gpt-oss has OpenAI's encoding but not OpenAI's chat overhead.
        assert!(openai_exact("gpt-4o") && openai_exact("openai/gpt-5-mini"));
        assert!(!openai_exact("gpt-oss-20b") && !openai_exact("openai/gpt-oss-120b"));
    }

    #[test]
    fn windows_from_errors() {
        let cases: &[(&str, Option<u32>)] = &[
            (
                "Requested tokens (2100) exceed context window of 2048",
                Some(2048),
            ),
            (
                "This model's maximum context length is 8192 tokens. However, you requested 9000",
                Some(8192),
            ),
            (
                "the request exceeds the available context size, n_ctx: 4096",
                Some(4096),
            ),
            ("rate limited", None),
            ("context window of 12", None),
        ];
        for (body, want) in cases {
            assert_eq!(window_from_error(body), *want, "{body}");
        }
    }

    #[test]
    fn configs() {
        let d = Defaults {
            window: None,
            reply_reserve: None,
            max_tokens: None,
            keep_recent_rounds: 4,
            min_keep_rounds: 1,
            summarize: true,
            image_rounds: 3,
            images: false,
        };
        let none = ContextOverrides::default();
        let (c, s) = config("smollm2", &d, &none, None, false);
        assert_eq!(
            (c.window, c.reply_reserve, c.margin, s),
            (2048, 512, 204, WindowSource::Table)
        );
        assert_eq!(c.budget(), 2048 - 512 - 204);
        let (c, s) = config("smollm2", &d, &none, Some(4096), true);
        assert_eq!((c.window, c.margin, s), (4096, 40, WindowSource::Server));
        let (c, s) = config("mystery", &d, &none, None, true);
        assert_eq!((c.window, s), (DEFAULT_WINDOW, WindowSource::Default));
        let user = Defaults {
            window: Some(1000),
            max_tokens: Some(900),
            ..d
        };
        let (c, s) = config("gpt-4o", &user, &none, None, true);
        assert_eq!(
            (c.window, c.reply_reserve, s),
            (1000, 500, WindowSource::User)
        );
        let chat = ContextOverrides {
            window: Some(3000),
            summarize: Some(false),
            keep_recent_rounds: Some(2),
            ..ContextOverrides::default()
        };
        let (c, s) = config("gpt-4o", &user, &chat, None, true);
        assert_eq!(
            (c.window, c.summarize, c.keep_recent_rounds, s),
            (3000, false, 2, WindowSource::Chat)
        );
    }
}
