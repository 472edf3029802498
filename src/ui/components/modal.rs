//! A modal dialog on the native `<dialog>` element: focus stays inside, Esc closes it.

use crate::ui::state::AppState;
use leptos::html;
use leptos::prelude::*;

/// A modal with an accessible name taken from its heading.
#[component]
pub fn Modal(
    /// Heading text, also the dialog's accessible name.
    title: &'static str,
    /// Called when the dialog closes (default: clear the app's open dialog).
    #[prop(optional)]
    on_close: Option<Callback<()>>,
    /// Contents.
    children: Children,
) -> impl IntoView {
    let on_close = on_close.unwrap_or_else(|| {
        let app = expect_context::<AppState>();
        Callback::new(move |_| app.set_dialog(None))
    });
    let dialog: NodeRef<html::Dialog> = NodeRef::new();
    let opener = document()
        .active_element()
        .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok());
    // Focus returns where it was when the dialog closes (a node of this component, still
    // there while its cleanups run).
    let opener = StoredValue::new_local(opener);
    on_cleanup(move || {
        if let Some(Some(el)) = opener.try_update_value(Option::take) {
            let _ = el.focus();
        }
    });
    let heading_id = format!("dlg-{}", title.to_lowercase().replace(' ', "-"));
    Effect::new(move |_| {
        if let Some(d) = dialog.get() {
            if !d.open() {
                let _ = d.show_modal();
            }
        }
    });
    let labelled_by = heading_id.clone();
    view! {
        <dialog
            node_ref=dialog
            class="modal"
            aria-labelledby=labelled_by
            // Esc: closed by its owner at once, in this event, rather than when the browser's
            // `close` event comes a task later (the app knows it is closed when the focus is
            // back, before the next key). The dialog's own `cancel` only: a file input's, when
            // its chooser is dismissed, bubbles up here too.
            on:cancel=move |ev: web_sys::Event| {
                if ev.target() == ev.current_target() {
                    on_close.run(());
                }
            }
            on:close=move |ev| {
                // A dialog already taken off the page (closed and unmounted) says nothing: another
                // may be open by now.
                if event_target::<web_sys::Element>(&ev).is_connected() {
                    on_close.run(());
                }
            }
        >
            <h2 id=heading_id>{title}</h2>
            {children()}
        </dialog>
    }
}
