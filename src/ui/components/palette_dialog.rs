//! "Command palette" (Ctrl/⌘+K) and "Keyboard shortcuts" (Ctrl/⌘+/), in the dialogs module.
//! The palette searches Satori's actions and the stored chats' titles
//! ([`crate::core::palette`]); choosing an action does what its control does, choosing a chat
//! opens it.

use crate::core::palette::{find, Do, Item, ACTIONS};
use crate::core::persist::IndexEntry;
use crate::ui::components::modal::Modal;
use leptos::prelude::*;

/// `keys` as this computer writes them: ⌘ for Ctrl on a Mac.
pub fn keys_here(keys: &str) -> String {
    if crate::adapters::keyboard::on_mac() {
        keys.replace("Ctrl+", "⌘")
    } else {
        keys.to_string()
    }
}

/// The palette over `chats` (the chat list as stored).
#[component]
pub fn PaletteDialog(
    /// The stored chats.
    chats: Vec<IndexEntry>,
    /// A chat chosen, or an action the app carries out (a control to click, the shortcuts),
    /// once the palette has closed.
    on_pick: Callback<Item>,
    /// Closes the dialog.
    on_close: Callback<()>,
) -> impl IntoView {
    let error = RwSignal::new(String::new());
    // Language and theme change here, as their Settings fields do; what could not be kept is
    // said in the palette, which stays open.
    let on_pick = Callback::new(move |item: Item| match item {
        Item::Action(a) if matches!(a.does, Do::Language(_) | Do::Theme(_)) => match run(a.does) {
            Some(why) => error.set(why),
            None => on_close.run(()),
        },
        other => on_pick.run(other),
    });
    let query = RwSignal::new(String::new());
    // The option the arrows are on, by position in the list shown (reset as the user types).
    let active = RwSignal::new(0usize);
    let chats = StoredValue::new(chats);
    // The actions' names as the user reads them (Chinese), searched as well as the English.
    let names = StoredValue::new(
        ACTIONS
            .iter()
            .map(|a| crate::adapters::language::translated(a.label))
            .collect::<Vec<_>>(),
    );
    let shown = move || query.with(|q| chats.with_value(|c| names.with_value(|n| find(q, c, n))));
    let flat = move || -> Vec<Item> {
        let (a, c) = shown();
        a.into_iter().chain(c).collect()
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        if crate::ui::components::composer::composing(&ev) {
            return;
        }
        let list = flat();
        let n = list.len();
        let i = active.get_untracked().min(n.saturating_sub(1));
        let pressed = ev.key();
        if pressed == "Enter" {
            ev.prevent_default();
            if let Some(item) = list.into_iter().nth(i) {
                on_pick.run(item);
            }
            return;
        }
        let Some(to) = crate::core::keys::step(&pressed, i, n) else {
            return;
        };
        ev.prevent_default();
        active.set(to);
        if let Some(el) = document().get_element_by_id(&format!("cmd-opt-{to}")) {
            el.scroll_into_view_with_bool(false);
        }
    };
    let option = move |at: usize, on: usize, item: Item| {
        let (label, keys, chat) = match &item {
            Item::Action(a) => (a.label.to_string(), keys_here(a.keys), false),
            Item::Chat { title, .. } => (title.clone(), String::new(), true),
        };
        view! {
            <div
                id=format!("cmd-opt-{at}")
                role="option"
                class="model-option cmd-option"
                class:active=on == at
                aria-selected=(on == at).to_string()
                translate=chat.then_some("no")
                on:click=move |_| on_pick.run(item.clone())
            >
                <span>{label}</span>
                {(!keys.is_empty()).then(|| view! { <kbd translate="no">{keys}</kbd> })}
            </div>
        }
    };
    view! {
        <Modal title="Command palette" on_close=on_close>
            <input
                type="text"
                class="model-search"
                role="combobox"
                aria-label="Search actions and chats"
                aria-expanded="true"
                aria-controls="cmd-options"
                aria-autocomplete="list"
                aria-activedescendant=move || {
                    let n = flat().len();
                    (n > 0).then(|| format!("cmd-opt-{}", active.get().min(n - 1)))
                }
                placeholder="Type a command or a chat's title"
                autocomplete="off"
                spellcheck="false"
                prop:value=move || query.get()
                on:input=move |ev| {
                    query.set(event_target_value(&ev));
                    active.set(0);
                }
                on:keydown=on_key
            />
            <p class="form-error" role="alert">{move || error.get()}</p>
            <div id="cmd-options" class="model-options" role="listbox" aria-label="Actions and chats">
                {move || {
                    let (actions, found) = shown();
                    let n = actions.len() + found.len();
                    let on = active.get().min(n.saturating_sub(1));
                    let first_chat = actions.len();
                    let actions = actions
                        .into_iter()
                        .enumerate()
                        .map(|(i, item)| option(i, on, item))
                        .collect_view();
                    let found = found
                        .into_iter()
                        .enumerate()
                        .map(|(i, item)| option(first_chat + i, on, item))
                        .collect_view();
                    // A group with nothing in it is not drawn.
                    let any_found = n > first_chat;
                    view! {
                        <div role="group" aria-label="Actions" class:hidden=first_chat == 0>
                            <div class="model-group" aria-hidden="true">"Actions"</div>
                            {actions}
                        </div>
                        <div role="group" aria-label="Chats" class:hidden=!any_found>
                            <div class="model-group" aria-hidden="true">"Chats"</div>
                            {found}
                        </div>
                    }
                }}
            </div>
            <p class="hint" role="status">{move || (flat().is_empty()).then_some("Nothing matches.")}</p>
        </Modal>
    }
}

