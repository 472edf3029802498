//! A WebDAV folder, the sync server: list it, read an object, write one only if it is as this
//! device last saw it (`If-Match`) or new (`If-None-Match: *`), remove one as last seen (only when
//! the passphrase changes), create the folder. What the
//! server says is a typed [`DavError`]; `shell::error_text::dav_problem` says it in words.

use crate::adapters::fetch::{exchange, Exchanged, FetchError};
use crate::core::sync::webdav::{self, Listed};
use web_sys::AbortSignal;

/// Seconds a WebDAV request may take.
const TIMEOUT_MS: u32 = 60_000;

/// What went wrong talking to the folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DavError {
    /// No answer: down, a wrong address, or CORS.
    Unreachable,
    /// The page is https:// and the folder plain http:// on another machine: the browser blocks it.
    MixedContent,
    /// 401 / 403: the user name or password.
    Refused(u16),
    /// 404 / 409: no such folder.
    NoFolder(u16),
    /// 507: the server is full.
    Full,
    /// 412: the object changed on the server since this device read it.
    Changed,
    /// A redirect (never followed: credentials go only where they were typed for).
    Redirected,
    /// Any other status.
    Status(u16),
    /// Stopped, or the page went away.
    Aborted,
    /// No answer within the time.
    TimedOut,
    /// The listing was not one.
    NotListing(String),
}

/// A sync folder on a WebDAV server, with its credentials.
#[derive(Clone)]
pub struct Folder {
    /// Its URL, ending with `/`.
    pub url: String,
    auth: Option<String>,
}

impl Folder {
    /// The folder at `url` (checked), with `user` and `password` when a user is given.
    pub fn new(url: &str, user: &str, password: &str) -> Result<Folder, String> {
        let url = webdav::folder_url(url)?;
        let auth = (!user.is_empty()).then(|| webdav::basic_auth(user, password));
        Ok(Folder { url, auth })
    }

    async fn send(
        &self,
        method: &str,
        name: &str,
        headers: &[(&str, &str)],
        body: Option<&[u8]>,
        signal: &AbortSignal,
    ) -> Result<Exchanged, DavError> {
        let page_https = web_sys::window()
            .and_then(|w| w.location().protocol().ok())
            .is_some_and(|p| p == "https:");
        if page_https && crate::core::key_binding::plain_http_remote(&self.url) {
            return Err(DavError::MixedContent);
        }
        let mut all: Vec<(&str, &str)> = headers.to_vec();
        if let Some(a) = &self.auth {
            all.push(("Authorization", a));
        }
        let url = format!("{}{}", self.url, name);
        let answer = exchange(method, &url, &all, body, &["etag"], signal, TIMEOUT_MS).await;
        let answer = answer.map_err(|e| match e {
            FetchError::Aborted => DavError::Aborted,
            FetchError::Stalled => DavError::TimedOut,
            FetchError::Redirected => DavError::Redirected,
            _ => DavError::Unreachable,
        })?;
        match answer.status {
            401 | 403 => Err(DavError::Refused(answer.status)),
            412 => Err(DavError::Changed),
            507 => Err(DavError::Full),
            _ => Ok(answer),
        }
    }

    /// The objects in the folder, with their ETags.
    pub async fn list(&self, signal: &AbortSignal) -> Result<Vec<Listed>, DavError> {
        let headers = [
            ("Depth", "1"),
            ("Content-Type", "application/xml; charset=utf-8"),
        ];
        let a = self
            .send(
                "PROPFIND",
                "",
                &headers,
                Some(webdav::PROPFIND.as_bytes()),
                signal,
            )
            .await?;
        match a.status {
            207 => webdav::listing(&String::from_utf8_lossy(&a.body)).map_err(DavError::NotListing),
            404 | 409 => Err(DavError::NoFolder(a.status)),
            s => Err(DavError::Status(s)),
        }
    }

    /// Object `name` and its ETag; `None` if there is none.
    pub async fn get(
        &self,
        name: &str,
        signal: &AbortSignal,
    ) -> Result<Option<(Vec<u8>, String)>, DavError> {
        let a = self.send("GET", name, &[], None, signal).await?;
        match a.status {
            200 => {
                let etag = a.headers[0].as_deref().unwrap_or_default().trim();
                Ok(Some((a.body, etag.to_string())))
            }
            404 | 410 => Ok(None),
            s => Err(DavError::Status(s)),
        }
    }

    /// Write object `name`: only if its ETag on the server is still `seen` (as the server wrote
    /// it; `None`: only if there is no such object yet). Answers its new ETag when the server
    /// says it.
    pub async fn put(
        &self,
        name: &str,
        bytes: &[u8],
        seen: Option<&str>,
        signal: &AbortSignal,
    ) -> Result<Option<String>, DavError> {
        let quoted = seen.map(webdav::if_match);
        let condition = match &quoted {
            Some(q) => ("If-Match", q.as_str()),
            None => ("If-None-Match", "*"),
        };
        let headers = [condition, ("Content-Type", "application/octet-stream")];
        let a = self
            .send("PUT", name, &headers, Some(bytes), signal)
            .await?;
        match a.status {
            200 | 201 | 204 => Ok(a.headers[0].as_deref().map(|e| e.trim().to_string())),
            404 | 409 => Err(DavError::NoFolder(a.status)),
            s => Err(DavError::Status(s)),
        }
    }

    /// Remove object `name`, only if its ETag on the server is still `seen` (gone already is
    /// fine).
    pub async fn delete(
        &self,
        name: &str,
        seen: &str,
        signal: &AbortSignal,
    ) -> Result<(), DavError> {
        let quoted = webdav::if_match(seen);
        let a = self
            .send(
                "DELETE",
                name,
                &[("If-Match", quoted.as_str())],
                None,
                signal,
            )
            .await?;
        match a.status {
            200 | 202 | 204 | 404 => Ok(()),
            s => Err(DavError::Status(s)),
        }
    }

    /// Create the folder (nothing if it is there).
    pub async fn create(&self, signal: &AbortSignal) -> Result<(), DavError> {
        let a = self.send("MKCOL", "", &[], None, signal).await?;
        match a.status {
            200 | 201 | 204 | 405 => Ok(()),
            404 | 409 => Err(DavError::NoFolder(a.status)),
            s => Err(DavError::Status(s)),
        }
    }
}
