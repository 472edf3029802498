//! The page layout: sidebar, chat header, conversation, alert, composer and dialogs.

use crate::core::protocol::DialogEvent;
use crate::core::protocol::DialogsCall;
use crate::core::session::Command;
use crate::ui::chat;
use crate::ui::components::alert::AlertBanner;
use crate::ui::components::chat_setup::ChatSetup;
use crate::ui::components::composer::Composer;
use crate::ui::components::conversation::Conversation;
use crate::ui::components::icon;
use crate::ui::components::sidebar::Sidebar;
use crate::ui::state::AppState;
use leptos::prelude::*;

/// The whole app.
#[component]
pub fn App() -> impl IntoView {
    let app = AppState::load();
    app.provide();
    crate::ui::state::on_stop_turns(chat::stop);
    let sidebar_open = RwSignal::new(false);
    let inspector_open = RwSignal::new(false);

    // The markdown renderer is a separate module, fetched after the first paint so it never
    // delays the composer; replies show as plain text for that moment.
    request_animation_frame(move || {
        set_timeout(
            move || {
                leptos::task::spawn_local(async move {
                    match crate::adapters::markdown_module::load().await {
                        Ok(()) => app.markdown_loaded(),
                        Err(why) => app.show(crate::ui::state::Alert {
                            text: crate::shell::error_text::markdown_failed(&why),
                            ..Default::default()
                        }),
                    }
                    // Then the service worker (a page that cannot have one goes without).
                    let _ =
                        crate::adapters::modules::load(crate::adapters::modules::Module::Offline)
                            .await;
                })
            },
            std::time::Duration::ZERO,
        )
    });

    // Esc stops a streaming reply (dialogs handle their own Esc first, and in a menu it closes
    // the menu). Find in page cannot see messages of a long chat that are not drawn: Ctrl+F
    // offers "Search chats" then.
    use crate::ui::components::conversation;
    let mac = crate::adapters::keyboard::on_mac();
    let handle = window_event_listener(leptos::ev::keydown, move |ev| {
        let in_menu = document()
            .query_selector("[popover]:popover-open")
            .ok()
            .flatten()
            .is_some();
        let free = app.overlay.dialog.get_untracked().is_none()
            && !in_menu
            && !crate::ui::components::composer::composing(&ev);
        use crate::core::keys::{shortcut, Press, Shortcut};
        let (key, code) = (ev.key(), ev.code());
        let press = Press {
            key: &key,
            code: &code,
            ctrl: ev.ctrl_key(),
            meta: ev.meta_key(),
            shift: ev.shift_key(),
            alt: ev.alt_key(),
            mac,
        };
        let Some(does) = shortcut(press).filter(|_| free) else {
            return;
        };
        match does {
            Shortcut::Stop if chat::is_streaming(&app) => chat::stop(),
            Shortcut::Find if conversation::windowed() => crate::ui::transfer::search(app),
            Shortcut::Palette => {
                app.open_external("Command palette", DialogsCall::OpenPalette, None)
            }
            Shortcut::Shortcuts => shortcuts(app),
            Shortcut::NewChat => app.new_chat(),
            _ => return,
        }
        ev.prevent_default();
    });
    let resized = window_event_listener(leptos::ev::resize, |_| conversation::resized());
    // A share link: opened with the page, or pasted into this tab's address bar.
    crate::ui::transfer::open_link(app);
    let link = window_event_listener(leptos::ev::hashchange, move |_| {
        crate::ui::transfer::open_link(app)
    });
    // What the dialogs (in the dialogs module) did: one event, one typed detail.
    let dialogs = window_event_listener_untyped(crate::core::protocol::DIALOG_EVENT, move |ev| {
        if let Some(event) = crate::adapters::dialogs_module::received(&ev) {
            on_dialog_event(app, event, sidebar_open);
        }
    });
    // Another tab of Satori changed a record.
    let other_tab = window_event_listener(leptos::ev::storage, move |ev| {
        if let Some(key) = ev.key() {
            app.on_storage(&key, ev.new_value());
        }
    });
    // Chat exports dragged onto the window are imported (other files, and any dropped on the
    // composer, are attached: src/web/attach.js takes those drops first).
    let dragover = window_event_listener(leptos::ev::dragover, |ev| {
        if crate::ui::transfer::has_files(&ev) {
            ev.prevent_default();
        }
    });
    let dropped = window_event_listener(leptos::ev::drop, move |ev| {
        // The drop's file list empties once the event is over: take the files now.
        let files: js_sys::Array = ev
            .data_transfer()
            .and_then(|d| d.files())
            .map(|l| (0..l.length()).filter_map(|i| l.get(i)).collect())
            .unwrap_or_default();
        if files.length() > 0 {
            ev.prevent_default();
            crate::ui::transfer::import(app, Some(files));
        }
    });
    on_cleanup(move || {
        dialogs.remove();
        other_tab.remove();
        dragover.remove();
        dropped.remove();
        handle.remove();
        resized.remove();
        link.remove();
        chat::stop();
    });

    // Hidden characters in a title (a bidi override, a terminal escape) are shown as `<U+…>`.
    let title = move || {
        app.chats
            .session
            .with(|s| crate::core::hidden::reveal(s.display_title()))
    };
    view! {
        <div class="layout" class:sidebar-open=move || sidebar_open.get()>
            <Sidebar on_pick=Callback::new(move |_| sidebar_open.set(false)) />
            <main class="chat">
                <header class="chat-head">
                    <button
                        type="button"
                        class="icon-btn only-narrow"
                        aria-label="Chats"
                        aria-expanded=move || sidebar_open.get().to_string()
                        on:click=move |_| sidebar_open.update(|o| *o = !*o)
                     inner_html=icon::PANEL_LEFT></button>
                    // A title the user gave is theirs: never translated; Satori's own name for a chat
                    // without one is (`data-ours`, see src/web/translate.js).
                    <h1 class="chat-title" translate="no" data-ours="Untitled chat">{title}</h1>
                    // "Model for this chat": the model's name, and a dialog (in the dialogs
                    // module) to switch it.
                    <button type="button" class="model-btn" aria-haspopup="dialog" on:click=move |_| model_dialog(app)>
                        <span class="visually-hidden">"Model for this chat:"</span>
                        <span translate="no">{move || app.conn.settings.with(|s| app.chats.session.with(|c| s.for_chat(c.model.as_ref()).model))}</span>
                    </button>
                    <div class="head-actions">
                        <button
                            type="button"
                            class="icon-btn"
                            aria-label="Context"
                            aria-expanded=move || inspector_open.get().to_string()
                            aria-controls="context-inspector"
                            on:click=move |_| crate::ui::components::context_inspector::toggle(inspector_open)
                         inner_html=icon::GAUGE></button>
                        <button
                            type="button"
                            class="icon-btn agent-btn"
                            class:on=move || app.chats.session.with(|s| s.agent.on)
                            aria-haspopup="dialog"
                            aria-label=move || if app.chats.session.with(|s| s.agent.on) { "Agent: on" } else { "Agent" }
                            on:click=move |_| agent_dialog(app)
                            inner_html=icon::BOT
                        ></button>
                        <button type="button" class="icon-btn settings-btn" aria-label="Settings" on:click=move |_| app.open_settings() inner_html=icon::SETTINGS></button>
                        <button type="button" class="icon-btn" aria-label="Chat actions" aria-haspopup="menu" popovertarget="chat-actions" inner_html=icon::ELLIPSIS></button>
                        // Its items are one piece of markup and one listener: each item names
                        // its action (`data-act`).
                        <div
                            id="chat-actions"
                            class="menu"
                            role="menu"
                            aria-label="Chat actions"
                            popover="auto"
                            on:click=move |ev| crate::ui::actions::chat_action(app, &ev)
                            inner_html=CHAT_ACTIONS
                        ></div>
                    </div>
                </header>
                <ChatSetup />
                <crate::ui::components::context_inspector::ContextInspector open=inspector_open />
                <Conversation />
                <AlertBanner />
                <Composer />
            </main>
        </div>
    }
}

