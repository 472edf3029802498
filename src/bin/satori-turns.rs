//! The turns module: each turn's request and reply — the context pipeline (`satori::core::context`)
//! with the shell around it (`satori::shell::context`: server probes, token counts, the
//! estimator's corrections, reports), the request sent and its stream read
//! (`satori::shell::turn`) — as a wasm module of its own without Leptos. The app loads it when
//! the user starts typing (or when a request is built), so none of it is on the first-load path.
//! Its state (counts, corrections, windows learned, the turns running) lives for the page.
//! `scripts/build.sh` builds it into `dist/turns-<hash>/`; `satori::ui::context` and
//! `satori::ui::chat` call it with `TurnsCall`s.

use satori::core::context::ask::Ask;
use satori::core::context::summary::SummaryRequest;
use satori::core::settings::Settings;
use satori::shell::context as context_shell;
use std::cell::RefCell;
use std::collections::VecDeque;
use wasm_bindgen::prelude::wasm_bindgen;

thread_local! {
    // Why a static: a wasm module's exported functions share no value but module state.
    /// The summaries due that the app may ask for (the newest few): each request, under its id,
    /// with the settings of the request it comes before.
    static DUE: RefCell<VecDeque<(SummaryRequest, Settings)>> = const { RefCell::new(VecDeque::new()) };
}

/// How many summaries due are kept for the app to ask for.
const DUE_KEPT: usize = 4;

/// Build the request `ask` (an `Ask` as JSON) describes; resolves to an `Answer` as JSON.
#[wasm_bindgen]
pub async fn prepare(ask: String) -> Result<String, String> {
    let ask: Ask = serde_json::from_str(&ask).map_err(|e| format!("bad request: {e}"))?;
    // Agent mode: the tools come from the agent module.
    let tools = match ask.agent.on {
        true => Some(
            offered()
                .await
                .map_err(|e| format!("found no tools: the agent module {e}"))?,
        ),
        false => None,
    };
    let settings = ask.settings.clone();
    // Summaries wait (the app says why), and the inspector only shows that one is due.
    let keep = !ask.inspect && !ask.summaries_paused;
    let mut answer = context_shell::answer(ask, tools).await;
    satori::shell::compact::after_request();
    if let Some(mut request) = answer.summary.take() {
        request.id = satori::adapters::clock::new_id();
        request.at = satori::adapters::clock::now_ms();
        answer.summary_due = Some(request.id.clone());
        if keep && !answer.need_full {
            DUE.with_borrow_mut(|due| {
                due.push_back((request, settings));
                while due.len() > DUE_KEPT {
                    due.pop_front();
                }
            });
        }
    }
    serde_json::to_string(&answer).map_err(|e| e.to_string())
}

/// Make the summary due under `id` (an `Answer`'s `summary_due`) in the on-demand dialogs module
/// (it holds the summarizer template, the fact guard and the summary calls; see
/// `satori::shell::summarize`); `signal` (Stop) aborts it. Resolves to a `SummaryAnswer` as JSON.
#[wasm_bindgen]
pub async fn summarize(id: String, signal: web_sys::AbortSignal) -> Result<String, String> {
    let due = DUE.with_borrow_mut(|due| {
        let at = due.iter().position(|(r, _)| r.id == id)?;
        due.remove(at)
    });
    let Some((request, settings)) = due else {
        return Err("the summary asked for is not due any more".into());
    };
    let request = serde_json::to_string(&request).map_err(|e| e.to_string())?;
    let settings = serde_json::to_string(&settings).map_err(|e| e.to_string())?;
    satori::adapters::dialogs_module::summarize(&request, &settings, &signal)
        .await
        .map_err(|e| satori::shell::error_text::module_problem(&e))
}

/// Send the request `ask` describes (a `TurnAsk` as JSON) and read the reply, telling
/// `on_event(name, a, b)` what arrives (a `TurnEvent`'s parts, see `satori::shell::turn`); resolves to the
/// `Outcome` as JSON.
#[wasm_bindgen]
pub async fn turn(ask: String, on_event: js_sys::Function) -> Result<String, String> {
    let ask: satori::shell::turn::TurnAsk =
        serde_json::from_str(&ask).map_err(|e| format!("bad request: {e}"))?;
    let outcome = satori::shell::turn::run(ask, on_event).await;
    serde_json::to_string(&outcome).map_err(|e| e.to_string())
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

/// The tools the agent module offers, loading it first.
async fn offered() -> Result<serde_json::Value, satori::adapters::modules::ModuleError> {
    use satori::adapters::modules::{load_and_call, ModuleError};
    let v = load_and_call(satori::core::protocol::AgentCall::Offered, None).await?;
    serde_json::from_str(&v.as_string().unwrap_or_default())
        .map_err(|e| ModuleError::Call(e.to_string()))
}

/// Storage is full: pack every chat record but the open one (`open`, this tab's) now (see
/// `satori::shell::compact`); resolves to how many were packed.
#[wasm_bindgen]
pub async fn pack_now(open: String) -> Result<u32, String> {
    satori::shell::compact::pack_resting(0, Some(&open))
        .await
        .map(|n| n as u32)
}
