//! What a local server can say about itself: its context window and its own token counts.
//!
//! Servers that offer them (all on the server's root, not under `/v1`):
//! - llama.cpp `llama-server`: `GET /props` (`default_generation_settings.n_ctx` or `n_ctx`),
//!   `POST /tokenize {"content": …}` → `{"tokens": […]}`;
//! - llama-cpp-python: `POST /extras/tokenize/count {"input": …}` → `{"count": n}`;
//! - vLLM: `POST /tokenize {"model": …, "prompt": …}` → `{"count": n, …}`.
//!
//! Everything here is pure: URLs, bodies and the parsing of answers. Any answer that does not
//! parse is `None`, and the caller falls back to the estimator.

use crate::context::count::json_string;
use serde_json::Value;

/// Which tokenizer endpoint a server has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tokenizer {
    /// llama.cpp's `POST /tokenize` with `content`.
    LlamaCpp,
    /// llama-cpp-python's `POST /extras/tokenize/count` with `input`.
    LlamaCppPython,
    /// vLLM's `POST /tokenize` with `model` and `prompt`.
    Vllm,
}

/// The server's root: the base URL without a trailing `/v1`.
pub fn root(base_url: &str) -> &str {
    let b = base_url.trim().trim_end_matches('/');
    b.strip_suffix("/v1").unwrap_or(b)
}

/// `{root}/props`.
pub fn props_url(base_url: &str) -> String {
    format!("{}/props", root(base_url))
}

/// The context window in a `/props` answer.
pub fn parse_props(text: &str) -> Option<u32> {
    let v: Value = serde_json::from_str(text).ok()?;
    let n = v
        .pointer("/default_generation_settings/n_ctx")
        .or_else(|| v.get("n_ctx"))
        .and_then(Value::as_u64)?;
    u32::try_from(n).ok().filter(|n| *n >= 256)
}

/// The window Ollama runs a model with when neither the model nor the request sets `num_ctx`:
/// current versions pick 4 096 tokens or more (by memory), versions before 0.6 used 2 048 (users
/// of those set the window in Settings). Ollama cuts an over-long prompt silently, so Satori
/// assumes the smallest current default rather than the model's trained length.
pub const OLLAMA_DEFAULT_WINDOW: u32 = 4096;

/// URL and JSON body of Ollama's `/api/show` for `model` (the model's parameters and metadata).
pub fn ollama_show_request(base_url: &str, model: &str) -> (String, String) {
    let m = json_string(model);
    (
        format!("{}/api/show", root(base_url)),
        format!(r#"{{"model":{m},"name":{m}}}"#),
    )
}

/// URL of Ollama's `/api/version` (how Satori tells an Ollama server).
pub fn ollama_version_url(base_url: &str) -> String {
    format!("{}/api/version", root(base_url))
}

/// Whether an answer is Ollama's `/api/version` (`{"version":"0.12.3"}`).
pub fn is_ollama_version(text: &str) -> bool {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.get("version")?.as_str().map(|s| !s.is_empty()))
        .unwrap_or(false)
}

/// URL of Ollama's `/api/ps` (the models loaded, with the window each runs with).
pub fn ollama_ps_url(base_url: &str) -> String {
    format!("{}/api/ps", root(base_url))
}

/// The window in an `/api/show` answer: the model's `num_ctx` parameter when it sets one, else
/// its trained length capped at [`OLLAMA_DEFAULT_WINDOW`]. `None` for anything else.
pub fn parse_ollama_show(text: &str) -> Option<u32> {
    let v: Value = serde_json::from_str(text).ok()?;
    let param = v.get("parameters").and_then(Value::as_str).and_then(|p| {
        p.lines().find_map(|line| {
            let mut words = line.split_whitespace();
            (words.next() == Some("num_ctx")).then(|| words.next()?.parse::<u32>().ok())?
        })
    });
    let trained = v
        .get("model_info")
        .and_then(Value::as_object)
        .and_then(|info| {
            info.iter()
                .find(|(k, _)| k.ends_with(".context_length"))
                .and_then(|(_, n)| n.as_u64())
                .and_then(|n| u32::try_from(n).ok())
        });
    param
        .or(trained.map(|n| n.min(OLLAMA_DEFAULT_WINDOW)))
        .filter(|n| *n >= 256)
}

/// The window `model` runs with, from an `/api/ps` answer (when it is loaded and the server says).
pub fn parse_ollama_ps(text: &str, model: &str) -> Option<u32> {
    let v: Value = serde_json::from_str(text).ok()?;
    let same = |name: &str| name == model || name.strip_suffix(":latest") == Some(model);
    v.get("models")?
        .as_array()?
        .iter()
        .find(|m| {
            ["name", "model"]
                .iter()
                .any(|k| m.get(*k).and_then(Value::as_str).is_some_and(same))
        })?
        .get("context_length")?
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n >= 256)
}

