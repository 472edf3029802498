//! "Rename chat" and "Delete chat" for the open chat. They run in the dialogs module (so their
//! modal is not on the first-load path); the app opens them and applies the answer it gets back
//! (`DialogEvent::Rename` with the new title, `DialogEvent::Delete`).

use crate::ui::components::form::SaveActions;
use crate::ui::components::modal::Modal;
use leptos::prelude::*;

/// Rename the open chat, called `title` now.
#[component]
pub fn RenameDialog(
    /// The chat's title now.
    title: String,
    /// The new title (not empty).
    on_save: Callback<String>,
    /// Closes the dialog.
    on_close: Callback<()>,
) -> impl IntoView {
    let title = RwSignal::new(title);
    let error = RwSignal::new(String::new());
    view! {
        <Modal title="Rename chat" on_close=on_close>
            <form on:submit=move |ev| {
                ev.prevent_default();
                let t = title.get_untracked();
                if t.trim().is_empty() {
                    error.set(crate::shell::error_text::NO_TITLE.into());
                } else {
                    on_save.run(t.trim().to_string());
                }
            }>
                <label>
                    "Title"
                    <input type="text" maxlength="200" prop:value=move || title.get() on:input=move |ev| title.set(event_target_value(&ev)) />
                </label>
                <p class="form-error" role="alert" class:hidden=move || error.get().is_empty()>{move || error.get()}</p>
                <SaveActions on_cancel=on_close />
            </form>
        </Modal>
    }
}

/// Confirm deleting the open chat, called `title`.
#[component]
pub fn DeleteDialog(
    /// The chat's title.
    title: String,
    /// Delete it.
    on_delete: Callback<()>,
    /// Closes the dialog.
    on_close: Callback<()>,
) -> impl IntoView {
    view! {
        <Modal title="Delete chat" on_close=on_close>
            <p>"Delete “" {crate::core::hidden::reveal(&title)} "”? This cannot be undone."</p>
            <div class="dialog-actions">
                <button type="button" on:click=move |_| on_close.run(())>"Cancel"</button>
                <button type="button" class="danger" on:click=move |_| on_delete.run(())>"Delete"</button>
            </div>
        </Modal>
    }
}
