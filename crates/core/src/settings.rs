//! Connection settings and the provider presets offered in the Settings dialog.
//!
//! The default (no saved settings) is the local llama.cpp server that the README's first
//! command starts next to the app, so a newcomer can chat at once without an account.
//! The API key is not part of [`Settings`]: it lives in its own storage record.

use crate::context::models::{Defaults, DEFAULT_KEEP_RECENT, DEFAULT_MIN_KEEP};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A provider preset: a name and the base URL it fills in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// Stable id stored in settings.
    pub id: &'static str,
    /// Name shown in the "Provider" select.
    pub label: &'static str,
    /// OpenAI-compatible base URL (ends before `/chat/completions`); empty for Custom.
    pub base_url: &'static str,
    /// A sensible model to start with; empty when the user must choose.
    pub model: &'static str,
    /// Whether the provider normally needs an API key.
    pub needs_key: bool,
}

/// Every preset, in the order the select shows them.
pub const PRESETS: &[Preset] = &[
    Preset {
        id: "openai",
        label: "OpenAI",
        base_url: "https://api.openai.com/v1",
        model: "gpt-4o-mini",
        needs_key: true,
    },
    Preset {
        id: "deepseek",
        label: "DeepSeek",
        base_url: "https://api.deepseek.com/v1",
        model: "deepseek-chat",
        needs_key: true,
    },
    Preset {
        id: "openrouter",
        label: "OpenRouter",
        base_url: "https://openrouter.ai/api/v1",
        model: "openai/gpt-4o-mini",
        needs_key: true,
    },
    Preset {
        id: "moonshot",
        label: "Moonshot",
        base_url: "https://api.moonshot.cn/v1",
        model: "moonshot-v1-8k",
        needs_key: true,
    },
    Preset {
        id: "qwen",
        label: "Qwen (DashScope)",
        base_url: "https://dashscope.aliyuncs.com/compatible-mode/v1",
        model: "qwen-plus",
        needs_key: true,
    },
    Preset {
        id: IN_BROWSER_ID,
        label: "In this browser (SmolLM2-135M)",
        base_url: IN_BROWSER_URL,
        model: IN_BROWSER_MODEL,
        needs_key: false,
    },
    Preset {
        id: "ollama",
        label: "Ollama (local)",
        base_url: "http://127.0.0.1:11434/v1",
        model: "",
        needs_key: false,
    },
    Preset {
        id: "llamacpp",
        label: "llama.cpp server (local)",
        base_url: "http://127.0.0.1:8080/v1",
        model: "smollm2",
        needs_key: false,
    },
    Preset {
        id: "lmstudio",
        label: "LM Studio (local)",
        base_url: "http://127.0.0.1:1234/v1",
        model: "",
        needs_key: false,
    },
    Preset {
        id: "custom",
        label: "Custom",
        base_url: "",
        model: "",
        needs_key: false,
    },
];

/// The in-browser model's address. The page itself answers requests to it
/// (`src/web/llm-local.js`, called by `adapters::fetch`); the `.invalid` name never resolves, so
/// nothing sent there could reach a network.
pub const IN_BROWSER_URL: &str = "http://in-browser.invalid/v1";
/// The in-browser provider's preset id.
pub const IN_BROWSER_ID: &str = "browser";
/// The in-browser model's name.
pub const IN_BROWSER_MODEL: &str = "smollm2-135m";

/// Whether `url` (as a `Request` normalizes it) is the in-browser model's.
pub fn in_browser(url: &str) -> bool {
    url.trim()
        .to_ascii_lowercase()
        .starts_with("http://in-browser.invalid/")
}

/// Whether two base URLs name the same server (a trailing slash and letter case of the scheme
/// and host aside).
pub fn same_server(a: &str, b: &str) -> bool {
    let norm = |u: &str| {
        let u = u.trim().trim_end_matches('/');
        match u.find("://").map(|i| i + 3) {
            Some(start) => {
                let end = u[start..].find('/').map_or(u.len(), |i| start + i);
                format!("{}{}", u[..end].to_ascii_lowercase(), &u[end..])
            }
            None => u.to_string(),
        }
    };
    norm(a) == norm(b)
}

/// The preset with this id.
pub fn preset(id: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.id == id)
}

/// Default stall timeout: a stream that sends no byte for this long is treated as broken.
pub const DEFAULT_STALL_SECONDS: u32 = 60;

