//! Building requests, from the app's side: the pipeline and the counting around it run in the
//! lazy `context` module ([`crate::shell::context`]); this file asks it (loading it on first
//! use), keeps the last requests' reports for the inspector, and has summaries made in the
//! dialogs module.

use crate::adapters::modules::{self, Module, ModuleError};
use crate::core::context::ask::{self, Answer, Ask, ReportAsk};
use crate::core::context::summary::SummaryAnswer;
use crate::core::protocol::TurnsCall;
use crate::core::session::{Message, Role, Session, Summary};
use crate::core::settings::Settings;
use crate::ui::state::AppState;
use std::cell::RefCell;
use std::collections::VecDeque;

/// What the app remembers of its requests, per chat.
struct Requests {
    /// The last requests sent (newest last): the chat and the report (JSON), for the inspector.
    sent: RefCell<VecDeque<(String, String)>>,
    /// Per chat (the last few): the oldest message whose text its last request needed, so the
    /// next one sends the module only the text it can need ([`prepare_send`]).
    horizon: RefCell<VecDeque<(String, String)>>,
    /// Chats whose summarizer failed: until when summaries wait, and why it failed.
    paused: RefCell<Vec<(String, i64, String)>>,
}

thread_local! {
    // Why a static: what the app remembers of its requests per chat outlives the components
    // that show it (the inspector opens later; a chat is left and comes back).
    static REQUESTS: Requests = const {
        Requests {
            sent: RefCell::new(VecDeque::new()),
            horizon: RefCell::new(VecDeque::new()),
            paused: RefCell::new(Vec::new()),
        }
    };
}

/// How long a chat's summaries wait after the summarizer failed, ms: sends in between are
/// trimmed without asking it again (a failing or slow summarizer would otherwise delay every
/// send).
pub const SUMMARY_PAUSE_MS: i64 = 120_000;

/// The summarizer failed for chat `session_id` at `now` (ms) because of `why`.
pub fn pause_summaries(session_id: &str, now: i64, why: String) {
    REQUESTS.with(|r| {
        let mut p = r.paused.borrow_mut();
        p.retain(|(id, _, _)| id != session_id);
        p.push((session_id.to_string(), now + SUMMARY_PAUSE_MS, why));
    });
}

/// Why chat `session_id`'s summaries wait at `now`, if they do.
pub fn summaries_paused(session_id: &str, now: i64) -> Option<String> {
    REQUESTS.with(|r| {
        let p = r.paused.borrow();
        p.iter()
            .find(|(id, until, _)| id == session_id && now < *until)
            .map(|(_, _, why)| why.clone())
    })
}

