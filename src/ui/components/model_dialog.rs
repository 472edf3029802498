//! "Model for this chat": a combobox over the models a chat may use — recent choices, the
//! server's models (listed by the server when the dialog opens), the model in this browser —
//! filtered as the user types; a name the server does not list can be typed and used. It runs in
//! the dialogs module; the app stores the choice on the chat (`DialogEvent::ChatModel`), and the
//! chat's next request and its context window follow.

use crate::adapters::fetch::get_models;
use crate::adapters::storage::Store;
use crate::core::model_pick::{groups, remember, Choice};
use crate::core::session::ChatModel;
use crate::core::settings::Settings;
use crate::ui::components::modal::Modal;
use leptos::prelude::*;

/// The dialog for a chat whose model is `chosen`, with `settings`.
#[component]
pub fn ModelDialog(
    /// Settings as the app has them.
    settings: Settings,
    /// The chat's own model, if it has one.
    chosen: Option<ChatModel>,
    /// The choice (`None`: Settings' model).
    on_pick: Callback<Option<ChatModel>>,
    /// Closes the dialog.
    on_close: Callback<()>,
) -> impl IntoView {
    let store = Store::local();
    let recent = store.recent_models();
    let listed = RwSignal::new(Vec::<String>::new());
    let note = RwSignal::new(String::new());
    let query = RwSignal::new(String::new());
    // The option the arrows are on, by what it is (the list changes as the server's arrives and
    // as the user types); `None`: the model in use, else the first.
    let active = RwSignal::new(None::<(String, Option<ChatModel>)>);
    let settings = StoredValue::new(settings);
    let chosen = StoredValue::new(chosen);
    let recent = StoredValue::new(recent);
    // The server's list; the key goes only to the server it was saved for.
    let base = settings.with_value(|s| s.base_url.clone());
    if !crate::core::settings::in_browser(&base) {
        let key = crate::core::persist::decode_api_key(
            &store
                .get(crate::core::persist::KEY_API_KEY)
                .ok()
                .flatten()
                .unwrap_or_default(),
        )
        .ok()
        .and_then(|r| r.key_for(&base).map(str::to_string));
        let url = settings.with_value(|s| s.models_url());
        note.set("Loading the server's model list…".into());
        let ctrl = web_sys::AbortController::new().ok();
        let signal = ctrl.as_ref().map(web_sys::AbortController::signal);
        // Closed before the list came: the request ends with it.
        on_cleanup(move || {
            if let Some(c) = ctrl {
                c.abort();
            }
        });
        leptos::task::spawn_local(async move {
            let Some(signal) = signal else {
                return;
            };
            match get_models(&url, key.as_deref(), &signal).await {
                Ok(list) if !list.is_empty() => {
                    note.set(String::new());
                    listed.set(list);
                }
                _ => note.set(crate::shell::error_text::NO_MODEL_LIST.into()),
            }
        });
    }
    let shown = move || {
        let q = query.get();
        listed.with(|l| {
            settings.with_value(|s| {
                chosen.with_value(|c| recent.with_value(|r| groups(s, c.as_ref(), l, r, &q)))
            })
        })
    };
    let flat = move || -> Vec<Choice> { shown().into_iter().flat_map(|g| g.choices).collect() };
    let key = |c: &Choice| (c.name.clone(), c.model.clone());
    // Where the active option is in `list`.
    let at = move |list: &[Choice]| -> usize {
        active
            .with(|a| {
                a.as_ref()
                    .and_then(|a| list.iter().position(|c| key(c) == *a))
            })
            .or_else(|| list.iter().position(|c| c.current))
            .unwrap_or(0)
    };
    let pick = move |c: Choice| {
        if let Some(m) = &c.model {
            let mut r = recent.get_value();
            remember(&mut r, m.clone());
            // Only a convenience: a full storage keeps the choice on the chat regardless.
            let _ = Store::local().save_recent_models(&r);
        }
        on_pick.run(c.model);
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        if crate::ui::components::composer::composing(&ev) {
            return;
        }
        let list = flat();
        let n = list.len();
        let i = untrack(|| at(&list));
        let pressed = ev.key();
        if pressed == "Enter" {
            ev.prevent_default();
            if let Some(c) = list.into_iter().nth(i) {
                pick(c);
            }
            return;
        }
        let Some(to) = crate::core::keys::step(&pressed, i, n) else {
            return;
        };
        ev.prevent_default();
        active.set(Some(key(&list[to])));
        if let Some(el) = document().get_element_by_id(&format!("model-opt-{to}")) {
            el.scroll_into_view_with_bool(false);
        }
    };
    view! {
        <Modal title="Model for this chat" on_close=on_close>
            <input
                type="text"
                class="model-search"
                role="combobox"
                aria-label="Model for this chat"
                aria-expanded="true"
                aria-controls="model-options"
                aria-autocomplete="list"
                aria-activedescendant=move || {
                    let list = flat();
                    (!list.is_empty()).then(|| format!("model-opt-{}", at(&list)))
                }
                placeholder="Search or type a model name"
                autocomplete="off"
                spellcheck="false"
                prop:value=move || query.get()
                on:input=move |ev| {
                    query.set(event_target_value(&ev));
                    active.set(None);
                }
                on:keydown=on_key
            />
            <p class="hint" role="status">{move || note.get()}</p>
            <div id="model-options" class="model-options" role="listbox" aria-label="Models">
                {move || {
                    let mut i = 0usize;
                    let list = flat();
                    let on = at(&list);
                    shown()
                        .into_iter()
                        .map(|g| {
                            let options = g
                                .choices
                                .into_iter()
                                .map(|c| {
                                    let at = i;
                                    i += 1;
                                    let name = c.name.clone();
                                    let current = c.current;
                                    view! {
                                        <div
                                            id=format!("model-opt-{at}")
                                            role="option"
                                            class="model-option"
                                            class:active=on == at
                                            aria-selected=(on == at).to_string()
                                            translate="no"
                                            on:click=move |_| pick(c.clone())
                                        >
                                            {name}
                                            {current.then(|| view! { <span class="hint in-use" translate="yes">"(in use)"</span> })}
                                        </div>
                                    }
                                })
                                .collect_view();
                            view! {
                                <div role="group" aria-label=g.label>
                                    <div class="model-group" aria-hidden="true">{g.label}</div>
                                    {options}
                                </div>
                            }
                        })
                        .collect_view()
                }}
            </div>
            <p class="hint">"Choosing Settings' model makes this chat follow Settings again. A model chosen here is kept for this chat on this server."</p>
        </Modal>
    }
}
