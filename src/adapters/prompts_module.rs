//! The prompts module (`src/bin/satori-prompts.rs`) is a separate wasm module holding the
//! template engine, the YAML reader and the on-demand dialogs (Prompts, Chat setup, System
//! prompt, Settings). The app loads it on demand and
//! talks to it through these calls and through window events:
//! - [`EVENT_CHANGED`]: the user templates record was saved (detail: empty),
//! - [`EVENT_USE`]: "Use in new chat" (detail: a `RoleRef` as `builtin:key` / `user:key`),
//! - [`EVENT_SETUP`]: "Chat setup" applied (detail: `{"role": "builtin:key", "vars": {…}}`),
//! - [`EVENT_SYSTEM`]: "System prompt" saved (detail: the new text),
//! - [`EVENT_SETTINGS`]: "Settings" saved (detail: what to apply, `SettingsSaved` as JSON),
//! - [`EVENT_CLOSED`]: a dialog closed,
//! - [`EVENT_SUMMARY`]: a summary edited in the context inspector (detail: `{"id", "text"}`),
//! - [`EVENT_CHAT_CONTEXT`]: the chat's context settings saved in the inspector (detail:
//!   `ContextOverrides`),
//! - [`EVENT_IMPORTED`]: an import (or its undo) changed the stored chats (detail: empty),
//! - [`EVENT_RENAME`]: "Rename chat" saved (detail: `{"id", "title"}`),
//! - [`EVENT_OPEN_AT`]: "Search chats" chose a result (detail: `{"id", "message"}`),
//! - [`EVENT_DELETE`]: "Delete chat" confirmed (detail: the chat's id),
//! - [`EVENT_AGENT`]: "Agent" saved (detail: `{"id", "agent"}`, the chat and its `AgentConfig`).

use crate::adapters::modules::{self, Module, ModuleError};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The user templates changed.
pub const EVENT_CHANGED: &str = "satori:prompts-changed";
/// The chat's agent settings were saved in "Agent".
pub const EVENT_AGENT: &str = "satori:chat-agent";
/// The chat's context settings were saved in the context inspector.
pub const EVENT_CHAT_CONTEXT: &str = "satori:chat-context";
/// A summary was edited in the context inspector.
pub const EVENT_SUMMARY: &str = "satori:summary-edit";
/// Start a new chat with a role.
pub const EVENT_USE: &str = "satori:prompts-use";
/// "Chat setup" was applied.
pub const EVENT_SETUP: &str = "satori:prompts-setup";
/// The open chat's system prompt was saved in the "System prompt" dialog.
pub const EVENT_SYSTEM: &str = "satori:prompts-system";
/// A dialog of the module closed.
pub const EVENT_CLOSED: &str = "satori:prompts-closed";
/// "Settings" saved (detail: a `core::key_binding::SettingsSaved` as JSON).
pub const EVENT_SETTINGS: &str = "satori:settings-saved";
/// An import (or "Undo import") changed the stored chats.
pub const EVENT_IMPORTED: &str = "satori:chats-imported";
/// "Rename chat" saved (detail: `{"id": chat id, "title": new title}`).
pub const EVENT_RENAME: &str = "satori:chat-rename";
/// "Search chats" chose a result: open a chat there (detail: `{"id", "message"}`, `message` may
/// be null).
pub const EVENT_OPEN_AT: &str = "satori:chat-open-at";
/// "Delete chat" confirmed (detail: the chat's id).
pub const EVENT_DELETE: &str = "satori:chat-delete";

/// Call `function` of the prompts module (loading it first) with string arguments.
async fn call(function: &str, args: &[&str]) -> Result<JsValue, ModuleError> {
    let args: Vec<JsValue> = args.iter().map(|a| JsValue::from_str(a)).collect();
    modules::load_and_call(Module::Prompts, function, &args).await
}

/// Ask the module how a chat with `role` (`builtin:key` / `user:key`) and `vars` (a JSON
/// object) starts; the answer is a `core::prompts::catalog::StartAnswer` as JSON.
pub async fn start(role: &str, vars: &str) -> Result<String, ModuleError> {
    call("start", &[role, vars])
        .await
        .map(|v| v.as_string().unwrap_or_default())
}

/// Make a summary in the module: `request` is a `SummaryRequest`, `settings` the settings in
/// use (JSON); the answer is a `SummaryAnswer` (JSON). `signal` aborts the summary calls.
pub async fn summarize(
    request: &str,
    settings: &str,
    signal: &web_sys::AbortSignal,
) -> Result<String, ModuleError> {
    let args = [
        JsValue::from_str(request),
        JsValue::from_str(settings),
        JsValue::from(signal.clone()),
    ];
    let promise = modules::load_and_call(Module::Prompts, "summarize", &args).await?;
    let promise: js_sys::Promise = promise
        .dyn_into()
        .map_err(|_| ModuleError::Call("summarize did not answer with a promise".into()))?;
    wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map(|v| v.as_string().unwrap_or_default())
        .map_err(|e| ModuleError::Call(crate::adapters::js::JsError::from(&e).message))
}

/// Show (or update) the context inspector in the element with id `host`, with `reports` (JSON).
pub async fn show_inspector(host: &str, reports: &str) -> Result<(), ModuleError> {
    call("show_inspector", &[host, reports]).await.map(|_| ())
}

/// Remove the context inspector.
pub async fn hide_inspector() -> Result<(), ModuleError> {
    call("hide_inspector", &[]).await.map(|_| ())
}

/// Dispatch one of the events above on `window` (used by the module).
pub fn notify(name: &str, detail: &str) {
    let init = web_sys::CustomEventInit::new();
    init.set_detail(&JsValue::from_str(detail));
    if let (Some(w), Ok(ev)) = (
        web_sys::window(),
        web_sys::CustomEvent::new_with_event_init_dict(name, &init),
    ) {
        let _ = w.dispatch_event(&ev);
    }
}

/// The detail string of an event sent with [`notify`].
pub fn detail(ev: &web_sys::Event) -> String {
    ev.dyn_ref::<web_sys::CustomEvent>()
        .and_then(|c| c.detail().as_string())
        .unwrap_or_default()
}

/// Download every chat (the open one as on screen: `session`, JSON); the answer is a warning
/// about what could not be included (empty if nothing).
pub async fn export_all(session: &str) -> Result<String, ModuleError> {
    call("export_all", &[session])
        .await
        .map(|v| v.as_string().unwrap_or_default())
}

/// Open one of the module's dialogs: call its `function` (`open_manager`, `open_setup`,
/// `open_settings`, `open_system`, `open_export`, `open_share`, `open_shared`, `open_import`,
/// `open_search`, `open_rename`, `open_agent`, `open_delete`; see `src/bin/satori-prompts.rs`)
/// with `args`, loading the module first.
pub async fn open_dialog(function: &str, args: &[JsValue]) -> Result<(), ModuleError> {
    modules::load_and_call(Module::Prompts, function, args)
        .await
        .map(|_| ())
}
