//! The import worker (`src/web/import-worker.js` running `src/bin/satori-import.rs`, named by the
//! build in `<meta name="satori-module:import">`): started with what was picked ([`Picked`]: one
//! file, an export's `.zip`, or its parts), it reads, unpacks, parses and converts it off the
//! page's thread and posts [`ImportEvent`]s as it goes. Ended when its [`ImportWorker`] is dropped
//! (the dialog closed, or the end arrived).

use crate::adapters::js::JsError;
use crate::core::protocol::ImportEvent;
use wasm_bindgen::prelude::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// What the worker reads.
pub enum Picked {
    /// One file (a list of conversations is cut as it arrives; anything else read whole).
    One(web_sys::File),
    /// An export's `.zip`.
    Zip(web_sys::File),
    /// The parts of an export picked together (with any other files picked with them).
    Parts(Vec<web_sys::File>),
}

impl Picked {
    /// The message that starts the worker: the file, `{zip: file}` or `{parts: [files]}`.
    fn message(&self) -> Result<JsValue, String> {
        let (key, value): (&str, JsValue) = match self {
            Picked::One(file) => return Ok(file.clone().into()),
            Picked::Zip(file) => ("zip", file.clone().into()),
            Picked::Parts(files) => ("parts", files.iter().collect::<js_sys::Array>().into()),
        };
        let message = js_sys::Object::new();
        js_sys::Reflect::set(&message, &key.into(), &value).map_err(js)?;
        Ok(message.into())
    }
}

/// A running import worker; dropping it ends the worker.
pub struct ImportWorker {
    worker: web_sys::Worker,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::ErrorEvent)>,
}

impl Drop for ImportWorker {
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

fn js(e: JsValue) -> String {
    JsError::from(e).message
}

/// Start the worker on `picked`: `on_event` gets each event, or why the worker failed (it could
/// not start or load its module, a trap, the file could not be read). The error says why it did
/// not start (not named in the page, no module workers).
pub fn start(
    picked: &Picked,
    on_event: impl FnMut(Result<ImportEvent, String>) + 'static,
) -> Result<ImportWorker, String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let href = document
        .query_selector("meta[name=\"satori-module:import\"]")
        .ok()
        .flatten()
        .and_then(|m| m.get_attribute("content"))
        .ok_or("this copy of Satori was built without the import worker")?;
    let base = document.base_uri().ok().flatten().unwrap_or_default();
    let url = web_sys::Url::new_with_base(&href, &base)
        .map_err(js)?
        .href();
    let options = web_sys::WorkerOptions::new();
    options.set_type(web_sys::WorkerType::Module);
    let worker = web_sys::Worker::new_with_options(&url, &options).map_err(js)?;
    let events: std::rc::Rc<std::cell::RefCell<OnEvent>> =
        std::rc::Rc::new(std::cell::RefCell::new(Box::new(on_event)));
    let to_message = events.clone();
    let on_message =
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |m: web_sys::MessageEvent| {
            let data = m.data();
            let event = match data.as_string() {
                Some(text) => ImportEvent::decode(&text),
                None => Err(js_sys::Reflect::get(&data, &"error".into())
                    .ok()
                    .and_then(|e| e.as_string())
                    .unwrap_or_else(|| "the import worker sent something unreadable".into())),
            };
            (to_message.borrow_mut())(event);
        });
    let on_error = Closure::<dyn FnMut(web_sys::ErrorEvent)>::new(move |e: web_sys::ErrorEvent| {
        e.prevent_default();
        let message = e.message();
        (events.borrow_mut())(Err(if message.is_empty() {
            "the import worker could not run".into()
        } else {
            message
        }));
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    worker.post_message(&picked.message()?).map_err(js)?;
    Ok(ImportWorker {
        worker,
        _on_message: on_message,
        _on_error: on_error,
    })
}

type OnEvent = Box<dyn FnMut(Result<ImportEvent, String>)>;
