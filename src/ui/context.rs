//! Turns and the inspector, from the app's side: each turn runs in the lazy turns module
//! ([`crate::shell::turn`]: the request built, a summary made first when due, sent and read);
//! this file builds what it is asked ([`ask_of`]), loads the module, leaves out the text of a
//! long chat's old messages that the chat's last request did not need, and asks it for the
//! inspector's reports.

use crate::adapters::modules::{self, Module, ModuleError};
use crate::core::context::ask::{self, Ask, ReportAsk};
use crate::core::protocol::TurnsCall;
use crate::core::session::{Message, Role, Session, Summary};
use crate::core::settings::Settings;
use crate::shell::turn::{RunAsk, RunEnd};
use crate::ui::state::AppState;
use std::cell::RefCell;
use std::collections::VecDeque;

thread_local! {
    // Why a static: what the app remembers of its requests per chat outlives each turn (a
    // chat is left and comes back).
    /// Per chat (the last few): the oldest message whose text its last request needed, so the
    /// next one sends the module only the text it can need ([`run`]).
    static HORIZON: RefCell<VecDeque<(String, String)>> = const { RefCell::new(VecDeque::new()) };
}

/// Start loading the turns module (when the user types), so the first send does not wait for
/// it; with the in-browser model (`base_url`), also its weights, if they are stored already
/// (`src/web/llm-local.js` answers `GET {base}/warm` once per worker, so a worker started anew
/// is warmed too; it never downloads for this).
pub fn warm(base_url: &str) {
    if !modules::loaded(Module::Turns) {
        leptos::task::spawn_local(async {
            let _ = modules::load(Module::Turns).await;
        });
    }
    if crate::core::settings::in_browser(base_url) {
        if let Ok(request) = web_sys::Request::new_with_str(&format!("{base_url}/warm")) {
            let _ = modules::local_fetch(&request);
        }
    }
}

/// How long the turns module may take to load, and to answer the inspector, ms: a module that
/// never answers must not hold the chat.
pub const MODULE_TIMEOUT_MS: u32 = 60_000;

/// Messages before the last request's horizon that still go to the module whole: a request
/// reaches a little further back when a reply is shorter or a setting changes.
const HORIZON_SLACK: usize = 64;

/// Run turn `run` in the turns module (loading it first, given up on `signal` — Stop — or after
/// [`MODULE_TIMEOUT_MS`]); `on_event` hears what happens. The module gets the text of the
/// messages from a little before the oldest one the chat's last request needed
/// ([`ask::elide`]), so a send in a long chat does not copy its whole history; when the request
/// reaches further back after all, the turn runs again with the whole history (and the summary
/// made meanwhile, `made`, which `on_event` keeps).
pub async fn run(
    mut run: RunAsk,
    on_event: &wasm_bindgen::JsValue,
    made: &RefCell<Option<Summary>>,
    signal: &web_sys::AbortSignal,
) -> Result<RunEnd, ModuleError> {
    run.started = crate::adapters::clock::precise_ms();
    modules::load_within(Module::Turns, signal, MODULE_TIMEOUT_MS).await?;
    let horizon = HORIZON.with_borrow(|h| {
        h.iter()
            .find(|(id, _)| *id == run.session)
            .and_then(|(_, m)| run.ask.history.iter().position(|x| x.id == *m))
    });
    let elided = horizon.map_or(0, |p| p.saturating_sub(HORIZON_SLACK));
    let mut end = None;
    if elided > 0 {
        // The lean turn: the same ask with the elided history, put back after.
        let through = run.ask.summary.as_ref().map(|s| s.through.as_str());
        let lean = ask::elide(&run.ask.history, elided, through);
        let whole = std::mem::replace(&mut run.ask.history, lean);
        run.ask.elided = elided as u32;
        let lean = call(&run, on_event).await;
        run.ask.history = whole;
        run.ask.elided = 0;
        if let Some(s) = made.borrow_mut().take() {
            run.ask.summary = Some(s);
        }
        end = Some(lean?).filter(|e| e.outcome.is_some());
    }
    let end = match end {
        Some(e) => e,
        None => call(&run, on_event).await?,
    };
    if let Some(m) = &end.read_from {
        HORIZON.with_borrow_mut(|h| {
            h.retain(|(id, _)| *id != run.session);
            h.push_back((run.session.clone(), m.clone()));
            while h.len() > 8 {
                h.pop_front();
            }
        });
    }
    Ok(end)
}

/// One call of the turns module's `run`.
async fn call(run: &RunAsk, on_event: &wasm_bindgen::JsValue) -> Result<RunEnd, ModuleError> {
    let json = serde_json::to_string(run).map_err(|e| ModuleError::Call(e.to_string()))?;
    let promise = modules::call(TurnsCall::Run { ask: json }, Some(on_event))?;
    let answer = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::from(promise))
        .await
        .map_err(|e| ModuleError::Call(crate::adapters::js::JsError::from(e).message))?;
    serde_json::from_str(&answer.as_string().unwrap_or_default())
        .map_err(|e| ModuleError::Call(e.to_string()))
}

/// The request for branch `history` of the open chat `session` with `settings`: a send's, or
/// (`inspect`) the inspector's next request. One builder for both, so the inspector shows what a
/// send would build.
pub fn ask_of(
    app: AppState,
    session: &Session,
    settings: Settings,
    history: Vec<Message>,
    inspect: bool,
) -> Ask {
    let refs: Vec<&Message> = history.iter().collect();
    let summary = session.summary_for(&refs).cloned();
    Ask {
        inspect,
        report: Some(ReportAsk {
            title: match inspect {
                true => "Next request".into(),
                false => format!("Sent at {}", crate::adapters::clock::local_time()),
            },
            with_key: app.key_for(&settings.base_url).is_some(),
            editable: inspect,
        }),
        settings,
        history,
        summary,
        overrides: session.context.clone(),
        elided: 0,
        summaries_paused: false,
        agent: session.agent,
        format: ask::format_of(session),
    }
}

/// The inspector's reports for the open chat, as a JSON array: the next request (the draft as
/// its last user message, if any), then the requests sent, newest first.
pub async fn inspect(app: AppState) -> Result<String, ModuleError> {
    let settings = app.chat_settings();
    let draft = app.chats.draft.get_untracked();
    let (session_id, ask) = app.chats.session.with_untracked(|s| {
        let mut history: Vec<Message> = s.path().into_iter().cloned().collect();
        if !draft.trim().is_empty() {
            let parent = history.last().map(|m| m.id.clone());
            history.push(Message::new("draft".into(), parent, Role::User, draft, 0));
        }
        (s.id.clone(), ask_of(app, s, settings, history, true))
    });
    let ctrl = web_sys::AbortController::new()
        .map_err(|_| ModuleError::Call("no AbortController".into()))?;
    let json = serde_json::to_string(&ask).map_err(|e| ModuleError::Call(e.to_string()))?;
    let call = TurnsCall::Inspect {
        session: session_id,
        ask: json,
    };
    let answer = modules::call_within(call, &ctrl.signal(), MODULE_TIMEOUT_MS).await?;
    Ok(answer.as_string().unwrap_or_default())
}
