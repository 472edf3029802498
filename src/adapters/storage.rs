//! localStorage with typed errors.
//!
//! Storage may be missing (privacy modes, sandboxed frames), may throw on access, or may be
//! full. None of that panics: reads of a missing key are `Ok(None)`, and every failure is a
//! [`StorageError`] the UI can explain. A failed write leaves the previous value in place
//! (localStorage writes are atomic per key).

use crate::adapters::js::JsError;
use wasm_bindgen::JsValue;

/// Why a storage call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StorageError {
    /// No localStorage in this browser context (or access to it was denied).
    #[error("browser storage is unavailable")]
    Unavailable,
    /// The write did not fit (QuotaExceededError).
    #[error("browser storage is full")]
    QuotaExceeded,
    /// Any other exception, with its message.
    #[error("browser storage failed: {0}")]
    Failed(String),
}

fn to_error(e: JsValue) -> StorageError {
    let e = JsError::from(e);
    match e.name.as_str() {
        "QuotaExceededError" | "NS_ERROR_DOM_QUOTA_REACHED" => StorageError::QuotaExceeded,
        "SecurityError" => StorageError::Unavailable,
        _ => StorageError::Failed(e.message),
    }
}

/// A key-value store backed by a `Storage` object (normally `window.localStorage`).
#[derive(Clone, Debug)]
pub struct Store {
    inner: Option<web_sys::Storage>,
}

impl Store {
    /// The page's localStorage; unavailable (not a panic) when the browser denies it.
    pub fn local() -> Self {
        let inner = web_sys::window().and_then(|w| w.local_storage().ok().flatten());
        Store { inner }
    }

    /// A store over any `Storage`-like object, or an unavailable one for `None`.
    pub fn from_storage(inner: Option<web_sys::Storage>) -> Self {
        Store { inner }
    }

    fn storage(&self) -> Result<&web_sys::Storage, StorageError> {
        self.inner.as_ref().ok_or(StorageError::Unavailable)
    }

    /// Whether a storage object is present.
    pub fn is_available(&self) -> bool {
        self.inner.is_some()
    }

    /// Read a key; `Ok(None)` when absent.
    pub fn get(&self, key: &str) -> Result<Option<String>, StorageError> {
        self.storage()?.get_item(key).map_err(to_error)
    }

    /// Write a key. On error the old value is unchanged.
    pub fn set(&self, key: &str, value: &str) -> Result<(), StorageError> {
        self.storage()?.set_item(key, value).map_err(to_error)
    }

    /// Remove a key (no error when absent).
    pub fn remove(&self, key: &str) -> Result<(), StorageError> {
        self.storage()?.remove_item(key).map_err(to_error)
    }

    /// Every key starting with `prefix`.
    pub fn keys(&self, prefix: &str) -> Result<Vec<String>, StorageError> {
        let s = self.storage()?;
        let n = s.length().map_err(to_error)?;
        let mut out = Vec::new();
        for i in 0..n {
            if let Some(k) = s.key(i).map_err(to_error)? {
                if k.starts_with(prefix) {
                    out.push(k);
                }
            }
        }
        Ok(out)
    }
}

impl Store {
    /// How much every key starting with `prefix` takes, with its value, in UTF-16 code units —
    /// what browsers count against a site's localStorage quota (about 5 million).
    pub fn used(&self, prefix: &str) -> Result<usize, StorageError> {
        let mut total = 0;
        for key in self.keys(prefix)? {
            let value = self.get(&key)?.unwrap_or_default();
            total += key.encode_utf16().count() + value.encode_utf16().count();
        }
        Ok(total)
    }
}

/// Whether the browser keeps this site's storage until the user clears it (`None`: it cannot say).
pub async fn persisted() -> Option<bool> {
    let manager = web_sys::window()?.navigator().storage();
    let answer = wasm_bindgen_futures::JsFuture::from(manager.persisted().ok()?).await;
    answer.ok()?.as_bool()
}

/// Ask the browser to keep this site's storage (`navigator.storage.persist()`); its answer.
pub async fn persist() -> Option<bool> {
    let manager = web_sys::window()?.navigator().storage();
    let answer = wasm_bindgen_futures::JsFuture::from(manager.persist().ok()?).await;
    answer.ok()?.as_bool()
}

/// Start-up reads: storage that is unavailable reads as empty (the app says so once).
impl crate::core::startup::Records for Store {
    fn read(&self, key: &str) -> Result<Option<String>, String> {
        match self.get(key) {
            Err(StorageError::Unavailable) => Ok(None),
            other => other.map_err(|e| e.to_string()),
        }
    }

    fn keys(&self, prefix: &str) -> Result<Vec<String>, String> {
        match Store::keys(self, prefix) {
            Err(StorageError::Unavailable) => Ok(Vec::new()),
            other => other.map_err(|e| e.to_string()),
        }
    }
}
