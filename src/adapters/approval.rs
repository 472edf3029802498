//! "Allow tool call" (`approval.js`): the dialog that asks before a tool call of agent mode
//! leaves the browser, when `core::agent::trust::gate` says so.

use crate::core::agent::trust::Answer;
use wasm_bindgen::prelude::*;
use web_sys::AbortSignal;

#[wasm_bindgen(module = "/src/adapters/approval.js")]
extern "C" {
    #[wasm_bindgen(js_name = askToolCall)]
    fn ask_tool_call(
        tool: &str,
        server: &str,
        address: &str,
        why: &str,
        args: &str,
        signal: &AbortSignal,
    ) -> js_sys::Promise;
}

/// What the dialog shows.
pub struct Question<'a> {
    /// The tool's name on its server.
    pub tool: &'a str,
    /// The server's name.
    pub server: &'a str,
    /// Where it is (the origin of its URL: never the path or query, which may hold a secret).
    pub address: &'a str,
    /// Why Satori asks.
    pub why: &'a str,
    /// The arguments exactly as they would be sent (JSON).
    pub args: &'a str,
}

/// Ask `question`; Stop (`signal`) closes the dialog, answering [`Answer::Stopped`].
pub async fn ask(q: &Question<'_>, signal: &AbortSignal) -> Answer {
    let promise = ask_tool_call(q.tool, q.server, q.address, q.why, q.args, signal);
    let answer = wasm_bindgen_futures::JsFuture::from(promise).await;
    Answer::parse(&answer.ok().and_then(|a| a.as_string()).unwrap_or_default())
}
