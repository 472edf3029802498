//! The dialogs module (`src/bin/satori-dialogs.rs`) is a separate wasm module holding the
//! on-demand dialogs (Settings, Prompts, Chat setup, System prompt, export, import, share,
//! search …) with the template engine and the YAML reader. The app loads it on demand and calls
//! it with [`DialogsCall`]s; the
//! module tells the app what its dialogs did through one window event ([`DIALOG_EVENT`]), whose
//! detail is a [`DialogEvent`] ([`send`], [`received`]).

use crate::adapters::modules::{self, ModuleError};
use crate::core::protocol::{DialogEvent, DialogsCall, DIALOG_EVENT, LANGUAGE_EVENT};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Make `call` into the dialogs module (loading it first); its answer as text.
async fn call(call: DialogsCall) -> Result<String, ModuleError> {
    modules::load_and_call(call, None)
        .await
        .map(|v| v.as_string().unwrap_or_default())
}

/// Ask the module how a chat with `role` (`builtin:key` / `user:key`) and `vars` (a JSON
/// object) starts; the answer is a `core::prompts::catalog::StartAnswer` as JSON.
pub async fn start(role: &str, vars: &str) -> Result<String, ModuleError> {
    call(DialogsCall::Start {
        role: role.into(),
        vars: vars.into(),
    })
    .await
}

/// Make a summary in the module: `request` is a `SummaryRequest`, `settings` the settings in
/// use (JSON); the answer is a `SummaryAnswer` (JSON). `signal` aborts the summary calls.
pub async fn summarize(
    request: &str,
    settings: &str,
    signal: &web_sys::AbortSignal,
) -> Result<String, ModuleError> {
    let call = DialogsCall::Summarize {
        request: request.into(),
        settings: settings.into(),
    };
    let promise = modules::load_and_call(call, Some(signal)).await?;
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
    call(DialogsCall::ShowInspector {
        host: host.into(),
        reports: reports.into(),
    })
    .await
    .map(|_| ())
}

/// Remove the context inspector.
pub async fn hide_inspector() -> Result<(), ModuleError> {
    call(DialogsCall::HideInspector).await.map(|_| ())
}

/// Dispatch window event `name` with the text `detail`.
fn dispatch(name: &str, detail: &str) {
    let init = web_sys::CustomEventInit::new();
    init.set_detail(&JsValue::from_str(detail));
    if let (Some(w), Ok(ev)) = (
        web_sys::window(),
        web_sys::CustomEvent::new_with_event_init_dict(name, &init),
    ) {
        let _ = w.dispatch_event(&ev);
    }
}

/// Tell the app what a dialog did.
pub fn send(event: &DialogEvent) {
    dispatch(DIALOG_EVENT, &event.encode());
}

/// Tell the page's translator the interface language changed.
pub fn language_changed(language: &str) {
    dispatch(LANGUAGE_EVENT, language);
}

/// The dialog event a [`DIALOG_EVENT`] carries, if it holds one.
pub fn received(ev: &web_sys::Event) -> Option<DialogEvent> {
    let detail = ev.dyn_ref::<web_sys::CustomEvent>()?.detail().as_string()?;
    serde_json::from_str(&detail).ok()
}

/// Download every chat (the open one as on screen: `session`, JSON); the answer is a warning
/// about what could not be included (empty if nothing).
pub async fn export_all(session: &str) -> Result<String, ModuleError> {
    call(DialogsCall::ExportAll {
        session: session.into(),
    })
    .await
}

/// Open one of the module's dialogs (`object`: the files "Import" reads), loading the module
/// first.
pub async fn open_dialog(call: DialogsCall, object: Option<&JsValue>) -> Result<(), ModuleError> {
    modules::load_and_call(call, object).await.map(|_| ())
}
