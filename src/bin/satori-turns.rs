//! The turns module: each turn, from its request to its reply — the context pipeline
//! (`satori::core::context`) with the shell around it (`satori::shell::context`: server probes,
//! token counts, the estimator's corrections, reports; `satori::shell::request`: summaries made
//! first, the verdict), the request sent and its stream read (`satori::shell::turn`) — as a wasm
//! module of its own without Leptos. The app loads it when
//! the user starts typing (or when a request is built), so none of it is on the first-load path.
//! Its state (counts, corrections, windows learned, the turns running) lives for the page.
//! `scripts/build.sh` builds it into `dist/turns-<hash>/`; `satori::ui::context` and
//! `satori::ui::chat` call it with `TurnsCall`s.

use satori::core::context::ask::Ask;
use wasm_bindgen::prelude::wasm_bindgen;

/// Run the turn `ask` describes (a `RunAsk` as JSON): its request built, sent and its reply
/// read, telling `on_event(name, a, b)` what happens (a `TurnEvent`'s parts, see
/// `satori::shell::turn`); resolves to a `RunEnd` as JSON.
#[wasm_bindgen]
pub async fn run(ask: String, on_event: js_sys::Function) -> Result<String, String> {
    let ask: satori::shell::turn::RunAsk =
        serde_json::from_str(&ask).map_err(|e| format!("bad request: {e}"))?;
    let end = satori::shell::turn::run(ask, on_event).await;
    serde_json::to_string(&end).map_err(|e| e.to_string())
}

/// The inspector's reports for chat `session`: the next request `ask` (an `Ask` as JSON)
/// describes, then the requests sent in the chat, newest first; resolves to a JSON array.
#[wasm_bindgen]
pub async fn inspect(session: String, ask: String) -> Result<String, String> {
    let ask: Ask = serde_json::from_str(&ask).map_err(|e| format!("bad request: {e}"))?;
    satori::shell::request::inspect(&session, ask).await
}

/// Stop the turn writing reply `reply` (the partial text is kept).
#[wasm_bindgen]
pub fn stop_turn(reply: &str) {
    satori::shell::turn::stop(reply);
}

/// Runs when the module arrives (the user started typing, or a request is built): once per page,
/// after the app is up, the part records that no head has named for a minute are swept away
/// (`Store::sweep_parts`).
fn main() {
    sweep(Vec::new());
}

/// One look for part records no head names; when storage is too full to keep the note, the
/// page keeps it and looks again a minute later (the leftovers may be what fills it).
fn sweep(held: Vec<satori::core::persist::Unnamed>) {
    let store = satori::adapters::storage::Store::local();
    match store.sweep_parts(satori::adapters::clock::now_ms(), held) {
        Ok(swept) if !swept.unstored.is_empty() => {
            let after = satori::core::persist::SWEEP_AFTER_MS as u32 + 1_000;
            gloo_timers::callback::Timeout::new(after, move || sweep(swept.unstored)).forget();
        }
        Ok(_) => {}
        Err(e) => web_sys::console::warn_1(
            &format!("Satori: stored chat parts could not be swept ({e}).").into(),
        ),
    }
}

/// Storage is full: pack every chat record but the open one (`open`, this tab's) now (see
/// `satori::shell::compact`); resolves to how many were packed.
#[wasm_bindgen]
pub async fn pack_now(open: String) -> Result<u32, String> {
    satori::shell::compact::pack_resting(0, Some(&open))
        .await
        .map(|n| n as u32)
}
