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
    view! {
        <section class="chat-setup" aria-label="Chat setup" class:hidden=move || summary().is_none()>
            <span class="setup-summary">{summary}</span>
            <button type="button" class="link-btn" on:click=move |_| open_setup(app)>"Chat setup"</button>
            <span class="form-error" role="status">{move || app.chats.setup_problem.get().map(|e| crate::shell::error_text::not_startable(&e))}</span>
        </section>
    }
}
