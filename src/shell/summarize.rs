//! Making a summary (runs in the on-demand dialogs module, next to the summarizer template):
//! the summarizer called with the summarizer model, in pieces that fit its window, each
//! extending the previous summary; the fact guard restores every key fact the summarizer left
//! out; an empty or far too short answer is a failure. The app asks for it with a
//! [`SummaryRequest`] and gets a [`SummaryAnswer`].

use crate::adapters::fetch::{post_stream, ChatStream, FetchError};
use crate::core::context::count::Estimator;
use crate::core::context::facts;
use crate::core::context::filter::strip_thoughts;
use crate::core::context::models;
use crate::core::context::summary::{transcript, SummaryAnswer, SummaryRequest};
use crate::core::persist;
use crate::core::provider::error::ApiError;
use crate::core::session::{Role, Summary};
use crate::core::settings::Settings;
use crate::core::turn::{Effect, Event, Turn, TurnConfig};
use std::collections::VecDeque;

/// Why a summary call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum SummaryError {
    /// The summarizer template could not be rendered.
    #[error("the summarizer template failed ({0})")]
    Template(String),
    /// The call failed.
    #[error("{0}")]
    Api(ApiError),
    /// The call was stopped.
    #[error("stopped")]
    Stopped,
    /// The answer was empty or far too short for what it covers.
    #[error("the summary came back empty or too short")]
    TooShort,
}

/// The API key stored for `base_url`, read the way Settings reads it (a key only ever goes to the
/// URL it was saved for).
fn key_for(base_url: &str) -> Option<String> {
    let text = crate::adapters::storage::Store::local()
        .get(persist::KEY_API_KEY)
        .ok()
        .flatten()?;
    let record = persist::decode_api_key(&text).ok()?;
    record.key_for(base_url).map(str::to_string)
}

/// Make the summary `request` asks for with `settings`; `signal` aborts it.
pub async fn summarize(
    request: &SummaryRequest,
    settings: &Settings,
    signal: &web_sys::AbortSignal,
) -> SummaryAnswer {
    let key = key_for(&settings.base_url);
    match make(request, settings, key.as_deref(), signal).await {
        Ok(s) => SummaryAnswer::Made(s),
        Err(SummaryError::Stopped) => SummaryAnswer::Stopped,
        Err(e) => SummaryAnswer::Failed(e.to_string()),
    }
}

/// Longest summary reply asked for, tokens.
const SUMMARY_MAX_TOKENS: u32 = 1024;

/// The summary `request` asks for (see the module header).
async fn make(
    request: &SummaryRequest,
    settings: &Settings,
    key: Option<&str>,
    signal: &web_sys::AbortSignal,
) -> Result<Summary, SummaryError> {
    let model = settings.summarizer().to_string();
    // The chat's window (override, Settings, the server, the table — as the app resolved it)
    // when the chat model summarizes; a separate summarizer model's own window if Satori knows it.
    let window = if model == settings.model {
        request.window
    } else {
        models::known_window(&model).or(request.window)
    }
    .unwrap_or(models::DEFAULT_WINDOW);
    let max_tokens = (window / 4).clamp(128, SUMMARY_MAX_TOKENS);
    // Room for the conversation: the window less the reply, the template and a margin (estimated).
    let room = window
        .saturating_sub(max_tokens)
        .saturating_sub(window / 10 + 400)
        .max(200);
    let turns = &request.turns;
    let facts = facts::extract(&transcript(request.previous.as_deref(), turns));
    let mut previous = request.previous.clone();
    for chunk in chunks(turns, room) {
        let text = transcript(previous.as_deref(), &chunk);
        let text = crate::core::context::cap::head_tail(&text, room, &mut Estimator::default());
        let reply = summarize_once(&text, &model, max_tokens, settings, key, signal).await?;
        previous = Some(reply);
    }
    let summary = previous.unwrap_or_default();
    let covered: usize = turns.iter().map(|(_, t)| t.chars().count()).sum();
    if facts::too_short(&summary, covered) {
        return Err(SummaryError::TooShort);
    }
    let guarded = facts::guard(&summary, &facts);
    Ok(Summary {
        id: request.id.clone(),
        through: request.through.clone(),
        covers: request.covers,
        text: guarded.text,
        restored: guarded.restored.into_iter().map(|f| f.text).collect(),
        model,
        edited: false,
        created_at: request.at,
    })
}

