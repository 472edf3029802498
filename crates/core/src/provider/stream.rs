//! OpenAI-compatible chat-completion stream chunks: decoded SSE events in, typed updates out.
//!
//! Owns: the meaning of one `data:` payload of a streaming `/chat/completions` response, across
//! the dialects of OpenAI, DeepSeek, Qwen, OpenRouter, Ollama and llama.cpp. Byte-level framing is
//! [`crate::sse`]'s job; accumulating updates into a message is the caller's.
//!
//! Invariants:
//! - Lenient: every field is optional and unknown fields are ignored. A field of an unexpected
//!   type (a number where text belongs, `null`, ...) is treated as absent instead of failing the
//!   whole chunk; only data that is not JSON at all is an error.
//! - Only the choice with index 0 is read (a choice without `index` counts as index 0).
//! - Within one chunk, updates come in the order Reasoning, Content, ToolCall (by position),
//!   Finish, Usage, Error.
//! - Empty strings produce no update.

use crate::sse::SseEvent;
use serde::de::{DeserializeOwned, Deserializer};
use serde::Deserialize;
use serde_json::Value;

/// Token counts reported by the server, usually on the last chunk.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the prompt (the context sent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    /// Tokens generated, including reasoning tokens where the server counts them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_tokens: Option<u64>,
    /// Prompt plus completion, as reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
}

/// A fragment of a tool call (`delta.tool_calls[i]`): the first fragment of an `index` carries
/// its id and function name, later ones more of the JSON arguments.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolCallDelta {
    /// Which call of the reply this fragment belongs to.
    pub index: u64,
    /// The call's id, on its first fragment.
    pub id: Option<String>,
    /// The function name (or a piece of it).
    pub name: Option<String>,
    /// A piece of the arguments' JSON text.
    pub arguments: String,
}

/// One typed update from a chat-completion stream.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamUpdate {
    /// Visible answer text.
    Content(String),
    /// Intermediate reasoning ("reasoning_content" as DeepSeek/Qwen send, or "reasoning" as
    /// OpenRouter/Ollama send).
    Reasoning(String),
    /// A fragment of a tool call.
    ToolCall(ToolCallDelta),
    /// The choice finished ("stop", "length", "tool_calls", "content_filter", ...).
    Finish(String),
    /// Token counts; emitted only when at least one count is present.
    Usage(Usage),
    /// An error object inside a 200 stream: {"error":{"message":..,"code"?,"type"?}} or
    /// event: error with such data.
    Error {
        /// Human-readable message from the server (or the raw data if it has none).
        message: String,
        /// `error.code` (a string or a number, rendered as text), else `error.type`.
        code: Option<String>,
    },
    /// `data: [DONE]`.
    Done,
}

/// Why a stream event could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ChunkError {
    /// The event data is not JSON; holds a snippet of at most 120 characters of it.
    #[error("stream chunk is not valid JSON: {0}")]
    NotJson(String),
}

/// Longest data snippet, in characters, quoted in a [`ChunkError::NotJson`].
const SNIPPET_CHARS: usize = 120;

/// Parse one SSE event from a chat-completions stream into zero or more updates.
///
/// - data `[DONE]` (surrounding whitespace ignored) gives [`StreamUpdate::Done`];
/// - data that is empty or only whitespace gives no updates;
/// - `event: error`, or a non-null top-level `error` key, gives a [`StreamUpdate::Error`] (after
///   any other updates the same chunk carries); data of an `event: error` need not be JSON;
/// - JSON that is not an object (a bare number, string, array, ...) gives no updates;
/// - any other data that is not JSON is a [`ChunkError::NotJson`].
pub fn parse_event(event: &SseEvent) -> Result<Vec<StreamUpdate>, ChunkError> {
    let data = event.data.trim();
    if data == "[DONE]" {
        return Ok(vec![StreamUpdate::Done]);
    }
    let is_error_event = event.event == "error";
    if data.is_empty() && !is_error_event {
        return Ok(Vec::new());
    }
    let value = match serde_json::from_str::<Value>(data) {
        Ok(value) => value,
        Err(_) if is_error_event => return Ok(vec![error_update(&event.data, None)]),
        Err(_) => return Err(ChunkError::NotJson(snippet(data))),
    };
    let Value::Object(_) = value else {
        return Ok(if is_error_event {
            vec![error_update(&event.data, Some(&value))]
        } else {
            Vec::new()
        });
    };
    let chunk = Chunk::deserialize(&value).unwrap_or_default();
    let mut updates = Vec::new();
    if let Some(first) = chunk
        .choices
        .iter()
        .flatten()
        .find(|choice| choice.index.unwrap_or(0) == 0)
    {
        updates.extend(choice_updates(first));
    }
    if let Some(usage) = chunk.usage.and_then(WireUsage::into_usage) {
        updates.push(StreamUpdate::Usage(usage));
    }
    match chunk.error {
        Some(error) => updates.push(error_update(&event.data, Some(&error))),
        None if is_error_event => updates.push(error_update(&event.data, Some(&value))),
        None => {}
    }
    Ok(updates)
}

