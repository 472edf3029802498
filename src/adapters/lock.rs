//! One holder at a time across this site's tabs (`lock.js`, the Web Locks API): sync's passes,
//! so two tabs never run one over the same stored state.

use crate::adapters::js::JsError;
use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/adapters/lock.js")]
extern "C" {
    #[wasm_bindgen(js_name = exclusive, catch)]
    async fn exclusive_js(
        name: &str,
        work: &js_sys::Function,
        signal: Option<&web_sys::AbortSignal>,
    ) -> Result<JsValue, JsValue>;
}

/// Run `work` holding lock `name` (waiting for another tab's holder to finish first; `signal`
/// gives up waiting). An error when the browser refused the lock or the wait was given up (then
/// `work` did not run to its end).
pub async fn exclusive<T: 'static>(
    name: &str,
    work: impl Future<Output = T> + 'static,
    signal: Option<&web_sys::AbortSignal>,
) -> Result<T, String> {
    let out: Rc<RefCell<Option<T>>> = Rc::new(RefCell::new(None));
    let slot = out.clone();
    let mut work = Some(work);
    let run = Closure::<dyn FnMut() -> js_sys::Promise>::new(move || {
        let slot = slot.clone();
        let work = work.take();
        wasm_bindgen_futures::future_to_promise(async move {
            if let Some(work) = work {
                *slot.borrow_mut() = Some(work.await);
            }
            Ok(JsValue::UNDEFINED)
        })
    });
    let held = exclusive_js(name, run.as_ref().unchecked_ref(), signal).await;
    drop(run);
    held.map_err(|e| JsError::from(e).message)?;
    let taken = out.borrow_mut().take();
    taken.ok_or_else(|| "the lock was released before the work ended".to_string())
}
