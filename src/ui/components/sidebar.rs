//! The chat list ("Chats"): newest first, the open one marked `aria-current="page"`.

use crate::core::prompts::{self, RoleRef, Vars};
use crate::ui::chat;
use crate::ui::state::{AppState, Dialog};
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
                    chat::stop();
                    app.new_chat();
                    on_pick.run(());
                }
            >
                "New chat"
            </button>
            <RoleSelect />
            <button type="button" class="prompts-btn" on:click=move |_| app.dialog.set(Some(Dialog::Prompts))>
                "Prompts"
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

/// The "Role" select: the role new chats start with. Each option shows the role's name and
/// description. Changing it also starts the open chat over if nothing was sent in it yet.
#[component]
fn RoleSelect() -> impl IntoView {
    let app = expect_context::<AppState>();
    let builtin = prompts::builtin()
        .templates
        .iter()
        .map(|t| {
            let value = format!("builtin:{}", t.key);
            view! { <option value=value>{format!("{} — {}", t.key, t.description)}</option> }
        })
        .collect_view();
    let user = move || {
        app.prompts.with(|p| {
            (!p.templates.is_empty()).then(|| {
                let options = p
                    .templates
                    .iter()
                    .map(|t| {
                        let value = format!("user:{}", t.template.key);
                        view! { <option value=value>{format!("{} — {}", t.template.key, t.template.description)}</option> }
                    })
                    .collect_view();
                view! { <optgroup label="Your prompts">{options}</optgroup> }
            })
        })
    };
    view! {
        <div class="role-pick">
            <label for="role-select">"Role"</label>
            <select
                id="role-select"
                prop:value=move || {
                    // Read the options first so the value is applied after they exist.
                    app.prompts.track();
                    app.next_role.get().encode()
                }
                on:change=move |ev| {
                    if let Some(role) = RoleRef::decode(&event_target_value(&ev)) {
                        app.next_role.set(role.clone());
                        if !app.session.with_untracked(|s| s.started()) && !chat::is_streaming(&app) {
                            app.restart(&role, &Vars::new());
                        }
                    }
                }
            >
                <optgroup label="Built-in">{builtin}</optgroup>
                {user}
            </select>
        </div>
    }
}
