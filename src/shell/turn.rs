//! The turns module's side of a turn, its one owner: it has the request built
//! ([`crate::shell::request`]), sends it and reads the reply, running the effects of the turn machine ([`crate::core::turn`]) — the request with its
//! `AbortController`, the retry countdown, the stall timer, what arrived handed to the app at
//! most once per animation frame, checkpoints — and hands the app the [`Outcome`]. Streaming
//! lives here, in the module fetched when the user starts typing, so none of it is on the first
//! load. The app draws what it is told (`on_event`) and records the outcome.

use crate::adapters::clock::now_ms;
use crate::adapters::fetch::{post_stream, ChatStream, FetchError};
use crate::core::context::ask::Ask;
use crate::core::context::models::window_from_error;
use crate::core::protocol::TurnEvent;
use crate::core::provider::error::{classify, not_a_stream, ApiError};
use crate::core::session::AgentConfig;
use crate::core::turn::{Alerted, Effect, Event, Outcome, Turn, TurnConfig};
use crate::shell::context::{learn, learn_window};
use crate::shell::error_text::{describe, not_sent, note_text, retry_status, ErrorContext};
use crate::shell::request::prepare;
use serde::{Deserialize, Serialize};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// What the app asks for: one turn of chat `session`, writing reply `reply`, for the request
/// `ask` describes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunAsk {
    /// The chat.
    pub session: String,
    /// The reply being written (the turn's name for [`stop`]).
    pub reply: String,
    /// The API key for the chat's server, if one is saved for it.
    #[serde(default)]
    pub key: Option<String>,
    /// The user never saved settings (the bundled local server is the default).
    #[serde(default)]
    pub using_default: bool,
    /// When the app began (`performance.now()`): the User Timing measure `satori:context-ask`
    /// runs from there until the request is built.
    #[serde(default)]
    pub started: f64,
    /// The request.
    pub ask: Ask,
}

/// How a turn ended, for the app to record.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunEnd {
    /// The reply as it ended; `None`: the request needs the text of a message the app left
    /// out, and the app runs the turn again with the whole history (nothing was sent).
    #[serde(default)]
    pub outcome: Option<Outcome>,
    /// The body asked for structured output.
    #[serde(default)]
    pub formatted: bool,
    /// A notice for the status line (a summary that failed or waits).
    #[serde(default)]
    pub notice: Option<String>,
    /// The oldest message (its id) whose text the request needed: the app's next request in
    /// the chat leaves out the text of those well before it.
    #[serde(default)]
    pub read_from: Option<String>,
}

/// A request to send and how.
struct TurnAsk {
    /// The reply being written.
    reply: String,
    /// `POST` here.
    url: String,
    /// The API key for this URL, if one is saved for it.
    key: Option<String>,
    /// The request body.
    body: String,
    /// Stall timeout, seconds.
    stall_seconds: u32,
    /// The request's estimated prompt tokens (when not counted exactly), to learn from `usage`.
    estimated: Option<u32>,
    /// The request's prompt tokens, and whether counted exactly.
    prompt: (u64, bool),
    /// Who was asked, for the words of an error.
    base_url: String,
    /// The model.
    model: String,
    /// The user never saved settings.
    using_default: bool,
    /// The chat's agent mode.
    agent: AgentConfig,
    /// The body asks for structured output (`response_format`).
    formatted: bool,
}

/// A turn in progress.
struct Running {
    reply: String,
    controller: RefCell<Option<web_sys::AbortController>>,
    turn: RefCell<Turn>,
}

impl Running {
    fn on(&self, event: Event) -> Vec<Effect> {
        self.turn.borrow_mut().on(event, now_ms())
    }
}

thread_local! {
    // Why a static: the turns run in the turns module, which has no app state; the app's
    // Stop reaches them by reply id (`stop`).
    /// Every turn this module is running.
    static RUNNING: RefCell<Vec<Rc<Running>>> = const { RefCell::new(Vec::new()) };
}

/// Stop the turn writing `reply` (Stop, Esc, leaving the chat): the partial text is kept.
pub fn stop(reply: &str) {
    crate::shell::request::stop(reply);
    let running = RUNNING.with_borrow(|r| r.iter().find(|t| t.reply == reply).cloned());
    if let Some(r) = running {
        for effect in r.on(Event::Stop) {
            if effect == Effect::Abort {
                if let Some(c) = r.controller.borrow().as_ref() {
                    c.abort();
                }
            }
        }
    }
}

