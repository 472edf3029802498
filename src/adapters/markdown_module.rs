//! The markdown renderer lives in a separate wasm module (`src/bin/satori-markdown.rs`) that is
//! loaded after the app is interactive (see [`crate::adapters::modules`]). Until it has loaded,
//! [`render`] returns `None` and the UI shows escaped plain text.

use crate::adapters::modules::{self, Module, ModuleError};
use wasm_bindgen::JsValue;

/// Load the renderer module.
pub async fn load() -> Result<(), ModuleError> {
    modules::load(Module::Markdown).await
}

/// Safe HTML for untrusted markdown, or `None` while the renderer is not loaded.
pub fn render(text: &str) -> Option<String> {
    modules::call(Module::Markdown, "render", &[JsValue::from_str(text)])
        .ok()
        .and_then(|v| v.as_string())
}
