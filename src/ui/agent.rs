//! Agent mode in the app: after each reply of a chat in agent mode, the agent module
//! (`src/bin/satori-agent.rs`) reads it, runs the tools it calls and hands back their results
//! (see [`crate::core::agent::plan`]); after a reply of a chat whose template declares an
//! `output_schema` it checks the reply against it and repairs it. The loops that store what it
//! answers are in [`crate::ui::chat`]. The tools offered with each request are added by the
//! context module.

use crate::adapters::modules::{self, Module, ModuleError};
use crate::core::session::{Message, Structured, ToolCall};
use wasm_bindgen::JsValue;

/// What the agent module's `next` made of a reply.
#[derive(serde::Deserialize)]
pub struct Next {
    /// The calls a ReAct reply's text asks for (to record on the reply), if any.
    #[serde(default)]
    pub calls: Vec<ToolCall>,
    /// The tool results to store, in order (each follows the one before, the first the reply).
    #[serde(default)]
    pub results: Vec<Message>,
    /// Why the loop ends here, for the status line (empty: it goes on, or the model answered).
    #[serde(default)]
    pub notice: String,
}

/// What the agent module's `structured` made of a reply.
#[derive(serde::Deserialize)]
pub struct Checked {
    /// The text to replace the reply's (the repaired JSON; the answer without its thoughts),
    /// `None` to keep it.
    #[serde(default)]
    pub content: Option<String>,
    /// How it matched.
    pub structured: Structured,
}

/// Call `function` of the agent module with `input` (JSON text: for `next`, `{path, agent,
/// settings}`; for `structured`, `{path, name, schema, settings, format}`) once the module is
/// there, unless `stopped()` by then; resolves to its JSON answer, `None` if stopped first.
pub async fn call(
    function: &str,
    input: &str,
    stopped: impl Fn() -> bool,
) -> Result<Option<String>, ModuleError> {
    modules::load(Module::Agent).await?;
    if stopped() {
        return Ok(None);
    }
    let promise = modules::call(Module::Agent, function, &[JsValue::from_str(input)])?;
    let v = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::from(promise))
        .await
        .map_err(|e| ModuleError::Call(crate::adapters::js::JsError::from(e).message))?;
    Ok(Some(v.as_string().unwrap_or_default()))
}
