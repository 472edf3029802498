//! The markdown renderer lives in a separate wasm module (`src/bin/satori-markdown.rs`) that is
//! loaded after the app is interactive. Until it has loaded, [`render`] returns `None` and the UI
//! shows escaped plain text.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/adapters/markdown_module.js")]
extern "C" {
    #[wasm_bindgen(js_name = loadMarkdown, catch)]
    async fn load_markdown() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = renderMarkdown)]
    fn render_markdown(text: &str) -> Option<String>;
}

/// Load the renderer module; an error names what went wrong.
pub async fn load() -> Result<(), String> {
    load_markdown().await.map(|_| ()).map_err(|e| {
        js_sys::Reflect::get(&e, &"message".into())
            .ok()
            .and_then(|m| m.as_string())
            .unwrap_or_else(|| "unknown error".into())
    })
}

/// Safe HTML for untrusted markdown, or `None` while the renderer is not loaded.
pub fn render(text: &str) -> Option<String> {
    render_markdown(text)
}
