//! "Share chat" (a link that carries the branch on screen) and "Shared chat" (a link opened:
//! the chat read-only, stored only by "Save a copy"). The link's format and checks are
//! `core::transfer::share`; saving goes through the import's merge plan and writer.

use crate::adapters::clock::{new_id, now_ms};
use crate::adapters::storage::Store;
use crate::core::session::{Message, Role, Session};
use crate::core::transfer::import::{self, Incoming};
use crate::core::transfer::share;
use crate::shell::store::{import, stored_chats, stored_prompts};
use crate::ui::components::message::role_label;
use crate::ui::components::modal::Modal;
use leptos::prelude::*;

/// The page's address without its fragment.
fn page() -> String {
    let href = window().location().href().unwrap_or_default();
    href.split('#').next().unwrap_or_default().to_string()
}

/// Drop the share link `fragment` from the address bar (no reload, no history entry), if the
/// address still holds it (not another link pasted since).
pub fn forget_link(fragment: &str) {
    let w = window();
    if w.location().hash().unwrap_or_default() == fragment {
        if let Ok(history) = w.history() {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&page()));
        }
    }
}

/// "Share chat" for `session` (the open chat as on screen).
#[component]
pub fn ShareDialog(
    /// The chat, as it is on screen.
    session: Session,
    /// Closes the dialog.
    on_close: Callback<()>,
) -> impl IntoView {
    let made = share::link(&page(), &session, now_ms());
    let copied = RwSignal::new(String::new());
    let body = match made {
        Ok(link) => {
            let copy_link = link.clone();
            let copy = move |_| {
                let promise = window().navigator().clipboard().write_text(&copy_link);
                leptos::task::spawn_local(async move {
                    copied.set(
                        match wasm_bindgen_futures::JsFuture::from(promise).await {
                            Ok(_) => "Link copied.",
                            Err(_) => crate::shell::error_text::NOT_COPIED,
                        }
                        .into(),
                    );
                });
            };
            let length = link.len();
            view! {
                <p>
                    "Anyone with this link can read this chat as it is on screen. The chat is inside the link itself: it is not uploaded anywhere. The API key and settings are never in it, nor attached files (a line names each)."
                </p>
                <label>
                    "Share link"
                    <input type="text" class="share-link" readonly translate="no" prop:value=link
                        on:focus=|ev| {
                            if let Some(input) = wasm_bindgen::JsCast::dyn_ref::<web_sys::HtmlInputElement>(
                                &event_target::<web_sys::EventTarget>(&ev),
                            ) {
                                input.select();
                            }
                        } />
                </label>
                <p class="hint">{format!("{length} characters.")}</p>
                <p role="status">{move || copied.get()}</p>
                <div class="dialog-actions">
                    <button type="button" on:click=move |_| on_close.run(())>"Close"</button>
                    <button type="button" class="primary" on:click=copy>"Copy link"</button>
                </div>
            }
            .into_any()
        }
        Err(e) => view! {
            <p role="alert" class="form-error">
                {crate::shell::error_text::not_shareable(&e)}
            </p>
            <div class="dialog-actions">
                <button type="button" class="primary" on:click=move |_| on_close.run(())>"Close"</button>
            </div>
        }
        .into_any(),
    };
    view! { <Modal title="Share chat" on_close=on_close>{body}</Modal> }
}

/// One message of a shared chat, drawn as the conversation draws it: a reply as markdown (plain
/// text until the renderer is there), everything else as the text it is.
fn shared_message(m: &Message) -> impl IntoView {
    let calls: Vec<String> = m
        .tool_calls
        .iter()
        .map(|c| format!("{}({})", c.name, c.arguments))
        .collect();
    let body = if m.role == Role::Assistant {
        let html = crate::adapters::markdown_module::render(&m.content)
            .unwrap_or_else(|| crate::core::markdown::render_plain(&m.content));
        view! { <div class="shared-body markdown" translate="no" inner_html=html></div> }.into_any()
    } else {
        view! { <div class="shared-body plain" translate="no">{m.content.clone()}</div> }.into_any()
    };
    view! {
        <li class=format!("shared-message {}", m.role.as_str())>
            <p class="shared-role">{role_label(m.role)}</p>
            {body}
            {(!calls.is_empty()).then(|| view! {
                <ul class="shared-calls" translate="no">
                    {calls.into_iter().map(|c| view! { <li><code>{c}</code></li> }).collect_view()}
                </ul>
            })}
        </li>
    }
}

