//! The packed chat records' codec (`satori_core::bzpack`: the core crate, not the app library, so
//! nothing else is linked in) as its own small wasm module, run in a worker (`src/web/pack-worker.js`): bzip2 over
//! a large chat takes the worker's time, never the page's. `scripts/build.sh` builds it into
//! `dist/pack-<hash>/` with the worker; `src/adapters/compression.js` starts the worker.

use wasm_bindgen::prelude::wasm_bindgen;

use satori_core::bzpack;

/// A packed record's body for the JSON record `json`, checked: it unpacks into `json` again.
/// Answers `[body, compressed bytes]`.
#[wasm_bindgen]
pub fn pack(json: &str) -> Result<js_sys::Array, String> {
    let (body, compressed) = bzpack::pack(json);
    if bzpack::unpack(&body, compressed, json.len()).as_deref() != Ok(json) {
        return Err("the packed record did not unpack into the same text".into());
    }
    Ok(js_sys::Array::of2(
        &body.into(),
        &(compressed as f64).into(),
    ))
}

/// The JSON record a body holds (`compressed` bytes written in it, `json` bytes once unpacked).
#[wasm_bindgen]
pub fn unpack(body: &str, compressed: usize, json: usize) -> Result<String, String> {
    bzpack::unpack(body, compressed, json).map_err(|_| "its packed data is damaged".into())
}

fn main() {}
