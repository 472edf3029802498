//! MCP servers (the Model Context Protocol over its Streamable HTTP transport): what Satori
//! stores about the servers the user connected, the tools it offers the model from them, and the
//! JSON-RPC messages it sends and reads. The shell (`satori::shell::mcp`) does the HTTP.
//!
//! Invariants:
//! - A server's bearer token lives in a record of its own ([`Tokens`], like the API key): never
//!   in [`Servers`], never exported, and looked up by the URL it is sent to
//!   ([`Tokens::token_for`]), so it only ever goes to the URL it was entered for.
//! - The names offered to the model ([`offered`]) are valid OpenAI function names
//!   (`[a-zA-Z0-9_-]{1,64}`) and unique among the built-in tools and every server's tools, in a
//!   stable order: the same records always give the same names.
//! - Whatever a server answers, reading it never panics; a bad answer is an [`McpError`] with
//!   words a user (or the model, as a tool result) can act on.
//!
//! Pure: no IO.

use super::tools::Spec;
use super::trust::Trust;
use crate::key_binding::same_base;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::HashSet;

/// The protocol version Satori speaks (a server may answer with an older one it supports).
pub const PROTOCOL_VERSION: &str = "2025-06-18";
/// Characters of a tool's result kept for the model; the rest is cut, with a note.
pub const MAX_RESULT_CHARS: usize = 20_000;
/// Characters of a tool's description offered to the model.
const MAX_DESCRIPTION_CHARS: usize = 1_000;
/// Tools read from one server at most (pages of `tools/list` are followed up to this).
pub const MAX_TOOLS: usize = 200;
/// Characters of an error body quoted in a message.
const QUOTED_CHARS: usize = 200;
/// Tools offered with one request at most, the built-in ones included (OpenAI refuses more).
pub const MAX_OFFERED: usize = 128;
/// Bytes of a tool's input schema offered as it is; a larger one is offered as any object.
pub const MAX_SCHEMA_BYTES: usize = 8_000;
/// The protocol versions Satori can speak, newest first.
pub const VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The MCP servers the user connected (the `satori.mcp` record): their URLs and tools, without
/// tokens.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Servers {
    /// In the order they were added.
    #[serde(default)]
    pub servers: Vec<Server>,
}

/// One MCP server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Server {
    /// Its Streamable HTTP endpoint (`http://127.0.0.1:8000/mcp`).
    pub url: String,
    /// The name it gave itself, or its host.
    #[serde(default)]
    pub name: String,
    /// Its tools as last listed.
    #[serde(default)]
    pub tools: Vec<Tool>,
    /// When its calls ask first (see [`super::trust`]).
    #[serde(default, skip_serializing_if = "is_default")]
    pub trust: Trust,
    /// The tools (by their names on the server) the user chose "Always allow this tool" for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed: Vec<String>,
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

impl Server {
    /// Whether the user always allows its tool `tool` (its name on the server).
    pub fn always_allows(&self, tool: &str) -> bool {
        self.allowed.iter().any(|t| t == tool)
    }
}

/// A tool of an MCP server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// Its name on the server.
    pub name: String,
    /// What it does, as the server says.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// JSON Schema of its arguments.
    #[serde(default = "empty_object")]
    pub input_schema: Value,
    /// Whether it is offered to the model (the user's switch).
    #[serde(default = "yes")]
    pub on: bool,
}

fn empty_object() -> Value {
    json!({"type": "object", "properties": {}})
}

fn yes() -> bool {
    true
}

/// The bearer tokens of MCP servers (the `satori.mcp_tokens` record), each with the URL it was
/// entered for.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Tokens {
    /// One per server that has one.
    #[serde(default)]
    pub tokens: Vec<Token>,
}

/// A bearer token and the server URL it belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Token {
    /// The MCP endpoint it is sent to, and only to it.
    pub url: String,
    /// The secret.
    pub token: String,
}

impl Tokens {
    /// The token entered for `url`, if any.
    pub fn token_for(&self, url: &str) -> Option<&str> {
        self.tokens
            .iter()
            .find(|t| same_base(&t.url, url))
            .map(|t| t.token.as_str())
            .filter(|t| !t.trim().is_empty())
    }

    /// Keep `token` for `url` (an empty one removes it).
    pub fn set(&mut self, url: &str, token: &str) {
        self.tokens.retain(|t| !same_base(&t.url, url));
        if !token.trim().is_empty() {
            self.tokens.push(Token {
                url: url.to_string(),
                token: token.trim().to_string(),
            });
        }
    }

