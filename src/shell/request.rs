//! A turn's request, in the turns module, before it is sent: the context built
//! ([`crate::shell::context`]; in agent mode with the tools the agent module offers), a summary
//! made first when one is due (in the on-demand dialogs module, see
//! [`crate::shell::summarize`]; if that fails, the trimmed context goes out, the status line
//! says why, and the chat's summaries wait [`SUMMARY_PAUSE_MS`]), the verdict (nothing over
//! budget is ever sent) and the inspector's reports of the last requests. Stop ends it at once
//! (though the dialogs module, once asked for a summary, finishes loading first).

use crate::adapters::clock::{new_id, now_ms};
use crate::core::context::ask::{Answer, Ask};
use crate::core::context::summary::{SummaryAnswer, SummaryRequest};
use crate::core::context::Verdict;
use crate::core::protocol::TurnEvent;
use crate::core::provider::error::ApiError;
use crate::core::session::Summary;
use crate::core::settings::Settings;
use crate::core::turn::Alerted;
use crate::shell::error_text::{module_problem, summary_failed, summary_paused, SUMMARIZING};
use futures::future::{select, Either};
use std::cell::RefCell;
use std::collections::VecDeque;

/// What the module remembers of the requests it built, per chat.
struct Requests {
    /// The last requests sent (newest last): the chat and the report (JSON), for the inspector.
    sent: VecDeque<(String, String)>,
    /// Chats whose summarizer failed: until when summaries wait, and why it failed.
    paused: Vec<(String, i64, String)>,
    /// The turns whose request is being built: the reply and what aborts the building (Stop).
    building: Vec<(String, web_sys::AbortController)>,
}

thread_local! {
    // Why a static: what the module remembers per chat outlives each request (the inspector
    // opens later; a chat is left and comes back), and Stop reaches a request being built by
    // its reply's id; the module lives for the page.
    /// The requests of this page.
    static REQUESTS: RefCell<Requests> = const {
        RefCell::new(Requests {
            sent: VecDeque::new(),
            paused: Vec::new(),
            building: Vec::new(),
        })
    };
}

/// How long a chat's summaries wait after the summarizer failed, ms: sends in between are
/// trimmed without asking it again (a failing or slow summarizer would otherwise delay every
/// send).
pub const SUMMARY_PAUSE_MS: i64 = 120_000;

/// How long building a request may take (probing the server, counting), ms: a server that never
/// answers a probe must not hold the chat.
pub const BUILD_TIMEOUT_MS: u32 = 60_000;

/// Why chat `session` 's summaries wait at `now`, if they do.
fn paused(session: &str, now: i64) -> Option<String> {
    REQUESTS.with_borrow(|r| {
        r.paused
            .iter()
            .find(|(id, until, _)| id == session && now < *until)
            .map(|(_, _, why)| why.clone())
    })
}

/// The summarizer failed for chat `session` at `now` because of `why`.
fn pause(session: &str, now: i64, why: String) {
    REQUESTS.with_borrow_mut(|r| {
        r.paused.retain(|(id, _, _)| id != session);
        r.paused
            .push((session.to_string(), now + SUMMARY_PAUSE_MS, why));
    });
}

/// Keep the `report` (JSON) of a request sent in chat `session` among the last few.
fn remember(session: &str, report: String) {
    REQUESTS.with_borrow_mut(|r| {
        r.sent.push_back((session.to_string(), report));
        while r.sent.len() > 5 {
            r.sent.pop_front();
        }
    });
}

/// A request built, ready to send.
pub struct Built {
    /// The body (JSON).
    pub body: String,
    /// The body asks for structured output.
    pub formatted: bool,
    /// Its prompt tokens when estimated rather than counted (to learn from `usage`).
    pub estimated: Option<u32>,
    /// Its prompt tokens, and whether counted exactly.
    pub prompt: (u64, bool),
}

/// How building a request went.
pub struct Prepared {
    /// The request, or why it is not sent.
    pub built: Result<Built, ApiError>,
    /// It needs the text of a message the app left out: the app asks again with the whole
    /// history (nothing else here counts).
    pub need_full: bool,
    /// The oldest message (its id) whose text the request needed.
    pub read_from: Option<String>,
    /// A notice for the status line when the turn ends (a summary that failed or waits).
    pub notice: Option<String>,
    /// Stop came while the request was built (nothing was sent).
    pub stopped: bool,
    /// Refused before sending, for a reason only the turns module words (images for a model
    /// that does not see them).
    pub refused: Option<Alerted>,
}

