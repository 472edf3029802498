//! The message composer: Enter sends, Shift+Enter adds a newline, Stop while streaming.

use crate::ui::chat;
use crate::ui::state::AppState;
use leptos::prelude::*;

/// Textbox "Message" with "Send" / "Stop".
#[component]
pub fn Composer() -> impl IntoView {
    let app = expect_context::<AppState>();
    let streaming = move || chat::is_streaming(&app);
    let input: NodeRef<leptos::html::Textarea> = NodeRef::new();
    // The Send/Stop button is replaced while a reply streams: keep focus in the composer.
    let refocus = move || {
        if let Some(el) = input.get_untracked() {
            let _ = el.focus();
        }
    };
    let submit = move || {
        let text = app.chats.draft.get_untracked();
        if !text.trim().is_empty() || chat::has_attachments() {
            chat::send(app, text);
            refocus();
        }
    };
    view! {
        <form class="composer" on:submit=move |ev| {
            ev.prevent_default();
            submit();
        }>
            <label for="composer-input" class="visually-hidden">"Message"</label>
            <textarea
                node_ref=input
                id="composer-input"
                rows="2"
                placeholder="Message Satori…  (Enter to send, Shift+Enter for a new line)"
                prop:value=move || app.chats.draft.get()
                on:input=move |ev| {
                    crate::ui::context::warm(&app.chat_settings().base_url);
                    app.set_draft(event_target_value(&ev));
                }
                on:keydown=move |ev| {
                    if ev.key() == "Enter" && !ev.shift_key() && !composing(&ev) {
                        ev.prevent_default();
                        if !streaming() {
                            submit();
                        }
                    } else if ev.key() == "ArrowUp"
                        && !(composing(&ev) || ev.shift_key() || ev.ctrl_key() || ev.meta_key() || ev.alt_key())
                        && app.chats.draft.with_untracked(String::is_empty)
                    {
                        // ↑ in an empty message box edits the last question (as in ChatGPT).
                        edit_last(app);
                    }
                }
            ></textarea>
            <Show
                when=streaming
                fallback=move || view! { <button type="submit" class="primary">"Send"</button> }
            >
                <button type="button" class="danger" on:click=move |_| {
                    chat::stop();
                    refocus();
                }>"Stop"</button>
            </Show>
        </form>
    }
}

/// Open the chat's last question for editing (its "Edit", clicked: it is drawn, the message
/// box being at the end of the chat).
fn edit_last(app: AppState) {
    use wasm_bindgen::JsCast;
    let last = app.chats.session.with_untracked(|s| {
        s.path()
            .iter()
            .rev()
            .find(|m| m.role == crate::core::session::Role::User && !m.example)
            .map(|m| m.id.clone())
    });
    // (An id an imported file gave that a selector cannot hold as it is: no shortcut.)
    let plain = |id: &String| {
        id.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    if let Some(edit) = last
        .filter(plain)
        .and_then(|id| {
            document()
                .query_selector(&format!("[data-message=\"{id}\"] [data-act=\"edit\"]"))
                .ok()
                .flatten()
        })
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        edit.click();
    }
}

/// Whether a key belongs to an input method's composition (Chinese, Japanese, Korean): the
/// Enter that picks a word must not send, nor Esc that cancels one stop a reply. Safari ends the
/// composition before that key's `keydown`, which then says `isComposing: false` but keeps the
/// composition's key code, 229.
pub fn composing(ev: &web_sys::KeyboardEvent) -> bool {
    ev.is_composing() || ev.key_code() == 229
}