    /// Forget the tokens of servers no longer in `servers`.
    pub fn keep_only(&mut self, servers: &Servers) {
        self.tokens
            .retain(|t| servers.servers.iter().any(|s| same_base(&s.url, &t.url)));
    }
}

impl Servers {
    /// The server at `url`, if connected.
    pub fn find(&self, url: &str) -> Option<&Server> {
        self.servers.iter().find(|s| same_base(&s.url, url))
    }

    /// "Always allow this tool": tool `tool` of the server at `url` runs without asking from now
    /// on. False when that server is gone.
    pub fn allow_always(&mut self, url: &str, tool: &str) -> bool {
        let Some(server) = self.servers.iter_mut().find(|s| same_base(&s.url, url)) else {
            return false;
        };
        if !server.always_allows(tool) {
            server.allowed.push(tool.to_string());
        }
        true
    }
}

/// Where a server is, as "Allow tool call" shows it: its URL's scheme, host and port, without a
/// user name, password, path or query (which may hold a secret).
pub fn origin(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    match scheme {
        "" => host.to_string(),
        _ => format!("{scheme}://{host}"),
    }
}

/// The URL typed for a new server, checked: `http(s)://` and nothing a header or a fetch
/// would refuse.
pub fn check_url(text: &str) -> Result<String, String> {
    let url = text.trim();
    if url.is_empty() {
        return Err("Enter the MCP server's URL (for example http://127.0.0.1:8000/mcp).".into());
    }
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(r) if !r.is_empty() && !r.starts_with('/') => {}
        _ => return Err(format!("`{url}` is not an http:// or https:// URL.")),
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(format!("`{url}` contains spaces."));
    }
    if url.split('/').nth(2).is_some_and(|host| host.contains('@')) {
        return Err("Put a token in the token field, not in the URL.".into());
    }
    Ok(url.to_string())
}

/// A tool as offered to the model: its spec (with the name the model calls it by) and where it
/// runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Offered {
    /// Name, description and argument schema, as the model sees them.
    pub spec: Spec,
    /// The server's index in [`Servers::servers`].
    pub server: usize,
    /// The tool's own name on that server.
    pub tool: String,
}

/// The switched-on tools of every server, named so that no name repeats one in `taken` (the
/// built-in tools) or another server's, at most [`MAX_OFFERED`] tools in all. Names are given
/// over every listed tool, switched on or off, so flipping a switch never renames another tool
/// (a call is never run on a tool other than the one offered under its name).
pub fn offered(taken: &[Spec], servers: &Servers) -> Vec<Offered> {
    let mut used: HashSet<String> = taken.iter().map(|s| s.name.clone()).collect();
    let mut out = Vec::new();
    for (i, server) in servers.servers.iter().enumerate() {
        for tool in &server.tools {
            let name = wire_name(&tool.name, &used);
            used.insert(name.clone());
            if !tool.on || taken.len() + out.len() >= MAX_OFFERED {
                continue;
            }
            let mut description: String = tool
                .description
                .trim()
                .chars()
                .take(MAX_DESCRIPTION_CHARS)
                .collect();
            if description.is_empty() {
                description = format!("The tool `{}`", tool.name);
            }
            description.push_str(&format!(" (from the MCP server {})", server.name));
            out.push(Offered {
                spec: Spec {
                    name,
                    description,
                    parameters: object_schema(&tool.input_schema),
                },
                server: i,
                tool: tool.name.clone(),
            });
        }
    }
    out
}

/// `name` as an OpenAI function name not in `used`: other characters become `_`, at most 64
/// characters, and `_2`, `_3` … until it is free.
fn wire_name(name: &str, used: &HashSet<String>) -> String {
    let clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    let clean = if clean.is_empty() {
        "tool".to_string()
    } else {
        clean
    };
    if !used.contains(&clean) {
        return clean;
    }
    (2..)
        .map(|n| {
            let suffix = format!("_{n}");
            format!("{}{suffix}", &clean[..clean.len().min(64 - suffix.len())])
        })
        .find(|c| !used.contains(c))
        .unwrap_or_default()
}

/// A tool's input schema as a function's `parameters`: an object schema with an object of
/// properties, whatever the server sent (one too large to send with every request is offered
/// as any object; the server checks the arguments all the same).
fn object_schema(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return empty_object();
    };
    if schema.to_string().len() > MAX_SCHEMA_BYTES {
        return empty_object();
    }
    let mut map = map.clone();
    let object = match map.get("type") {
        None => true,
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "object"),
        Some(_) => false,
    };
    if !object {
        return empty_object();
    }
    map.insert("type".into(), json!("object"));
    if !map.get("properties").is_some_and(Value::is_object) {
        map.insert("properties".into(), json!({}));
    }
    Value::Object(map)
}

