//! Sending messages and reading streamed replies: the glue between the composer, the session
//! reducer, the fetch adapter and the SSE decoder.
//!
//! While a reply streams, text collects in a buffer and reaches the screen at most once per
//! animation frame (only the live message re-renders); the session record is checkpointed to
//! storage about once a second so a closed tab keeps the partial reply.

use crate::adapters::clock::{new_id, now_ms};
use crate::adapters::fetch::{post_stream, FetchError};
use crate::core::prompts::catalog::StartAnswer;
use crate::core::prompts::RoleRef;
use crate::core::provider::error::{backoff_seconds, classify, not_a_stream, ApiError};
use crate::core::provider::request::{chat_request, to_json};
use crate::core::provider::stream::{parse_event, StreamUpdate};
use crate::core::session::{Command, MessageId, Role, Status};
use crate::core::sse::{SseDecoder, SseItem};
use crate::ui::error_text::{describe, ErrorContext};
use crate::ui::state::{start_of, Alert, AppState, Live};
use leptos::prelude::*;
use std::cell::RefCell;
use std::rc::Rc;

thread_local! {
    /// Abort handle of the request in flight, and whether the user asked to stop it.
    static IN_FLIGHT: RefCell<Option<(web_sys::AbortController, Rc<std::cell::Cell<bool>>)>> = const { RefCell::new(None) };
}

/// How many times a rate-limited request is retried automatically.
const RATE_LIMIT_RETRIES: u32 = 3;
/// Minimum time between mid-stream checkpoints, ms.
const CHECKPOINT_MS: f64 = 1000.0;

/// Whether a reply is streaming.
pub fn is_streaming(app: &AppState) -> bool {
    app.live.with(Option::is_some)
}

/// Stop the reply in flight (Stop button, Esc). The partial text is kept, marked stopped.
pub fn stop() {
    IN_FLIGHT.with(|f| {
        if let Some((controller, stopped)) = f.borrow().as_ref() {
            stopped.set(true);
            controller.abort();
        }
    });
}

/// Longest wait for a chat start (the prompts module) before sending, in 50 ms steps.
const START_WAIT_STEPS: u32 = 300;

/// Send the composer text as a new user message and stream the answer.
pub fn send(app: AppState, text: String) {
    if is_streaming(&app) || text.trim().is_empty() {
        return;
    }
    // A role change or Chat setup still being rendered: send once the chat has its prompt,
    // so the message never goes out under the previous one.
    if app.starting.get_untracked() > 0 {
        leptos::task::spawn_local(async move {
            for _ in 0..START_WAIT_STEPS {
                if app.starting.get_untracked() == 0 {
                    return send(app, text);
                }
                gloo_timers::future::TimeoutFuture::new(50).await;
            }
            app.alert.set(Some(Alert {
                text: "This chat is still being set up (its prompt module has not answered). Try again in a moment.".into(),
                ..Alert::default()
            }));
        });
        return;
    }
    // A chat whose role still needs a variable value has no system prompt yet: render it
    // now, or say what is missing instead of sending without it.
    let pending = app.session.with_untracked(|s| {
        s.messages
            .is_empty()
            .then(|| s.prompt.clone().map(|o| (s.id.clone(), o)))
            .flatten()
    });
    if let Some((session_id, o)) = pending {
        app.starting.update(|n| *n += 1);
        leptos::task::spawn_local(async move {
            let role = RoleRef {
                source: o.source,
                key: o.key.clone(),
            };
            let answer = start_of(&role, &o.vars).await;
            app.starting.update(|n| *n = n.saturating_sub(1));
            // The user switched chats meanwhile: this message belongs to the other chat, whose
            // draft still holds it.
            if app.session.with_untracked(|s| s.id != session_id) {
                return;
            }
            let problem = match answer {
                StartAnswer {
                    origin: Some(origin),
                    missing: None,
                    error: None,
                    messages,
                } => match app.restart_with(origin, messages) {
                    Ok(()) => return send_now(app, text),
                    Err(e) => e.to_string(),
                },
                StartAnswer {
                    missing: Some(m), ..
                } => {
                    app.setup_problem.set(Some(m.clone()));
                    m
                }
                other => other.error.unwrap_or_else(|| "no answer".into()),
            };
            app.alert.set(Some(Alert {
                text: format!("This chat cannot start yet: {problem}. Fill it in under Chat setup, or pick another Role."),
                ..Alert::default()
            }));
        });
        return;
    }
    send_now(app, text);
}

fn send_now(app: AppState, text: String) {
    if is_streaming(&app) {
        return;
    }
    let id = new_id();
    app.alert.set(None);
    if app
        .apply(Command::AddUser {
            id: id.clone(),
            text,
            at: now_ms(),
        })
        .is_ok()
    {
        app.draft.set(String::new());
        app.save_draft("");
        answer(app, id);
    }
}

/// Ask for another answer to the user message that `reply` answered (a new variant).
pub fn regenerate(app: AppState, reply: MessageId) {
    let parent = app
        .session
        .with_untracked(|s| s.get(&reply).and_then(|m| m.parent.clone()));
    if let Some(parent) = parent {
        answer(app, parent);
    }
}

