//! "Rename chat" and "Delete chat" dialogs for the open chat.

use crate::core::session::Command;
use crate::ui::chat;
use crate::ui::components::modal::Modal;
use crate::ui::state::AppState;
use leptos::prelude::*;

/// Rename the open chat.
#[component]
pub fn RenameDialog() -> impl IntoView {
    let app = expect_context::<AppState>();
    let title = RwSignal::new(
        app.chats
            .session
            .with_untracked(|s| s.display_title().to_string()),
    );
    let error = RwSignal::new(String::new());
    view! {
        <Modal title="Rename chat">
            <form on:submit=move |ev| {
                ev.prevent_default();
                match app.apply(Command::Rename { title: title.get_untracked() }) {
                    Ok(()) => app.set_dialog(None),
                    Err(_) => error.set(crate::ui::error_text::NO_TITLE.into()),
                }
            }>
                <label>
                    "Title"
                    <input type="text" maxlength="200" prop:value=move || title.get() on:input=move |ev| title.set(event_target_value(&ev)) />
                </label>
                <p class="form-error" role="alert" class:hidden=move || error.get().is_empty()>{move || error.get()}</p>
                <div class="dialog-actions">
                    <button type="button" on:click=move |_| app.set_dialog(None)>"Cancel"</button>
                    <button type="submit" class="primary">"Save"</button>
                </div>
            </form>
        </Modal>
    }
}

/// Confirm deleting the open chat.
#[component]
pub fn DeleteDialog() -> impl IntoView {
    let app = expect_context::<AppState>();
    let title = app
        .chats
        .session
        .with_untracked(|s| s.display_title().to_string());
    view! {
        <Modal title="Delete chat">
            <p>"Delete “" {title} "”? This cannot be undone."</p>
            <div class="dialog-actions">
                <button type="button" on:click=move |_| app.set_dialog(None)>"Cancel"</button>
                <button type="button" class="danger" on:click=move |_| {
                    chat::stop();
                    app.delete_active();
                    app.set_dialog(None);
                }>"Delete"</button>
            </div>
        </Modal>
    }
}
