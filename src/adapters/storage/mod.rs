//! localStorage with typed errors, and the one writer of Satori's records.
//!
//! Every write goes through this module: the raw `set` and `remove` are private to it, so the
//! compiler lets no other module write a key. Callers write records by what they are — chats in
//! parts (below), settings, the key, templates, drafts, backups ([`records`]) — and each is
//! encoded here by `core::persist`.
//!
//! Storage may be missing (privacy modes, sandboxed frames), may throw on access, or may be
//! full. None of that panics: reads of a missing key are `Ok(None)`, and every failure is a
//! [`StorageError`] the UI can explain. A failed write leaves the previous value in place
//! (localStorage writes are atomic per key).

use crate::adapters::js::JsError;
use crate::core::persist::{self, ChatReadError, ChatRecord};
use wasm_bindgen::JsValue;

pub mod records;

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

/// What [`Store::sweep_parts`] did.
#[derive(Debug, Default)]
pub struct Swept {
    /// How many part records it removed.
    pub removed: usize,
    /// The note storage was too full to keep: the page looks again with it a minute later.
    pub unstored: Vec<persist::Unnamed>,
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

    /// Write a key. On error the old value is unchanged. Private: callers write records
    /// ([`records`]).
    fn set(&self, key: &str, value: &str) -> Result<(), StorageError> {
        self.storage()?.set_item(key, value).map_err(to_error)
    }