/// "Shared chat": the chat a share link (`fragment`, `#share=…`) carries, read-only. Nothing is
/// stored until "Save a copy"; `on_saved` gets the new chat's id. A link that cannot be read is
/// said in an alert, and nothing is stored.
#[component]
pub fn SharedChatDialog(
    /// The fragment of the page's address.
    fragment: String,
    /// A copy was saved under this id.
    on_saved: Callback<String>,
    /// Closes the dialog.
    on_close: Callback<()>,
) -> impl IntoView {
    // The markdown renderer may still be arriving: read the link when it is there (or not).
    let opened = LocalResource::new(move || {
        let fragment = fragment.clone();
        async move {
            let _ = crate::adapters::markdown_module::load().await;
            share::open(&fragment)
        }
    });
    let problem = RwSignal::new(String::new());
    let save = move |chat: Session| match save_copy(chat) {
        Ok(id) => on_saved.run(id),
        Err(e) => problem.set(e),
    };
    let body = move || {
        match opened.get() {
        None => view! { <p role="status">"Opening the shared chat…"</p> }.into_any(),
        Some(None) => view! { <p role="alert" class="form-error">"This link holds no shared chat."</p> }.into_any(),
        Some(Some(Err(e))) => view! {
            <p role="alert" class="form-error">
                {crate::shell::error_text::link_unopenable(&e)}
            </p>
            <div class="dialog-actions">
                <button type="button" class="primary" on:click=move |_| on_close.run(())>"Close"</button>
            </div>
        }
        .into_any(),
        Some(Some(Ok(chat))) => {
            let title = crate::core::hidden::reveal(chat.display_title());
            // A title the user gave is theirs: never translated ("Untitled chat" is).
            let theirs = (!chat.title.is_empty()).then_some("no");
            let count = chat.messages.len();
            let chat = StoredValue::new(chat);
            view! {
                <p class="hint">
                    "Someone shared this chat with you by link. It is shown read-only; nothing is saved until you choose “Save a copy”."
                </p>
                <h3 class="shared-title" translate=theirs>{title}</h3>
                <p class="hint">{if count == 1 { "1 message".to_string() } else { format!("{count} messages") }}</p>
                <ol class="shared-messages">
                    {chat.with_value(|c| c.messages.iter().map(shared_message).collect_view())}
                </ol>
                <p role="alert" class="form-error" class:hidden=move || problem.get().is_empty()>{move || problem.get()}</p>
                <div class="dialog-actions">
                    <button type="button" on:click=move |_| on_close.run(())>"Close"</button>
                    <button type="button" class="primary" on:click=move |_| save(chat.get_value())>"Save a copy"</button>
                </div>
            }
            .into_any()
        }
    }
    };
    view! {
        <Modal title="Shared chat" on_close=on_close>
            <div class="shared-chat">{body}</div>
        </Modal>
    }
}

/// Store `chat` as a new chat (a new id, through the import's plan and writer); its id, or the id
/// of the same chat stored before.
fn save_copy(mut chat: Session) -> Result<String, String> {
    let store = Store::local();
    let stored = stored_chats(&store)?;
    let prompts = stored_prompts(&store)?;
    chat.id = new_id();
    let incoming = Incoming {
        chats: vec![chat],
        templates: Vec::new(),
        settings: false,
        damaged: 0,
        notes: Vec::new(),
        skipped: Vec::new(),
        reports: Vec::new(),
    };
    let print = import::fingerprint(&incoming.chats[0]);
    let plan = import::plan(
        &stored.chats,
        &stored.unreadable,
        &prompts,
        incoming,
        new_id,
    );
    // A chat already stored (saved from this link before) is opened, not stored twice.
    if let Some(have) = stored
        .chats
        .iter()
        .find(|s| import::fingerprint(s) == print)
    {
        return Ok(have.id.clone());
    }
    // Not an import the Import dialog can undo: its undo record is left as it is.
    import(&store, &plan, false)?;
    plan.add
        .first()
        .map(|c| c.id.clone())
        .ok_or_else(|| crate::shell::error_text::NOTHING_SAVED.to_string())
}