/// URL and JSON body that count `text` with `tokenizer` for `model`.
pub fn count_request(
    tokenizer: Tokenizer,
    base_url: &str,
    model: &str,
    text: &str,
) -> (String, String) {
    let root = root(base_url);
    match tokenizer {
        Tokenizer::LlamaCpp => (
            format!("{root}/tokenize"),
            format!(r#"{{"content":{}}}"#, json_string(text)),
        ),
        Tokenizer::LlamaCppPython => (
            format!("{root}/extras/tokenize/count"),
            format!(
                r#"{{"input":{},"model":{}}}"#,
                json_string(text),
                json_string(model)
            ),
        ),
        Tokenizer::Vllm => (
            format!("{root}/tokenize"),
            format!(
                r#"{{"model":{},"prompt":{},"add_special_tokens":false}}"#,
                json_string(model),
                json_string(text)
            ),
        ),
    }
}

/// The count in a tokenizer answer: `{"count": n}` or `{"tokens": […]}`.
pub fn parse_count(text: &str) -> Option<u32> {
    let v: Value = serde_json::from_str(text).ok()?;
    let n = match v.get("count").and_then(Value::as_u64) {
        Some(n) => n,
        None => v.get("tokens")?.as_array()?.len() as u64,
    };
    u32::try_from(n).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_bodies_and_answers() {
        assert_eq!(root("http://127.0.0.1:8080/v1/"), "http://127.0.0.1:8080");
        assert_eq!(props_url("http://h:1/v1"), "http://h:1/props");
        assert_eq!(
            count_request(Tokenizer::LlamaCppPython, "http://h/v1", "m", "hi"),
            (
                "http://h/extras/tokenize/count".to_string(),
                r#"{"input":"hi","model":"m"}"#.to_string()
            )
        );
        assert_eq!(
            count_request(Tokenizer::LlamaCpp, "http://h/v1", "m", "hi").0,
            "http://h/tokenize"
        );
        let props: &[(&str, Option<u32>)] = &[
            (
                r#"{"default_generation_settings":{"n_ctx":2048}}"#,
                Some(2048),
            ),
            (r#"{"n_ctx":8192}"#, Some(8192)),
            (r#"{"n_ctx":"big"}"#, None),
            ("<html>", None),
            (r#"{"n_ctx":0}"#, None),
        ];
        for (text, want) in props {
            assert_eq!(parse_props(text), *want, "{text}");
        }
        let counts: &[(&str, Option<u32>)] = &[
            (r#"{"count":5}"#, Some(5)),
            (r#"{"tokens":[1,2,3]}"#, Some(3)),
            (r#"{"detail":"Not Found"}"#, None),
            ("", None),
        ];
        for (text, want) in counts {
            assert_eq!(parse_count(text), *want, "{text}");
        }
    }

    #[test]
    fn ollama_answers() {
        assert_eq!(
            ollama_show_request("http://127.0.0.1:11434/v1", "qwen2.5:7b"),
            (
                "http://127.0.0.1:11434/api/show".to_string(),
                r#"{"model":"qwen2.5:7b","name":"qwen2.5:7b"}"#.to_string()
            )
        );
        assert_eq!(ollama_ps_url("http://h:11434/v1/"), "http://h:11434/api/ps");
        assert_eq!(
            ollama_version_url("http://h:11434/v1"),
            "http://h:11434/api/version"
        );
        assert!(is_ollama_version(r#"{"version":"0.12.3"}"#));
        assert!(!is_ollama_version(r#"{"version":""}"#));
        assert!(!is_ollama_version(r#"{"error":"no route"}"#));
        assert!(!is_ollama_version("404 page not found"));
        let shows: &[(&str, Option<u32>)] = &[
            // The model sets num_ctx: that is what it runs with.
            (
                r#"{"parameters":"stop \"<|im_end|>\"\nnum_ctx                        8192\ntemperature 0.7","model_info":{"qwen2.context_length":32768}}"#,
                Some(8192),
            ),
            // Only the trained length: capped at the default Ollama runs with.
            (
                r#"{"model_info":{"llama.context_length":131072}}"#,
                Some(4096),
            ),
            (
                r#"{"model_info":{"gemma3.context_length":2048}}"#,
                Some(2048),
            ),
            (r#"{"parameters":"num_ctx x","model_info":{}}"#, None),
            (r#"{"error":"model 'x' not found"}"#, None),
            ("404 page not found", None),
        ];
        for (text, want) in shows {
            assert_eq!(parse_ollama_show(text), *want, "{text}");
        }
        let ps = r#"{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest","context_length":16384},{"name":"qwen3:4b","context_length":4096}]}"#;
        assert_eq!(parse_ollama_ps(ps, "llama3.2"), Some(16384));
        assert_eq!(parse_ollama_ps(ps, "llama3.2:latest"), Some(16384));
        assert_eq!(parse_ollama_ps(ps, "qwen3:4b"), Some(4096));
        assert_eq!(parse_ollama_ps(ps, "mistral"), None);
        assert_eq!(parse_ollama_ps(r#"{"models":[{"name":"a"}]}"#, "a"), None);
    }
}
