//! The YAML reader for user prompt templates lives in a separate wasm module
//! (`src/bin/satori-yaml.rs`), fetched the first time the user imports or saves a template.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/adapters/yaml_module.js")]
extern "C" {
    #[wasm_bindgen(js_name = loadYaml, catch)]
    async fn load_yaml() -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_name = readTemplates, catch)]
    fn read_templates(file: &str, text: &str, keep_source: bool) -> Result<String, JsValue>;
}

fn message(e: JsValue) -> String {
    js_sys::Reflect::get(&e, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

/// Load the module (once) and read templates from YAML text; the answer is the module's JSON
/// (see `satori-yaml`), decoded by `core::persist::decode_yaml_answer`.
pub async fn read(file: &str, text: &str, keep_source: bool) -> Result<String, String> {
    load_yaml().await.map_err(message)?;
    read_templates(file, text, keep_source).map_err(message)
}