/// The shortcuts, as shown in "Keyboard shortcuts": keys, what they do.
const SHORTCUTS: &[(&str, &str)] = &[
    ("Ctrl+K", "Command palette"),
    ("Ctrl+Shift+O", "New chat"),
    ("Ctrl+/", "Keyboard shortcuts"),
    ("↑", "Edit your last message (in an empty message box)"),
    ("Enter", "Send"),
    ("Shift+Enter", "New line"),
    ("Esc", "Stop the reply"),
    ("Ctrl+F", "Search chats (in a long chat)"),
];

/// "Keyboard shortcuts": every shortcut Satori has.
#[component]
pub fn ShortcutsDialog(
    /// Closes the dialog.
    on_close: Callback<()>,
) -> impl IntoView {
    let rows = SHORTCUTS
        .iter()
        .map(|(keys, what)| {
            view! {
                <tr>
                    <td><kbd translate="no">{keys_here(keys)}</kbd></td>
                    <td>{*what}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <Modal title="Keyboard shortcuts" on_close=on_close>
            <table class="shortcuts">
                <thead>
                    <tr><th scope="col">"Keys"</th><th scope="col">"Action"</th></tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
            <p class="hint">"Shortcuts wait while an input method is composing a word."</p>
            <div class="actions">
                <button type="button" on:click=move |_| on_close.run(())>"Close"</button>
            </div>
        </Modal>
    }
}

/// Carry out palette action `does`: a language or theme (what could not be kept, in words), a
/// control clicked (once the palette has closed).
pub fn run(does: Do) -> Option<String> {
    match does {
        Do::Language(lang) => {
            crate::adapters::dialogs_module::language_changed(lang);
            crate::adapters::storage::Store::local()
                .save_language(lang)
                .err()
                .map(|e| crate::shell::error_text::language_not_kept(&e))
        }
        Do::Theme(theme) => {
            crate::adapters::theme::apply(theme);
            crate::adapters::storage::Store::local()
                .save_theme(theme)
                .err()
                .map(|e| crate::shell::error_text::theme_not_kept(&e))
        }
        Do::Click(selector) => {
            use wasm_bindgen::JsCast;
            if let Some(el) = document()
                .query_selector(selector)
                .ok()
                .flatten()
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
            {
                el.click();
            }
            None
        }
        Do::Shortcuts => None,
    }
}
