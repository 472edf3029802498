//! Building the JSON body of a streaming `POST {base}/chat/completions` from the messages the
//! context pipeline chose ([`crate::context`]).
//!
//! Only what the pipeline kept is sent (reasoning never is). The API key is not part of the
//! body; the adapter puts it in the `Authorization` header. `stream_options.include_usage` asks
//! for the token counts each reply shows.

use crate::attachment::image_placeholder;
use crate::context::Sent;
use crate::settings::Settings;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// A tool call on the wire.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WireCall<'a> {
    /// Call id.
    pub id: &'a str,
    /// Always `function`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Name and arguments.
    pub function: WireFunction<'a>,
}

/// The function of a tool call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WireFunction<'a> {
    /// Function name.
    pub name: &'a str,
    /// Arguments as JSON text.
    pub arguments: &'a str,
}

/// One message on the wire.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WireMessage<'a> {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: &'static str,
    /// The text, or the text and images of a question with images.
    pub content: WireContent<'a>,
    /// Tool calls of an assistant message.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<WireCall<'a>>,
    /// The call a tool message answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<&'a str>,
}

/// A message's content: text, or parts (OpenAI's form for images, which llama.cpp, Ollama,
/// vLLM and OpenRouter take too).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum WireContent<'a> {
    /// Text alone.
    Text(&'a str),
    /// Text and images.
    Parts(Vec<WirePart<'a>>),
}

/// One content part.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum WirePart<'a> {
    /// Text.
    Text {
        /// The text.
        text: Cow<'a, str>,
    },
    /// An image, as a `data:` URL.
    ImageUrl {
        /// Its URL.
        image_url: WireImage<'a>,
    },
}

/// An image part's URL.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WireImage<'a> {
    /// A `data:` URL.
    pub url: &'a str,
}

/// `stream_options`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StreamOptions {
    /// Ask for `usage` on the last chunk.
    pub include_usage: bool,
}

/// The request body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest<'a> {
    /// Model name.
    pub model: &'a str,
    /// Conversation, oldest first.
    pub messages: Vec<WireMessage<'a>>,
    /// Always `true`: Satori reads replies as a stream.
    pub stream: bool,
    /// Asks for token usage.
    pub stream_options: StreamOptions,
    /// Sampling temperature, if set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Reply token limit, if set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Tools offered to the model (agent mode), as their JSON array.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<&'a serde_json::Value>,
    /// Stop sequences (agent mode in ReAct text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<&'static [&'static str]>,
    /// Structured output: JSON matching the chat's template's `output_schema`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_format: Option<&'a serde_json::Value>,
}

/// The body for sending `messages` (as the pipeline built them) to `model` with `settings`;
/// `images` holds the `data:` URL of each image by its hash (an image this browser does not
/// hold goes as its placeholder text).
pub fn chat_request<'a>(
    settings: &'a Settings,
    model: &'a str,
    messages: &'a [Sent],
    images: &'a BTreeMap<String, String>,
) -> ChatRequest<'a> {
    let messages = messages
        .iter()
        .map(|m| WireMessage {
            role: m.role.as_str(),
            content: content(m, images),
            tool_calls: m
                .tool_calls
                .iter()
                .map(|c| WireCall {
                    id: &c.id,
                    kind: "function",
                    function: WireFunction {
                        name: &c.name,
                        arguments: &c.arguments,
                    },
                })
                .collect(),
            tool_call_id: m.tool_call_id.as_deref(),
        })
        .collect();
    ChatRequest {
        model,
        messages,
        stream: true,
        stream_options: StreamOptions {
            include_usage: true,
        },
        temperature: settings.temperature,
        max_tokens: settings.max_tokens,
        tools: None,
        stop: None,
        response_format: None,
    }
}

/// A message's content on the wire: its text, or its text and images as parts.
fn content<'a>(m: &'a Sent, images: &'a BTreeMap<String, String>) -> WireContent<'a> {
    if m.images.is_empty() {
        return WireContent::Text(&m.content);
    }
    let mut parts = Vec::with_capacity(m.images.len() + 1);
    if !m.content.is_empty() {
        parts.push(WirePart::Text {
            text: Cow::Borrowed(&m.content),
        });
    }
    for a in &m.images {
        parts.push(match images.get(&a.hash) {
            Some(url) => WirePart::ImageUrl {
                image_url: WireImage { url },
            },
            None => WirePart::Text {
                text: Cow::Owned(format!(
                    "{} (not on this device)",
                    image_placeholder(&a.name)
                )),
            },
        });
    }
    WireContent::Parts(parts)
}

/// The body as JSON text.
pub fn to_json(req: &ChatRequest<'_>) -> String {
    serde_json::to_string(req).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::Source;
    use crate::session::{Role, ToolCall};

    fn sent(role: Role, content: &str) -> Sent {
        Sent {
            source: Source::History(0),
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            pinned: false,
            tokens: 0,
            images: Vec::new(),
        }
    }

    #[test]
    fn body_carries_the_messages_and_tool_protocol() {
        let mut call = sent(Role::Assistant, "");
        call.tool_calls = vec![ToolCall {
            index: 0,
            id: "c1".into(),
            name: "calc".into(),
            arguments: "{\"e\":\"1+1\"}".into(),
        }];
        let mut result = sent(Role::Tool, "2");
        result.tool_call_id = Some("c1".into());
        let messages = vec![
            sent(Role::System, "Be brief."),
            sent(Role::User, "hi"),
            call,
            result,
        ];
        let settings = Settings {
            max_tokens: Some(32),
            temperature: Some(0.5),
            ..Settings::default()
        };
        let json = to_json(&chat_request(&settings, "m", &messages, &BTreeMap::new()));
        assert_eq!(
            json,
            r#"{"model":"m","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"},{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"calc","arguments":"{\"e\":\"1+1\"}"}}]},{"role":"tool","content":"2","tool_call_id":"c1"}],"stream":true,"stream_options":{"include_usage":true},"temperature":0.5,"max_tokens":32}"#
        );
    }

    #[test]
    fn images_go_as_content_parts() {
        let image = |c: char| crate::attachment::Attachment {
            name: format!("{c}.png"),
            kind: crate::attachment::Kind::Image,
            mime: "image/png".into(),
            bytes: 3,
            hash: c.to_string().repeat(64),
            width: 2,
            height: 1,
            pages: 0,
            text: None,
        };
        let mut q = sent(Role::User, "What is this?");
        q.images = vec![image('a'), image('b')];
        let mut only = sent(Role::User, "");
        only.images = vec![image('a')];
        let urls = BTreeMap::from([("a".repeat(64), "data:image/png;base64,AAAA".to_string())]);
        let json = to_json(&chat_request(&Settings::default(), "m", &[q, only], &urls));
        assert!(json.starts_with(
            r#"{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},{"type":"text","text":"[image omitted: b.png] (not on this device)"}]},{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}],"#
        ), "{json}");
    }
}
