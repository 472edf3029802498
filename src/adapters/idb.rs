//! The browser's IndexedDB as records by key (`idb.js`): where sync keeps its state, which grows
//! with the chats and would crowd localStorage, and its keys (kept as the browser keeps
//! WebCrypto keys: never readable as bytes).

use crate::adapters::js::JsError;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/adapters/idb.js")]
extern "C" {
    #[wasm_bindgen(js_name = idbGet, catch)]
    async fn idb_get(key: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = idbPut, catch)]
    async fn idb_put(key: &str, text: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = idbGet, catch)]
    async fn idb_get_value(key: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = idbPut, catch)]
    async fn idb_put_value(key: &str, value: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = idbDelete, catch)]
    async fn idb_delete(key: &str) -> Result<JsValue, JsValue>;
}

fn said(e: JsValue) -> String {
    JsError::from(e).message
}

/// Record `key`, if there is one.
pub async fn get(key: &str) -> Result<Option<String>, String> {
    Ok(idb_get(key).await.map_err(said)?.as_string())
}

/// Write record `key` (answers once it is on disk: the transaction completed).
pub async fn put(key: &str, text: &str) -> Result<(), String> {
    idb_put(key, text).await.map(|_| ()).map_err(said)
}

/// Remove record `key` (nothing if there is none).
pub async fn delete(key: &str) -> Result<(), String> {
    idb_delete(key).await.map(|_| ()).map_err(said)
}

/// Record `key` as the browser keeps any value (sync's keys), `None` if there is none.
pub async fn get_value(key: &str) -> Result<Option<JsValue>, String> {
    let v = idb_get_value(key).await.map_err(said)?;
    Ok((!v.is_null() && !v.is_undefined()).then_some(v))
}

/// Write record `key` as any value the browser can keep (structured clone).
pub async fn put_value(key: &str, value: &JsValue) -> Result<(), String> {
    idb_put_value(key, value).await.map(|_| ()).map_err(said)
}
