//! The markdown renderer as its own small wasm module, loaded by the app right after the composer
//! is interactive, so the parser (pulldown-cmark and its tables) is not on the first-load path.
//! It links only `satori_core::markdown` (the core crate, not the app library), so nothing else
//! is linked in. `scripts/build.sh` builds it into `dist/md-<hash>/`;
//! `src/adapters/markdown_module.rs` loads it. When loaded, it starts `src/web/rendered.js`, which
//! typesets formulas and draws previews wherever rendered markdown appears.

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

/// A message shown as typed, as HTML, with its formulas marked (see
/// `satori::core::markdown::plain_with_math`).
#[wasm_bindgen]
pub fn plain_with_math(text: &str) -> String {
    markdown::plain_with_math(text)
}

/// Where a reply still arriving can be cut (see `satori::core::markdown::stream_cut`), in bytes
/// of `text` (which starts at the last cut).
#[wasm_bindgen]
pub fn stream_cut(text: &str) -> u32 {
    markdown::stream_cut(text, 0) as u32
}

#[wasm_bindgen(module = "/src/web/rendered.js")]
extern "C" {
    /// Typeset every formula the renderer marks as it is drawn (loading the math module the
    /// first time one is), and answer "Preview" on code blocks.
    #[wasm_bindgen(js_name = watchRendered)]
    fn watch_rendered();
}

/// Runs when the module is loaded: formulas are typeset and previews drawn from then on.
#[wasm_bindgen(start)]
fn start() {
    watch_rendered();
}

fn main() {}