/// What the user configured in Settings (everything but the API key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Preset id (`custom` when the URL was typed by hand).
    pub provider: String,
    /// OpenAI-compatible base URL, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// Model name sent in each request.
    pub model: String,
    /// Sampling temperature; `None` leaves the server default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Upper bound on reply tokens; `None` leaves the server default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Seconds without a byte before a stream counts as stalled.
    #[serde(default = "default_stall")]
    pub stall_seconds: u32,
    /// Context windows the user set, by model name (else the server's or the built-in table's).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub windows: BTreeMap<String, u32>,
    /// Tokens kept free for the reply; `None` = automatic (a quarter of the window).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_reserve: Option<u32>,
    /// Rounds at the end never summarized.
    #[serde(default = "default_keep_recent")]
    pub keep_recent_rounds: u32,
    /// Rounds at the end never trimmed.
    #[serde(default = "default_min_keep")]
    pub min_keep_rounds: u32,
    /// Whether old turns are summarized when the history outgrows the window.
    #[serde(default = "default_true")]
    pub summarize: bool,
    /// Model that writes summaries; empty = the chat model.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub summarizer_model: String,
}

/// Rounds whose images are sent, by default.
pub const DEFAULT_IMAGE_ROUNDS: u32 = 3;

/// How images go to models (Settings: "Keep images for the last N rounds", "Sees images"),
/// kept in a record of its own (`persist::KEY_IMAGES`), which only the turns module and the
/// Settings dialog read: the app's first load never decodes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageSettings {
    /// Rounds at the end whose images are sent; older images go as a placeholder.
    #[serde(default = "default_image_rounds")]
    pub rounds: u32,
    /// Whether a model sees images, as the user marked it, by model name (else the built-in
    /// list, `attachment::sees_images`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sees: BTreeMap<String, bool>,
}

fn default_image_rounds() -> u32 {
    DEFAULT_IMAGE_ROUNDS
}

impl Default for ImageSettings {
    fn default() -> Self {
        ImageSettings {
            rounds: DEFAULT_IMAGE_ROUNDS,
            sees: BTreeMap::new(),
        }
    }
}

impl ImageSettings {
    /// Whether `model` sees images (the user's mark, else Satori's list).
    pub fn sees(&self, model: &str) -> bool {
        crate::attachment::sees_images(model, &self.sees)
    }

    /// These settings with `model` marked as seeing images or not: a mark is kept only where
    /// it differs from Satori's list.
    pub fn marked(mut self, model: &str, sees: bool) -> Self {
        let model = model.trim();
        self.sees.remove(model);
        if sees != self.sees(model) {
            self.sees.insert(model.to_string(), sees);
        }
        self
    }
}

fn default_stall() -> u32 {
    DEFAULT_STALL_SECONDS
}

fn default_keep_recent() -> u32 {
    DEFAULT_KEEP_RECENT
}

fn default_min_keep() -> u32 {
    DEFAULT_MIN_KEEP
}

fn default_true() -> bool {
    true
}

impl Default for Settings {
    /// The embedded default: the local llama.cpp server with SmolLM2.
    fn default() -> Self {
        Settings {
            provider: "llamacpp".into(),
            base_url: "http://127.0.0.1:8080/v1".into(),
            model: "smollm2".into(),
            temperature: None,
            max_tokens: None,
            stall_seconds: DEFAULT_STALL_SECONDS,
            windows: BTreeMap::new(),
            reply_reserve: None,
            keep_recent_rounds: DEFAULT_KEEP_RECENT,
            min_keep_rounds: DEFAULT_MIN_KEEP,
            summarize: true,
            summarizer_model: String::new(),
        }
    }
}

/// Why settings cannot be saved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// The base URL is not an http(s) URL.
    #[error("API base URL must start with http:// or https://")]
    BadBaseUrl,
    /// No model name.
    #[error("enter a model name")]
    NoModel,
    /// Temperature outside 0–2.
    #[error("temperature must be between 0 and 2")]
    BadTemperature,
    /// Stall timeout outside 1–3600 s.
    #[error("stall timeout must be between 1 and 3600 seconds")]
    BadStall,
    /// A context window below 256 tokens.
    #[error("the context window must be at least 256 tokens")]
    BadWindow,
    /// A reply reserve that leaves no room for the conversation.
    #[error("the reply reserve must be smaller than the context window")]
    BadReserve,
    /// Round counts outside 0–1000.
    #[error("round counts must be between 0 and 1000")]
    BadRounds,
    /// A price below zero, or a currency that is not a three-letter code.
    #[error("prices must be zero or more, in a three-letter currency code (USD, CNY, EUR)")]
    BadPrice,
}

/// What a model costs: per million tokens sent (`input`) and written (`output`), in `currency`
/// (an ISO 4217 code such as `USD` or `CNY`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// Per million prompt tokens.
    pub input: f64,
    /// Per million reply tokens.
    pub output: f64,
    /// ISO 4217 code.
    pub currency: String,
}

