//! `fetch` + `ReadableStream` for streaming chat completions, and the model list.
//!
//! Every request takes an `AbortSignal` (Stop and page cleanup abort it). Waiting for the
//! response headers and for each body chunk is raced against a stall timer: when no byte
//! arrives within the timeout the caller gets [`FetchError::Stalled`] and should abort.
//! The API key only ever goes into the `Authorization` header, and no request follows a
//! redirect (`redirect: "manual"`): a redirect is reported as [`FetchError::Redirected`], so the
//! key never travels to an address the user did not configure. Requests to the in-browser
//! model's address ([`crate::core::settings::IN_BROWSER_URL`]) are answered by the page itself.

use crate::adapters::js::JsError;
use futures::future::{select, Either};
use gloo_timers::future::TimeoutFuture;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortSignal, ReadableStreamDefaultReader, Request, RequestInit, RequestRedirect, Response,
    ResponseType,
};

/// Why a request or stream failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The signal was aborted (the user pressed Stop, or the page went away).
    #[error("aborted")]
    Aborted,
    /// No response: the server is down, the address is wrong, or CORS blocked it.
    #[error("network error: {0}")]
    Network(String),
    /// A non-success status, with `Retry-After` (if readable) and the body text.
    #[error("http status {status}")]
    Status {
        /// HTTP status.
        status: u16,
        /// `Retry-After` header, when the server exposes it.
        retry_after: Option<String>,
        /// Response body.
        body: String,
    },
    /// A success status whose body is not an event stream.
    #[error("not an event stream: {content_type}")]
    NotStream {
        /// The response's content type.
        content_type: String,
        /// Response body.
        body: String,
    },
    /// The server answered with a redirect, which is never followed.
    #[error("redirected")]
    Redirected,
    /// Nothing arrived within the stall timeout.
    #[error("stalled")]
    Stalled,
    /// Reading the body failed midway (connection cut).
    #[error("stream broke: {0}")]
    Broken(String),
}

fn js_message(e: &JsValue) -> String {
    JsError::from(e).message
}

fn is_abort(e: &JsValue) -> bool {
    JsError::from(e).name == "AbortError"
}

/// Await a promise, or give up after `ms` milliseconds (`None` = no limit).
async fn with_stall(
    promise: js_sys::Promise,
    ms: Option<u32>,
) -> Result<Result<JsValue, JsValue>, FetchError> {
    let fut = JsFuture::from(promise);
    match ms {
        None => Ok(fut.await),
        Some(ms) => match select(fut, TimeoutFuture::new(ms)).await {
            Either::Left((r, _)) => Ok(r),
            Either::Right(_) => Err(FetchError::Stalled),
        },
    }
}

fn build_request(
    method: &str,
    url: &str,
    api_key: Option<&str>,
    body: Option<&str>,
    signal: &AbortSignal,
) -> Result<Request, FetchError> {
    let init = RequestInit::new();
    init.set_method(method);
    init.set_signal(Some(signal));
    init.set_redirect(RequestRedirect::Manual);
    if let Some(b) = body {
        init.set_body(&JsValue::from_str(b));
    }
    let headers = web_sys::Headers::new().map_err(|e| FetchError::Network(js_message(&e)))?;
    if body.is_some() {
        let _ = headers.set("Content-Type", "application/json");
    }
    if let Some(key) = api_key.filter(|k| !k.trim().is_empty()) {
        headers
            .set("Authorization", &format!("Bearer {}", key.trim()))
            .map_err(|_| {
                FetchError::Network("the API key contains characters a header cannot carry".into())
            })?;
    }
    init.set_headers(&headers);
    Request::new_with_str_and_init(url, &init).map_err(|e| FetchError::Network(js_message(&e)))
}

async fn send(req: &Request, stall_ms: Option<u32>) -> Result<Response, FetchError> {
    let window = web_sys::window().ok_or_else(|| FetchError::Network("no window".into()))?;
    // The in-browser model's address is answered in the page, never fetched.
    let answer = if crate::core::settings::in_browser(&req.url()) {
        crate::adapters::modules::local_fetch(req)
    } else {
        window.fetch_with_request(req)
    };
    match with_stall(answer, stall_ms).await? {
        Ok(v) => v
            .dyn_into::<Response>()
            .map_err(|_| FetchError::Network("not a response".into())),
        Err(e) if is_abort(&e) => Err(FetchError::Aborted),
        Err(e) => Err(FetchError::Network(js_message(&e))),
    }
}

