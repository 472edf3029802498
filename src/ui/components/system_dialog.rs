//! "System prompt": view and edit the open chat's system prompt. Only this chat changes; the
//! template it came from is left as it is. The dialog runs in the dialogs module; the app opens
//! it and applies the saved text (`DialogEvent::SystemPrompt`).

use crate::adapters::clock::{new_id, now_ms};
use crate::core::protocol::DialogsCall;
use crate::core::session::{Command, PromptSource};
use crate::shell::error_text;
use crate::ui::chat;
use crate::ui::components::form::SaveActions;
use crate::ui::components::modal::Modal;
use crate::ui::state::{Alert, AppState};
use leptos::prelude::*;

/// Where the open chat's prompt came from, in words.
pub fn origin_text(app: AppState) -> String {
    app.chats.session.with(|s| match &s.prompt {
        Some(o) => {
            let source = match o.source {
                PromptSource::Builtin => "built-in",
                PromptSource::User => "your",
            };
            let vars: Vec<String> = o
                .vars
                .iter()
                .filter(|(_, v)| !v.is_empty())
                .map(|(k, v)| format!("{k} = {v}"))
                .collect();
            let vars = if vars.is_empty() {
                String::new()
            } else {
                format!(" with {}", vars.join(", "))
            };
            let edited = if o.system_edited {
                "; edited in this chat"
            } else {
                ""
            };
            format!(
                "From the {source} template “{}”, version {}{vars}{edited}.",
                o.key, o.version
            )
        }
        None if !s.role.is_empty() => format!(
            "From the template “{}” (this chat predates template versions).",
            s.role
        ),
        None => "This chat has no template.".to_string(),
    })
}

/// Open the "System prompt" dialog (in the dialogs module) for the open chat.
pub fn open(app: AppState) {
    let text = app
        .chats
        .session
        .with_untracked(|s| s.system().map(|m| m.content.clone()).unwrap_or_default());
    let origin = origin_text(app);
    let call = DialogsCall::OpenSystem { text, origin };
    app.open_external("The system prompt editor", call, None);
}

/// Apply the text saved in the dialog to the open chat.
pub fn save(app: AppState, text: String) {
    if chat::is_streaming(&app) {
        app.show(Alert {
            text: error_text::SYSTEM_WHILE_STREAMING.into(),
            ..Alert::default()
        });
        return;
    }
    if let Err(e) = app.apply(Command::SetSystem {
        id: new_id(),
        text,
        at: now_ms(),
    }) {
        app.show(Alert {
            text: error_text::system_unchanged(&e),
            ..Alert::default()
        });
    }
}

/// The dialog (runs in the dialogs module; the app applies what it saves).
#[component]
pub fn SystemPromptDialog(
    /// The chat's system prompt.
    text: String,
    /// Where it came from, in words.
    origin: String,
    /// Save this text.
    on_save: Callback<String>,
    /// Closed.
    on_close: Callback<()>,
) -> impl IntoView {
    let text = RwSignal::new(text);
    view! {
        <Modal title="System prompt" on_close=on_close>
            <form on:submit=move |ev| {
                ev.prevent_default();
                on_save.run(text.get_untracked());
            }>
                <p class="hint">{origin} " Changes apply to this chat only; the template stays as it is."</p>
                <label for="system-prompt-text">"System prompt"</label>
                <textarea id="system-prompt-text" rows="14" prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))></textarea>
                <SaveActions on_cancel=on_close />
            </form>
        </Modal>
    }
}