/// Stop building the request of the turn writing `reply`, if it is being built.
pub fn stop(reply: &str) {
    REQUESTS.with_borrow(|r| {
        for (id, c) in &r.building {
            if id == reply {
                c.abort();
            }
        }
    });
}

/// Build the request for `ask`, a turn of chat `session` writing `reply` (whose [`stop`] ends
/// it); `tell` hears the status line and a summary made (for the app to keep).
pub async fn prepare(session: &str, reply: &str, ask: Ask, tell: &dyn Fn(TurnEvent)) -> Prepared {
    let Ok(controller) = web_sys::AbortController::new() else {
        return Prepared {
            built: Err(ApiError::Network),
            need_full: false,
            read_from: None,
            notice: None,
            stopped: false,
            refused: None,
        };
    };
    let signal = controller.signal();
    REQUESTS.with_borrow_mut(|r| r.building.push((reply.to_string(), controller)));
    let mut prepared = build(session, ask, &signal, tell).await;
    REQUESTS.with_borrow_mut(|r| r.building.retain(|(id, _)| id != reply));
    prepared.stopped = signal.aborted();
    prepared
}

async fn build(
    session: &str,
    mut ask: Ask,
    signal: &web_sys::AbortSignal,
    tell: &dyn Fn(TurnEvent),
) -> Prepared {
    // Decided once: a paused chat's summary request comes without its turns.
    let waits = paused(session, now_ms());
    ask.summaries_paused = waits.is_some();
    let mut out = Prepared {
        built: Err(ApiError::Cut),
        need_full: false,
        read_from: None,
        notice: None,
        stopped: false,
        refused: None,
    };
    let Some(mut answer) = answer_into(&ask, signal, &mut out).await else {
        return out;
    };
    // Refused before anything is asked for it (a summary due would be made for nothing).
    if answer.blind > 0 {
        out.refused = Some(blind(&ask.settings.model, answer.blind));
        return out;
    }
    if let Some(request) = answer.summary.take() {
        if let Some(why) = waits {
            out.notice = Some(summary_paused(&why));
        } else if !signal.aborted() {
            tell(TurnEvent::Status {
                text: SUMMARIZING.into(),
            });
            let made = summarize(request, &ask.settings, signal).await;
            tell(TurnEvent::Status {
                text: String::new(),
            });
            match made {
                Ok(s) => {
                    tell(TurnEvent::Summary {
                        json: serde_json::to_string(&s).unwrap_or_default(),
                    });
                    ask.summary = Some(s);
                    // (If the summary covers what the app left out, the app asks again, with it.)
                    match answer_into(&ask, signal, &mut out).await {
                        Some(a) => answer = a,
                        None => return out,
                    }
                }
                Err(SummaryError::Stopped) => {}
                Err(e) => {
                    pause(session, now_ms(), e.to_string());
                    out.notice = Some(summary_failed(&e.to_string()));
                }
            }
        }
        if let Some(text) = out.notice.clone() {
            tell(TurnEvent::Status { text });
        }
    }
    out.built = match answer.verdict {
        Verdict::Fits => {
            if let Some(report) = answer.report {
                remember(session, report);
            }
            Ok(Built {
                body: answer.body,
                formatted: answer.formatted,
                estimated: (!answer.exact).then_some(answer.total),
                prompt: (u64::from(answer.total), answer.exact),
            })
        }
        Verdict::PinsOverBudget { pinned, budget } => {
            Err(ApiError::PinsTooLarge { pinned, budget })
        }
        Verdict::TooLarge { need, budget } => Err(ApiError::ContextTooLarge { need, budget }),
    };
    out
}

/// The refusal of a request with `images` for `model`, which does not see images.
fn blind(model: &str, images: u32) -> Alerted {
    let what = match images {
        1 => "an image".to_string(),
        n => format!("{n} images"),
    };
    Alerted {
        text: format!(
            "Not sent: this message has {what}, and “{model}” does not see images. Choose a model that does for this chat and retry, or ask again without the image. If this model does see images, tick “Sees images” for it in Settings. Your message is kept."
        ),
        retry: true,
        settings: true,
        ..Alerted::default()
    }
}

/// [`answer_within`] for `ask`, noted in `out`: an error, or that the app must ask again with
/// the whole history (then `None`: `out` is the result), else the oldest message it read.
async fn answer_into(
    ask: &Ask,
    signal: &web_sys::AbortSignal,
    out: &mut Prepared,
) -> Option<Answer> {
    match answer_within(ask, signal).await {
        Err(e) => {
            out.built = Err(e);
            None
        }
        Ok(a) if a.need_full => {
            out.need_full = true;
            None
        }
        Ok(a) => {
            out.read_from = read_from(ask, &a);
            Some(a)
        }
    }
}

