//! The chat list ("Chats"): newest first, the open one marked `aria-current="page"`.

use crate::core::session::Role;
use crate::ui::chat;
use crate::ui::state::AppState;
use leptos::prelude::*;

/// Sidebar with "New chat" and the list of chats.
#[component]
pub fn Sidebar(
    /// Called after the user picks or creates a chat (closes the narrow-screen drawer).
    on_pick: Callback<()>,
) -> impl IntoView {
    let app = expect_context::<AppState>();
    let active = move || app.session.with(|s| s.id.clone());
    view! {
        <nav class="sidebar" aria-label="Chats">
            <button
                type="button"
                class="new-chat"
                on:click=move |_| {
                    // An untouched chat is already a new chat: don't pile up empty ones.
                    let used = app.session.with_untracked(|s| s.messages.iter().any(|m| m.role == Role::User));
                    if used {
                        chat::stop();
                        app.new_chat();
                    }
                    on_pick.run(());
                }
            >
                "New chat"
            </button>
            <ul class="chat-list">
                <For
                    each=move || app.index.get().sessions
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
                                    aria-current=move || is_active().then_some("page")
                                    on:click=move |_| {
                                        if active() != id {
                                            chat::stop();
                                            let _ = app.open(&id);
                                        }
                                        on_pick.run(());
                                    }
                                >
                                    {move || {
                                        app.index.with(|i| {
                                            i.sessions
                                                .iter()
                                                .find(|e| e.id == title_id)
                                                .map(|e| e.title.clone())
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