/// A JSON-RPC request.
pub fn request(id: u64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// The `initialize` request.
pub fn initialize(id: u64) -> String {
    request(
        id,
        "initialize",
        json!({
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "Satori", "version": env!("CARGO_PKG_VERSION")}
        }),
    )
}

/// The notification that follows a successful `initialize`.
pub fn initialized() -> String {
    json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()
}

/// A `tools/list` request (`cursor`: the page after the one that gave it).
pub fn list_tools(id: u64, cursor: Option<&str>) -> String {
    let params = match cursor {
        Some(c) => json!({"cursor": c}),
        None => json!({}),
    };
    request(id, "tools/list", params)
}

/// A `tools/call` request.
pub fn call_tool(id: u64, name: &str, arguments: &Value) -> String {
    request(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

/// What went wrong talking to an MCP server. Its text names the server's URL and says what to
/// do; it is shown in Settings and, for a tool call, sent to the model as the tool's result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    /// No answer at all: down, wrong address, or CORS.
    #[error("could not reach {url}: the server is not running, the address is wrong, or it does not allow requests from this page (CORS: it must allow this page's origin and expose Mcp-Session-Id)")]
    Unreachable {
        /// The endpoint.
        url: String,
    },
    /// 401 or 403.
    #[error("{url} refused the request (HTTP {status}): the bearer token is missing or wrong")]
    Refused {
        /// The endpoint.
        url: String,
        /// The status.
        status: u16,
    },
    /// Another HTTP error status.
    #[error("{url} answered HTTP {status}{}", quoted(body))]
    Status {
        /// The endpoint.
        url: String,
        /// The status.
        status: u16,
        /// The start of the body.
        body: String,
    },
    /// A redirect, which is never followed (a token would go elsewhere).
    #[error(
        "{url} redirected the request elsewhere; Satori does not follow redirects to MCP servers"
    )]
    Redirected {
        /// The endpoint.
        url: String,
    },
    /// An answer that is not MCP's JSON-RPC.
    #[error("{url} did not answer as an MCP server: {detail}")]
    NotMcp {
        /// The endpoint.
        url: String,
        /// What was wrong.
        detail: String,
    },
    /// A JSON-RPC error answer.
    #[error("{url} answered with an error: {message} (code {code})")]
    Rpc {
        /// The endpoint.
        url: String,
        /// JSON-RPC error code.
        code: i64,
        /// Its message.
        message: String,
    },
    /// No answer within the time allowed.
    #[error("{url} did not answer within {seconds} s")]
    Timeout {
        /// The endpoint.
        url: String,
        /// The time allowed.
        seconds: u32,
    },
    /// Stopped by the user.
    #[error("stopped")]
    Stopped,
}

impl McpError {
    /// The same error naming the server by `name` instead of its URL (for the model and the
    /// chat, which must not carry a URL that may hold a secret).
    pub fn named(self, name: &str) -> McpError {
        let url = format!("the MCP server {name}");
        match self {
            McpError::Unreachable { .. } => McpError::Unreachable { url },
            McpError::Refused { status, .. } => McpError::Refused { url, status },
            McpError::Status { status, body, .. } => McpError::Status { url, status, body },
            McpError::Redirected { .. } => McpError::Redirected { url },
            McpError::NotMcp { detail, .. } => McpError::NotMcp { url, detail },
            McpError::Rpc { code, message, .. } => McpError::Rpc { url, code, message },
            McpError::Timeout { seconds, .. } => McpError::Timeout { url, seconds },
            McpError::Stopped => McpError::Stopped,
        }
    }
}

/// The protocol version a server agreed to in its `initialize` result, if Satori speaks it.
pub fn agreed_version(url: &str, result: &Value) -> Result<String, McpError> {
    match result.get("protocolVersion").and_then(Value::as_str) {
        Some(v) if VERSIONS.contains(&v) => Ok(v.to_string()),
        other => Err(McpError::NotMcp {
            url: url.to_string(),
            detail: format!(
                "it speaks protocol version {}, which Satori does not (it speaks {})",
                other.unwrap_or("(none)"),
                VERSIONS.join(", ")
            ),
        }),
    }
}

fn quoted(body: &str) -> String {
    let body = body.trim();
    if body.is_empty() {
        return String::new();
    }
    let mut short: String = body.chars().take(QUOTED_CHARS).collect();
    if short.len() < body.len() {
        short.push('…');
    }
    format!(": {short}")
}

