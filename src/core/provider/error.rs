//! What can go wrong talking to a provider, and how error responses are read.
//!
//! Servers answer errors in several shapes: OpenAI `{"error":{"message":…}}`, FastAPI
//! `{"detail":…}` (string or list of `{msg}`), `{"error":"…"}`, `{"message":…}`, or plain
//! text. [`error_message`] reads them all; [`classify`] maps a status to an [`ApiError`].
//! Turning these into words for the user happens in one place in the UI.

/// A failed request or stream.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApiError {
    /// 401 or 403: the key was refused.
    #[error("unauthorized ({status})")]
    Auth {
        /// HTTP status.
        status: u16,
        /// Server's message.
        message: Option<String>,
    },
    /// 404: wrong base URL or model.
    #[error("not found")]
    NotFound {
        /// Server's message.
        message: Option<String>,
    },
    /// 429: rate limited.
    #[error("rate limited")]
    RateLimited {
        /// Seconds the server asked to wait, when it said so and the header was readable.
        retry_after: Option<u32>,
        /// Server's message.
        message: Option<String>,
    },
    /// 5xx.
    #[error("server error ({status})")]
    Server {
        /// HTTP status.
        status: u16,
        /// Server's message.
        message: Option<String>,
    },
    /// Any other non-success status.
    #[error("request failed ({status})")]
    Http {
        /// HTTP status.
        status: u16,
        /// Server's message.
        message: Option<String>,
    },
    /// The server answered with a redirect; Satori does not follow redirects, so the API key
    /// never reaches an address that was not configured.
    #[error("redirected")]
    Redirected,
    /// The request never got an answer: server down, wrong address, or blocked by CORS.
    #[error("network error")]
    Network,
    /// 200, but the body is not an event stream (captive portal, JSON, HTML…).
    #[error("not an event stream ({content_type})")]
    NotAStream {
        /// The response's content type.
        content_type: String,
        /// Start of the body.
        snippet: String,
    },
    /// The server put an error object inside a 200 stream.
    #[error("error in stream: {message}")]
    InStream {
        /// Server's message.
        message: String,
    },
    /// No byte for the stall timeout.
    #[error("stream stalled for {seconds} s")]
    Stalled {
        /// The timeout that passed.
        seconds: u32,
    },
    /// The connection broke before the reply ended.
    #[error("stream ended early")]
    Cut,
    /// A stream chunk could not be read.
    #[error("unreadable stream chunk: {0}")]
    BadChunk(String),
}

/// Longest server message kept, in characters.
const MAX_MESSAGE: usize = 300;

fn clip(text: &str) -> String {
    let t = text.trim();
    let mut out: String = t.chars().take(MAX_MESSAGE).collect();
    if t.chars().count() > MAX_MESSAGE {
        out.push('…');
    }
    out
}

/// The human-readable message in an error body, whatever shape the server used.
pub fn error_message(body: &str) -> Option<String> {
    let trimmed = body.trim();
    if trimmed.is_empty() {
        return None;
    }
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(trimmed) {
        return json_message(&value)
            .map(|m| clip(&m))
            .filter(|m| !m.is_empty());
    }
    let lower = trimmed.to_ascii_lowercase();
    if lower.starts_with("<!doctype") || lower.starts_with("<html") || lower.starts_with('<') {
        return None;
    }
    Some(clip(trimmed))
}

fn json_message(v: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(map) => {
            for key in ["error", "detail", "message", "msg", "error_msg"] {
                if let Some(inner) = map.get(key) {
                    if let Some(m) = json_message(inner) {
                        return Some(m);
                    }
                }
            }
            None
        }
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().filter_map(json_message).collect();
            (!parts.is_empty()).then(|| parts.join("; "))
        }
        _ => None,
    }
}

/// `Retry-After` in seconds (the delta-seconds form; an HTTP date is not read).
pub fn parse_retry_after(header: Option<&str>) -> Option<u32> {
    header?.trim().parse::<u32>().ok()
}

/// Map a non-success status and its body to an error.
pub fn classify(status: u16, retry_after: Option<&str>, body: &str) -> ApiError {
    let message = error_message(body);
    match status {
        401 | 403 => ApiError::Auth { status, message },
        404 => ApiError::NotFound { message },
        429 => ApiError::RateLimited {
            retry_after: parse_retry_after(retry_after),
            message,
        },
        500..=599 => ApiError::Server { status, message },
        _ => ApiError::Http { status, message },
    }
}