/// The items of "Chat actions" (`data-act`: what [`chat_action`] does), with their icons.
const CHAT_ACTIONS: &str = concat!(
    r##"<button type="button" role="menuitem" data-act="rename"><svg class="icon" aria-hidden="true"><use href="#i-pencil"></use></svg>Rename chat</button>"##,
    r##"<button type="button" role="menuitem" data-act="share" aria-haspopup="dialog"><svg class="icon" aria-hidden="true"><use href="#i-share-2"></use></svg>Share chat</button>"##,
    r##"<button type="button" role="menuitem" data-act="export"><svg class="icon" aria-hidden="true"><use href="#i-download"></use></svg>Export chat</button>"##,
    r##"<button type="button" role="menuitem" data-act="delete" class="danger-item"><svg class="icon" aria-hidden="true"><use href="#i-trash-2"></use></svg>Delete chat</button>"##,
);

/// Open "Keyboard shortcuts", in the dialogs module.
fn shortcuts(app: AppState) {
    app.open_external("Keyboard shortcuts", DialogsCall::OpenShortcuts, None);
}

/// Open "Model for this chat" for the open chat, in the dialogs module.
fn model_dialog(app: AppState) {
    let (id, state) = app.chats.session.with_untracked(|c| {
        let state = app
            .conn
            .settings
            .with_untracked(|s| serde_json::to_string(&(s, &c.model)).unwrap_or_default());
        (c.id.clone(), state)
    });
    app.open_external(
        "Model for this chat",
        DialogsCall::OpenModel { id, state },
        None,
    );
}

