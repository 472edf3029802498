//! The app's side of "Export chat", "Export all" and "Import" (the dialogs and the files are the
//! dialogs module's work: `ui::components::transfer_dialog`).

use crate::adapters::dialogs_module;
use crate::core::protocol::DialogsCall;
use crate::shell::error_text;
use crate::ui::state::{Alert, AppState};
use leptos::prelude::window;

/// The open chat as it is on screen (a reply still arriving with the text so far), as JSON.
fn open_chat(app: AppState) -> String {
    serde_json::to_string(&app.snapshot()).unwrap_or_default()
}

/// "Export chat": JSON or Markdown of the open chat.
pub fn export_chat(app: AppState) {
    let json = open_chat(app);
    app.open_external(
        "Export chat",
        DialogsCall::OpenExport { session: json },
        None,
    );
}

/// "Share chat": a link that carries the open chat's branch on screen.
pub fn share_chat(app: AppState) {
    let json = open_chat(app);
    app.open_external("Share chat", DialogsCall::OpenShare { session: json }, None);
}

/// A share link opened (the page's address ends in `#share=…`): "Shared chat" shows it — once
/// no other dialog is open (then when it closes).
pub fn open_link(app: AppState) {
    let hash = window().location().hash().unwrap_or_default();
    if hash.starts_with(crate::core::transfer::share::PREFIX)
        && app.overlay.dialog.get_untracked().is_none()
    {
        app.open_external(
            "Shared chat",
            DialogsCall::OpenShared { fragment: hash },
            None,
        );
    }
}

/// "Export all": download every chat, the prompt templates and the settings (an untouched open
/// chat is left out).
pub fn export_all(app: AppState) {
    let started = app.chats.session.with_untracked(|s| s.started());
    let json = if started {
        open_chat(app)
    } else {
        String::new()
    };
    leptos::task::spawn_local(async move {
        let text = match dialogs_module::export_all(&json).await {
            Ok(warning) if warning.is_empty() => return,
            // A sentence (and so a paragraph of the alert) per thing left out.
            Ok(warning) => warning
                .lines()
                .map(|w| format!("The file was saved, but {w}."))
                .collect::<Vec<_>>()
                .join("\n"),
            Err(e) => error_text::dialog_failed("Export all", &e),
        };
        app.show(Alert {
            text,
            ..Alert::default()
        });
    });
}

/// "Search chats" over every chat (the open one as on screen).
pub fn search(app: AppState) {
    let json = open_chat(app);
    app.open_external(
        "Search chats",
        DialogsCall::OpenSearch { session: json },
        None,
    );
}

/// "Import" (with the files dropped onto the window, if any).
pub fn import(app: AppState, files: Option<js_sys::Array>) {
    let files = files.map_or(wasm_bindgen::JsValue::UNDEFINED, Into::into);
    app.open_external("Import", DialogsCall::OpenImport, Some(files));
}

/// Whether a drag carries files (then the window takes the drop as an import).
pub fn has_files(ev: &web_sys::DragEvent) -> bool {
    ev.data_transfer()
        .map(|d| d.types().includes(&"Files".into(), 0))
        .unwrap_or(false)
}