/// The oldest message whose text the request in `answer` needed (the last one when it needs
/// none of those that may be left out).
fn read_from(ask: &Ask, answer: &Answer) -> Option<String> {
    let at = answer
        .read_from
        .map_or(ask.history.len().saturating_sub(1), |i| i as usize);
    ask.history.get(at).map(|m| m.id.clone())
}

/// The inspector's reports for chat `session` (a JSON array): the next request `ask`
/// describes, then the requests sent in it, newest first.
pub async fn inspect(session: &str, mut ask: Ask) -> Result<String, String> {
    ask.summaries_paused = paused(session, now_ms()).is_some();
    let next = answer(&ask)
        .await
        .map_err(|e| e.to_string())?
        .report
        .unwrap_or_default();
    let mut out = vec![next];
    REQUESTS.with_borrow(|r| {
        out.extend(
            r.sent
                .iter()
                .rev()
                .filter(|(id, _)| id == session)
                .map(|(_, r)| r.clone()),
        )
    });
    Ok(format!("[{}]", out.join(",")))
}

/// Build the context for `ask`: in agent mode with the tools the agent module offers.
async fn answer(ask: &Ask) -> Result<Answer, ApiError> {
    let tools = match ask.agent.on {
        true => Some(
            offered()
                .await
                .map_err(|e| ApiError::Module(format!("found no tools: the agent module {e}")))?,
        ),
        false => None,
    };
    let answer = crate::shell::context::answer(ask, tools).await;
    crate::shell::compact::after_request();
    Ok(answer)
}

/// [`answer`], given up on Stop (`signal`: the turn then ends as stopped) and after
/// [`BUILD_TIMEOUT_MS`].
async fn answer_within(ask: &Ask, signal: &web_sys::AbortSignal) -> Result<Answer, ApiError> {
    let stopped = aborted(signal);
    let timeout = gloo_timers::future::TimeoutFuture::new(BUILD_TIMEOUT_MS);
    let limits = select(Box::pin(stopped), timeout);
    match select(Box::pin(answer(ask)), limits).await {
        Either::Left((answer, _)) => answer,
        Either::Right((Either::Left(_), _)) => Err(ApiError::Cut),
        Either::Right((Either::Right(_), _)) => Err(ApiError::Module(format!(
            "failed (did not answer within {} s)",
            BUILD_TIMEOUT_MS / 1000
        ))),
    }
}

/// Resolves when `signal` aborts (at once if it has).
async fn aborted(signal: &web_sys::AbortSignal) {
    if signal.aborted() {
        return;
    }
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let options = web_sys::AddEventListenerOptions::new();
        options.set_once(true);
        let _ = signal.add_event_listener_with_callback_and_add_event_listener_options(
            "abort", &resolve, &options,
        );
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// The tools the agent module offers, loading it first.
async fn offered() -> Result<serde_json::Value, crate::adapters::modules::ModuleError> {
    use crate::adapters::modules::{load_and_call, ModuleError};
    let v = load_and_call(crate::core::protocol::AgentCall::Offered, None).await?;
    serde_json::from_str(&v.as_string().unwrap_or_default())
        .map_err(|e| ModuleError::Call(e.to_string()))
}

/// Why a summary could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum SummaryError {
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

/// Make the summary `request` asks for, with the `settings` of the request it comes before, in
/// the on-demand dialogs module (it holds the summarizer template, the fact guard and the
/// summary calls); `signal` (Stop) aborts it.
async fn summarize(
    mut request: SummaryRequest,
    settings: &Settings,
    signal: &web_sys::AbortSignal,
) -> Result<Summary, SummaryError> {
    request.id = new_id();
    request.at = now_ms();
    let request = serde_json::to_string(&request).unwrap_or_default();
    let settings = serde_json::to_string(settings).unwrap_or_default();
    let answer = crate::adapters::dialogs_module::summarize(&request, &settings, signal)
        .await
        .map_err(|e| SummaryError::Module(module_problem(&e)))?;
    match serde_json::from_str::<SummaryAnswer>(&answer) {
        Ok(SummaryAnswer::Made(s)) => Ok(s),
        Ok(SummaryAnswer::Failed(why)) => Err(SummaryError::Failed(why)),
        Ok(SummaryAnswer::Stopped) => Err(SummaryError::Stopped),
        Err(e) => Err(SummaryError::Module(e.to_string())),
    }
}
