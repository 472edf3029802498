//! "Chat setup" (in the deferred dialogs module): the variables of the open, untouched chat's
//! role, with a live preview of the system prompt. "Apply" sends the values to the app, which
//! starts the chat over with them (see `crate::core::protocol::DialogEvent::Setup`).

use crate::core::prompts::{self, RoleRef, UserPrompts, Vars, What};
use crate::ui::components::chat_setup::label_of;
use crate::ui::components::form::SaveActions;
use crate::ui::components::modal::Modal;
use leptos::prelude::*;

/// The system prompt `role` renders to with `vars`.
fn preview(role: &RoleRef, user: &UserPrompts, vars: &Vars) -> Result<String, String> {
    prompts::user::render(role, What::System, vars, prompts::builtin(), user)
        .map(|r| {
            r.messages
                .into_iter()
                .next()
                .map(|m| m.content)
                .unwrap_or_default()
        })
        .map_err(|e| e.to_string())
}

/// The dialog.
#[component]
pub fn SetupDialog(
    /// The chat's role.
    role: RoleRef,
    /// Its current values.
    vars: Vars,
    /// The user templates (for user roles).
    user: UserPrompts,
    /// Apply these values.
    on_apply: Callback<Vars>,
    /// Closed.
    on_close: Callback<()>,
) -> impl IntoView {
    let template = prompts::user::find(&role, prompts::builtin(), &user).cloned();
    let values = RwSignal::new(vars);
    let Some(t) = template else {
        return view! {
            <Modal title="Chat setup" on_close=on_close>
                <p class="form-error">{crate::shell::error_text::template_gone(&role.key)}</p>
                <div class="dialog-actions"><button type="button" on:click=move |_| on_close.run(())>"Close"</button></div>
            </Modal>
        }
        .into_any();
    };
    let fields = t
        .variables
        .iter()
        .map(|v| {
            let id = format!("setup-{}", v.name);
            let hint = format!("{id}-hint");
            let name = v.name.clone();
            let current = values.with_untracked(|m| m.get(&v.name).cloned().or(v.default.clone()).unwrap_or_default());
            let set = move |ev| {
                let value = event_target_value(&ev);
                values.update(|m| {
                    m.insert(name.clone(), value);
                });
            };
            let control = if v.options.is_empty() {
                view! { <input id=id.clone() type="text" aria-describedby=hint.clone() prop:value=current on:input=set /> }.into_any()
            } else {
                let options = v
                    .options
                    .iter()
                    .map(|o| view! { <option value=o.clone() selected=*o == current>{o.clone()}</option> })
                    .collect_view();
                view! { <select id=id.clone() aria-describedby=hint.clone() on:change=set>{options}</select> }.into_any()
            };
            view! {
                <div class="setup-field">
                    <label for=id>{label_of(&v.name)}</label>
                    {control}
                    <span class="hint" id=hint>{v.description.clone()}</span>
                </div>
            }
        })
        .collect_view();
    let role2 = role.clone();
    let shown = move || values.with(|v| preview(&role2, &user, v));
    view! {
        <Modal title="Chat setup" on_close=on_close>
            <p class="hint">{format!("{} — {}", t.key, t.description)}</p>
            <form on:submit=move |ev| {
                ev.prevent_default();
                on_apply.run(values.get_untracked());
            }>
                {fields}
                <h3>"System prompt preview"</h3>
                {move || match shown() {
                    Ok(text) => view! { <pre class="prompt-preview" translate="no">{text}</pre> }.into_any(),
                    Err(e) => view! { <p class="form-error">{e}</p> }.into_any(),
                }}
                <SaveActions on_cancel=on_close label="Apply" />
            </form>
        </Modal>
    }
    .into_any()
}
