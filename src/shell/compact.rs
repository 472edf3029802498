//! Packing chats nobody is using ([`crate::core::packed`]). Each chat record that is not open
//! (the chat list's active chat), holds no reply still arriving and has not changed for ten
//! minutes is deflated, packed, **checked to unpack into the very same text, and only then
//! switched** — and only if the record is still the text that was packed (this tab or another may
//! have written it meanwhile). A packed record that would not be smaller, an unreadable record and a failed
//! write leave the record as it was: the JSON record is kept until its packed form is verified,
//! so nothing is ever lost. Saves never wait for this: the chat on screen is written as JSON,
//! and packed again once it has rested.
//!
//! The packing runs in the turns module (no Leptos, so none of it is in the app's first load):
//! every request is built there, and a request starts a pass a moment later
//! ([`after_request`]), at most once every ten minutes.

use crate::adapters::clock::now_ms;
use crate::adapters::compression;
use crate::adapters::storage::Store;
use crate::core::persist;

/// How long a chat rests unchanged before it is packed, ms.
pub const REST_MS: i64 = 10 * 60 * 1000;

/// Pack every stored chat that has not changed for `rest` ms (by the chat list), but the one
/// open (the list's active chat, and `open` if given: this tab's chat, which the list may not
/// name when another tab wrote it last); answers how many were packed. In the turns module.
pub async fn pack_resting(rest: i64, open: Option<&str>) -> Result<usize, String> {
    let store = Store::local();
    let index = match store.get(persist::KEY_INDEX) {
        Ok(Some(text)) => persist::decode_index(&text).map_err(|e| e.to_string())?,
        Ok(None) => return Ok(0),
        Err(e) => return Err(e.to_string()),
    };
    let now = now_ms();
    let mut done = 0;
    for entry in index.sessions {
        if now - entry.updated_at < rest
            || index.active.as_deref() == Some(&entry.id)
            || open == Some(entry.id.as_str())
        {
            continue;
        }
        let Ok(Some(persist::ChatRecord { text, .. })) = store.chat(&entry.id) else {
            continue;
        };
        // Packed already, or unreadable (kept untouched, for the user to export).
        let Ok(session) = persist::decode_session(&text) else {
            continue;
        };
        // A reply still arriving in some tab, which adds it to this record when it ends: that
        // tab may run a version that cannot read what this one writes (a version before z2, kept
        // by the service worker for the tabs open when the new one took over).
        if arriving(&session) {
            continue;
        }
        // A chat that cannot be packed stays as it is; the others are still packed.
        let Ok(record) = compression::pack(&session, &text).await else {
            continue;
        };
        let smaller = record.encode_utf16().count() < text.encode_utf16().count();
        // Switch only if the record is still the text packed and the chat has not been opened
        // meanwhile (both may have changed while it was packed).
        if smaller
            && store
                .chat(&entry.id)
                .ok()
                .flatten()
                .map(|r| r.text)
                .as_deref()
                == Some(text.as_str())
            && !opened(&store, &entry.id)
            && store.replace_chat(&entry.id, &record).is_ok()
        {
            done += 1;
        }
    }
    Ok(done)
}

/// Whether the record holds a reply still arriving (or one a tab closed mid-reply left marked
/// so, until the chat is opened again and the mark is cleared).
fn arriving(session: &crate::core::session::Session) -> bool {
    session
        .messages
        .iter()
        .any(|m| m.status == crate::core::session::Status::Streaming)
}

/// Whether chat `id` is the chat list's active chat now.
fn opened(store: &Store, id: &str) -> bool {
    store
        .get(persist::KEY_INDEX)
        .ok()
        .flatten()
        .and_then(|t| persist::decode_index(&t).ok())
        .is_some_and(|i| i.active.as_deref() == Some(id))
}

/// Between passes, ms.
const EVERY_MS: f64 = 10.0 * 60.0 * 1000.0;
/// A pass starts this long after the request that asked for it, ms (the request goes first).
const AFTER_MS: u32 = 3_000;

thread_local! {
    // Why a static: passes are spaced for the whole page, whichever request asked for one.
    /// When the last pass ran, ms.
    static LAST_PASS: std::cell::Cell<f64> = const { std::cell::Cell::new(f64::NEG_INFINITY) };
}

/// A request was built: pack resting chats a moment later, at most once every ten minutes. A
/// pass that fails leaves every record as it was; the next one tries again.
pub fn after_request() {
    let now = now_ms() as f64;
    if now - LAST_PASS.with(std::cell::Cell::get) < EVERY_MS {
        return;
    }
    LAST_PASS.with(|l| l.set(now));
    wasm_bindgen_futures::spawn_local(async move {
        gloo_timers::future::TimeoutFuture::new(AFTER_MS).await;
        let _ = pack_resting(REST_MS, None).await;
    });
}

/// Storage is full: pack every chat but the open one (`open`) now, whatever their rest, in the
/// turns module (loaded if need be; given up after a minute); answers how many were packed.
/// In the app.
pub async fn make_room(open: &str) -> Result<usize, String> {
    use crate::adapters::modules;
    use crate::core::protocol::TurnsCall;
    let controller = web_sys::AbortController::new()
        .map_err(|e| crate::adapters::js::JsError::from(e).message)?;
    let call = TurnsCall::PackNow { open: open.into() };
    let n = modules::call_within(call, &controller.signal(), 60_000)
        .await
        .map_err(|e| e.to_string())?;
    Ok(n.as_f64().unwrap_or(0.0) as usize)
}
