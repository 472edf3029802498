//! The chat list ("Chats"): newest first, the open one marked `aria-current="page"`.

use crate::core::prompts::{RoleRef, Vars};
use crate::core::protocol::DialogsCall;
use crate::core::session::PromptSource;
use crate::ui::chat;
use crate::ui::state::AppState;
use leptos::prelude::*;

/// Open the "Prompts" dialog (in the dialogs module, loaded now if needed).
fn open_prompts(app: AppState) {
    let selected = app.chats.next_role.get_untracked().encode();
    app.open_external("Prompts", DialogsCall::OpenManager { selected }, None);
}

/// Sidebar with "New chat" and the list of chats.
#[component]
pub fn Sidebar(
    /// Called after the user picks or creates a chat (closes the narrow-screen drawer).
    on_pick: Callback<()>,
) -> impl IntoView {
    let app = expect_context::<AppState>();
    let active = move || app.chats.session.with(|s| s.id.clone());
    view! {
        <nav class="sidebar" aria-label="Chats">
            <button
                type="button"
                class="new-chat"
                on:click=move |_| {
                    app.new_chat();
                    on_pick.run(());
                }
            >
                "New chat"
            </button>
            <RoleSelect />
            <button type="button" class="prompts-btn" on:click=move |_| open_prompts(app)>
                "Prompts"
            </button>
            <button type="button" class="search-btn" on:click=move |_| crate::ui::transfer::search(app)>"Search chats"</button>
            <div class="data-actions">
                <button type="button" on:click=move |_| crate::ui::transfer::import(app, None)>"Import"</button>
                <button type="button" on:click=move |_| crate::ui::transfer::export_all(app)>"Export all"</button>
            </div>
            <ul class="chat-list">
                <For
                    each=move || app.chats.index.get().sessions
                    key=|e| e.id.clone()
                    children=move |entry| {
                        let id = entry.id.clone();
                        let title_id = entry.id.clone();
                        let is_active = {
                            let id = id.clone();
                            move || active() == id
                        };
                        let is_active2 = is_active.clone();
                        view! {
                            <li>
                                <button
                                    type="button"
                                    class="chat-link"
                                    class:active=is_active2
                                    // A title the user gave is theirs: never translated; Satori's
                                    // own name for a chat without one is (`data-ours`).
                                    translate="no"
                                    data-ours="Untitled chat"
                                    aria-current=move || is_active().then_some("page")
                                    on:click=move |_| {
                                        if active() != id {
                                            let _ = app.open(&id);
                                        }
                                        on_pick.run(());
                                    }
                                >
                                    {move || {
                                        app.chats.index.with(|i| {
                                            i.sessions
                                                .iter()
                                                .find(|e| e.id == title_id)
                                                .map(|e| crate::core::hidden::reveal(&e.title))
                                                .unwrap_or_default()
                                        })
                                    }}
                                </button>
                            </li>
                        }
                    }
                />
            </ul>
        </nav>
    }
}

/// The "Role" select: the role new chats start with. Each option shows the role's name and
/// description. Changing it also starts the open chat over if nothing was sent in it yet.
#[component]
fn RoleSelect() -> impl IntoView {
    let app = expect_context::<AppState>();
    let options = move |source: PromptSource| {
        app.chats.catalog.with(|c| {
            c.roles
                .iter()
                .filter(|r| r.source == source)
                .map(|r| {
                    let value = RoleRef { source, key: r.key.clone() }.encode();
                    // The user's own templates are theirs: never translated.
                    let theirs = (source == PromptSource::User).then_some("no");
                    view! { <option value=value translate=theirs>{format!("{} — {}", r.key, r.description)}</option> }
                })
                .collect_view()
        })
    };
    let has_user = move || {
        app.chats
            .catalog
            .with(|c| c.roles.iter().any(|r| r.source == PromptSource::User))
    };
    view! {
        <div class="role-pick">
            <label for="role-select">"Role"</label>
            <select
                id="role-select"
                prop:value=move || {
                    // Track the options so the value is set again once they exist.
                    app.chats.catalog.track();
                    app.chats.next_role.get().encode()
                }
                on:change=move |ev| {
                    if let Some(role) = RoleRef::decode(&event_target_value(&ev)) {
                        app.choose_role(role.clone());
                        if !app.chats.session.with_untracked(|s| s.started()) && !chat::is_streaming(&app) {
                            app.start_chat(role, Vars::new(), true);
                        }
                    }
                }
            >
                <optgroup label="Built-in">{move || options(PromptSource::Builtin)}</optgroup>
                <Show when=has_user>
                    <optgroup label="Your prompts">{move || options(PromptSource::User)}</optgroup>
                </Show>
            </select>
        </div>
    }
}