    /// Remove a key (no error when absent). Private, as [`Store::set`].
    fn remove(&self, key: &str) -> Result<(), StorageError> {
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

/// Chats are stored in parts ([`persist::encode_head`]): a head record and one record per run of
/// [`persist::PART_SIZE`] messages, so saving after a new message rewrites the last part and
/// the head, not the whole chat.
impl Store {
    /// Chat `id`'s record: its head and parts joined, or an older single or packed record.
    pub fn chat(&self, id: &str) -> Result<Option<ChatRecord>, ChatReadError> {
        persist::read_chat(&|key: &str| self.get(key).map_err(|e| e.to_string()), id)
    }

    /// Write parts `parts` (`(k, text)`) of chat `id`, then its `head`, so that no head ever
    /// names a part not yet written; then remove the parts the chat had beyond those the head
    /// names. All or nothing: when a write fails (storage full), every record written is put
    /// back as it was — a save that moved messages between parts must not leave some moved and
    /// some not — and the error is answered.
    pub fn write_chat(
        &self,
        id: &str,
        head: &str,
        parts: &[(usize, String)],
    ) -> Result<(), StorageError> {
        let key = persist::session_key(id);
        let old_head = self.get(&key)?;
        let had = old_head
            .as_deref()
            .and_then(persist::head_of)
            .map_or(0, |(n, _)| n);
        let mut before: Vec<(String, Option<String>)> = Vec::with_capacity(parts.len() + 1);
        let mut written = (|| {
            for (k, text) in parts {
                let part = persist::part_key(id, *k);
                let old = if *k < had { self.get(&part)? } else { None };
                before.push((part.clone(), old));
                self.set(&part, text)?;
            }
            Ok(())
        })();
        if written.is_ok() {
            written = self.set(&key, head);
        }
        if let Err(e) = written {
            // Records that were new go first: that frees room for the old texts.
            for (part, _) in before.iter().filter(|(_, old)| old.is_none()) {
                let _ = self.remove(part);
            }
            for (part, old) in &before {
                if let Some(text) = old {
                    let _ = self.set(part, text);
                }
            }
            return Err(e);
        }
        let keep = persist::head_of(head).map_or(0, |(n, _)| n);
        for k in keep..had {
            let _ = self.remove(&persist::part_key(id, k));
        }
        Ok(())
    }

    /// Replace chat `id`'s record by one packed record and remove its parts.
    pub fn replace_chat(&self, id: &str, record: &str) -> Result<(), StorageError> {
        let had = self.head(id).map_or(0, |(n, _)| n);
        self.set(&persist::session_key(id), record)?;
        self.remove_parts(id, had);
        Ok(())
    }

    /// Remove chat `id`: its head first (so no head is left without its parts), then its parts.
    pub fn remove_chat(&self, id: &str) -> Result<(), StorageError> {
        let had = self.head(id).map_or(0, |(n, _)| n);
        self.remove(&persist::session_key(id))?;
        self.remove_parts(id, had);
        Ok(())
    }

    /// `(parts, messages)` chat `id`'s stored head names ([`persist::head_of`]); `None` for
    /// any other record, none, or storage that fails. [`Store::write_chat`] takes back what it
    /// wrote when it fails, so no part is stored beyond those its head names.
    pub fn head(&self, id: &str) -> Option<(usize, usize)> {
        self.get(&persist::session_key(id))
            .ok()
            .flatten()
            .as_deref()
            .and_then(persist::head_of)
    }

    fn remove_parts(&self, id: &str, had: usize) {
        for k in 0..had {
            let _ = self.remove(&persist::part_key(id, k));
        }
    }

    /// Removes the part records no head has named, unchanged, for [`persist::SWEEP_AFTER_MS`]
    /// ([`persist::sweep`]) and notes the others in [`persist::KEY_SWEEP`] for a later sweep.
    /// Two looks a minute apart, so a save under way in another tab (parts first, then the head)
    /// is never taken for a crash's leftovers; each head is read again just before its parts go.
    /// `held`: the note of an earlier look in this page that storage could not keep (it was
    /// full), used when storage has none.
    pub fn sweep_parts(
        &self,
        now: i64,
        held: Vec<persist::Unnamed>,
    ) -> Result<Swept, StorageError> {
        let named = |id: &str| -> Result<usize, StorageError> {
            Ok(persist::parts_named(
                self.get(&persist::session_key(id))?.as_deref(),
            ))
        };
        let mut heads = std::collections::BTreeMap::new();
        let mut seen = Vec::new();
        for key in self.keys(persist::PART_PREFIX)? {
            let Some((id, k)) = persist::part_of_key(&key) else {
                continue;
            };
            if !heads.contains_key(id) {
                heads.insert(id.to_string(), named(id)?);
            }
            if k >= heads[id] {
                if let Some(text) = self.get(&key)? {
                    seen.push(persist::Unnamed::new(key, &text, now));
                }
            }
        }
        let noted = match self.get(persist::KEY_SWEEP)? {
            Some(text) => serde_json::from_str(&text).unwrap_or_default(),
            None => held,
        };
        let (remove, keep) = persist::sweep(&noted, seen, now);
        let mut removed = 0;
        for key in &remove {
            // Named since it was looked at (another tab saved meanwhile): it stays.
            let Some((id, _)) = persist::part_of_key(key) else {
                continue;
            };
            let named_now = named(id)?;
            if persist::is_unnamed(key, |_| named_now) {
                self.remove(key)?;
                removed += 1;
            }
        }
        let stored = match keep.is_empty() {
            true if noted.is_empty() => Ok(()),
            true => self.remove(persist::KEY_SWEEP),
            false => self.set(
                persist::KEY_SWEEP,
                &serde_json::to_string(&keep).unwrap_or_default(),
            ),
        };
        match stored {
            Ok(()) => Ok(Swept {
                removed,
                unstored: Vec::new(),
            }),
            // Full: the note is held by the page for a second look a minute later, and an older
            // one is removed (that always fits) so that look reads the page's.
            Err(StorageError::QuotaExceeded) => {
                let _ = self.remove(persist::KEY_SWEEP);
                Ok(Swept {
                    removed,
                    unstored: keep,
                })
            }
            Err(e) => Err(e),
        }
    }

    /// Every part record stored under chat `id` (also any no head names).
    pub fn parts_stored(&self, id: &str) -> Vec<String> {
        self.keys(persist::PART_PREFIX)
            .unwrap_or_default()
            .into_iter()
            .filter(|k| persist::is_part_of(k, id))
            .collect()
    }

    /// How many messages of chat `id` are stored in parts as `session` has them: all of them when
    /// the stored head counts as many as it holds, else none (an older single record, a packed
    /// one, or one another tab changed).
    pub fn stored_in_parts(&self, session: &crate::core::session::Session) -> usize {
        let n = session.messages.len();
        match self.head(&session.id) {
            Some((_, count)) if count == n => n,
            _ => 0,
        }
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
