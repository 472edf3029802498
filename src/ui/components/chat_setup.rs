//! Before the first message, a line under the header shows the values of the role's variables
//! (e.g. the reply language) with a "Chat setup" button. The dialog itself lives in the
//! deferred dialogs module (`setup_dialog.rs`); its answer starts the untouched chat over.

use crate::core::prompts::RoleRef;
use crate::core::protocol::DialogsCall;
use crate::ui::state::AppState;
use leptos::prelude::*;

/// `reply_language` → "Reply language". Variable names are ASCII; ASCII case mapping keeps
/// the Unicode case tables out of the app.
pub fn label_of(name: &str) -> String {
    let mut words = name.replace('_', " ").trim().to_string();
    if let Some(first) = words.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    words
}

/// Open the "Chat setup" dialog for the open chat.
fn open_setup(app: AppState) {
    let Some(o) = app.chats.session.with_untracked(|s| s.prompt.clone()) else {
        return;
    };
    let role = RoleRef {
        source: o.source,
        key: o.key,
    }
    .encode();
    let vars = serde_json::to_string(&o.vars).unwrap_or_else(|_| "{}".into());
    app.open_external("Chat setup", DialogsCall::OpenSetup { role, vars }, None);
}

/// The summary line (only for an untouched chat whose role has variables, or still waits for
/// values).
#[component]
pub fn ChatSetup() -> impl IntoView {
    let app = expect_context::<AppState>();
    let summary = move || {
        let (o, waiting) = app.chats.session.with(|s| {
            (!s.started())
                .then(|| s.prompt.clone().map(|o| (o, s.messages.is_empty())))
                .flatten()
        })?;
        if o.vars.is_empty() && !waiting {
            return None;
        }
        let vars: Vec<String> = o
            .vars
            .iter()
            .map(|(name, value)| {
                let value = if value.is_empty() { "(none)" } else { value };
                format!("{}: {value}", label_of(name))
            })
            .collect();
        let vars = if vars.is_empty() {
            "values needed".to_string()
        } else {
            vars.join(" · ")
        };
        Some(format!("{} — {vars}", o.key))
    };
    // A chat not yet started: its model, where it runs, and roles to start with.
    let welcome = move || {
        if app.chats.session.with(|s| s.started()) {
            return String::new();
        }
        let s = app
            .conn
            .settings
            .with(|s| app.chats.session.with(|c| s.for_chat(c.model.as_ref())));
        app.chats.catalog.with(|c| {
            app.chats
                .next_role
                .with(|r| crate::core::chat_start::welcome_html(&s.model, &s.base_url, c, r))
        })
    };
    let start_with = move |ev: leptos::ev::MouseEvent| {
        use wasm_bindgen::JsCast;
        let role = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("[data-role]").ok().flatten())
            .and_then(|e| e.get_attribute("data-role"))
            .and_then(|r| RoleRef::decode(&r));
        if let Some(role) = role {
            crate::ui::components::sidebar::pick_role(app, role);
            if let Some(el) = document().get_element_by_id("composer-input") {
                let _ = el.unchecked_into::<web_sys::HtmlElement>().focus();
            }
        }
    };
    view! {
        <section class="welcome" aria-label="Welcome" class:hidden=move || app.chats.session.with(|s| s.started())
            on:click=start_with inner_html=welcome></section>
        <section class="chat-setup" aria-label="Chat setup" class:hidden=move || summary().is_none()>
            <span class="setup-summary">{summary}</span>
            <button type="button" class="link-btn" on:click=move |_| open_setup(app)>"Chat setup"</button>
            <span class="form-error" role="status">{move || app.chats.setup_problem.get().map(|e| crate::shell::error_text::not_startable(&e))}</span>
        </section>
    }
}