/// The `result` of the JSON-RPC response with `id` in a POST's answer, which is JSON (one
/// message or a batch) or an event stream whose events carry messages (`content_type` says
/// which).
pub fn response(url: &str, content_type: &str, body: &str, id: u64) -> Result<Value, McpError> {
    let not_mcp = |detail: String| McpError::NotMcp {
        url: url.to_string(),
        detail,
    };
    let messages: Vec<Value> = if content_type
        .to_ascii_lowercase()
        .starts_with("text/event-stream")
    {
        let mut decoder = crate::sse::SseDecoder::new();
        let mut items = decoder.push(body.as_bytes());
        items.extend(decoder.finish());
        items
            .into_iter()
            .filter_map(|item| match item {
                crate::sse::SseItem::Event(e) if !e.data.trim().is_empty() => {
                    serde_json::from_str::<Value>(&e.data).ok()
                }
                _ => None,
            })
            .flat_map(|v| match v {
                Value::Array(a) => a,
                v => vec![v],
            })
            .collect()
    } else {
        match serde_json::from_str::<Value>(body) {
            Ok(Value::Array(a)) => a,
            Ok(v) => vec![v],
            Err(e) => {
                let kind = if content_type.is_empty() {
                    "no content type".to_string()
                } else {
                    content_type.to_string()
                };
                return Err(not_mcp(format!("its answer is not JSON ({kind}: {e})")));
            }
        }
    };
    // Only a response answers: a request of the server's own (a `ping`) may carry the same id.
    let Some(answer) = messages.into_iter().find(|m| {
        m.get("id").and_then(Value::as_u64) == Some(id)
            && m.get("method").is_none()
            && (m.get("result").is_some() || m.get("error").is_some())
    }) else {
        return Err(not_mcp(format!(
            "no answer to request {id} in what it sent"
        )));
    };
    if let Some(err) = answer.get("error") {
        return Err(McpError::Rpc {
            url: url.to_string(),
            code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("no message")
                .chars()
                .take(QUOTED_CHARS)
                .collect(),
        });
    }
    answer
        .get("result")
        .cloned()
        .ok_or_else(|| not_mcp(format!("the answer to request {id} has no result")))
}

/// The server's name from its `initialize` result (its title, else its name, else the URL's
/// host).
pub fn server_name(result: &Value, url: &str) -> String {
    let info = result.get("serverInfo");
    let text = |k: &str| {
        info.and_then(|i| i.get(k))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| s.chars().take(80).collect::<String>())
    };
    text("title").or_else(|| text("name")).unwrap_or_else(|| {
        url.split('/')
            .nth(2)
            .unwrap_or(url)
            .chars()
            .take(80)
            .collect()
    })
}

/// The tools of one `tools/list` page and the cursor of the next page, if any.
pub fn tools_page(url: &str, result: &Value) -> Result<(Vec<Tool>, Option<String>), McpError> {
    let Some(list) = result.get("tools").and_then(Value::as_array) else {
        return Err(McpError::NotMcp {
            url: url.to_string(),
            detail: "its tools/list answer has no tools list".into(),
        });
    };
    let mut names = HashSet::new();
    let tools = list
        .iter()
        .filter_map(|t| {
            // A name the server could not be called by is left out, and so is a repeated one.
            let name = t.get("name")?.as_str()?;
            let usable = !name.trim().is_empty() && name.chars().count() <= 128;
            (usable && names.insert(name.to_string())).then(|| Tool {
                name: name.to_string(),
                description: t
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .trim()
                    .chars()
                    .take(MAX_DESCRIPTION_CHARS)
                    .collect(),
                input_schema: t
                    .get("inputSchema")
                    .filter(|s| s.is_object())
                    .cloned()
                    .unwrap_or_else(empty_object),
                on: true,
            })
        })
        .collect();
    let next = result
        .get("nextCursor")
        .and_then(Value::as_str)
        .filter(|c| !c.is_empty())
        .map(str::to_string);
    Ok((tools, next))
}

/// A freshly listed server keeps the user's choices: a tool switched off stays off, a new one
/// is on; its trust setting stays, and so does "always allow" for each tool still listed.
pub fn relist(old: &Server, name: String, tools: Vec<Tool>) -> Server {
    let allowed = old
        .allowed
        .iter()
        .filter(|a| tools.iter().any(|t| &t.name == *a))
        .cloned()
        .collect();
    Server {
        url: old.url.clone(),
        name,
        tools: tools
            .into_iter()
            .map(|mut t| {
                if let Some(before) = old.tools.iter().find(|o| o.name == t.name) {
                    t.on = before.on;
                }
                t
            })
            .collect(),
        trust: old.trust,
        allowed,
    }
}

