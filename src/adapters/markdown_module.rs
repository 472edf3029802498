//! The markdown renderer lives in a separate wasm module (`src/bin/satori-markdown.rs`) that is
//! loaded after the app is interactive (see [`crate::adapters::modules`]). Until it has loaded,
//! [`render`] returns `None` and the UI shows escaped plain text.

use crate::adapters::modules::{self, Module, ModuleError};
use crate::core::protocol::MarkdownCall;

/// Load the renderer module.
pub async fn load() -> Result<(), ModuleError> {
    modules::load(Module::Markdown).await
}

/// Where a reply still arriving can be cut (`markdown::stream_cut` of `text`, which starts at the
/// last cut), or `None` while the renderer is not loaded.
pub fn stream_cut(text: &str) -> Option<usize> {
    modules::call(MarkdownCall::StreamCut(text), None)
        .ok()
        .and_then(|v| v.as_f64())
        .map(|n| n as usize)
}

/// Safe HTML for untrusted markdown, or `None` while the renderer is not loaded.
pub fn render(text: &str) -> Option<String> {
    modules::call(MarkdownCall::Render(text), None)
        .ok()
        .and_then(|v| v.as_string())
}