async fn body_text(resp: &Response, stall_ms: Option<u32>) -> Result<String, FetchError> {
    let promise = resp
        .text()
        .map_err(|e| FetchError::Broken(js_message(&e)))?;
    match with_stall(promise, stall_ms).await? {
        Ok(v) => Ok(v.as_string().unwrap_or_default()),
        Err(e) if is_abort(&e) => Err(FetchError::Aborted),
        Err(e) => Err(FetchError::Broken(js_message(&e))),
    }
}

async fn check_status(resp: &Response, stall_ms: Option<u32>) -> Result<(), FetchError> {
    if resp.ok() {
        return Ok(());
    }
    if resp.type_() == ResponseType::Opaqueredirect {
        return Err(FetchError::Redirected);
    }
    let retry_after = resp.headers().get("retry-after").ok().flatten();
    let body = body_text(resp, stall_ms).await.unwrap_or_default();
    Err(FetchError::Status {
        status: resp.status(),
        retry_after,
        body,
    })
}

/// An open event stream: call [`ChatStream::next`] until it returns `Ok(None)`.
pub struct ChatStream {
    reader: ReadableStreamDefaultReader,
    stall_ms: u32,
    done: bool,
}

impl ChatStream {
    /// The next chunk of bytes, `Ok(None)` at the end of the stream.
    pub async fn next(&mut self) -> Result<Option<Vec<u8>>, FetchError> {
        if self.done {
            return Ok(None);
        }
        let result = with_stall(self.reader.read(), Some(self.stall_ms)).await;
        let value = match result {
            Err(stalled) => {
                self.done = true;
                let _ = self.reader.cancel();
                return Err(stalled);
            }
            Ok(Err(e)) => {
                self.done = true;
                return Err(if is_abort(&e) {
                    FetchError::Aborted
                } else {
                    FetchError::Broken(js_message(&e))
                });
            }
            Ok(Ok(v)) => v,
        };
        let done = js_sys::Reflect::get(&value, &"done".into())
            .map(|d| d.is_truthy())
            .unwrap_or(true);
        if done {
            self.done = true;
            return Ok(None);
        }
        let chunk = js_sys::Reflect::get(&value, &"value".into())
            .ok()
            .and_then(|v| v.dyn_into::<js_sys::Uint8Array>().ok())
            .map(|a| a.to_vec())
            .unwrap_or_default();
        Ok(Some(chunk))
    }
}

impl Drop for ChatStream {
    fn drop(&mut self) {
        if !self.done {
            // Release the connection if the caller stops reading early.
            let _ = self.reader.cancel();
        }
    }
}

/// `POST url` with a JSON body and open the response as an event stream.
pub async fn post_stream(
    url: &str,
    api_key: Option<&str>,
    body: &str,
    signal: &AbortSignal,
    stall_ms: u32,
) -> Result<ChatStream, FetchError> {
    let req = build_request("POST", url, api_key, Some(body), signal)?;
    let resp = send(&req, Some(stall_ms)).await?;
    check_status(&resp, Some(stall_ms)).await?;
    let content_type = resp
        .headers()
        .get("content-type")
        .ok()
        .flatten()
        .unwrap_or_default();
    if !crate::core::provider::error::is_event_stream(&content_type) {
        let body = body_text(&resp, Some(stall_ms)).await.unwrap_or_default();
        return Err(FetchError::NotStream { content_type, body });
    }
    let stream = resp
        .body()
        .ok_or_else(|| FetchError::Broken("response has no body".into()))?;
    let reader = stream
        .get_reader()
        .dyn_into::<ReadableStreamDefaultReader>()
        .map_err(|_| FetchError::Broken("cannot read the response body".into()))?;
    Ok(ChatStream {
        reader,
        stall_ms,
        done: false,
    })
}

/// `method url` (with a JSON `body`, if any) → the response text, within `timeout_ms`.
pub async fn request_text(
    method: &str,
    url: &str,
    api_key: Option<&str>,
    body: Option<&str>,
    signal: &AbortSignal,
    timeout_ms: u32,
) -> Result<String, FetchError> {
    let req = build_request(method, url, api_key, body, signal)?;
    let resp = send(&req, Some(timeout_ms)).await?;
    check_status(&resp, Some(timeout_ms)).await?;
    body_text(&resp, Some(timeout_ms)).await
}

/// `GET {base}/models` → model ids, when the server offers the list.
pub async fn get_models(
    url: &str,
    api_key: Option<&str>,
    signal: &AbortSignal,
) -> Result<Vec<String>, FetchError> {
    let text = request_text("GET", url, api_key, None, signal, 15_000).await?;
    Ok(crate::core::provider::models::parse_models(&text))
}