/// The error a failed fetch or read means.
pub fn to_api_error(e: FetchError, stall_seconds: u32) -> ApiError {
    match e {
        FetchError::Status {
            status,
            retry_after,
            body,
        } => classify(status, retry_after.as_deref(), &body, now_ms()),
        FetchError::NotStream { content_type, body } => not_a_stream(&content_type, &body),
        FetchError::Network(_) => ApiError::Network,
        FetchError::Redirected => ApiError::Redirected,
        FetchError::Stalled => ApiError::Stalled {
            seconds: stall_seconds,
        },
        FetchError::Broken(_) | FetchError::Aborted => ApiError::Cut,
    }
}

fn event_of(e: FetchError, stall_seconds: u32) -> Event {
    match e {
        FetchError::Aborted => Event::Aborted,
        other => Event::Failed(to_api_error(other, stall_seconds)),
    }
}

/// The context window a server stated in an error, if it did.
fn stated_window(err: &ApiError) -> Option<u32> {
    match err {
        ApiError::Http { message, .. } | ApiError::Server { message, .. } => {
            message.as_deref().and_then(window_from_error)
        }
        ApiError::InStream { message } => window_from_error(message),
        _ => None,
    }
}

/// Tell the app what happened (a [`TurnEvent`], as its parts).
fn tell(on_event: &js_sys::Function, event: TurnEvent) {
    let (name, a, b) = event.parts();
    let _ = on_event.call3(
        &JsValue::NULL,
        &JsValue::from_str(name),
        &JsValue::from_str(a),
        &JsValue::from_str(b),
    );
}

/// Hand the app what arrived since the last time.
fn show(on_event: &js_sys::Function, running: &Running) {
    let mut turn = running.turn.borrow_mut();
    let (c, r) = turn.unrendered();
    if !c.is_empty() || !r.is_empty() {
        tell(
            on_event,
            TurnEvent::Shown {
                content: c.to_string(),
                reasoning: r.to_string(),
            },
        );
    }
}

/// Run the turn `ask` describes until it ends: the request built
/// ([`crate::shell::request::prepare`]), then sent and its reply read; `on_event` hears what
/// happens (see [`tell`]).
pub async fn run(ask: RunAsk, on_event: js_sys::Function) -> RunEnd {
    let settings = ask.ask.settings.clone();
    let agent = ask.ask.agent;
    let prepared = prepare(&ask.session, &ask.reply, ask.ask, &|e| tell(&on_event, e)).await;
    crate::adapters::clock::measure_since("satori:context-ask", ask.started);
    let mut end = RunEnd {
        outcome: None,
        formatted: false,
        notice: prepared.notice,
        read_from: prepared.read_from,
    };
    if prepared.need_full && !prepared.stopped {
        return end;
    }
    end.outcome = Some(match prepared.built {
        // Stopped while the request was built: the reply is kept, empty and stopped.
        _ if prepared.stopped => Outcome::not_sent(None),
        _ if prepared.refused.is_some() => Outcome::not_sent(prepared.refused),
        Err(e) => Outcome::not_sent(Some(not_sent(&e))),
        Ok(built) => {
            end.formatted = built.formatted;
            let turn = TurnAsk {
                reply: ask.reply,
                url: settings.chat_url(),
                key: ask.key,
                body: built.body,
                stall_seconds: settings.stall_seconds,
                estimated: built.estimated,
                prompt: built.prompt,
                base_url: settings.base_url,
                model: settings.model,
                using_default: ask.using_default,
                agent,
                formatted: built.formatted,
            };
            stream(turn, on_event).await
        }
    });
    end
}

/// Send the request `ask` describes and read the reply until it ends; `on_event` hears what
/// arrives.
async fn stream(ask: TurnAsk, on_event: js_sys::Function) -> Outcome {
    let (turn, first) = Turn::new(
        ask.reply.clone(),
        TurnConfig::new(ask.stall_seconds),
        now_ms(),
    );
    let running = Rc::new(Running {
        reply: ask.reply.clone(),
        controller: RefCell::new(None),
        turn: RefCell::new(turn),
    });
    RUNNING.with_borrow_mut(|r| r.push(running.clone()));
    let outcome = drive(&ask, &running, first, &on_event).await;
    RUNNING.with_borrow_mut(|r| r.retain(|t| !Rc::ptr_eq(t, &running)));
    outcome
}

