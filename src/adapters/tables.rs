//! Static data files the page loads after start (the OpenAI token tables), named by the build
//! in `<meta name="satori-table:NAME">` and stored gzip-compressed.

use crate::adapters::js::JsError;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/adapters/tables.js")]
extern "C" {
    #[wasm_bindgen(js_name = fetchTable, catch)]
    async fn fetch_table(name: &str) -> Result<JsValue, JsValue>;
}

/// The bytes of table `name`, decompressed; the error says why not (missing, HTTP status,
/// network, damaged compression).
pub async fn fetch(name: &str) -> Result<Vec<u8>, String> {
    match fetch_table(name).await {
        Ok(v) => Ok(js_sys::Uint8Array::new(&v).to_vec()),
        Err(e) => Err(JsError::from(e).message),
    }
}
