//! The page's menus (`src/web/menus.js`): focus, the arrow keys and closing on a choice, for
//! every `role="menu"` popover, from one listener each.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/web/menus.js")]
extern "C" {
    #[wasm_bindgen(js_name = startMenus)]
    fn start_menus();
}

/// Start listening (once per page).
pub fn start() {
    start_menus();
}
