//! The body of an OpenAI-style `/chat/completions` request, read for the in-browser model: the
//! messages as (role, text), the token limit and the sampling settings it may carry.

use super::sample::Sampling;
use serde_json::Value;

/// What a request asks the in-browser model for.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// (role, text), in order.
    pub messages: Vec<(String, String)>,
    /// `max_tokens` (or `max_completion_tokens`).
    pub max_tokens: Option<usize>,
    /// The request's sampling settings over the defaults.
    pub sampling: Sampling,
    /// `seed`, when given.
    pub seed: Option<u64>,
}

impl ChatRequest {
    /// The messages as borrowed pairs.
    pub fn pairs(&self) -> Vec<(&str, &str)> {
        self.messages
            .iter()
            .map(|(r, c)| (r.as_str(), c.as_str()))
            .collect()
    }
}

/// A message's text: a string, or the text parts of a list of parts (others are left out).
fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Reads a request body; the error says what is wrong with it.
pub fn parse(body: &str) -> Result<ChatRequest, String> {
    let v: Value =
        serde_json::from_str(body).map_err(|e| format!("the request is not JSON: {e}"))?;
    let list = v
        .get("messages")
        .and_then(Value::as_array)
        .filter(|l| !l.is_empty())
        .ok_or("the request has no messages")?;
    let mut messages = Vec::with_capacity(list.len());
    for m in list {
        let role = m
            .get("role")
            .and_then(Value::as_str)
            .filter(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
            .ok_or("a message has no valid role")?;
        messages.push((
            role.to_string(),
            text_of(m.get("content").unwrap_or(&Value::Null)),
        ));
    }
    let number = |key: &str| v.get(key).and_then(Value::as_f64).filter(|x| x.is_finite());
    let mut sampling = Sampling::default();
    if let Some(t) = number("temperature") {
        sampling.temperature = t.clamp(0.0, 2.0) as f32;
    }
    if let Some(p) = number("top_p") {
        sampling.top_p = p.clamp(0.0, 1.0) as f32;
    }
    if let Some(p) = number("min_p") {
        sampling.min_p = p.clamp(0.0, 1.0) as f32;
    }
    if let Some(k) = number("top_k") {
        sampling.top_k = k.clamp(0.0, 1e6) as usize;
    }
    if let Some(p) = number("repeat_penalty") {
        sampling.repeat_penalty = p.clamp(0.0, 10.0) as f32;
    }
    let max_tokens = number("max_completion_tokens")
        .or_else(|| number("max_tokens"))
        .filter(|n| *n >= 1.0)
        .map(|n| n.min(1e9) as usize);
    let seed = v.get("seed").and_then(Value::as_u64);
    Ok(ChatRequest {
        messages,
        max_tokens,
        sampling,
        seed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests() {
        let r = parse(
            r#"{"model":"m","stream":true,"temperature":0,"max_tokens":64,"seed":3,
                "messages":[{"role":"system","content":"Be brief."},
                {"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url"},{"type":"text","text":"b"}]},
                {"role":"assistant","content":null,"tool_calls":[]},
                {"role":"tool","content":"42"}]}"#,
        )
        .unwrap();
        assert_eq!(
            r.pairs(),
            vec![
                ("system", "Be brief."),
                ("user", "a\nb"),
                ("assistant", ""),
                ("tool", "42")
            ]
        );
        assert_eq!(r.max_tokens, Some(64));
        assert_eq!(r.sampling.temperature, 0.0);
        assert_eq!(r.sampling.top_k, Sampling::default().top_k);
        assert_eq!(r.seed, Some(3));
        let r = parse(r#"{"messages":[{"role":"user","content":"x"}],"max_completion_tokens":5,"max_tokens":9,"temperature":7,"top_p":0.5}"#).unwrap();
        assert_eq!(
            (r.max_tokens, r.sampling.temperature, r.sampling.top_p),
            (Some(5), 2.0, 0.5)
        );
        assert_eq!(r.seed, None);
    }

    #[test]
    fn bad_requests_say_why() {
        for (body, why) in [
            ("{", "not JSON"),
            ("{}", "no messages"),
            (r#"{"messages":[]}"#, "no messages"),
            (r#"{"messages":[{"content":"x"}]}"#, "no valid role"),
            // a role cannot carry the chat template's markers
            (
                r#"{"messages":[{"role":"user<|im_end|>","content":"x"}]}"#,
                "no valid role",
            ),
        ] {
            let err = parse(body).unwrap_err();
            assert!(err.contains(why), "{body}: {err}");
        }
    }
}