/// Answer the last user message again (after an error with nothing kept, or a broken reply).
pub fn retry(app: AppState) {
    let target = app.session.with_untracked(|s| {
        let path = s.path();
        let last = path.last()?;
        match last.role {
            Role::User => Some(last.id.clone()),
            Role::Assistant => last.parent.clone(),
            _ => None,
        }
    });
    if let Some(user) = target {
        answer(app, user);
    }
}

/// Replace user message `of` with edited text (a new branch) and answer it.
pub fn edit(app: AppState, of: MessageId, text: String) {
    if is_streaming(&app) {
        return;
    }
    let id = new_id();
    if app
        .apply(Command::EditUser {
            id: id.clone(),
            of,
            text,
            at: now_ms(),
        })
        .is_ok()
    {
        answer(app, id);
    }
}

/// Start a streamed reply to user message `parent`.
fn answer(app: AppState, parent: MessageId) {
    if is_streaming(&app) {
        return;
    }
    let Ok(controller) = web_sys::AbortController::new() else {
        return;
    };
    let settings = app.settings.get_untracked();
    let reply_id = new_id();
    app.alert.set(None);
    if app
        .apply(Command::StartReply {
            id: reply_id.clone(),
            parent,
            model: settings.model.clone(),
            at: now_ms(),
        })
        .is_err()
    {
        return;
    }
    let body = app.session.with_untracked(|s| {
        let path = s.path();
        let history: Vec<_> = path.into_iter().filter(|m| m.id != reply_id).collect();
        to_json(&chat_request(&settings, &history))
    });
    let session_id = app.session.with_untracked(|s| s.id.clone());
    app.live.set(Some(Live {
        session_id,
        id: reply_id.clone(),
        ..Live::default()
    }));
    let stopped = Rc::new(std::cell::Cell::new(false));
    IN_FLIGHT.with(|f| *f.borrow_mut() = Some((controller.clone(), stopped.clone())));
    leptos::task::spawn_local(async move {
        let outcome = run(app, &settings, &body, &controller).await;
        IN_FLIGHT.with(|f| *f.borrow_mut() = None);
        finish(app, reply_id, outcome, stopped.get(), &settings);
    });
}

/// How a reply ended.
struct Outcome {
    /// `Ok(finish_reason)` when the stream ended properly.
    result: Result<Option<String>, ApiError>,
    /// True if the user stopped it.
    aborted: bool,
}

fn to_api_error(e: FetchError, stall_seconds: u32) -> ApiError {
    match e {
        FetchError::Status {
            status,
            retry_after,
            body,
        } => classify(status, retry_after.as_deref(), &body),
        FetchError::NotStream { content_type, body } => not_a_stream(&content_type, &body),
        FetchError::Network(_) => ApiError::Network,
        FetchError::Stalled => ApiError::Stalled {
            seconds: stall_seconds,
        },
        FetchError::Broken(_) | FetchError::Aborted => ApiError::Cut,
    }
}

async fn run(
    app: AppState,
    settings: &crate::core::settings::Settings,
    body: &str,
    controller: &web_sys::AbortController,
) -> Outcome {
    let key = app.api_key.get_untracked();
    let stall_ms = settings.stall_seconds.saturating_mul(1000);
    let signal = controller.signal();
    let mut attempt = 0;
    let mut stream = loop {
        match post_stream(&settings.chat_url(), Some(&key), body, &signal, stall_ms).await {
            Ok(s) => break s,
            Err(FetchError::Aborted) => {
                return Outcome {
                    result: Ok(None),
                    aborted: true,
                }
            }
            Err(e) => {
                let err = to_api_error(e, settings.stall_seconds);
                if let ApiError::RateLimited { retry_after, .. } = &err {
                    if attempt < RATE_LIMIT_RETRIES {
                        let wait = backoff_seconds(*retry_after, attempt);
                        attempt += 1;
                        for left in (1..=wait).rev() {
                            app.status.set(format!(
                                "Rate limited by the server; retrying in {left} s (attempt {attempt} of {RATE_LIMIT_RETRIES})."
                            ));
                            gloo_timers::future::TimeoutFuture::new(1000).await;
                            if signal.aborted() {
                                app.status.set(String::new());
                                return Outcome {
                                    result: Ok(None),
                                    aborted: true,
                                };
                            }
                        }
                        app.status.set(String::new());
                        continue;
                    }
                }
                if matches!(err, ApiError::Stalled { .. }) {
                    controller.abort();
                }
                return Outcome {
                    result: Err(err),
                    aborted: false,
                };
            }
        }
    };

    let mut decoder = SseDecoder::new();
    let mut finish_reason: Option<String> = None;
    let mut last_checkpoint = now_ms() as f64;
    let pending = Rc::new(RefCell::new((String::new(), String::new())));
    let frame_scheduled = Rc::new(std::cell::Cell::new(false));
    let flush = {
        let pending = pending.clone();
        move || {
            let (c, r) = std::mem::take(&mut *pending.borrow_mut());
            if !c.is_empty() || !r.is_empty() {
                app.live.update(|l| {
                    if let Some(l) = l {
                        l.content.push_str(&c);
                        l.reasoning.push_str(&r);
                    }
                });
            }
        }
    };
    let result = 'read: loop {
        let items = match stream.next().await {
            Ok(Some(bytes)) => decoder.push(&bytes),
            Ok(None) => {
                let rest = decoder.finish();
                if rest.is_empty() {
                    break 'read if finish_reason.is_some() {
                        Ok(finish_reason.clone())
                    } else {
                        Err(ApiError::Cut)
                    };
                }
                rest
            }
            Err(FetchError::Aborted) => break 'read Ok(None),
            Err(e) => {
                if e == FetchError::Stalled {
                    controller.abort();
                }
                break 'read Err(to_api_error(e, settings.stall_seconds));
            }
        };
        for item in items {
            let SseItem::Event(event) = item else {
                continue;
            };
            let updates = match parse_event(&event) {
                Ok(u) => u,
                Err(e) => break 'read Err(ApiError::BadChunk(e.to_string())),
            };
            for u in updates {
                match u {
                    StreamUpdate::Content(t) => pending.borrow_mut().0.push_str(&t),
                    StreamUpdate::Reasoning(t) => pending.borrow_mut().1.push_str(&t),
                    StreamUpdate::Finish(r) => finish_reason = Some(r),
                    StreamUpdate::Usage(_) => {}
                    StreamUpdate::Error { message, .. } => {
                        break 'read Err(ApiError::InStream { message })
                    }
                    StreamUpdate::Done => break 'read Ok(finish_reason.clone()),
                }
            }
        }
        if !frame_scheduled.get() {
            frame_scheduled.set(true);
            let flush = flush.clone();
            let scheduled = frame_scheduled.clone();
            request_animation_frame(move || {
                scheduled.set(false);
                flush();
            });
        }
        let now = now_ms() as f64;
        if now - last_checkpoint >= CHECKPOINT_MS {
            last_checkpoint = now;
            flush();
            app.save_session();
        }
    };
    flush();
    let aborted = signal.aborted() && !matches!(result, Err(ApiError::Stalled { .. }));
    Outcome { result, aborted }
}

