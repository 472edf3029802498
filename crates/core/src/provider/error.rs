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
    /// Not sent: even cut as far as allowed, the context does not fit the window.
    #[error("the context does not fit ({need} tokens, budget {budget})")]
    ContextTooLarge {
        /// Tokens it would need.
        need: u32,
        /// Tokens available.
        budget: u32,
    },
    /// Not sent: the turns module (which builds every request) could not be loaded or failed;
    /// its words.
    #[error("the turns module {0}")]
    Module(String),
    /// Not sent: the pinned messages alone need more than the budget.
    #[error("pinned messages need {pinned} tokens, budget {budget}")]
    PinsTooLarge {
        /// Tokens the pins need (with the system prompt).
        pinned: u32,
        /// Tokens available.
        budget: u32,
    },
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

/// `Retry-After` in seconds from `now_ms` (ms since the Unix epoch): the delta-seconds form,
/// or an HTTP date. A date that is not in the future (clocks disagree) gives `None`, so the
/// usual backoff applies instead of retrying at once.
pub fn parse_retry_after(header: Option<&str>, now_ms: i64) -> Option<u32> {
    let value = header?.trim();
    if let Ok(seconds) = value.parse::<u32>() {
        return Some(seconds);
    }
    let at = http_date_ms(value)?;
    if at <= now_ms {
        return None;
    }
    // Whole seconds, rounded up: never retry before the date.
    let wait = (at - now_ms + 999) / 1000;
    u32::try_from(wait).ok()
}

/// Milliseconds since the Unix epoch of an HTTP date (RFC 9110: IMF-fixdate
/// `Sun, 06 Nov 1994 08:49:37 GMT`, and the obsolete `Sunday, 06-Nov-94 08:49:37 GMT` and
/// `Sun Nov  6 08:49:37 1994`).
pub fn http_date_ms(text: &str) -> Option<i64> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let cleaned = text.replace([',', '-'], " ");
    let mut tokens = cleaned.split_whitespace();
    tokens.next()?; // the weekday
    let (mut month, mut time, mut numbers) = (None, None, Vec::new());
    for t in tokens {
        if t.contains(':') {
            time = Some(t);
        } else if let Some(m) = MONTHS.iter().position(|m| t.eq_ignore_ascii_case(m)) {
            month = Some(m as i64 + 1);
        } else if let Ok(n) = t.parse::<i64>() {
            numbers.push(n);
        } else if !t.eq_ignore_ascii_case("GMT") {
            return None;
        }
    }
    let [day, year] = numbers[..] else {
        return None;
    };
    let year = match year {
        0..=69 => year + 2000,
        70..=99 => year + 1900,
        1900..=9999 => year,
        _ => return None,
    };
    let mut hms = time?.split(':').map(|p| p.parse::<i64>().ok());
    let (h, m, s) = (hms.next()??, hms.next()??, hms.next()??);
    let month = month?;
    if !(1..=31).contains(&day) || h > 23 || m > 59 || s > 60 || hms.next().is_some() {
        return None;
    }
    // Days from 1970-01-01 to the civil date (Howard Hinnant's algorithm).
    let (y, mo) = if month <= 2 {
        (year - 1, month + 9)
    } else {
        (year, month - 3)
    };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * mo + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + h) * 60 + m) * 60 * 1000 + s * 1000)
}

/// Map a non-success status and its body to an error (`now_ms` reads a `Retry-After` date).
pub fn classify(status: u16, retry_after: Option<&str>, body: &str, now_ms: i64) -> ApiError {
    let message = error_message(body);
    match status {
        401 | 403 => ApiError::Auth { status, message },
        404 => ApiError::NotFound { message },
        429 => ApiError::RateLimited {
            retry_after: parse_retry_after(retry_after, now_ms),
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
            classify(401, None, r#"{"error":{"message":"bad key"}}"#, 0),
            ApiError::Auth {
                status: 401,
                message: Some("bad key".into())
            }
        );
        assert!(matches!(
            classify(403, None, "", 0),
            ApiError::Auth { status: 403, .. }
        ));
        assert_eq!(
            classify(404, None, "", 0),
            ApiError::NotFound { message: None }
        );
        assert_eq!(
            classify(429, Some(" 7 "), "slow down", 0),
            ApiError::RateLimited {
                retry_after: Some(7),
                message: Some("slow down".into())
            }
        );
        // 2015-10-21T07:28:00Z is 1 445 412 480 s after the epoch; asked 30.5 s before it.
        assert_eq!(
            classify(
                429,
                Some("Wed, 21 Oct 2015 07:28:00 GMT"),
                "",
                1_445_412_449_500
            ),
            ApiError::RateLimited {
                retry_after: Some(31),
                message: None
            }
        );
        assert!(matches!(
            classify(503, None, "", 0),
            ApiError::Server { status: 503, .. }
        ));
        assert!(matches!(
            classify(400, None, "", 0),
            ApiError::Http { status: 400, .. }
        ));
    }

    #[test]
    fn retry_after_dates() {
        let at = 1_445_412_480_000; // 2015-10-21T07:28:00Z
        let cases: &[(&str, Option<i64>)] = &[
            ("Wed, 21 Oct 2015 07:28:00 GMT", Some(at)),
            ("Wednesday, 21-Oct-15 07:28:00 GMT", Some(at)),
            ("Wed Oct 21 07:28:00 2015", Some(at)),
            ("Thu, 01 Jan 1970 00:00:00 GMT", Some(0)),
            ("Tue, 29 Feb 2028 23:59:59 GMT", Some(1_835_481_599_000)),
            ("Sun, 06 Nov 1994 08:49:37 GMT", Some(784_111_777_000)),
            ("Wed, 21 Oct 2015 25:28:00 GMT", None),
            ("Wed, 21 Foo 2015 07:28:00 GMT", None),
            ("Wed, 21 Oct 2015", None),
            ("Wed, 21 Oct 300000000 07:28:00 GMT", None),
            ("Wed, 21 Oct 1899 07:28:00 GMT", None),
            ("soon", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(http_date_ms(text), *want, "{text}");
        }
        assert_eq!(
            parse_retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT"), at - 5_000),
            Some(5)
        );
        // A date already past (clock skew): no value, so the backoff applies.
        assert_eq!(
            parse_retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT"), at + 9_000),
            None
        );
        assert_eq!(
            parse_retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT"), at),
            None
        );
        assert_eq!(parse_retry_after(Some("120"), 0), Some(120));
        assert_eq!(parse_retry_after(Some("-3"), 0), None);
        assert_eq!(parse_retry_after(None, 0), None);
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