/// Open "Agent" for the open chat, in the dialogs module.
fn agent_dialog(app: AppState) {
    let (id, agent) = app.chats.session.with_untracked(|s| {
        (
            s.id.clone(),
            serde_json::to_string(&s.agent).unwrap_or_default(),
        )
    });
    app.open_external("Agent", DialogsCall::OpenAgent { id, agent }, None);
}

/// Apply what a dialog did. Rename, Agent and Delete name their chat: the open chat may have
/// changed while the dialog was loading or open; only that chat is touched.
fn on_dialog_event(app: AppState, event: DialogEvent, sidebar_open: RwSignal<bool>) {
    let is_open = |id: &str| app.chats.session.with_untracked(|s| s.id == id);
    match event {
        DialogEvent::PromptsChanged => {
            app.reload_catalog();
            app.refresh_untouched();
        }
        DialogEvent::UseRole(role) => {
            app.reload_catalog();
            app.choose_role(role);
            app.new_chat();
        }
        DialogEvent::Setup(role, vars) => {
            if !app.chats.session.with_untracked(|s| s.started()) && !chat::is_streaming(&app) {
                app.start_chat(role, vars, true);
            }
        }
        DialogEvent::SystemPrompt(text) => crate::ui::components::system_dialog::save(app, text),
        DialogEvent::Settings(saved) => app.apply_settings(saved),
        // The dialog is closed (the browser gave the focus back to where it was; the dialog
        // is unmounted a moment later); a share link pasted while it was open is opened now.
        DialogEvent::Closed => {
            app.set_dialog(None);
            crate::ui::transfer::open_link(app);
        }
        DialogEvent::Shortcuts => shortcuts(app),
        DialogEvent::SummaryEdited(id, text) => {
            if let Err(err) = app.apply(Command::EditSummary { id, text }) {
                app.show(crate::ui::state::Alert {
                    text: crate::shell::error_text::summary_not_saved(&err),
                    ..Default::default()
                });
            }
        }
        DialogEvent::ChatContext(context) => {
            let _ = app.apply(Command::SetContext { context });
        }
        DialogEvent::Imported => {
            app.reload_index();
            app.reload_catalog();
        }
        DialogEvent::Rename(id, title) => {
            let cmd = Command::Rename { title };
            if !is_open(&id) {
                app.apply_to_stored(&id, vec![cmd]);
            } else if app.apply(cmd).is_err() {
                app.show(crate::ui::state::Alert {
                    text: crate::shell::error_text::NO_TITLE.into(),
                    ..Default::default()
                });
            }
        }
        DialogEvent::ChatModel(id, model) => {
            let cmd = Command::SetModel { model };
            if !is_open(&id) {
                app.apply_to_stored(&id, vec![cmd]);
            } else {
                let _ = app.apply(cmd);
            }
        }
        DialogEvent::Agent(id, agent) => {
            let cmd = Command::SetAgent { agent };
            if !is_open(&id) {
                app.apply_to_stored(&id, vec![cmd]);
            } else {
                let _ = app.apply(cmd);
            }
        }
        // "Search chats" chose a result: open that chat (asking first if the one on screen is
        // not saved) and show the message.
        DialogEvent::OpenAt(id, message) => {
            let show = move || {
                if let Some(message) = message {
                    request_animation_frame(move || {
                        crate::ui::components::conversation::show_message(&message)
                    });
                }
            };
            let open = if is_open(&id) {
                show();
                true
            } else {
                app.open_at(&id, show)
            };
            if open {
                sidebar_open.set(false); // a narrow screen shows the chat, not the chat list
            }
        }
        DialogEvent::Delete(id) => {
            if is_open(&id) {
                chat::stop();
                app.delete_active();
            } else {
                app.delete_stored(&id);
            }
        }
    }
}