/// What a server answered to [`post_json`]: any status but a redirect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// HTTP status.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: String,
    /// The response headers asked for, in the order asked (`None`: absent or not exposed).
    pub headers: Vec<Option<String>>,
    /// The body.
    pub body: String,
}

/// `POST url` with a JSON `body`, the `Authorization: Bearer` `token` (if any) and `headers`;
/// the whole answer within `timeout_ms` (a stream is read to its end), whatever its status, with
/// the values of the response headers named in `read`. The request is aborted when `signal` is,
/// and when the time is up (so a server that never answers holds no connection).
pub async fn post_json(
    url: &str,
    token: Option<&str>,
    headers: &[(&str, &str)],
    body: &str,
    read: &[&str],
    signal: &AbortSignal,
    timeout_ms: u32,
) -> Result<Answer, FetchError> {
    use wasm_bindgen::closure::Closure;
    let inner = web_sys::AbortController::new().map_err(|e| FetchError::Network(js_message(&e)))?;
    let follow = inner.clone();
    let on_abort = Closure::<dyn FnMut()>::new(move || follow.abort());
    let _ = signal.add_event_listener_with_callback("abort", on_abort.as_ref().unchecked_ref());
    if signal.aborted() {
        inner.abort();
    }
    let exchange = Box::pin(async {
        let req = build_request("POST", url, token, Some(body), &inner.signal())?;
        for (name, value) in headers {
            req.headers()
                .set(name, value)
                .map_err(|e| FetchError::Network(js_message(&e)))?;
        }
        let resp = send(&req, None).await?;
        if resp.type_() == ResponseType::Opaqueredirect {
            return Err(FetchError::Redirected);
        }
        let header = |name: &str| resp.headers().get(name).ok().flatten();
        Ok(Answer {
            status: resp.status(),
            content_type: header("content-type").unwrap_or_default(),
            headers: read.iter().map(|n| header(n)).collect(),
            body: body_text(&resp, None).await?,
        })
    });
    let result = match select(exchange, TimeoutFuture::new(timeout_ms)).await {
        Either::Left((r, _)) => r,
        Either::Right(_) => {
            inner.abort();
            Err(FetchError::Stalled)
        }
    };
    let _ = signal.remove_event_listener_with_callback("abort", on_abort.as_ref().unchecked_ref());
    result
}

/// What a server answered to [`exchange`]: the status, the response headers asked for, the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchanged {
    /// HTTP status.
    pub status: u16,
    /// The response headers asked for, in the order asked (`None`: absent or not exposed).
    pub headers: Vec<Option<String>>,
    /// The body's bytes.
    pub body: Vec<u8>,
}

/// `method url` with `headers` and `body` (bytes, if any), whatever the status comes back, within
/// `timeout_ms`; redirects are never followed. For WebDAV (`PROPFIND`, `MKCOL`, conditional
/// `PUT`), where the status is the answer.
pub async fn exchange(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
    read: &[&str],
    signal: &AbortSignal,
    timeout_ms: u32,
) -> Result<Exchanged, FetchError> {
    let init = RequestInit::new();
    init.set_method(method);
    init.set_signal(Some(signal));
    init.set_redirect(RequestRedirect::Manual);
    // The server's answer, never the browser's cached copy (a stale read merged and written back
    // on a fresh ETag would undo another device's write).
    init.set_cache(web_sys::RequestCache::NoStore);
    if let Some(b) = body {
        init.set_body(&js_sys::Uint8Array::from(b).into());
    }
    let h = web_sys::Headers::new().map_err(|e| FetchError::Network(js_message(&e)))?;
    for (name, value) in headers {
        h.set(name, value)
            .map_err(|e| FetchError::Network(js_message(&e)))?;
    }
    init.set_headers(&h);
    let req = Request::new_with_str_and_init(url, &init)
        .map_err(|e| FetchError::Network(js_message(&e)))?;
    let resp = send(&req, Some(timeout_ms)).await?;
    if resp.type_() == ResponseType::Opaqueredirect {
        return Err(FetchError::Redirected);
    }
    let promise = resp
        .array_buffer()
        .map_err(|e| FetchError::Broken(js_message(&e)))?;
    let bytes = match with_stall(promise, Some(timeout_ms)).await? {
        Ok(v) => js_sys::Uint8Array::new(&v).to_vec(),
        Err(e) if is_abort(&e) => return Err(FetchError::Aborted),
        Err(e) => return Err(FetchError::Broken(js_message(&e))),
    };
    Ok(Exchanged {
        status: resp.status(),
        headers: read
            .iter()
            .map(|n| resp.headers().get(n).ok().flatten())
            .collect(),
        body: bytes,
    })
}
