//! What the keyboard is: whether this is a Mac (or an iPad), where ⌘ is the shortcuts' key
//! (`core::keys::Press::mac`) and is shown as "⌘".

/// Whether the page runs on a Mac, an iPhone or an iPad.
pub fn on_mac() -> bool {
    web_sys::window()
        .and_then(|w| w.navigator().platform().ok())
        .is_some_and(|p| p.starts_with("Mac") || p.starts_with("iP"))
}
