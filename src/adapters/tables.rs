//! Static data files the page loads after start (the OpenAI token tables), named by the build
//! in `<meta name="satori-table:NAME">` and stored gzip-compressed, so any static host serves
//! them small; a server that already undid the compression (`Content-Encoding`) is handled too.

use crate::adapters::js::JsError;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

fn js(e: JsValue) -> String {
    JsError::from(e).message
}

async fn bytes_of(response: web_sys::Response) -> Result<Vec<u8>, String> {
    let buffer = JsFuture::from(response.array_buffer().map_err(js)?)
        .await
        .map_err(js)?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// The bytes of table `name`, decompressed; the error says why not (not named in the page,
/// HTTP status, network, damaged compression).
pub async fn fetch(name: &str) -> Result<Vec<u8>, String> {
    let window = web_sys::window().ok_or("no window")?;
    let document = window.document().ok_or("no document")?;
    let href = document
        .query_selector(&format!("meta[name=\"satori-table:{name}\"]"))
        .ok()
        .flatten()
        .and_then(|m| m.get_attribute("content"))
        .ok_or_else(|| format!("the page does not name the {name} table"))?;
    let base = document.base_uri().ok().flatten().unwrap_or_default();
    let url = web_sys::Url::new_with_base(&href, &base)
        .map_err(js)?
        .href();
    let init = web_sys::RequestInit::new();
    init.set_redirect(web_sys::RequestRedirect::Error);
    // A fetch that hangs is given up after a minute (dropping the timer cancels it).
    let ctrl = web_sys::AbortController::new().map_err(js)?;
    init.set_signal(Some(&ctrl.signal()));
    let _timeout = gloo_timers::callback::Timeout::new(60_000, move || ctrl.abort());
    let response: web_sys::Response = JsFuture::from(window.fetch_with_str_and_init(&url, &init))
        .await
        .map_err(js)?
        .dyn_into()
        .map_err(|_| "not a response".to_string())?;
    if !response.ok() {
        return Err(format!("HTTP {}", response.status()));
    }
    let bytes = bytes_of(response).await?;
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes.as_slice()));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).map_err(js)?;
    // `DecompressionStream` (Chrome 80, Firefox 113, Safari 16.4) is behind web-sys's unstable
    // APIs: reached through the global object. It is a readable/writable pair itself.
    let class: js_sys::Function =
        js_sys::Reflect::get(&js_sys::global(), &"DecompressionStream".into())
            .map_err(js)?
            .dyn_into()
            .map_err(|_| "this browser cannot unpack gzip (no DecompressionStream)".to_string())?;
    let gunzip =
        js_sys::Reflect::construct(&class, &js_sys::Array::of1(&"gzip".into())).map_err(js)?;
    let plain = blob.stream().pipe_through(gunzip.unchecked_ref());
    let response = web_sys::Response::new_with_opt_readable_stream(Some(&plain)).map_err(js)?;
    bytes_of(response).await
}
