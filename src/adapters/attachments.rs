//! The attachments' bytes as IndexedDB keeps them (`src/web/attach-store.js`, written by the
//! page's attachments module when a file is attached): read back by the turns module for each
//! request (an image as a `data:` URL, a file's text); read, restored and swept by the dialogs
//! module (an export that carries files, an import that restores them, a chat deleted).

use crate::adapters::js::JsError;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(module = "/src/web/attach-store.js")]
extern "C" {
    #[wasm_bindgen(js_name = dataUrl, catch)]
    async fn data_url_of(hash: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = text, catch)]
    async fn text_of(hash: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = getBlob, catch)]
    async fn blob_of(hash: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = putFile, catch)]
    async fn put_file(hash: &str, mime: &str, blob: &web_sys::Blob) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = hashes, catch)]
    async fn hashes_kept() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = sha256, catch)]
    async fn sha256_of(bytes: &js_sys::Uint8Array) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = touch, catch)]
    async fn touch_js(hashes: js_sys::Array) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = sweep, catch)]
    async fn sweep_js(named: js_sys::Array, recent_ms: f64) -> Result<JsValue, JsValue>;
}

/// The image kept under `hash` as a `data:` URL; `None` when this browser does not hold it (a
/// chat imported or synced from elsewhere) or cannot read it.
pub async fn data_url(hash: &str) -> Option<String> {
    data_url_of(hash).await.ok()?.as_string()
}

/// The text kept under `hash`; `None` as for [`data_url`].
pub async fn text(hash: &str) -> Option<String> {
    text_of(hash).await.ok()?.as_string()
}

fn message(e: JsValue) -> String {
    JsError::from(e).message
}

/// The bytes kept under `hash`: `Ok(None)` when this browser does not hold them.
pub async fn blob(hash: &str) -> Result<Option<web_sys::Blob>, String> {
    let blob = blob_of(hash).await.map_err(message)?;
    Ok(blob.dyn_into::<web_sys::Blob>().ok())
}

/// Keep `bytes` as the file `hash` of type `mime` (nothing when it is kept already). The error
/// is the browser's (storage full: `QuotaExceededError`).
pub async fn put(hash: &str, mime: &str, bytes: &[u8]) -> Result<(), JsError> {
    let blob = web_sys::Blob::new_with_u8_array_sequence(&js_sys::Array::of1(
        &js_sys::Uint8Array::from(bytes),
    ))
    .map_err(JsError::from)?;
    put_file(hash, mime, &blob).await.map_err(JsError::from)?;
    Ok(())
}

/// The hashes of every file kept.
pub async fn kept() -> Result<Vec<String>, String> {
    let keys = hashes_kept().await.map_err(message)?;
    Ok(js_sys::Array::from(&keys)
        .iter()
        .filter_map(|k| k.as_string())
        .collect())
}

/// The SHA-256 of `bytes`, lowercase hex (WebCrypto: a secure context only).
pub async fn sha256(bytes: &[u8]) -> Result<String, String> {
    sha256_of(&js_sys::Uint8Array::from(bytes))
        .await
        .map_err(message)?
        .as_string()
        .ok_or_else(|| "no digest".into())
}

/// Delete every file not `named`, except one another tab attached within `recent_ms`; how many
/// were deleted.
pub async fn sweep(named: &[String], recent_ms: f64) -> Result<u32, String> {
    let named = named.iter().map(|h| JsValue::from_str(h)).collect();
    let n = sweep_js(named, recent_ms).await.map_err(message)?;
    Ok(n.as_f64().unwrap_or(0.0) as u32)
}

/// Mark the files `hashes` that are kept as attached now in this page, so another tab's sweep
/// keeps them for a while; those found kept.
pub async fn touch(hashes: &[String]) -> Result<Vec<String>, String> {
    let hashes = hashes.iter().map(|h| JsValue::from_str(h)).collect();
    let found = touch_js(hashes).await.map_err(message)?;
    Ok(js_sys::Array::from(&found)
        .iter()
        .filter_map(|k| k.as_string())
        .collect())
}
