//! "Chat setup": before the first message, the role's variables (e.g. the reply language) can
//! be set; each change starts the untouched chat over so its system prompt shows the result.

use crate::core::prompts::{self, RoleRef, Vars};
use crate::ui::chat;
use crate::ui::state::{start_check, AppState};
use leptos::prelude::*;

/// `reply_language` → "Reply language".
pub fn label_of(name: &str) -> String {
    let words = name.replace('_', " ");
    let mut chars = words.trim().chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// The setup panel (shown only for an untouched chat whose role has variables).
#[component]
pub fn ChatSetup() -> impl IntoView {
    let app = expect_context::<AppState>();
    let origin = move || {
        app.session
            .with(|s| if s.started() { None } else { s.prompt.clone() })
    };
    let template = move || {
        origin().and_then(|o| {
            let role = RoleRef {
                source: o.source,
                key: o.key.clone(),
            };
            app.prompts
                .with(|p| prompts::user::find(&role, prompts::builtin(), p).cloned())
                .map(|t| (role, o.vars, t))
        })
    };
    move || {
        let (role, vars, t) = template()?;
        if t.variables.is_empty() {
            return None;
        }
        let problem = app
            .prompts
            .with(|p| start_check(&role, &vars, p).err())
            .map(|e| format!("This role cannot start yet: {e}."));
        let fields = t
            .variables
            .iter()
            .map(|v| {
                let id = format!("var-{}", v.name);
                let hint_id = format!("{id}-hint");
                let name = v.name.clone();
                let value = vars.get(&v.name).cloned().unwrap_or_default();
                let (role, vars) = (role.clone(), vars.clone());
                let set = move |new: String| {
                    if chat::is_streaming(&app) {
                        return;
                    }
                    let mut vars: Vars = vars.clone();
                    vars.insert(name.clone(), new);
                    app.restart(&role, &vars);
                };
                let control = if v.options.is_empty() {
                    view! {
                        <input id=id.clone() type="text" aria-describedby=hint_id.clone() prop:value=value on:change=move |ev| set(event_target_value(&ev)) />
                    }
                    .into_any()
                } else {
                    let options = v
                        .options
                        .iter()
                        .map(|o| view! { <option value=o.clone() selected=*o == value>{o.clone()}</option> })
                        .collect_view();
                    view! {
                        <select id=id.clone() aria-describedby=hint_id.clone() on:change=move |ev| set(event_target_value(&ev))>{options}</select>
                    }
                    .into_any()
                };
                view! {
                    <div class="setup-field">
                        <label for=id>{label_of(&v.name)}</label>
                        {control}
                        <span class="hint" id=hint_id>{v.description.clone()}</span>
                    </div>
                }
            })
            .collect_view();
        Some(view! {
            <section class="chat-setup" aria-label="Chat setup">
                <p class="setup-role">
                    <strong>{t.key.clone()}</strong>
                    " — "
                    {t.description.clone()}
                </p>
                <div class="setup-fields">{fields}</div>
                {problem.map(|p| view! { <p class="form-error">{p}</p> })}
            </section>
        })
    }
}