async fn drive(
    ask: &TurnAsk,
    running: &Rc<Running>,
    first: Vec<Effect>,
    on_event: &js_sys::Function,
) -> Outcome {
    let stall_ms = ask.stall_seconds.saturating_mul(1000);
    let mut queue: VecDeque<Effect> = first.into();
    let mut stream: Option<ChatStream> = None;
    let frame_scheduled = Rc::new(Cell::new(false));
    loop {
        let Some(effect) = queue.pop_front() else {
            let Some(open) = stream.as_mut() else {
                return Outcome::not_sent(None);
            };
            let event = match ChatStream::next(open).await {
                Ok(Some(bytes)) => Event::Bytes(bytes),
                Ok(None) => Event::End,
                Err(e) => event_of(e, ask.stall_seconds),
            };
            queue.extend(running.on(event));
            continue;
        };
        match effect {
            Effect::Request => {
                let Ok(controller) = web_sys::AbortController::new() else {
                    queue.extend(running.on(Event::Failed(ApiError::Network)));
                    continue;
                };
                let signal = controller.signal();
                *running.controller.borrow_mut() = Some(controller);
                match post_stream(&ask.url, ask.key.as_deref(), &ask.body, &signal, stall_ms).await
                {
                    Ok(s) => stream = Some(s),
                    Err(e) => queue.extend(running.on(event_of(e, ask.stall_seconds))),
                }
            }
            Effect::Wait {
                seconds,
                attempt,
                of,
            } => {
                for left in (1..=seconds).rev() {
                    tell(
                        on_event,
                        TurnEvent::Status {
                            text: retry_status(left, attempt, of),
                        },
                    );
                    gloo_timers::future::TimeoutFuture::new(1000).await;
                    if running.turn.borrow().stopping() {
                        break;
                    }
                }
                tell(
                    on_event,
                    TurnEvent::Status {
                        text: String::new(),
                    },
                );
                queue.extend(running.on(Event::Waited));
            }
            Effect::Abort => {
                if let Some(c) = running.controller.borrow().as_ref() {
                    c.abort();
                }
            }
            Effect::Render => {
                if !frame_scheduled.get() {
                    frame_scheduled.set(true);
                    let (running, scheduled, on_event) =
                        (running.clone(), frame_scheduled.clone(), on_event.clone());
                    let frame = Closure::once_into_js(move || {
                        scheduled.set(false);
                        show(&on_event, &running);
                    });
                    if let Some(w) = web_sys::window() {
                        let _ = w.request_animation_frame(frame.unchecked_ref());
                    }
                }
            }
            Effect::Checkpoint => {
                show(on_event, running);
                tell(on_event, TurnEvent::Checkpoint);
            }
            Effect::Finish(ending) => {
                // Dropping the stream releases the connection.
                drop(stream.take());
                show(on_event, running);
                let turn = running.turn.borrow();
                let usage = turn_usage(&turn);
                if let (Some(estimated), Some(actual)) = (ask.estimated, usage) {
                    learn(&ask.model, estimated, actual);
                }
                if let Some(window) = ending.error.as_ref().and_then(stated_window) {
                    learn_window(&ask.base_url, &ask.model, window);
                }
                let refused = ending.error.as_ref().is_some_and(|e| {
                    ask.agent.on
                        && !ask.agent.react
                        && ending.discard
                        && crate::core::agent::refuses_tools(e)
                });
                let refused_format = !refused
                    && ask.formatted
                    && ending.discard
                    && ending
                        .error
                        .as_ref()
                        .is_some_and(crate::core::agent::refuses_format);
                if refused_format {
                    crate::shell::context::refuse_format(&ask.base_url, &ask.model);
                }
                let alert = ending
                    .error
                    .as_ref()
                    .filter(|_| !refused && !refused_format)
                    .map(|err| {
                        let ctx = ErrorContext {
                            base_url: ask.base_url.clone(),
                            model: ask.model.clone(),
                            using_default: ask.using_default,
                            // A server on this machine is reached with no network.
                            offline: web_sys::window().is_some_and(|w| !w.navigator().on_line())
                                && !crate::core::key_binding::on_this_machine(&ask.base_url),
                        };
                        Alerted {
                            text: describe(err, &ctx),
                            settings: ending.offer_settings,
                            // Retrying would only meet the same pins: unpinning is offered instead.
                            retry: ending.offer_retry
                                && !matches!(err, ApiError::PinsTooLarge { .. }),
                            unpin: matches!(err, ApiError::PinsTooLarge { .. }),
                            // No local server answered: the model in this page needs none.
                            local: matches!(err, ApiError::Network)
                                && !crate::core::settings::in_browser(&ask.base_url)
                                && (ask.using_default
                                    || crate::core::key_binding::on_this_machine(&ask.base_url)),
                        }
                    });
                let note = ending.note.as_ref().map(note_text);
                // The reply's cost at the model's price now (kept on the reply).
                let price = crate::adapters::storage::Store::local()
                    .prices()
                    .ok()
                    .and_then(|mut p| p.remove(ask.model.trim()));
                let mut outcome =
                    Outcome::of(&turn, &ending, note, alert).counted(ask.prompt, price.as_ref());
                outcome.refused_tools = refused;
                outcome.refused_format = refused_format;
                return outcome;
            }
        }
    }
}

/// The prompt tokens the server counted for the turn's request, if it said.
fn turn_usage(turn: &Turn) -> Option<u32> {
    turn.usage()
        .and_then(|u| u.prompt_tokens)
        .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
}
