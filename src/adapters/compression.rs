//! Packing and unpacking chat records (`core::packed`): `z2` (bzip2) in the pack worker,
//! `z1` (zlib) with the browser's compression streams (`compression.js`). Async: both are; saves
//! never wait for them (records are packed in the background, see `shell::compact`).

use crate::adapters::js::JsError;
use crate::core::packed::{self, Codec, Header};
use crate::core::persist::IndexEntry;
use crate::core::session::Session;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/adapters/compression.js")]
extern "C" {
    #[wasm_bindgen(js_name = deflate, catch)]
    async fn deflate_js(text: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = inflate, catch)]
    async fn inflate_js(bytes: &[u8], limit: f64) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = bzPack, catch)]
    async fn bz_pack_js(text: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = bzUnpack, catch)]
    async fn bz_unpack_js(body: &str, compressed: f64, json: f64) -> Result<JsValue, JsValue>;
}

/// `text`, deflated.
pub async fn deflate(text: &str) -> Result<Vec<u8>, String> {
    let bytes = deflate_js(text)
        .await
        .map_err(|e| JsError::from(e).message)?;
    Ok(js_sys::Uint8Array::new(&bytes).to_vec())
}

/// `bytes` inflated into text (UTF-8, checked), if it is at most `limit` bytes: inflating stops
/// there (a record's header is not trusted with memory).
pub async fn inflate(bytes: &[u8], limit: usize) -> Result<String, String> {
    inflate_js(bytes, limit as f64)
        .await
        .map_err(|e| JsError::from(e).message)?
        .as_string()
        .ok_or_else(|| "the record did not unpack into text".to_string())
}

/// The packed form of `session`'s record `json` (as stored), checked: it unpacks into exactly
/// `json` again before it is answered. `z2` in the pack worker; `z1` where the worker cannot run
/// (a browser without module workers, a copy built without it).
pub async fn pack(session: &Session, json: &str) -> Result<String, String> {
    let entry = IndexEntry::of(session);
    match pack_bz(entry.clone(), json).await {
        // bzip2's fixed cost (its header and tables) outweighs its gain on a short chat: below
        // about 5 KB, DEFLATE may be shorter, and the shorter one is kept.
        Ok(record) if json.len() < SHORT => match pack_z1(entry, json).await {
            Ok(z1) if z1.encode_utf16().count() < record.encode_utf16().count() => Ok(z1),
            _ => Ok(record),
        },
        Ok(record) => Ok(record),
        Err(_) => pack_z1(entry, json).await,
    }
}

/// A record shorter than this (bytes) is packed both ways; see [`pack`].
const SHORT: usize = 8 * 1024;

async fn pack_bz(entry: IndexEntry, json: &str) -> Result<String, String> {
    let answer = bz_pack_js(json)
        .await
        .map_err(|e| JsError::from(e).message)?;
    let answer = js_sys::Array::from(&answer);
    let (Some(body), Some(compressed)) = (answer.get(0).as_string(), answer.get(1).as_f64()) else {
        return Err("the pack worker answered something else".into());
    };
    let header = Header {
        codec: Codec::Bzip2,
        entry,
        json: json.len(),
        compressed: compressed as usize,
    };
    // The worker checked that the body unpacks into `json`; the record around it reads back as
    // the same header and body.
    let record = packed::record_with(&header, &body);
    match packed::split(&record) {
        Ok((h, b)) if h == header && b == body => Ok(record),
        _ => Err("the packed record did not read back".into()),
    }
}

async fn pack_z1(entry: IndexEntry, json: &str) -> Result<String, String> {
    let deflated = deflate(json).await?;
    if inflate(&deflated, json.len()).await? != json {
        return Err("the packed record did not unpack into the same text".into());
    }
    let header = Header {
        codec: Codec::Deflate,
        entry,
        json: json.len(),
        compressed: deflated.len(),
    };
    Ok(packed::record(&header, &deflated))
}

/// The JSON record a packed record `text` holds.
pub async fn unpack(text: &str) -> Result<String, String> {
    let (header, body) = packed::split(text).map_err(|e| e.to_string())?;
    let json = match header.codec {
        Codec::Bzip2 => bz_unpack_js(body, header.compressed as f64, header.json as f64)
            .await
            .map_err(|e| JsError::from(e).message)?
            .as_string()
            .ok_or_else(|| "the record did not unpack into text".to_string())?,
        Codec::Deflate => {
            let (_, deflated) = packed::deflated(text).map_err(|e| e.to_string())?;
            inflate(&deflated, header.json).await?
        }
    };
    if json.len() != header.json {
        return Err("its packed data is damaged".into());
    }
    Ok(json)
}
