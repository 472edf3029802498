//! One way to load a lazy wasm module and call into it, with typed errors.
//!
//! The modules are listed in `scripts/modules.txt` (name, output folder prefix, bin); the build
//! names each in the page (`<meta name="satori-module:NAME">`) and `modules.js` imports it from
//! the app's own origin the first time it is needed. Adding a module is a bin in `Cargo.toml`, a
//! line in that manifest and a variant of [`Module`].
//!
//! What is called is a variant of one enum per module (`core::protocol`: [`Call`]), never a
//! function named by a string here.
//!
//! Boundaries: a module that shows UI carries its own copy of the Leptos runtime, so on-demand
//! dialogs share one module (`dialogs`); UI-free compute (the markdown renderer, each turn's
//! request and reply) goes into modules without Leptos.

use crate::adapters::js::JsError;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/adapters/modules.js")]
extern "C" {
    #[wasm_bindgen(js_name = loadModule, catch)]
    async fn load_module(name: &str) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = isLoaded)]
    fn is_loaded(name: &str) -> bool;
    #[wasm_bindgen(js_name = callModule, catch)]
    fn call_module(name: &str, function: &str, args: &js_sys::Array) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = localFetch)]
    fn local_fetch_js(request: &web_sys::Request) -> js_sys::Promise;
    #[wasm_bindgen(js_name = localModel, catch)]
    async fn local_model_js(action: &str, file: Option<web_sys::File>) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = callModuleWithin, catch)]
    async fn call_module_within(
        name: &str,
        function: &str,
        args: &js_sys::Array,
        signal: &web_sys::AbortSignal,
        ms: u32,
    ) -> Result<JsValue, JsValue>;
}

/// The in-browser model's answer to `request` (a `Response` promise), from `src/web/llm-local.js`,
/// loaded when first asked.
pub fn local_fetch(request: &web_sys::Request) -> js_sys::Promise {
    local_fetch_js(request)
}

/// The in-browser model's file picked from disk: `"which"` is in use, `"pick"` `file` in place of
/// the built-in model, or `"forget"` it. The file in use as JSON (`src/web/llm-local.js`
/// `modelFile`), `None` for the built-in model, or why the file cannot be used.
pub async fn local_model(
    action: &str,
    file: Option<web_sys::File>,
) -> Result<Option<String>, String> {
    local_model_js(action, file)
        .await
        .map(|v| v.as_string())
        .map_err(|e| JsError::from(e).message)
}

pub use crate::core::protocol::{Call, Module};

/// Why a module call failed. Displayed as what the module did ("could not be loaded (…)"), to
/// follow the module's name in a sentence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModuleError {
    /// The module could not be fetched or started.
    #[error("could not be loaded ({0})")]
    Load(String),
    /// A call came before the module was loaded.
    #[error("is not loaded yet")]
    NotLoaded,
    /// The module's function threw, or did not answer in time.
    #[error("failed ({0})")]
    Call(String),
    /// The caller gave up waiting (Stop).
    #[error("was stopped")]
    Aborted,
}

impl ModuleError {
    /// What the browser or the module said, if anything.
    pub fn detail(&self) -> &str {
        match self {
            ModuleError::Load(d) | ModuleError::Call(d) => d,
            ModuleError::NotLoaded | ModuleError::Aborted => "",
        }
    }
}

/// Load `module` (once; a failed load is tried again on the next call).
pub async fn load(module: Module) -> Result<(), ModuleError> {
    load_module(module.name())
        .await
        .map(|_| ())
        .map_err(|e| ModuleError::Load(JsError::from(e).message))
}

/// Whether `module` has loaded.
pub fn loaded(module: Module) -> bool {
    is_loaded(module.name())
}

/// A call's module, function and arguments as the module's function takes them: its texts, then
/// `object` (the browser object it takes, if any). Generic only here, so each caller's code is
/// one line.
fn parts<C: Call>(call: C, object: Option<&JsValue>) -> (Module, &'static str, js_sys::Array) {
    let function = call.function();
    let array: js_sys::Array = call
        .args()
        .into_iter()
        .flatten()
        .map(JsValue::from_str)
        .collect();
    if let Some(o) = object {
        array.push(o);
    }
    (C::MODULE, function, array)
}

/// Make `call` into a loaded module (`object`: the browser object the function takes, if any).
pub fn call<C: Call>(call: C, object: Option<&JsValue>) -> Result<JsValue, ModuleError> {
    let (module, function, args) = parts(call, object);
    call_parts(module, function, &args)
}

fn call_parts(
    module: Module,
    function: &str,
    args: &js_sys::Array,
) -> Result<JsValue, ModuleError> {
    if !loaded(module) {
        return Err(ModuleError::NotLoaded);
    }
    call_module(module.name(), function, args)
        .map_err(|e| ModuleError::Call(JsError::from(e).message))
}

/// Load the module if needed, then make `call`.
pub fn load_and_call<C: Call>(
    call: C,
    object: Option<&JsValue>,
) -> impl std::future::Future<Output = Result<JsValue, ModuleError>> {
    let (module, function, args) = parts(call, object);
    load_and_call_parts(module, function, args)
}

async fn load_and_call_parts(
    module: Module,
    function: &'static str,
    args: js_sys::Array,
) -> Result<JsValue, ModuleError> {
    load(module).await?;
    call_parts(module, function, &args)
}

/// Load the module if needed, make the async `call` and await the answer — giving up when
/// `signal` aborts ([`ModuleError::Aborted`]) or after `ms` milliseconds, whatever the module does.
pub fn call_within<C: Call>(
    call: C,
    signal: &web_sys::AbortSignal,
    ms: u32,
) -> impl std::future::Future<Output = Result<JsValue, ModuleError>> + '_ {
    let (module, function, args) = parts(call, None);
    call_within_parts(module, function, args, signal, ms)
}

/// Load `module` if needed, giving up when `signal` aborts ([`ModuleError::Aborted`]) or after
/// `ms` milliseconds.
pub fn load_within(
    module: Module,
    signal: &web_sys::AbortSignal,
    ms: u32,
) -> impl std::future::Future<Output = Result<JsValue, ModuleError>> + '_ {
    call_within_parts(module, "", js_sys::Array::new(), signal, ms)
}

async fn call_within_parts(
    module: Module,
    function: &'static str,
    args: js_sys::Array,
    signal: &web_sys::AbortSignal,
    ms: u32,
) -> Result<JsValue, ModuleError> {
    call_module_within(module.name(), function, &args, signal, ms)
        .await
        .map_err(|e| {
            let e = JsError::from(e);
            match e.name.as_str() {
                "AbortError" => ModuleError::Aborted,
                "ModuleLoadError" => ModuleError::Load(e.message),
                _ => ModuleError::Call(e.message),
            }
        })
}
