//! The markdown renderer as its own small wasm module, loaded by the app right after the composer
//! is interactive, so the parser (pulldown-cmark and its tables) is not on the first-load path.
//! It links only `satori_core::markdown` (the core crate, not the app library), so nothing else
//! is linked in. `scripts/build.sh` builds it into `dist/md-<hash>/`;
//! `src/adapters/markdown_module.rs` loads it.

use wasm_bindgen::prelude::wasm_bindgen;

// talc, as in the app (src/lib.rs): smaller than dlmalloc.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

use satori_core::markdown;

/// Render untrusted markdown to safe HTML (see `satori::core::markdown::render`).
#[wasm_bindgen]
pub fn render(markdown: &str) -> String {
    markdown::render(markdown)
}

/// Where a reply still arriving can be cut (see `satori::core::markdown::stream_cut`), in bytes
/// of `text` (which starts at the last cut).
#[wasm_bindgen]
pub fn stream_cut(text: &str) -> u32 {
    markdown::stream_cut(text, 0) as u32
}

fn main() {}
