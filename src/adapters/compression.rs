//! Packing and unpacking chat records (`core::packed`) with the browser's compression streams
//! (`compression.js`): zlib, native speed, no wasm code for the codec. Async: the stream
//! API is; saves never wait for it (records are packed in the background, see `ui::compact`).

use crate::adapters::js::JsError;
use crate::core::packed::{self, Header};
use crate::core::persist::IndexEntry;
use crate::core::session::Session;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/adapters/compression.js")]
extern "C" {
    #[wasm_bindgen(js_name = deflate, catch)]
    async fn deflate_js(text: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = inflate, catch)]
    async fn inflate_js(bytes: &[u8]) -> Result<JsValue, JsValue>;
}

/// `text`, deflated.
pub async fn deflate(text: &str) -> Result<Vec<u8>, String> {
    let bytes = deflate_js(text)
        .await
        .map_err(|e| JsError::from(e).message)?;
    Ok(js_sys::Uint8Array::new(&bytes).to_vec())
}

/// `bytes` inflated into text (UTF-8, checked).
pub async fn inflate(bytes: &[u8]) -> Result<String, String> {
    inflate_js(bytes)
        .await
        .map_err(|e| JsError::from(e).message)?
        .as_string()
        .ok_or_else(|| "the record did not unpack into text".to_string())
}

/// The packed form of `session`'s record `json` (as stored), checked: it unpacks into exactly
/// `json` again before it is answered.
pub async fn pack(session: &Session, json: &str) -> Result<String, String> {
    let deflated = deflate(json).await?;
    if inflate(&deflated).await? != json {
        return Err("the packed record did not unpack into the same text".into());
    }
    let header = Header {
        entry: IndexEntry {
            id: session.id.clone(),
            title: session.display_title().to_string(),
            updated_at: session.updated_at,
        },
        json: json.len(),
        deflated: deflated.len(),
    };
    Ok(packed::record(&header, &deflated))
}

/// The JSON record a packed record `text` holds.
pub async fn unpack(text: &str) -> Result<String, String> {
    let (header, deflated) = packed::deflated(text).map_err(|e| e.to_string())?;
    let json = inflate(&deflated).await?;
    if json.len() != header.json {
        return Err("its packed data is damaged".into());
    }
    Ok(json)
}