/// What models cost, by model name, as the user entered them in Settings (the `satori.prices`
/// record). No price is built in: a price list would go stale, and a stale cost is a guess.
pub type Prices = BTreeMap<String, Price>;

impl Price {
    /// The price checked: amounts zero or more, the currency a three-letter code (upper-cased).
    pub fn validated(mut self) -> Result<Price, SettingsError> {
        self.currency = self.currency.trim().to_ascii_uppercase();
        let amount = |a: f64| a.is_finite() && a >= 0.0;
        if !amount(self.input)
            || !amount(self.output)
            || self.currency.len() != 3
            || !self.currency.bytes().all(|b| b.is_ascii_uppercase())
        {
            return Err(SettingsError::BadPrice);
        }
        Ok(self)
    }
}

impl Settings {
    /// The settings a chat's requests use: these, with the model the chat was switched to
    /// (`chosen`) when it runs in this browser or on the server these settings name; otherwise
    /// these unchanged (a model name never goes to a server it was not chosen from).
    pub fn for_chat(&self, chosen: Option<&crate::session::ChatModel>) -> Settings {
        let mut s = self.clone();
        match chosen {
            Some(m) if m.name.trim().is_empty() => {}
            Some(m) if in_browser(&m.base_url) => {
                s.provider = IN_BROWSER_ID.into();
                s.base_url = IN_BROWSER_URL.into();
                s.model = m.name.clone();
            }
            Some(m) if same_server(&m.base_url, &self.base_url) => s.model = m.name.clone(),
            _ => {}
        }
        s
    }

    /// Check values before saving; returns the cleaned settings.
    pub fn validated(mut self) -> Result<Settings, SettingsError> {
        self.base_url = self.base_url.trim().trim_end_matches('/').to_string();
        self.model = self.model.trim().to_string();
        let lower = self.base_url.to_ascii_lowercase();
        let rest = lower
            .strip_prefix("https://")
            .or_else(|| lower.strip_prefix("http://"))
            .ok_or(SettingsError::BadBaseUrl)?;
        if rest.is_empty()
            || rest.starts_with('/')
            || self
                .base_url
                .chars()
                .any(|c| c.is_whitespace() || c == '\\')
        {
            return Err(SettingsError::BadBaseUrl);
        }
        if self.model.is_empty() {
            return Err(SettingsError::NoModel);
        }
        if let Some(t) = self.temperature {
            if !(0.0..=2.0).contains(&t) || t.is_nan() {
                return Err(SettingsError::BadTemperature);
            }
        }
        if !(1..=3600).contains(&self.stall_seconds) {
            return Err(SettingsError::BadStall);
        }
        self.summarizer_model = self.summarizer_model.trim().to_string();
        if self.windows.values().any(|w| *w < 256) {
            return Err(SettingsError::BadWindow);
        }

        let window = self.window_for(&self.model);
        if self
            .reply_reserve
            .is_some_and(|r| window.is_some_and(|w| r >= w))
        {
            return Err(SettingsError::BadReserve);
        }
        if self.keep_recent_rounds > 1000 || self.min_keep_rounds > 1000 {
            return Err(SettingsError::BadRounds);
        }
        Ok(self)
    }

    /// The window the user set for `model`, if any.
    pub fn window_for(&self, model: &str) -> Option<u32> {
        self.windows.get(model.trim()).copied()
    }

    /// The context defaults for the pipeline.
    pub fn context_defaults(&self) -> Defaults {
        Defaults {
            window: self.window_for(&self.model),
            reply_reserve: self.reply_reserve,
            max_tokens: self.max_tokens,
            keep_recent_rounds: self.keep_recent_rounds,
            min_keep_rounds: self.min_keep_rounds,
            summarize: self.summarize,
            image_rounds: DEFAULT_IMAGE_ROUNDS,
            images: false,
        }
    }

    /// The model that writes summaries.
    pub fn summarizer(&self) -> &str {
        if self.summarizer_model.is_empty() {
            &self.model
        } else {
            &self.summarizer_model
        }
    }

    /// `{base}/chat/completions`.
    pub fn chat_url(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }

    /// `{base}/models`.
    pub fn models_url(&self) -> String {
        models_url(&self.base_url)
    }
}

