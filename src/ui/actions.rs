//! What a chat's menus do ("Chat actions" in the header, a chat list row's "Chat options"):
//! each item names its action (`data-act`), and a row's menu its chat (`data-id`).

use crate::core::protocol::DialogsCall;
use crate::ui::state::AppState;

/// A click in "Chat actions", or in a row's "Chat options" (whose menu names its chat,
/// `data-id`): the action of the item clicked, if any, on that chat.
pub fn chat_action(app: AppState, ev: &leptos::ev::MouseEvent) {
    use wasm_bindgen::JsCast;
    let Some(item) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|e| e.closest("[data-act]").ok().flatten())
    else {
        return;
    };
    let open = app.chats.session.with_untracked(|s| s.id.clone());
    let id = item
        .closest("[role=menu]")
        .ok()
        .flatten()
        .and_then(|m| m.get_attribute("data-id"))
        .unwrap_or_else(|| open.clone());
    let is_open = id == open;
    match item.get_attribute("data-act").as_deref() {
        Some("rename") => chat_dialog(app, id, false),
        Some("pin") => app.pin(&id, true),
        Some("unpin") => app.pin(&id, false),
        Some("share") => crate::ui::transfer::share_chat(app),
        Some("export") if is_open => crate::ui::transfer::export_chat(app),
        Some("export") => app.export_stored(&id),
        Some("delete") => chat_dialog(app, id, true),
        _ => {}
    }
}

/// Open "Rename chat" or ("delete") "Delete chat" for chat `id`, in the dialogs module.
fn chat_dialog(app: AppState, id: String, delete: bool) {
    let title = app.chats.index.with_untracked(|i| {
        i.sessions
            .iter()
            .find(|e| e.id == id)
            .map(|e| e.title.clone())
    });
    let title = title.unwrap_or_else(|| {
        app.chats
            .session
            .with_untracked(|s| s.display_title().to_string())
    });
    if delete {
        app.open_external("Delete chat", DialogsCall::OpenDelete { id, title }, None);
    } else {
        app.open_external("Rename chat", DialogsCall::OpenRename { id, title }, None);
    }
}
