//! MCP servers over HTTP, from the browser: connect (`initialize`), list tools, call a tool
//! ([`crate::core::agent::mcp`] builds and reads the messages). Settings lists a server's tools
//! with [`list`]; the agent module calls them with [`Session::call`]. The bearer token goes only
//! in the `Authorization` header of requests to the URL it was entered for, and no redirect is
//! followed.

use crate::adapters::fetch::{post_json, FetchError};
use crate::core::agent::mcp::{self, McpError, Server, Tool};
use serde_json::Value;
use web_sys::AbortSignal;

/// Seconds allowed for each request of connecting and listing tools.
pub const LIST_SECONDS: u32 = 20;
/// Seconds allowed for one tool call.
pub const CALL_SECONDS: u32 = 120;

/// A connection to one MCP server (its session id, if it gave one, and the protocol version
/// agreed).
#[derive(Clone)]
pub struct Session {
    url: String,
    token: Option<String>,
    id: Option<String>,
    protocol: Option<String>,
    next_id: u64,
}

impl std::fmt::Debug for Session {
    // The token is never printed.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("url", &self.url)
            .field("id", &self.id)
            .field("protocol", &self.protocol)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Connect to `url`: `initialize`, then `notifications/initialized`. Also answers the
    /// server's name.
    pub async fn open(
        url: &str,
        token: Option<&str>,
        signal: &AbortSignal,
    ) -> Result<(Session, String), McpError> {
        let mut session = Session {
            url: url.to_string(),
            token: token.map(str::to_string),
            id: None,
            protocol: None,
            next_id: 1,
        };
        let id = session.take_id();
        let (result, headers) = session
            .post(&mcp::initialize(id), Some(id), signal, LIST_SECONDS)
            .await?;
        let result = result.unwrap_or_default();
        session.id = headers.first().cloned().flatten();
        session.protocol = Some(mcp::agreed_version(url, &result)?);
        session
            .post(&mcp::initialized(), None, signal, LIST_SECONDS)
            .await?;
        Ok((session.clone(), mcp::server_name(&result, url)))
    }

    /// Every tool the server lists (following its pages, up to [`mcp::MAX_TOOLS`]).
    pub async fn tools(&mut self, signal: &AbortSignal) -> Result<Vec<Tool>, McpError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..20 {
            let id = self.take_id();
            let (result, _) = self
                .post(
                    &mcp::list_tools(id, cursor.as_deref()),
                    Some(id),
                    signal,
                    LIST_SECONDS,
                )
                .await?;
            let (page, next) = mcp::tools_page(&self.url, &result.unwrap_or_default())?;
            tools.extend(page);
            match next {
                Some(c) if tools.len() < mcp::MAX_TOOLS => cursor = Some(c),
                _ => break,
            }
        }
        tools.truncate(mcp::MAX_TOOLS);
        Ok(tools)
    }

    /// Call tool `name` with `arguments`; its result as text for the model.
    pub async fn call(
        &mut self,
        name: &str,
        arguments: &Value,
        signal: &AbortSignal,
    ) -> Result<String, McpError> {
        let id = self.take_id();
        let (result, _) = self
            .post(
                &mcp::call_tool(id, name, arguments),
                Some(id),
                signal,
                CALL_SECONDS,
            )
            .await?;
        Ok(mcp::result_text(&result.unwrap_or_default()))
    }

    /// Whether an error means the server forgot this session (it must be opened again).
    pub fn expired(&self, e: &McpError) -> bool {
        self.id.is_some() && matches!(e, McpError::Status { status: 404, .. })
    }

    fn take_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id - 1
    }

    /// POST one message; the result of request `id` (none for a notification) and the
    /// `Mcp-Session-Id` header.
    async fn post(
        &self,
        body: &str,
        id: Option<u64>,
        signal: &AbortSignal,
        seconds: u32,
    ) -> Result<(Option<Value>, Vec<Option<String>>), McpError> {
        let mut headers = vec![("Accept", "application/json, text/event-stream")];
        if let Some(p) = &self.protocol {
            headers.push(("MCP-Protocol-Version", p));
        }
        if let Some(s) = &self.id {
            headers.push(("Mcp-Session-Id", s));
        }
        let url = self.url.as_str();
        let answer = post_json(
            url,
            self.token.as_deref(),
            &headers,
            body,
            &["mcp-session-id"],
            signal,
            seconds * 1000,
        )
        .await
        .map_err(|e| match e {
            FetchError::Aborted => McpError::Stopped,
            FetchError::Redirected => McpError::Redirected { url: url.into() },
            FetchError::Stalled => McpError::Timeout {
                url: url.into(),
                seconds,
            },
            FetchError::Broken(detail) => McpError::NotMcp {
                url: url.into(),
                detail: format!("its answer broke off ({detail})"),
            },
            _ => McpError::Unreachable { url: url.into() },
        })?;
        match answer.status {
            200..=299 => {}
            401 | 403 => {
                return Err(McpError::Refused {
                    url: url.into(),
                    status: answer.status,
                })
            }
            // The session id was sent but could not be read (CORS does not expose it).
            400 if self.id.is_none() && answer.body.to_ascii_lowercase().contains("session") => {
                return Err(McpError::NotMcp {
                    url: url.into(),
                    detail: "it wants a session id this page cannot read: the server must expose the Mcp-Session-Id header (Access-Control-Expose-Headers)".into(),
                })
            }
            status => {
                return Err(McpError::Status {
                    url: url.into(),
                    status,
                    body: answer.body,
                })
            }
        }
        let result = match id {
            Some(id) => Some(mcp::response(url, &answer.content_type, &answer.body, id)?),
            None => None,
        };
        Ok((result, answer.headers))
    }
}

/// Connect to `url` and list its tools: the server as Settings stores it.
pub async fn list(
    url: &str,
    token: Option<&str>,
    signal: &AbortSignal,
) -> Result<Server, McpError> {
    let (mut session, name) = Session::open(url, token, signal).await?;
    let tools = session.tools(signal).await?;
    Ok(Server {
        url: url.to_string(),
        name,
        tools,
        trust: Default::default(),
        allowed: Vec::new(),
    })
}
