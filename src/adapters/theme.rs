//! The colour theme (`src/web/theme.js`): the system's, light or dark, as Settings → Theme chose.
//! The page applies it before the app draws; this is the app's way to change and read it.

use crate::adapters::js::JsError;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/web/theme.js")]
extern "C" {
    #[wasm_bindgen(js_name = followTheme)]
    fn follow_theme();
    #[wasm_bindgen(js_name = currentTheme)]
    fn current_theme() -> String;
    #[wasm_bindgen(js_name = setTheme, catch)]
    fn set_theme(theme: &str) -> Result<(), JsValue>;
}

/// Follow a theme another tab chose (the page applied the saved one already).
pub fn follow() {
    follow_theme();
}

/// The theme in use: `light`, `dark`, or empty (the system's).
pub fn current() -> String {
    current_theme()
}

/// Use `theme` (`light`, `dark`, anything else the system's) and remember it; the error says
/// why it could not be remembered (it is in use all the same).
pub fn set(theme: &str) -> Result<(), String> {
    set_theme(theme).map_err(|e| JsError::from(e).message)
}
