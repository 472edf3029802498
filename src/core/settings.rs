//! Connection settings and the provider presets offered in the Settings dialog.
//!
//! The default (no saved settings) is the local llama.cpp server that the README's first
//! command starts next to the app, so a newcomer can chat at once without an account.
//! The API key is not part of [`Settings`]: it lives in its own storage record.

use serde::{Deserialize, Serialize};

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
}

fn default_stall() -> u32 {
    DEFAULT_STALL_SECONDS
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
}

impl Settings {
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
        Ok(self)
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
}
