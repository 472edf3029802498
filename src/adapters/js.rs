//! The one place a thrown JS value becomes Rust data: its `name` (to tell `AbortError`,
//! `QuotaExceededError` … apart) and its message. Each adapter maps these to its own typed error.

use wasm_bindgen::JsValue;

/// A thrown JS value, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsError {
    /// The error's `name` (`"AbortError"`, `"TypeError"` …), empty if it has none.
    pub name: String,
    /// The error's `message`, or the value itself as text.
    pub message: String,
}

impl From<&JsValue> for JsError {
    fn from(e: &JsValue) -> Self {
        let field = |f: &str| {
            js_sys::Reflect::get(e, &JsValue::from_str(f))
                .ok()
                .and_then(|v| v.as_string())
        };
        JsError {
            name: field("name").unwrap_or_default(),
            message: field("message")
                .or_else(|| e.as_string())
                .unwrap_or_else(|| "unknown error".into()),
        }
    }
}

impl From<JsValue> for JsError {
    fn from(e: JsValue) -> Self {
        JsError::from(&e)
    }
}
