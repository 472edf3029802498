//! "System prompt": view and edit the open chat's system prompt. Only this chat changes; the
//! template it came from is left as it is.

use crate::adapters::clock::{new_id, now_ms};
use crate::core::session::{Command, PromptSource};
use crate::ui::chat;
use crate::ui::components::modal::Modal;
use crate::ui::state::AppState;
use leptos::prelude::*;

/// Where the open chat's prompt came from, in words.
pub fn origin_text(app: AppState) -> String {
    app.session.with(|s| match &s.prompt {
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

/// The dialog.
#[component]
pub fn SystemPromptDialog() -> impl IntoView {
    let app = expect_context::<AppState>();
    let text = RwSignal::new(
        app.session
            .with_untracked(|s| s.system().map(|m| m.content.clone()).unwrap_or_default()),
    );
    let error = RwSignal::new(String::new());
    view! {
        <Modal title="System prompt">
            <form on:submit=move |ev| {
                ev.prevent_default();
                if chat::is_streaming(&app) {
                    error.set("Wait for the reply to finish, or stop it, before changing the system prompt.".into());
                    return;
                }
                match app.apply(Command::SetSystem { id: new_id(), text: text.get_untracked(), at: now_ms() }) {
                    Ok(()) => app.dialog.set(None),
                    Err(e) => error.set(format!("The system prompt could not be changed: {e}.")),
                }
            }>
                <p class="hint">{origin_text(app)} " Changes apply to this chat only; the template stays as it is."</p>
                <label for="system-prompt-text">"System prompt"</label>
                <textarea id="system-prompt-text" rows="14" prop:value=move || text.get() on:input=move |ev| text.set(event_target_value(&ev))></textarea>
                <p class="form-error" role="alert" class:hidden=move || error.get().is_empty()>{move || error.get()}</p>
                <div class="dialog-actions">
                    <button type="button" on:click=move |_| app.dialog.set(None)>"Cancel"</button>
                    <button type="submit" class="primary">"Save"</button>
                </div>
            </form>
        </Modal>
    }
}