/// Reasoning, Content, ToolCall and Finish updates of one choice, in that order.
fn choice_updates(choice: &Choice) -> Vec<StreamUpdate> {
    let text = |field: &Option<String>| {
        field
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let delta = choice.delta.as_ref();
    let reasoning = delta.and_then(|d| text(&d.reasoning_content).or_else(|| text(&d.reasoning)));
    let content = delta.and_then(|d| text(&d.content));
    let finish = text(&choice.finish_reason);
    let calls = delta
        .and_then(|d| d.tool_calls.as_ref())
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, c)| tool_call(i, c));
    [
        reasoning.map(StreamUpdate::Reasoning),
        content.map(StreamUpdate::Content),
    ]
    .into_iter()
    .flatten()
    .chain(calls)
    .chain(finish.map(StreamUpdate::Finish))
    .collect()
}

/// The Error update for an error value: `{"message":..,"code":..,"type":..}` or a plain string.
/// Falls back to the whole event data when there is no usable message.
fn error_update(data: &str, error: Option<&Value>) -> StreamUpdate {
    let message = match error {
        Some(Value::String(message)) => Some(message.clone()),
        Some(value) => value
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_owned),
        None => None,
    };
    let code = error.and_then(|value| {
        let text = |key| match value.get(key) {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        text("code").or_else(|| text("type"))
    });
    StreamUpdate::Error {
        message: message
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| data.to_owned()),
        code,
    }
}

/// At most [`SNIPPET_CHARS`] characters of `data`, ending in "…" if shortened.
fn snippet(data: &str) -> String {
    if data.chars().count() <= SNIPPET_CHARS {
        data.to_owned()
    } else {
        let mut short: String = data.chars().take(SNIPPET_CHARS - 1).collect();
        short.push('…');
        short
    }
}

/// Deserialize any JSON value, keeping it only if it is not `null` and has the expected shape.
fn lenient<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: DeserializeOwned,
{
    let value = Value::deserialize(deserializer)?;
    Ok(if value.is_null() {
        None
    } else {
        serde_json::from_value(value).ok()
    })
}

/// One `chat.completion.chunk` as sent on the wire (only the fields we read).
#[derive(Debug, Default, Deserialize)]
struct Chunk {
    #[serde(default, deserialize_with = "lenient")]
    choices: Option<Vec<Choice>>,
    #[serde(default, deserialize_with = "lenient")]
    usage: Option<WireUsage>,
    /// Kept as raw JSON: a string or an object, interpreted by [`error_update`]; `null` is absent.
    #[serde(default, deserialize_with = "lenient")]
    error: Option<Value>,
}

/// One entry of `choices`.
#[derive(Debug, Default, Deserialize)]
struct Choice {
    #[serde(default, deserialize_with = "lenient")]
    index: Option<u64>,
    #[serde(default, deserialize_with = "lenient")]
    delta: Option<Delta>,
    #[serde(default, deserialize_with = "lenient")]
    finish_reason: Option<String>,
}

/// The incremental `delta` of a choice.
#[derive(Debug, Default, Deserialize)]
struct Delta {
    #[serde(default, deserialize_with = "lenient")]
    content: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    reasoning_content: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    reasoning: Option<String>,
    /// Read by hand from the JSON value (see [`tool_call`]): smaller than a derived reader.
    #[serde(default, deserialize_with = "lenient")]
    tool_calls: Option<Value>,
}