fn finish(
    app: AppState,
    id: MessageId,
    outcome: Outcome,
    user_stopped: bool,
    settings: &crate::core::settings::Settings,
) {
    let live = app.live.get_untracked().unwrap_or_default();
    app.live.set(None);
    app.status.set(String::new());
    let empty = live.content.is_empty() && live.reasoning.is_empty();
    let (status, finish_reason, note, error) = match outcome.result {
        Ok(reason) if outcome.aborted || user_stopped => (Status::Stopped, reason, None, None),
        Ok(reason) => {
            let note = match reason.as_deref() {
                Some("length") => {
                    Some("Truncated: the reply reached the max tokens limit.".to_string())
                }
                Some("content_filter") => {
                    Some("Cut short by the provider's content filter.".to_string())
                }
                _ if live.content.is_empty() => {
                    Some("The model returned no visible answer.".to_string())
                }
                _ => None,
            };
            (Status::Complete, reason, note, None)
        }
        Err(_) if user_stopped => (Status::Stopped, None, None, None),
        Err(err) => (Status::Incomplete, None, Some(short_note(&err)), Some(err)),
    };
    let mut cmds = vec![Command::SetReply {
        id: id.clone(),
        content: live.content.clone(),
        reasoning: live.reasoning.clone(),
    }];
    if error.is_some() && empty {
        cmds.push(Command::FinishReply {
            id: id.clone(),
            status: Status::Incomplete,
            finish_reason: None,
            note: None,
            at: now_ms(),
        });
        cmds.push(Command::DiscardEmptyReply { id: id.clone() });
    } else {
        cmds.push(Command::FinishReply {
            id: id.clone(),
            status,
            finish_reason,
            note,
            at: now_ms(),
        });
    }
    let open_id = app.session.with_untracked(|s| s.id.clone());
    if open_id != live.session_id {
        // The user switched chats (which stops the reply) before it ended: finish it in storage.
        app.apply_to_stored(&live.session_id, cmds);
        return;
    }
    app.session.update(|s| {
        for cmd in cmds {
            let _ = s.apply(cmd);
        }
    });
    app.save_session();
    if let Some(err) = error {
        let ctx = ErrorContext {
            base_url: settings.base_url.clone(),
            model: settings.model.clone(),
            using_default: !app.settings_saved.get_untracked(),
        };
        let settings_action = matches!(
            err,
            ApiError::Auth { .. }
                | ApiError::NotFound { .. }
                | ApiError::Network
                | ApiError::NotAStream { .. }
                | ApiError::Http { .. }
        );
        app.alert.set(Some(Alert {
            text: describe(&err, &ctx),
            settings: settings_action,
            retry: empty,
        }));
    }
}

fn short_note(err: &ApiError) -> String {
    match err {
        ApiError::Stalled { seconds } => format!("stalled: nothing arrived for {seconds} s"),
        ApiError::InStream { message } => format!("the server reported an error: {message}"),
        ApiError::Cut => "the connection broke before the reply ended".into(),
        other => other.to_string(),
    }
}