/// The turns in pieces of at most `room` estimated tokens each (a turn larger than that is a
/// piece of its own, cut later).
fn chunks(turns: &[(Role, String)], room: u32) -> Vec<Vec<(Role, String)>> {
    let mut out: Vec<Vec<_>> = Vec::new();
    let mut size = 0u32;
    for t in turns {
        let n = crate::core::context::count::estimate(&t.1) + 4;
        if out.is_empty() || size + n > room {
            out.push(Vec::new());
            size = 0;
        }
        size += n;
        if let Some(last) = out.last_mut() {
            last.push(t.clone());
        }
    }
    if out.is_empty() {
        out.push(Vec::new());
    }
    out
}

async fn summarize_once(
    conversation: &str,
    model: &str,
    max_tokens: u32,
    settings: &Settings,
    key: Option<&str>,
    signal: &web_sys::AbortSignal,
) -> Result<String, SummaryError> {
    let mut vars = crate::core::prompts::Vars::new();
    vars.insert("conversation".into(), conversation.into());
    let rendered = crate::core::prompts::render(crate::core::prompts::BUILTIN, "summarizer", &vars)
        .map_err(|e| SummaryError::Template(e.to_string()))?;
    let messages: Vec<serde_json::Value> = rendered
        .messages
        .iter()
        .map(|m| {
            let role = match m.role {
                crate::core::prompts::template::PromptRole::System => "system",
                crate::core::prompts::template::PromptRole::User => "user",
                crate::core::prompts::template::PromptRole::Assistant => "assistant",
            };
            serde_json::json!({ "role": role, "content": m.content })
        })
        .collect();
    let body = serde_json::json!({
        "model": model,
        "messages": messages,
        "stream": true,
        "max_tokens": max_tokens,
    })
    .to_string();
    let text = complete(settings, key, &body, signal).await?;
    Ok(strip_thoughts(&text).trim().to_string())
}

/// Run one streamed request (`body`) with `settings` to the end without showing it (the key is
/// the one saved for the settings' URL); its text, or the error (`None`: stopped through
/// `signal`). The agent's planner asks the model this way.
pub async fn reply_text(
    settings: &Settings,
    body: &str,
    signal: &web_sys::AbortSignal,
) -> Result<String, Option<ApiError>> {
    let key = key_for(&settings.base_url);
    match complete(settings, key.as_deref(), body, signal).await {
        Ok(text) => Ok(text),
        Err(SummaryError::Api(e)) => Err(Some(e)),
        Err(_) => Err(None),
    }
}

/// Run one streamed request to the end without showing it, and return its text.
async fn complete(
    settings: &Settings,
    key: Option<&str>,
    body: &str,
    signal: &web_sys::AbortSignal,
) -> Result<String, SummaryError> {
    let now = crate::adapters::clock::now_ms;
    let (mut turn, first) = Turn::new(
        "summary".into(),
        TurnConfig::new(settings.stall_seconds),
        now(),
    );
    let mut queue: VecDeque<Effect> = first.into();
    let mut stream: Option<ChatStream> = None;
    let stall_ms = settings.stall_seconds.saturating_mul(1000);
    loop {
        let Some(effect) = queue.pop_front() else {
            let Some(open) = stream.as_mut() else {
                return Err(SummaryError::Api(ApiError::Cut));
            };
            let event = match open.next().await {
                Ok(Some(bytes)) => Event::Bytes(bytes),
                Ok(None) => Event::End,
                Err(FetchError::Aborted) => Event::Aborted,
                Err(e) => {
                    Event::Failed(crate::shell::turn::to_api_error(e, settings.stall_seconds))
                }
            };
            queue.extend(turn.on(event, now()));
            continue;
        };
        match effect {
            Effect::Request => {
                if signal.aborted() {
                    queue.extend(turn.on(Event::Aborted, now()));
                    continue;
                }
                match post_stream(&settings.chat_url(), key, body, signal, stall_ms).await {
                    Ok(s) => stream = Some(s),
                    Err(FetchError::Aborted) => queue.extend(turn.on(Event::Aborted, now())),
                    Err(e) => queue.extend(turn.on(
                        Event::Failed(crate::shell::turn::to_api_error(e, settings.stall_seconds)),
                        now(),
                    )),
                }
            }
            Effect::Wait { seconds, .. } => {
                // Stop ends the wait too (checked every second).
                for _ in 0..seconds {
                    if signal.aborted() {
                        break;
                    }
                    gloo_timers::future::TimeoutFuture::new(1000).await;
                }
                queue.extend(turn.on(Event::Waited, now()));
            }
            // A stalled stream cancels its own reader; Stop aborts through `signal`.
            Effect::Abort | Effect::Render | Effect::Checkpoint => {}
            Effect::Finish(ending) => {
                if let Some(err) = ending.error {
                    return Err(SummaryError::Api(err));
                }
                if turn.stopping() {
                    return Err(SummaryError::Stopped);
                }
                return Ok(turn.content().to_string());
            }
        }
    }
}