/// `{base}/models` for a base URL typed but not yet saved.
pub fn models_url(base_url: &str) -> String {
    format!("{}/models", base_url.trim().trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(url: &str, model: &str) -> Settings {
        Settings {
            base_url: url.into(),
            model: model.into(),
            ..Settings::default()
        }
    }

    #[test]
    fn validation_cases() {
        let cases: &[(&str, &str, Result<&str, SettingsError>)] = &[
            (
                "https://api.openai.com/v1/",
                "gpt",
                Ok("https://api.openai.com/v1"),
            ),
            (
                "  http://127.0.0.1:8080/v1 ",
                "m",
                Ok("http://127.0.0.1:8080/v1"),
            ),
            ("ftp://x", "m", Err(SettingsError::BadBaseUrl)),
            ("javascript:alert(1)", "m", Err(SettingsError::BadBaseUrl)),
            ("https://", "m", Err(SettingsError::BadBaseUrl)),
            ("https://a b", "m", Err(SettingsError::BadBaseUrl)),
            // Browsers read `\` as `/`: the host would not be what it seems.
            (
                "http://evil.test\\@127.0.0.1/v1",
                "m",
                Err(SettingsError::BadBaseUrl),
            ),
            ("https://x", " ", Err(SettingsError::NoModel)),
        ];
        for (url, model, want) in cases {
            let got = with(url, model).validated().map(|s| s.base_url);
            assert_eq!(got.as_deref().map_err(Clone::clone), want.clone(), "{url}");
        }
        let hot = Settings {
            temperature: Some(3.0),
            ..Settings::default()
        };
        assert_eq!(hot.validated(), Err(SettingsError::BadTemperature));
        let stall = Settings {
            stall_seconds: 0,
            ..Settings::default()
        };
        assert_eq!(stall.validated(), Err(SettingsError::BadStall));
    }

    #[test]
    fn urls_and_presets() {
        let s = with("https://x.test/v1/", "m");
        assert_eq!(s.chat_url(), "https://x.test/v1/chat/completions");
        assert_eq!(s.models_url(), "https://x.test/v1/models");
        assert_eq!(preset("qwen").map(|p| p.label), Some("Qwen (DashScope)"));
        assert!(PRESETS
            .iter()
            .all(|p| p.base_url.is_empty() || p.base_url.starts_with("http")));
        let d = Settings::default();
        assert_eq!(
            preset(&d.provider).map(|p| p.base_url),
            Some(d.base_url.as_str())
        );
    }

    #[test]
    fn a_chats_model_goes_only_where_it_was_chosen() {
        use crate::session::ChatModel;
        let settings = Settings {
            base_url: "https://api.openai.com/v1".into(),
            model: "gpt-4o-mini".into(),
            ..Settings::default()
        };
        let chosen = |name: &str, base_url: &str| ChatModel {
            name: name.into(),
            base_url: base_url.into(),
        };
        // (chosen, provider, base URL, model)
        let cases = [
            (None, "llamacpp", "https://api.openai.com/v1", "gpt-4o-mini"),
            (
                Some(chosen("gpt-4.1", "https://api.openai.com/v1")),
                "llamacpp",
                "https://api.openai.com/v1",
                "gpt-4.1",
            ),
            (
                Some(chosen("gpt-4.1", "HTTPS://API.OpenAI.com/v1/")),
                "llamacpp",
                "https://api.openai.com/v1",
                "gpt-4.1",
            ),
            // Chosen on another server: Settings' model, never that name here.
            (
                Some(chosen(
                    "qwen-plus",
                    "https://dashscope.aliyuncs.com/compatible-mode/v1",
                )),
                "llamacpp",
                "https://api.openai.com/v1",
                "gpt-4o-mini",
            ),
            // The path is part of the server (another account's proxy).
            (
                Some(chosen("gpt-4.1", "https://api.openai.com/V1")),
                "llamacpp",
                "https://api.openai.com/v1",
                "gpt-4o-mini",
            ),
            (
                Some(chosen("smollm2-135m", IN_BROWSER_URL)),
                IN_BROWSER_ID,
                IN_BROWSER_URL,
                "smollm2-135m",
            ),
            (
                Some(chosen(" ", "https://api.openai.com/v1")),
                "llamacpp",
                "https://api.openai.com/v1",
                "gpt-4o-mini",
            ),
        ];
        for (chosen, provider, base, model) in cases {
            let s = settings.for_chat(chosen.as_ref());
            assert_eq!(
                (s.provider.as_str(), s.base_url.as_str(), s.model.as_str()),
                (provider, base, model),
                "{chosen:?}"
            );
            assert_eq!(s.windows, settings.windows);
        }
    }

    #[test]
    fn the_in_browser_address() {
        let b = preset("browser").unwrap();
        assert!(with(b.base_url, b.model).validated().is_ok());
        for (url, ours) in [
            ("http://in-browser.invalid/v1/chat/completions", true),
            ("HTTP://IN-BROWSER.INVALID/props", true),
            ("https://in-browser.invalid/v1", false),
            ("http://in-browser.invalid.example.com/v1", false),
            ("http://x.test/in-browser.invalid/", false),
            ("http://127.0.0.1:8080/v1", false),
        ] {
            assert_eq!(in_browser(url), ours, "{url}");
        }
    }
}
