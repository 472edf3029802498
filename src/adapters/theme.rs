//! The colour theme (`src/web/theme.js`): the system's, light or dark, as Settings → Theme chose.
//! The page applies the saved one before the app draws; this is the app's way to read it and to
//! apply another.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/web/theme.js")]
extern "C" {
    #[wasm_bindgen(js_name = followTheme)]
    fn follow_theme();
    #[wasm_bindgen(js_name = currentTheme)]
    fn current_theme() -> String;
    #[wasm_bindgen(js_name = applyTheme)]
    fn apply_theme(theme: &str);
}

/// Follow a theme another tab chose (the page applied the saved one already).
pub fn follow() {
    follow_theme();
}

/// The theme in use: `light`, `dark`, or empty (the system's).
pub fn current() -> String {
    current_theme()
}

/// Use `theme` (`light`, `dark`, anything else the system's) now (the storage adapter keeps it:
/// `Store::save_theme`).
pub fn apply(theme: &str) {
    apply_theme(theme);
}