/// A `tools/call` result as the text the model reads: its text content (other content named),
/// its structured content when it has nothing else, `Error: …` when the tool failed, cut at
/// [`MAX_RESULT_CHARS`].
pub fn result_text(result: &Value) -> String {
    let mut parts: Vec<String> = Vec::new();
    for item in result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let field = |k: &str| item.get(k).and_then(Value::as_str).unwrap_or_default();
        parts.push(match field("type") {
            "text" => field("text").to_string(),
            "image" | "audio" => format!("[{} ({}) left out]", field("type"), field("mimeType")),
            "resource_link" => format!("[resource {} {}]", field("name"), field("uri")),
            "resource" => {
                let r = item.get("resource");
                let text = r.and_then(|r| r.get("text")).and_then(Value::as_str);
                let uri = r
                    .and_then(|r| r.get("uri"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                match text {
                    Some(t) => format!("[resource {uri}]\n{t}"),
                    None => format!("[resource {uri} left out]"),
                }
            }
            other => format!("[{other} content left out]"),
        });
    }
    if parts.is_empty() {
        if let Some(s) = result.get("structuredContent") {
            parts.push(s.to_string());
        }
    }
    let mut text = parts.join("\n");
    let failed = result.get("isError").and_then(Value::as_bool) == Some(true);
    if failed && !text.starts_with("Error") {
        text = format!(
            "Error: {}",
            if text.is_empty() {
                "the tool failed"
            } else {
                &text
            }
        );
    } else if text.is_empty() {
        text = "(no output)".into();
    }
    cut(text)
}

fn cut(text: String) -> String {
    let total = text.chars().count();
    if total <= MAX_RESULT_CHARS {
        return text;
    }
    let mut kept: String = text.chars().take(MAX_RESULT_CHARS).collect();
    kept.push_str(&format!(
        "\n… ({} more characters cut)",
        total - MAX_RESULT_CHARS
    ));
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(name: &str, tools: &[(&str, bool)]) -> Server {
        Server {
            url: format!("http://127.0.0.1:1/{name}"),
            name: name.into(),
            tools: tools
                .iter()
                .map(|(n, on)| Tool {
                    name: n.to_string(),
                    description: format!("does {n}"),
                    input_schema: json!({"type": "object", "properties": {"x": {"type": "string"}}}),
                    on: *on,
                })
                .collect(),
            trust: Trust::default(),
            allowed: vec![],
        }
    }

    fn names(o: &[Offered]) -> Vec<&str> {
        o.iter().map(|o| o.spec.name.as_str()).collect()
    }

    #[test]
    fn offered_names_are_valid_unique_and_stable() {
        let builtin = super::super::tools::builtin();
        let servers = Servers {
            servers: vec![
                server(
                    "a",
                    &[
                        ("calculator", true),
                        ("lookup.order", true),
                        ("off", false),
                        ("数据", true),
                    ],
                ),
                server(
                    "b",
                    &[
                        ("lookup_order", true),
                        ("calculator", true),
                        (&"x".repeat(90), true),
                    ],
                ),
            ],
        };
        let o = offered(&builtin, &servers);
        assert_eq!(
            names(&o),
            [
                "calculator_2",
                "lookup_order",
                "__",
                "lookup_order_2",
                "calculator_3",
                &"x".repeat(64)
            ]
        );
        assert_eq!((o[0].server, o[0].tool.as_str()), (0, "calculator"));
        assert_eq!((o[3].server, o[3].tool.as_str()), (1, "lookup_order"));
        assert!(o[1].spec.description.ends_with("(from the MCP server a)"));
        assert_eq!(offered(&builtin, &servers), o);
        let valid = |n: &str| {
            (1..=64).contains(&n.len())
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        };
        assert!(o.iter().all(|o| valid(&o.spec.name)));
    }

    #[test]
    fn a_switch_never_renames_another_tool_and_the_offer_is_capped() {
        let both = |a_on: bool| Servers {
            servers: vec![
                server("a", &[("delete_file", a_on)]),
                server("b", &[("delete_file", true)]),
            ],
        };
        let on = offered(&[], &both(true));
        assert_eq!(names(&on), ["delete_file", "delete_file_2"]);
        let off = offered(&[], &both(false));
        assert_eq!((names(&off), off[0].server), (vec!["delete_file_2"], 1));

        let many: Vec<(String, bool)> = (0..200).map(|i| (format!("t{i}"), true)).collect();
        let refs: Vec<(&str, bool)> = many.iter().map(|(n, on)| (n.as_str(), *on)).collect();
        let servers = Servers {
            servers: vec![server("big", &refs)],
        };
        let builtin = super::super::tools::builtin();
        let o = offered(&builtin, &servers);
        assert_eq!(o.len() + builtin.len(), MAX_OFFERED);
        assert_eq!(o.last().map(|o| o.tool.as_str()), Some("t123"));
    }

    #[test]
    fn a_long_name_that_collides_stays_within_64() {
        let long = "y".repeat(70);
        let servers = Servers {
            servers: vec![server("a", &[(&long, true), (&long, true)])],
        };
        let o = offered(&[], &servers);
        assert_eq!(o[0].spec.name, "y".repeat(64));
        assert_eq!(o[1].spec.name, format!("{}_2", "y".repeat(62)));
    }

    #[test]
    fn parameters_are_always_an_object_schema() {
        for (given, want) in [
            (json!(null), json!({"type": "object", "properties": {}})),
            (
                json!({"type": "string"}),
                json!({"type": "object", "properties": {}}),
            ),
            (
                json!({"required": ["a"]}),
                json!({"type": "object", "properties": {}, "required": ["a"]}),
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "integer"}}}),
                json!({"type": "object", "properties": {"a": {"type": "integer"}}}),
            ),
            (
                json!({"type": ["object", "null"], "properties": []}),
                json!({"type": "object", "properties": {}}),
            ),
            (
                json!({"type": "object", "description": "x".repeat(MAX_SCHEMA_BYTES)}),
                json!({"type": "object", "properties": {}}),
            ),
        ] {
            assert_eq!(object_schema(&given), want, "{given}");
        }
    }

    #[test]
    fn tokens_belong_to_their_url() {
        let mut t = Tokens::default();
        t.set("http://127.0.0.1:9/mcp", " secret ");
        assert_eq!(t.token_for("http://127.0.0.1:9/mcp/"), Some("secret"));
        assert_eq!(t.token_for("http://127.0.0.1:9/mcp2"), None);
        assert_eq!(t.token_for("http://127.0.0.1:10/mcp"), None);
        t.set("http://127.0.0.1:9/mcp", "");
        assert_eq!(t.token_for("http://127.0.0.1:9/mcp"), None);
        t.set("http://a.test/mcp", "x");
        t.set("http://b.test/mcp", "y");
        t.keep_only(&Servers {
            servers: vec![Server {
                url: "http://b.test/mcp".into(),
                name: String::new(),
                tools: vec![],
                trust: Trust::default(),
                allowed: vec![],
            }],
        });
        assert_eq!(t.token_for("http://a.test/mcp"), None);
        assert_eq!(t.token_for("http://b.test/mcp"), Some("y"));
    }

    #[test]
    fn urls_are_checked() {
        assert_eq!(
            check_url(" http://127.0.0.1:8000/mcp "),
            Ok("http://127.0.0.1:8000/mcp".into())
        );
        assert!(check_url("https://mcp.example.test/").is_ok());
        for bad in [
            "",
            "127.0.0.1:8000/mcp",
            "ftp://x/",
            "http://",
            "http:///x",
            "http://a b/",
            "https://user:pw@host/mcp",
        ] {
            assert!(check_url(bad).is_err(), "{bad:?}");
        }
    }

    const URL: &str = "http://127.0.0.1:9/mcp";

    #[test]
    fn responses_are_read_from_json_batches_and_event_streams() {
        let ok = json!({"tools": []});
        for (ct, body) in [
            ("application/json", r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}"#.to_string()),
            (
                "application/json; charset=utf-8",
                r#"[{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}]"#.into(),
            ),
            (
                "text/event-stream",
                "event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\r\n\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"tools\":[]}}\r\n\r\n".into(),
            ),
            // A request of the server's own with the same id comes first.
            (
                "text/event-stream",
                "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"tools\":[]}}\n\n".into(),
            ),
            // A last event without the blank line after it.
            ("text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"tools\":[]}}".into()),
        ] {
            assert_eq!(response(URL, ct, &body, 3), Ok(ok.clone()), "{body}");
        }
    }

    #[test]
    fn bad_answers_are_clear_errors() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "text/html",
                "<html>hi</html>",
                "did not answer as an MCP server: its answer is not JSON (text/html",
            ),
            (
                "application/json",
                r#"{"jsonrpc":"2.0","id":4,"result":{}}"#,
                "no answer to request 3",
            ),
            (
                "application/json",
                r#"{"jsonrpc":"2.0","id":3}"#,
                "no answer to request 3",
            ),
            (
                "text/event-stream",
                "data: not json\n\n",
                "no answer to request 3",
            ),
            ("", "", "not JSON (no content type"),
            (
                "application/json",
                r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}"#,
                "answered with an error: Method not found (code -32601)",
            ),
        ];
        for (ct, body, want) in cases {
            let err = response(URL, ct, body, 3).unwrap_err().to_string();
            assert!(err.contains(want), "{err} / {want}");
            assert!(err.starts_with(URL), "{err}");
        }
    }

    #[test]
    fn errors_say_what_to_do() {
        let cases = [
            (McpError::Unreachable { url: URL.into() }, "CORS"),
            (
                McpError::Refused {
                    url: URL.into(),
                    status: 401,
                },
                "bearer token is missing or wrong",
            ),
            (
                McpError::Status {
                    url: URL.into(),
                    status: 500,
                    body: "x".repeat(300),
                },
                "HTTP 500: xxx",
            ),
            (
                McpError::Timeout {
                    url: URL.into(),
                    seconds: 15,
                },
                "within 15 s",
            ),
        ];
        for (e, want) in cases {
            assert!(e.to_string().contains(want), "{e}");
        }
        let long = McpError::Status {
            url: URL.into(),
            status: 500,
            body: "x".repeat(300),
        }
        .to_string();
        assert!(long.ends_with('…') && long.len() < 300, "{long}");
    }

    #[test]
    fn tool_lists_are_read_leniently() {
        let result = json!({"tools": [
            {"name": "lookup_order", "description": " Look up ", "inputSchema": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}},
            {"name": ""}, {"description": "no name"}, 7,
            {"name": "bare"}, {"name": "bare", "description": "again"}, {"name": "z".repeat(129)}
        ], "nextCursor": "p2"});
        let (tools, next) = tools_page(URL, &result).unwrap();
        assert_eq!(next.as_deref(), Some("p2"));
        assert_eq!(tools.len(), 2);
        assert_eq!(tools[0].description, "Look up");
        assert_eq!(tools[0].input_schema["required"], json!(["order_id"]));
        assert_eq!(tools[1].input_schema, empty_object());
        assert!(tools.iter().all(|t| t.on));
        assert!(tools_page(URL, &json!({})).is_err());
        assert_eq!(
            tools_page(URL, &json!({"tools": [], "nextCursor": ""}))
                .unwrap()
                .1,
            None
        );
    }

    #[test]
    fn relisting_keeps_the_switches() {
        let old = server("a", &[("one", false), ("two", true)]);
        let fresh = server("a", &[("two", true), ("three", true), ("one", true)]).tools;
        let s = relist(&old, "A".into(), fresh);
        let on: Vec<(&str, bool)> = s.tools.iter().map(|t| (t.name.as_str(), t.on)).collect();
        assert_eq!(on, [("two", true), ("three", true), ("one", false)]);
        assert_eq!(s.name, "A");
        assert_eq!(s.trust, Trust::default());
        // The trust setting stays; "always allow" stays for the tools still listed.
        let mut old = server("a", &[("one", true), ("two", true)]);
        old.trust = Trust::Never;
        old.allowed = vec!["one".into(), "two".into()];
        let s = relist(&old, "A".into(), server("a", &[("two", true)]).tools);
        assert_eq!(
            (s.trust, s.allowed),
            (Trust::Never, vec!["two".to_string()])
        );
    }

    #[test]
    fn a_server_is_shown_by_its_origin_alone() {
        let cases = [
            ("http://127.0.0.1:8000/mcp", "http://127.0.0.1:8000"),
            (
                "https://user:secret@tools.example/mcp?key=k",
                "https://tools.example",
            ),
            ("https://tools.example?key=k", "https://tools.example"),
            ("https://tools.example#x", "https://tools.example"),
            ("https://a@b@tools.example:9/x", "https://tools.example:9"),
        ];
        for (url, want) in cases {
            assert_eq!(origin(url), want, "{url}");
        }
    }

    #[test]
    fn always_allowing_a_tool_is_kept_once_for_its_server() {
        let mut servers = Servers {
            servers: vec![server("a", &[("one", true)]), server("b", &[("one", true)])],
        };
        let b = servers.servers[1].url.clone();
        assert!(servers.allow_always(&b, "one"));
        assert!(servers.allow_always(&b, "one"));
        assert!(!servers.allow_always("http://127.0.0.1:1/gone", "one"));
        assert!(!servers.servers[0].always_allows("one"));
        assert!(servers.servers[1].always_allows("one"));
        assert_eq!(servers.servers[1].allowed, ["one"]);
        // Stored and read back; a record without the fields is the default.
        let text = serde_json::to_string(&servers).unwrap();
        assert_eq!(serde_json::from_str::<Servers>(&text).unwrap(), servers);
        assert!(!serde_json::to_string(&servers.servers[0])
            .unwrap()
            .contains("trust"));
        let mut never = servers.servers[0].clone();
        never.trust = Trust::AskWithData;
        assert!(serde_json::to_string(&never)
            .unwrap()
            .contains(r#""trust":"ask_with_data""#));
    }

    #[test]
    fn results_become_text_for_the_model() {
        let cases = [
            (
                json!({"content": [{"type": "text", "text": "Order 1"}, {"type": "text", "text": "more"}]}),
                "Order 1\nmore",
            ),
            (
                json!({"content": [{"type": "text", "text": "inventory offline"}], "isError": true}),
                "Error: inventory offline",
            ),
            (
                json!({"content": [], "isError": true}),
                "Error: the tool failed",
            ),
            (
                json!({"content": [{"type": "text", "text": "Error executing tool x: boom"}], "isError": true}),
                "Error executing tool x: boom",
            ),
            (
                json!({"content": [], "structuredContent": {"result": 5}}),
                r#"{"result":5}"#,
            ),
            (json!({}), "(no output)"),
            (
                json!({"content": [{"type": "image", "mimeType": "image/png", "data": "…"}]}),
                "[image (image/png) left out]",
            ),
            (
                json!({"content": [{"type": "resource", "resource": {"uri": "file:///a", "text": "A"}}]}),
                "[resource file:///a]\nA",
            ),
            (
                json!({"content": [{"type": "weird"}]}),
                "[weird content left out]",
            ),
        ];
        for (result, want) in cases {
            assert_eq!(result_text(&result), want, "{result}");
        }
        let long = result_text(
            &json!({"content": [{"type": "text", "text": "字".repeat(MAX_RESULT_CHARS + 5)}]}),
        );
        assert!(
            long.ends_with("… (5 more characters cut)"),
            "{}",
            &long[long.len() - 40..]
        );
    }

    #[test]
    fn requests_are_json_rpc() {
        let init: Value = serde_json::from_str(&initialize(1)).unwrap();
        assert_eq!(init["method"], "initialize");
        assert_eq!(init["params"]["protocolVersion"], PROTOCOL_VERSION);
        assert_eq!(init["params"]["clientInfo"]["name"], "Satori");
        let note: Value = serde_json::from_str(&initialized()).unwrap();
        assert!(note.get("id").is_none());
        let list: Value = serde_json::from_str(&list_tools(2, Some("c"))).unwrap();
        assert_eq!(list["params"]["cursor"], "c");
        let call: Value = serde_json::from_str(&call_tool(3, "add", &json!({"a": 1}))).unwrap();
        assert_eq!(
            (call["id"].clone(), call["params"]["arguments"]["a"].clone()),
            (json!(3), json!(1))
        );
    }

    #[test]
    fn errors_for_the_model_name_the_server_not_its_url() {
        let secret = "https://mcp.example.test/s/SECRET/mcp";
        for e in [
            McpError::Unreachable { url: secret.into() },
            McpError::Refused {
                url: secret.into(),
                status: 401,
            },
            McpError::Status {
                url: secret.into(),
                status: 500,
                body: "b".into(),
            },
            McpError::NotMcp {
                url: secret.into(),
                detail: "d".into(),
            },
            McpError::Rpc {
                url: secret.into(),
                code: 1,
                message: "m".into(),
            },
            McpError::Timeout {
                url: secret.into(),
                seconds: 1,
            },
            McpError::Redirected { url: secret.into() },
        ] {
            let text = e.named("Zap").to_string();
            assert!(
                !text.contains("SECRET") && text.contains("the MCP server Zap"),
                "{text}"
            );
        }
    }

    #[test]
    fn only_known_protocol_versions_are_agreed() {
        assert_eq!(
            agreed_version(URL, &json!({"protocolVersion": "2025-06-18"})),
            Ok("2025-06-18".into())
        );
        for bad in [
            json!({}),
            json!({"protocolVersion": "2099-01-01"}),
            json!({"protocolVersion": "x\ny"}),
        ] {
            let e = agreed_version(URL, &bad).unwrap_err().to_string();
            assert!(e.contains("which Satori does not"), "{e}");
        }
    }

    #[test]
    fn server_names_fall_back_to_the_host() {
        assert_eq!(
            server_name(
                &json!({"serverInfo": {"name": "tools", "title": "Nice"}}),
                URL
            ),
            "Nice"
        );
        assert_eq!(
            server_name(&json!({"serverInfo": {"name": "tools"}}), URL),
            "tools"
        );
        assert_eq!(server_name(&json!({}), URL), "127.0.0.1:9");
    }
}