/// One entry of `delta.tool_calls` (`i` is its position, used when it has no `index`); fields of
/// the wrong type count as absent.
fn tool_call(i: usize, c: &Value) -> StreamUpdate {
    let text = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let f = c.get("function");
    StreamUpdate::ToolCall(ToolCallDelta {
        index: c.get("index").and_then(Value::as_u64).unwrap_or(i as u64),
        id: text(c.get("id")),
        name: text(f.and_then(|f| f.get("name"))),
        arguments: f
            .and_then(|f| f.get("arguments"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
    })
}

/// The `usage` object.
#[derive(Debug, Default, Deserialize)]
struct WireUsage {
    #[serde(default, deserialize_with = "lenient")]
    prompt_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient")]
    completion_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient")]
    total_tokens: Option<u64>,
}

impl WireUsage {
    /// The usage, or `None` if it holds no counts at all.
    fn into_usage(self) -> Option<Usage> {
        let usage = Usage {
            prompt_tokens: self.prompt_tokens,
            completion_tokens: self.completion_tokens,
            total_tokens: self.total_tokens,
        };
        (usage != Usage::default()).then_some(usage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sse::{SseDecoder, SseItem};
    use StreamUpdate::{Content, Done, Finish, Reasoning};

    /// (name, SSE event type, SSE data, expected result).
    type Case<'a> = (
        &'a str,
        &'a str,
        &'a str,
        Result<Vec<StreamUpdate>, ChunkError>,
    );

    fn event(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.to_owned(),
            data: data.to_owned(),
            id: None,
        }
    }

    fn usage(prompt: Option<u64>, completion: Option<u64>, total: Option<u64>) -> StreamUpdate {
        StreamUpdate::Usage(Usage {
            prompt_tokens: prompt,
            completion_tokens: completion,
            total_tokens: total,
        })
    }

    fn error(message: &str, code: Option<&str>) -> StreamUpdate {
        StreamUpdate::Error {
            message: message.to_owned(),
            code: code.map(str::to_owned),
        }
    }

    fn content(text: &str) -> StreamUpdate {
        Content(text.to_owned())
    }

    fn reasoning(text: &str) -> StreamUpdate {
        Reasoning(text.to_owned())
    }

    fn finish(reason: &str) -> StreamUpdate {
        Finish(reason.to_owned())
    }

    fn tool(index: u64, id: Option<&str>, name: Option<&str>, arguments: &str) -> StreamUpdate {
        StreamUpdate::ToolCall(ToolCallDelta {
            index,
            id: id.map(str::to_owned),
            name: name.map(str::to_owned),
            arguments: arguments.to_owned(),
        })
    }

    #[test]
    fn parses_table_of_events() {
        let openrouter_error = r#"{"id":"gen-1747","object":"chat.completion.chunk","created":1747300300,"model":"anthropic/claude-sonnet-4","provider":"Anthropic","error":{"code":"server_error","message":"Provider disconnected unexpectedly"},"choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}]}"#;
        let no_message = r#"{"error":{"code":500,"metadata":{"raw":"oops"}}}"#;
        let cases: Vec<Case> = vec![
            // OpenAI
            (
                "openai role delta with empty content",
                "message",
                r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1747300000,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}"#,
                Ok(vec![]),
            ),
            (
                "openai content delta",
                "message",
                r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hello 🦀"},"logprobs":null,"finish_reason":null}]}"#,
                Ok(vec![content("Hello 🦀")]),
            ),
            (
                "openai finish with empty delta",
                "message",
                r#"{"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}"#,
                Ok(vec![finish("stop")]),
            ),
            (
                "openai finish length",
                "message",
                r#"{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}"#,
                Ok(vec![finish("length")]),
            ),
            (
                "usage-only chunk",
                "message",
                r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}"#,
                Ok(vec![usage(Some(12), Some(7), Some(19))]),
            ),
            (
                "partial usage",
                "message",
                r#"{"choices":[],"usage":{"total_tokens":9,"prompt_tokens":null}}"#,
                Ok(vec![usage(None, None, Some(9))]),
            ),
            (
                "empty usage object gives nothing",
                "message",
                r#"{"choices":[],"usage":{}}"#,
                Ok(vec![]),
            ),
            // Tool calls (OpenAI shape: the first fragment names the call, later ones add arguments)
            (
                "tool call: first fragment with id and name",
                "message",
                r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_Ab1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}"#,
                Ok(vec![tool(0, Some("call_Ab1"), Some("get_weather"), "")]),
            ),
            (
                "tool call: argument fragment",
                "message",
                r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"北"}}]},"finish_reason":null}]}"#,
                Ok(vec![tool(0, None, None, "{\"city\":\"北")]),
            ),
            (
                "two parallel calls in one chunk, then finish",
                "message",
                r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"c2","function":{"name":"b","arguments":"{}"}},{"index":2,"id":"c3","function":{"name":"c"}}]},"finish_reason":"tool_calls"}]}"#,
                Ok(vec![
                    tool(1, Some("c2"), Some("b"), "{}"),
                    tool(2, Some("c3"), Some("c"), ""),
                    finish("tool_calls"),
                ]),
            ),
            (
                "tool call without index counts by position; null fields are absent",
                "message",
                r#"{"choices":[{"delta":{"content":"Let me check.","tool_calls":[{"id":null,"function":{"name":null,"arguments":"{\"q\":1}"}}]}}]}"#,
                Ok(vec![
                    content("Let me check."),
                    tool(0, None, None, "{\"q\":1}"),
                ]),
            ),
            // DeepSeek / Qwen
            (
                "deepseek reasoning_content with null content",
                "message",
                r#"{"id":"5d1c","object":"chat.completion.chunk","model":"deepseek-reasoner","choices":[{"index":0,"delta":{"content":null,"reasoning_content":"用户问 2+2"},"logprobs":null,"finish_reason":null}]}"#,
                Ok(vec![reasoning("用户问 2+2")]),
            ),
            (
                "deepseek content with null reasoning_content",
                "message",
                r#"{"choices":[{"index":0,"delta":{"content":"**4**","reasoning_content":null},"finish_reason":null}]}"#,
                Ok(vec![content("**4**")]),
            ),
            (
                "deepseek last chunk: finish and usage alongside",
                "message",
                r#"{"choices":[{"index":0,"delta":{"content":"","reasoning_content":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":14,"completion_tokens":42,"total_tokens":56,"completion_tokens_details":{"reasoning_tokens":30},"prompt_cache_hit_tokens":0}}"#,
                Ok(vec![finish("stop"), usage(Some(14), Some(42), Some(56))]),
            ),
            // OpenRouter / Ollama
            (
                "openrouter reasoning",
                "message",
                r#"{"id":"gen-1","provider":"DeepInfra","model":"deepseek/deepseek-r1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"Let me think.","reasoning_details":[{"type":"reasoning.text","text":"Let me think."}]},"finish_reason":null,"native_finish_reason":null,"logprobs":null}]}"#,
                Ok(vec![reasoning("Let me think.")]),
            ),
            (
                "ollama reasoning",
                "message",
                r#"{"id":"chatcmpl-532","object":"chat.completion.chunk","created":1747300400,"model":"qwen3:8b","system_fingerprint":"fp_ollama","choices":[{"index":0,"delta":{"role":"assistant","content":"","reasoning":"Okay"},"finish_reason":null}]}"#,
                Ok(vec![reasoning("Okay")]),
            ),
            (
                "reasoning_content preferred over reasoning",
                "message",
                r#"{"choices":[{"index":0,"delta":{"reasoning_content":"a","reasoning":"b"}}]}"#,
                Ok(vec![reasoning("a")]),
            ),
            (
                "empty reasoning_content falls back to reasoning",
                "message",
                r#"{"choices":[{"index":0,"delta":{"reasoning_content":"","reasoning":"b"}}]}"#,
                Ok(vec![reasoning("b")]),
            ),
            (
                "order within one chunk",
                "message",
                r#"{"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3},"choices":[{"finish_reason":"stop","delta":{"content":"c","reasoning":"r"},"index":0}]}"#,
                Ok(vec![
                    reasoning("r"),
                    content("c"),
                    finish("stop"),
                    usage(Some(1), Some(2), Some(3)),
                ]),
            ),
            (
                "llama.cpp final chunk with timings",
                "message",
                r#"{"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"created":1747300201,"model":"qwen2.5-7b","object":"chat.completion.chunk","usage":{"completion_tokens":5,"prompt_tokens":21,"total_tokens":26},"timings":{"prompt_n":21,"predicted_per_second":80.77}}"#,
                Ok(vec![finish("stop"), usage(Some(21), Some(5), Some(26))]),
            ),
            // Null, empty and odd shapes
            (
                "null content and null delta fields",
                "message",
                r#"{"choices":[{"index":0,"delta":{"content":null,"role":null},"finish_reason":null}]}"#,
                Ok(vec![]),
            ),
            (
                "null delta",
                "message",
                r#"{"choices":[{"index":0,"delta":null}]}"#,
                Ok(vec![]),
            ),
            ("null choices", "message", r#"{"choices":null}"#, Ok(vec![])),
            ("empty object", "message", "{}", Ok(vec![])),
            (
                "fields of unexpected type are ignored",
                "message",
                r#"{"choices":[{"index":0,"delta":{"content":5,"reasoning":"r"},"finish_reason":7}],"usage":"n/a"}"#,
                Ok(vec![reasoning("r")]),
            ),
            (
                "choices of unexpected type are ignored",
                "message",
                r#"{"choices":{"index":0},"usage":{"total_tokens":3}}"#,
                Ok(vec![usage(None, None, Some(3))]),
            ),
            (
                "choice without index counts as index 0",
                "message",
                r#"{"choices":[{"delta":{"content":"x"}}]}"#,
                Ok(vec![content("x")]),
            ),
            (
                "whitespace is content",
                "message",
                r#"{"choices":[{"index":0,"delta":{"content":"\n\n"}}]}"#,
                Ok(vec![content("\n\n")]),
            ),
            ("non-object JSON gives nothing", "message", "42", Ok(vec![])),
            ("empty data gives nothing", "message", "", Ok(vec![])),
            (
                "whitespace data gives nothing",
                "message",
                " \n ",
                Ok(vec![]),
            ),
            (
                "unknown event type parsed as a chunk",
                "delta",
                r#"{"choices":[{"index":0,"delta":{"content":"x"}}]}"#,
                Ok(vec![content("x")]),
            ),
            // Multiple choices
            (
                "only choice index 0 is read",
                "message",
                r#"{"choices":[{"index":1,"delta":{"content":"one"},"finish_reason":"length"},{"index":0,"delta":{"content":"zero"}},{"index":2,"delta":{"reasoning":"two"}}]}"#,
                Ok(vec![content("zero")]),
            ),
            (
                "no choice index 0",
                "message",
                r#"{"choices":[{"index":1,"delta":{"content":"one"},"finish_reason":"stop"}]}"#,
                Ok(vec![]),
            ),
            // Errors inside a 200 stream
            (
                "top-level error object with numeric code",
                "message",
                r#"{"error":{"message":"Rate limit exceeded","code":429}}"#,
                Ok(vec![error("Rate limit exceeded", Some("429"))]),
            ),
            (
                "top-level error object with type and null code",
                "message",
                r#"{"error":{"message":"Context too long","type":"invalid_request_error","param":null,"code":null}}"#,
                Ok(vec![error(
                    "Context too long",
                    Some("invalid_request_error"),
                )]),
            ),
            (
                "top-level error as string",
                "message",
                r#"{"error":"model 'llama9' not found"}"#,
                Ok(vec![error("model 'llama9' not found", None)]),
            ),
            (
                "error object without message gives the whole data",
                "message",
                no_message,
                Ok(vec![error(no_message, Some("500"))]),
            ),
            (
                "openrouter mid-stream error after the finish",
                "message",
                openrouter_error,
                Ok(vec![
                    finish("error"),
                    error("Provider disconnected unexpectedly", Some("server_error")),
                ]),
            ),
            (
                "null error is no error",
                "message",
                r#"{"error":null,"choices":[{"index":0,"delta":{"content":"ok"}}]}"#,
                Ok(vec![content("ok")]),
            ),
            (
                "event: error with error object",
                "error",
                r#"{"error":{"message":"Upstream timed out","code":"timeout","type":"server_error"}}"#,
                Ok(vec![error("Upstream timed out", Some("timeout"))]),
            ),
            (
                "event: error with bare error object",
                "error",
                r#"{"message":"Overloaded","type":"overloaded_error"}"#,
                Ok(vec![error("Overloaded", Some("overloaded_error"))]),
            ),
            (
                "event: error with text data",
                "error",
                "upstream connect error",
                Ok(vec![error("upstream connect error", None)]),
            ),
            (
                "event: error with JSON string data",
                "error",
                r#""quota exhausted""#,
                Ok(vec![error("quota exhausted", None)]),
            ),
            (
                "event: error without message",
                "error",
                r#"{"status":503}"#,
                Ok(vec![error(r#"{"status":503}"#, None)]),
            ),
            // [DONE] and non-JSON
            ("done", "message", "[DONE]", Ok(vec![Done])),
            (
                "done with whitespace",
                "message",
                " [DONE]\n",
                Ok(vec![Done]),
            ),
            (
                "non-JSON",
                "message",
                "hello there",
                Err(ChunkError::NotJson("hello there".to_owned())),
            ),
            (
                "truncated JSON",
                "message",
                r#"{"choices":[{"index":0,"#,
                Err(ChunkError::NotJson(r#"{"choices":[{"index":0,"#.to_owned())),
            ),
            (
                "lowercase done is not done",
                "message",
                "[done]",
                Err(ChunkError::NotJson("[done]".to_owned())),
            ),
        ];
        for (name, event_type, data, expected) in cases {
            assert_eq!(
                parse_event(&event(event_type, data)),
                expected,
                "case: {name}"
            );
        }
    }

    #[test]
    fn not_json_error_quotes_a_short_snippet() {
        for data in [
            "x".repeat(500),
            "é🦀".repeat(200),
            "y".repeat(120),
            "z".repeat(121),
        ] {
            let Err(ChunkError::NotJson(quoted)) = parse_event(&event("message", &data)) else {
                panic!("expected NotJson for {data:?}");
            };
            assert!(quoted.chars().count() <= 120, "{quoted:?}");
            let kept = quoted.strip_suffix('…').unwrap_or(&quoted);
            assert!(data.starts_with(kept), "{quoted:?}");
            let shortened = data.chars().count() > 120;
            assert_eq!(shortened, quoted.ends_with('…'), "{quoted:?}");
        }
        let message = ChunkError::NotJson("oops".to_owned()).to_string();
        assert_eq!(message, "stream chunk is not valid JSON: oops");
    }

    #[test]
    fn decoded_stream_byte_by_byte_accumulates_into_a_message() {
        let stream = concat!(
            ": OPENROUTER PROCESSING\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\",\"reasoning\":\"Hm, \"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":null,\"reasoning\":\"simple.\"}}]}\r\n\r\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Grüße \"}}]}\r\r",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"🦀!\"},\"finish_reason\":\"stop\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":4,\"total_tokens\":7}}\n\n",
            "data: [DONE]",
        );
        let mut decoder = SseDecoder::new();
        let mut items = Vec::new();
        for byte in stream.as_bytes().chunks(1) {
            items.extend(decoder.push(byte));
        }
        items.extend(decoder.finish());
        let mut updates = Vec::new();
        for item in &items {
            if let SseItem::Event(e) = item {
                updates.extend(parse_event(e).unwrap_or_else(|e| panic!("{e}")));
            }
        }
        let (mut answer, mut thoughts) = (String::new(), String::new());
        for update in &updates {
            match update {
                Content(text) => answer.push_str(text),
                Reasoning(text) => thoughts.push_str(text),
                _ => {}
            }
        }
        assert_eq!(answer, "Grüße 🦀!");
        assert_eq!(thoughts, "Hm, simple.");
        assert_eq!(
            updates.iter().rev().take(3).collect::<Vec<_>>(),
            [&Done, &usage(Some(3), Some(4), Some(7)), &finish("stop")]
        );
    }
}
