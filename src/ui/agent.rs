//! Agent mode in the app: after each reply of a chat in agent mode, the agent module
//! (`src/bin/satori-agent.rs`) reads it, runs the tools it calls and hands back their results
//! (see [`crate::core::agent::plan`]); after a reply of a chat whose template declares an
//! `output_schema` it checks the reply against it and repairs it. The loops that store what it
//! answers are in [`crate::ui::chat`]. The tools offered with each request are added by the
//! turns module.

use crate::adapters::modules::{self, Module, ModuleError};
use crate::core::protocol::AgentCall;
use crate::core::session::{Message, Structured, ToolCall};

/// What the agent module made of a reply: for `next`, the calls and tool results to store and
/// why the loop ends, if it does; for `structured`, how the reply matched its schema.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
pub struct After {
    /// The calls a ReAct reply's text asks for (to record on the reply), if any.
    pub calls: Vec<ToolCall>,
    /// The tool results to store, in order (each follows the one before, the first the reply).
    pub results: Vec<Message>,
    /// Why the loop ends here, for the status line (empty: it goes on, or the model answered).
    pub notice: String,
    /// The text to replace the reply's (the repaired JSON; the answer without its thoughts),
    /// `None` to keep it.
    pub content: Option<String>,
    /// How the reply matched its schema.
    pub structured: Option<Structured>,
}

/// Make `call` (`next` with `{path, agent, settings, foreign}` as JSON, or `structured` with `{path, name,
/// schema, settings, format}`) once the agent module is there, unless `stopped()` by then;
/// resolves to its JSON answer, `None` if stopped first.
pub async fn call(
    call: AgentCall,
    stopped: impl Fn() -> bool,
) -> Result<Option<String>, ModuleError> {
    modules::load(Module::Agent).await?;
    if stopped() {
        return Ok(None);
    }
    let promise = modules::call(call, None)?;
    let v = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::from(promise))
        .await
        .map_err(|e| ModuleError::Call(crate::adapters::js::JsError::from(e).message))?;
    Ok(Some(v.as_string().unwrap_or_default()))
}
