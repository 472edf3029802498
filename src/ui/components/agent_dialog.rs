//! "Agent" for the open chat: agent mode on or off, its step limit, and the tools the model is
//! offered. It runs in the dialogs module; the app applies the answer (`DialogEvent::Agent`).

use crate::adapters::storage::Store;
use crate::core::agent::{mcp, tools};
use crate::core::session::{AgentConfig, DEFAULT_MAX_STEPS, MAX_STEPS_LIMIT};
use crate::ui::components::form::{NumberField, SaveActions};
use crate::ui::components::mcp_settings::McpEdit;
use crate::ui::components::modal::Modal;
use leptos::prelude::*;

/// The step limit typed (`None` if it is not a whole number from 1 to [`MAX_STEPS_LIMIT`]).
pub fn parse_steps(text: &str) -> Option<u32> {
    text.trim()
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=MAX_STEPS_LIMIT).contains(n))
}

/// The agent settings of the open chat.
#[component]
pub fn AgentDialog(
    /// The chat's settings now.
    agent: AgentConfig,
    /// The new settings.
    on_save: Callback<AgentConfig>,
    /// Closes the dialog.
    on_close: Callback<()>,
) -> impl IntoView {
    let on = RwSignal::new(agent.on);
    let react = RwSignal::new(agent.react);
    let steps = RwSignal::new(agent.steps().to_string());
    let error = RwSignal::new(String::new());
    // The built-in tools, then the switched-on tools of the MCP servers connected in Settings.
    let mut tools = tools::builtin();
    let servers = McpEdit::load(&Store::local()).servers;
    let remote: Vec<_> = mcp::offered(&tools, &servers)
        .into_iter()
        .map(|o| o.spec)
        .collect();
    tools.extend(remote);
    view! {
        <Modal title="Agent" on_close=on_close>
            <form on:submit=move |ev| {
                ev.prevent_default();
                match parse_steps(&steps.get_untracked()) {
                    Some(n) => on_save.run(AgentConfig {
                        on: on.get_untracked(),
                        max_steps: (n != DEFAULT_MAX_STEPS).then_some(n),
                        react: react.get_untracked(),
                    }),
                    None => error.set(format!("Max steps must be a whole number from 1 to {MAX_STEPS_LIMIT}.")),
                }
            }>
                <p class="hint">"In agent mode the model may call tools, read their results and go on until it answers — at most “Max steps” requests per message. Stop ends it at any point."</p>
                <label class="check">
                    <input type="checkbox" prop:checked=move || on.get()
                        on:change=move |ev| on.set(event_target_checked(&ev)) />
                    "Agent mode"
                </label>
                <NumberField label="Max steps" value=steps min="1" max=MAX_STEPS_LIMIT.to_string() step="1" />
                <label class="check">
                    <input type="checkbox" prop:checked=move || react.get()
                        on:change=move |ev| react.set(event_target_checked(&ev)) />
                    "Tools in the prompt (ReAct text)"
                </label>
                <p class="hint">"For servers without function calling: the tools are described in the system prompt and the model calls them in text (Action: tool(…)). Chosen by itself when a server refuses tools."</p>
                <p class="form-error" role="alert" class:hidden=move || error.get().is_empty()>{move || error.get()}</p>
                <fieldset>
                    <legend>"Tools offered"</legend>
                    <ul class="tool-list">
                        {tools.into_iter().map(|t| view! {
                            <li><code>{t.name}</code>" — "{t.description}</li>
                        }).collect_view()}
                    </ul>
                    <p class="hint">"Tools of MCP servers are added in Settings → MCP servers."</p>
                </fieldset>
                <SaveActions on_cancel=on_close />
            </form>
        </Modal>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_steps_is_a_whole_number_in_range() {
        for (text, expected) in [
            ("8", Some(8)),
            (" 12 ", Some(12)),
            ("1", Some(1)),
            ("50", Some(50)),
            ("0", None),
            ("51", None),
            ("-3", None),
            ("2.5", None),
            ("", None),
            ("eight", None),
        ] {
            assert_eq!(parse_steps(text), expected, "{text:?}");
        }
    }
}
