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

use crate::core::context::count::json_string;
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
}