/// Keep the `report` (JSON) of a request sent in chat `session_id` among the last few.
pub fn remember_sent(session_id: String, report: String) {
    REQUESTS.with(|r| {
        let mut s = r.sent.borrow_mut();
        s.push_back((session_id, report));
        while s.len() > 5 {
            s.pop_front();
        }
    });
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

/// How long a request may wait for the turns module (loading it, probing the server, counting),
/// ms: a module that never answers must not hold the chat.
pub const MODULE_TIMEOUT_MS: u32 = 60_000;

/// Build the context for `ask` in the turns module; `signal` (Stop) and [`MODULE_TIMEOUT_MS`]
/// end the wait. The whole exchange (the history to JSON, the module's work, the answer read
/// back) is the User Timing measure `satori:context-ask`.
pub async fn prepare(ask: &Ask, signal: &web_sys::AbortSignal) -> Result<Answer, ModuleError> {
    let start = crate::adapters::clock::precise_ms();
    let json = serde_json::to_string(ask).map_err(|e| ModuleError::Call(e.to_string()))?;
    let call = TurnsCall::Prepare { ask: json };
    let answer = modules::call_within(call, signal, MODULE_TIMEOUT_MS).await;
    crate::adapters::clock::measure_since("satori:context-ask", start);
    serde_json::from_str(&answer?.as_string().unwrap_or_default())
        .map_err(|e| ModuleError::Call(e.to_string()))
}

/// Messages before the last request's horizon that still go to the module whole: a request
/// reaches a little further back when a reply is shorter or a setting changes.
const HORIZON_SLACK: usize = 64;

/// [`prepare`] for a request of chat `session_id`: the module gets the text of the messages from
/// a little before the oldest one the chat's last request needed ([`ask::elide`]), so a send
/// in a long chat does not copy its whole history; when the request reaches further back after
/// all, it asks again with the whole history.
pub async fn prepare_send(
    session_id: &str,
    ask: &mut Ask,
    signal: &web_sys::AbortSignal,
) -> Result<Answer, ModuleError> {
    let horizon = REQUESTS.with(|r| {
        r.horizon
            .borrow()
            .iter()
            .find(|(id, _)| id == session_id)
            .and_then(|(_, m)| ask.history.iter().position(|x| x.id == *m))
    });
    let elided = horizon.map_or(0, |p| p.saturating_sub(HORIZON_SLACK));
    let mut answer = None;
    if elided > 0 {
        // The lean request: the same ask with the elided history, put back after.
        let through = ask.summary.as_ref().map(|s| s.through.as_str());
        let lean = ask::elide(&ask.history, elided, through);
        let whole = std::mem::replace(&mut ask.history, lean);
        ask.elided = elided as u32;
        let lean = prepare(ask, signal).await;
        ask.history = whole;
        ask.elided = 0;
        answer = Some(lean?).filter(|a| !a.need_full);
    }
    let answer = match answer {
        Some(a) => a,
        None => prepare(ask, signal).await?,
    };
    let at = answer
        .read_from
        .map_or(ask.history.len().saturating_sub(1), |i| i as usize);
    if let Some(m) = ask.history.get(at) {
        REQUESTS.with(|r| {
            let mut h = r.horizon.borrow_mut();
            h.retain(|(id, _)| id != session_id);
            h.push_back((session_id.to_string(), m.id.clone()));
            while h.len() > 8 {
                h.pop_front();
            }
        });
    }
    Ok(answer)
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
    let now = crate::adapters::clock::now_ms();
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
        summaries_paused: summaries_paused(&session.id, now).is_some(),
        agent: session.agent,
        format: ask::format_of(session),
    }
}

/// The inspector's reports for the open chat, as a JSON array: the next request (the draft as
/// its last user message, if any), then the requests sent, newest first.
pub async fn inspect(app: AppState) -> Result<String, ModuleError> {
    let settings = app.conn.settings.get_untracked();
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
    let next = prepare(&ask, &ctrl.signal())
        .await?
        .report
        .unwrap_or_default();
    let mut out = vec![next];
    REQUESTS.with(|r| {
        out.extend(
            r.sent
                .borrow()
                .iter()
                .rev()
                .filter(|(id, _)| *id == session_id)
                .map(|(_, r)| r.clone()),
        )
    });
    Ok(format!("[{}]", out.join(",")))
}

/// Why a summary could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SummaryError {
    /// The dialogs module (which makes summaries) could not be loaded or failed.
    #[error("{0}")]
    Module(String),
    /// The summarizer failed (its words).
    #[error("{0}")]
    Failed(String),
    /// The call was stopped.
    #[error("stopped")]
    Stopped,
}

/// Make the summary due under `due` (an [`Answer`]'s `summary_due`): the turns module keeps
/// its request and has it made in the on-demand dialogs module (it holds the summarizer
/// template, the fact guard and the summary calls; see `shell::summarize`). `controller` lets Stop
/// abort it.
pub async fn make_summary(
    due: &str,
    controller: &RefCell<Option<web_sys::AbortController>>,
) -> Result<Summary, SummaryError> {
    let ctrl = web_sys::AbortController::new()
        .map_err(|_| SummaryError::Module("no AbortController".into()))?;
    let signal = ctrl.signal();
    *controller.borrow_mut() = Some(ctrl);
    let call = TurnsCall::Summarize { id: due.into() };
    let answer = match modules::load_and_call(call, Some(&signal)).await {
        Ok(promise) => wasm_bindgen_futures::JsFuture::from(js_sys::Promise::from(promise))
            .await
            .map_err(|e| crate::adapters::js::JsError::from(e).message),
        Err(e) => Err(crate::shell::error_text::context_module_problem(&e)),
    };
    let answer = answer.map_err(SummaryError::Module)?;
    match serde_json::from_str::<SummaryAnswer>(&answer.as_string().unwrap_or_default()) {
        Ok(SummaryAnswer::Made(s)) => Ok(s),
        Ok(SummaryAnswer::Failed(why)) => Err(SummaryError::Failed(why)),
        Ok(SummaryAnswer::Stopped) => Err(SummaryError::Stopped),
        Err(e) => Err(SummaryError::Module(e.to_string())),
    }
}