/// Whether a content type announces an event stream.
pub fn is_event_stream(content_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|t| t.trim().eq_ignore_ascii_case("text/event-stream"))
}

/// The error for a 200 response that is not an event stream.
pub fn not_a_stream(content_type: &str, body: &str) -> ApiError {
    // A JSON error object answered with 200 is still an error the user should read.
    if let Some(message) = serde_json::from_str::<serde_json::Value>(body.trim())
        .ok()
        .and_then(|v| v.get("error").and_then(json_message))
    {
        return ApiError::InStream {
            message: clip(&message),
        };
    }
    let snippet: String = body.trim().chars().take(120).collect();
    ApiError::NotAStream {
        content_type: content_type.to_string(),
        snippet,
    }
}

/// Backoff before retry `attempt` (0-based) of a rate-limited request: the server's
/// `Retry-After` when given (capped at 120 s), else 2, 4, 8 … seconds capped at 30.
pub fn backoff_seconds(retry_after: Option<u32>, attempt: u32) -> u32 {
    match retry_after {
        Some(s) => s.min(120),
        None => 2u32.saturating_pow(attempt.saturating_add(1)).min(30),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies() {
        let cases: &[(&str, Option<&str>)] = &[
            (
                r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#,
                Some("Incorrect API key provided"),
            ),
            (r#"{"error":"model not found"}"#, Some("model not found")),
            (r#"{"detail":"Not Found"}"#, Some("Not Found")),
            (
                r#"{"detail":[{"loc":["body"],"msg":"field required"},{"msg":"bad temp"}]}"#,
                Some("field required; bad temp"),
            ),
            (
                r#"{"message":"Too many requests"}"#,
                Some("Too many requests"),
            ),
            (r#"{"error":{"code":500}}"#, None),
            ("upstream connect error", Some("upstream connect error")),
            ("<html><body>502 Bad Gateway</body></html>", None),
            ("   ", None),
        ];
        for (body, want) in cases {
            assert_eq!(error_message(body).as_deref(), *want, "{body}");
        }
        let long = "x".repeat(1000);
        assert_eq!(
            error_message(&long).map(|m| m.chars().count()),
            Some(MAX_MESSAGE + 1)
        );
    }

    #[test]
    fn statuses() {
        assert_eq!(
            classify(401, None, r#"{"error":{"message":"bad key"}}"#),
            ApiError::Auth {
                status: 401,
                message: Some("bad key".into())
            }
        );
        assert!(matches!(
            classify(403, None, ""),
            ApiError::Auth { status: 403, .. }
        ));
        assert_eq!(
            classify(404, None, ""),
            ApiError::NotFound { message: None }
        );
        assert_eq!(
            classify(429, Some(" 7 "), "slow down"),
            ApiError::RateLimited {
                retry_after: Some(7),
                message: Some("slow down".into())
            }
        );
        assert_eq!(
            classify(429, Some("Wed, 21 Oct 2015 07:28:00 GMT"), ""),
            ApiError::RateLimited {
                retry_after: None,
                message: None
            }
        );
        assert!(matches!(
            classify(503, None, ""),
            ApiError::Server { status: 503, .. }
        ));
        assert!(matches!(
            classify(400, None, ""),
            ApiError::Http { status: 400, .. }
        ));
    }

    #[test]
    fn stream_detection() {
        assert!(is_event_stream("text/event-stream"));
        assert!(is_event_stream("Text/Event-Stream; charset=utf-8"));
        assert!(!is_event_stream("application/json"));
        assert!(!is_event_stream(""));
        assert_eq!(
            not_a_stream("application/json", r#"{"error":{"message":"overloaded"}}"#),
            ApiError::InStream {
                message: "overloaded".into()
            }
        );
        assert_eq!(
            not_a_stream("text/html", "<html>captive</html>"),
            ApiError::NotAStream {
                content_type: "text/html".into(),
                snippet: "<html>captive</html>".into()
            }
        );
    }

    #[test]
    fn backoff() {
        assert_eq!(backoff_seconds(Some(3), 0), 3);
        assert_eq!(backoff_seconds(Some(999), 0), 120);
        assert_eq!(
            [0, 1, 2, 5].map(|a| backoff_seconds(None, a)),
            [2, 4, 8, 30]
        );
    }
}
