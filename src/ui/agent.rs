//! Agent mode in the app: after each reply of a chat in agent mode, the agent module
//! (`src/bin/satori-agent.rs`) reads it, runs the tools it calls and hands back their results
//! (see [`crate::core::agent::plan`]); the loop that stores them and asks again is in
//! [`crate::ui::chat`]. The tools offered with each request are added by the context module.

use crate::adapters::modules::{self, Module, ModuleError};
use crate::core::session::{Message, ToolCall};
use wasm_bindgen::JsValue;

/// What the agent module made of a reply.
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

/// Hand the reply at the end of `input` (`{"path": [messages], "agent": AgentConfig,
/// "settings": Settings}`) to the agent module, which resolves once the tools have run.
pub async fn next(input: &str) -> Result<Next, ModuleError> {
    let promise =
        modules::load_and_call(Module::Agent, "next", &[JsValue::from_str(input)]).await?;
    let v = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::from(promise))
        .await
        .map_err(|e| ModuleError::Call(crate::adapters::js::JsError::from(e).message))?;
    serde_json::from_str(&v.as_string().unwrap_or_default())
        .map_err(|e| ModuleError::Call(e.to_string()))
}
