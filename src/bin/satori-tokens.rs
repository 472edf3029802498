//! The token counter as its own small wasm module, without Leptos: exact OpenAI token counts
//! (o200k_base, cl100k_base). It links only `satori_core::bpe` (the core crate, not the app
//! library), so nothing else is linked in. The token tables (`o200k_base.bpe`, `cl100k_base.bpe`, made by
//! `scripts/bpe-tables.mjs`) are static assets the page fetches and hands to [`load`]; an
//! encoding counts once its table is loaded.

use std::cell::RefCell;
use wasm_bindgen::prelude::{wasm_bindgen, JsValue};

use satori_core::bpe;

/// Each encoding's piece cache: 65,536 index slots, 2 MB of piece bytes, 512 Ki ids (5 MB; the
/// o200k_base table itself takes about 5.5 MB). Measured on 20,000 chat messages counted twice:
/// half this size was 30% slower on the second pass.
const CACHE: (usize, usize, usize) = (1 << 16, 1 << 21, 1 << 19);

/// A loaded encoding.
struct Loaded {
    name: String,
    table: bpe::Bpe,
    cache: bpe::Cache,
}

thread_local! {
    // Why a static: a wasm module's exported functions share no value but module state.
    /// The loaded encodings.
    static LOADED: RefCell<Vec<Loaded>> = const { RefCell::new(Vec::new()) };
}

/// Loads the table `bytes` (a `.bpe` file) as `encoding`; replaces an earlier one. Throws if the
/// table is damaged or is another encoding's.
#[wasm_bindgen]
pub fn load(encoding: &str, bytes: &[u8]) -> Result<(), JsValue> {
    let table = bpe::Bpe::from_bytes(bytes).map_err(|e| JsValue::from_str(&e.to_string()))?;
    if table.name() != encoding {
        return Err(JsValue::from_str(&format!(
            "the table is {}, not {encoding}",
            table.name()
        )));
    }
    LOADED.with_borrow_mut(|all| {
        all.retain(|l| l.name != encoding);
        all.push(Loaded {
            name: encoding.to_string(),
            table,
            cache: bpe::Cache::new(CACHE.0, CACHE.1, CACHE.2),
        });
    });
    Ok(())
}

/// Whether `encoding` is loaded.
#[wasm_bindgen]
pub fn loaded(encoding: &str) -> bool {
    LOADED.with_borrow(|all| all.iter().any(|l| l.name == encoding))
}

/// Empties every piece cache (counts stay the same; only speed on repeated text changes).
#[wasm_bindgen]
pub fn reset() {
    LOADED.with_borrow_mut(|all| all.iter_mut().for_each(|l| l.cache.clear()));
}

fn with<T>(encoding: &str, f: impl FnOnce(&bpe::Bpe, &mut bpe::Cache) -> T) -> Result<T, JsValue> {
    LOADED.with_borrow_mut(|all| match all.iter_mut().find(|l| l.name == encoding) {
        Some(l) => Ok(f(&l.table, &mut l.cache)),
        None => Err(JsValue::from_str(&format!("{encoding} is not loaded"))),
    })
}

/// The number of tokens of `text` (ordinary text; special tokens are not recognised). Throws if
/// `encoding` is not loaded.
#[wasm_bindgen]
pub fn count(encoding: &str, text: &str) -> Result<u32, JsValue> {
    with(encoding, |t, cache| t.count_cached(text, cache) as u32)
}

/// The token ids of `text` (a `Uint32Array`). Throws if `encoding` is not loaded.
#[wasm_bindgen]
pub fn encode(encoding: &str, text: &str) -> Result<Vec<u32>, JsValue> {
    with(encoding, |t, cache| t.encode_cached(text, cache))
}

fn main() {}
