//! The shell around the context pipeline ([`crate::core::context`]): it gathers what the pure
//! stages need — the server's window and token counts, the estimator's correction, a summary when
//! one is due — and hands back the messages to send.
//!
//! Counts come, per text and remembered for the page's life, from the model's own tokenizer when
//! the server offers one (llama.cpp, llama-cpp-python, vLLM; asked once per server, loopback and
//! local presets only), else from the estimator corrected by each reply's `usage.prompt_tokens`.
//! A build that met texts not yet counted asks the server for them and builds again (at most
//! twice); what is still missing stays estimated and is marked so.

use crate::adapters::fetch::request_text;
use crate::core::context::count::{text_key, Count, Counter, Estimator};
use crate::core::context::models::{self, WindowSource};
use crate::core::context::report::{report, Inputs, Report};
use crate::core::context::summary::{SummaryAnswer, SummaryRequest};
use crate::core::context::{build, build_lean, Config, Context, SummaryJob};
use crate::core::provider::request::{chat_request, to_json};
use crate::core::provider::server::{self, Tokenizer};
use crate::core::provider::stream::Usage;
use crate::core::session::{ContextOverrides, Message, Role, Summary};
use crate::core::settings::{preset, Settings};
use crate::ui::state::AppState;
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};

/// What a server said about itself (asked once per base URL and page).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct ServerInfo {
    tokenizer: Option<Tokenizer>,
    window: Option<u32>,
}

#[derive(Default)]
struct Counting {
    servers: HashMap<String, ServerInfo>,
    /// Exact counts by scope (server + model, or encoding), then by text.
    exact: HashMap<String, HashMap<(u64, usize), u32>>,
    /// Estimator corrections by model.
    ratios: HashMap<String, f64>,
    /// Windows servers stated in errors, by server and model.
    learned: HashMap<String, u32>,
}

thread_local! {
    static COUNTING: RefCell<Counting> = RefCell::new(Counting::default());
    /// The last requests sent (newest last), for the inspector.
    static SENT: RefCell<VecDeque<SentRecord>> = const { RefCell::new(VecDeque::new()) };
}

/// A request as it was sent, for the inspector.
#[derive(Debug, Clone)]
pub struct SentRecord {
    /// The chat.
    pub session_id: String,
    /// The inspector's view of it.
    pub report: Report,
}

/// Keep `record` among the last few requests.
pub fn remember_sent(record: SentRecord) {
    SENT.with(|s| {
        let mut s = s.borrow_mut();
        s.push_back(record);
        while s.len() > 5 {
            s.pop_front();
        }
    });
}

/// The last requests sent in chat `session_id`, newest first.
pub fn sent_in(session_id: &str) -> Vec<Report> {
    SENT.with(|s| {
        s.borrow()
            .iter()
            .rev()
            .filter(|r| r.session_id == session_id)
            .map(|r| r.report.clone())
            .collect()
    })
}

/// The inspector's view of a request `prepared` built for `settings`.
#[allow(clippy::too_many_arguments)]
pub fn report_of(
    prepared: &Prepared,
    title: String,
    history: &[Message],
    summary: Option<&Summary>,
    settings: &Settings,
    body: &str,
    with_key: bool,
    overrides: Option<&ContextOverrides>,
) -> Report {
    report(
        &prepared.context,
        &Inputs {
            title,
            history,
            summary,
            config: &prepared.config,
            source: prepared.source,
            body,
            url: &settings.chat_url(),
            with_key,
            overrides,
        },
    )
}

/// The inspector's reports for the open chat: the next request (the draft as its last user
/// message, if any), then the requests sent, newest first.
pub async fn inspect(app: AppState) -> Vec<Report> {
    let settings = app.conn.settings.get_untracked();
    let key = app.key_for(&settings.base_url);
    let draft = app.chats.draft.get_untracked();
    let (session_id, mut history, overrides) = app.chats.session.with_untracked(|s| {
        let history: Vec<Message> = s.path().into_iter().cloned().collect();
        (s.id.clone(), history, s.context.clone())
    });
    if !draft.trim().is_empty() {
        let parent = history.last().map(|m| m.id.clone());
        history.push(Message::new("draft".into(), parent, Role::User, draft, 0));
    }
    let summary = app.chats.session.with_untracked(|s| {
        let refs: Vec<&Message> = history.iter().collect();
        s.summary_for(&refs).cloned()
    });
    let prepared = prepare(
        Detail::Inspect,
        &settings,
        &history,
        summary.as_ref(),
        &overrides,
    )
    .await;
    let body = to_json(&chat_request(
        &settings,
        &settings.model,
        &prepared.context.messages,
    ));
    let title = if prepared.context.summary_job.is_some() {
        "Next request (a summary will be made first)"
    } else {
        "Next request"
    };
    let next = report_of(
        &prepared,
        title.into(),
        &history,
        summary.as_ref(),
        &settings,
        &body,
        key.is_some(),
        Some(&overrides),
    );
    let mut out = vec![next];
    out.extend(sent_in(&session_id));
    out
}

/// A counter over the page's remembered exact counts, estimating (and noting) the rest.
struct ShellCounter<'a> {
    exact: Option<&'a HashMap<(u64, usize), u32>>,
    estimator: Estimator,
    misses: Vec<String>,
}

impl Counter for ShellCounter<'_> {
    fn count(&mut self, text: &str) -> Count {
        if text.is_empty() {
            return Count::exact(0);
        }
        if let Some(n) = self.exact.and_then(|m| m.get(&text_key(text))) {
            return Count::exact(*n);
        }
        if self.exact.is_some() && self.misses.len() < 400 {
            self.misses.push(text.to_string());
        }
        self.estimator.count(text)
    }
}

/// Whether Satori may ask this server about itself: local presets and custom servers, never a
/// cloud provider's preset (they have no such endpoints). The questions never carry the API key.
fn may_probe(settings: &Settings) -> bool {
    preset(&settings.provider).is_none_or(|p| !p.needs_key)
}

/// The scope the server's exact counts for `settings` are remembered under.
fn scope(settings: &Settings, info: &ServerInfo) -> Option<String> {
    info.tokenizer
        .map(|_| format!("{}|{}", server::root(&settings.base_url), settings.model))
}

async fn server_info(settings: &Settings) -> ServerInfo {
    let base = settings.base_url.clone();
    if let Some(info) = COUNTING.with(|c| c.borrow().servers.get(&base).copied()) {
        return info;
    }
    let mut info = ServerInfo::default();
    if may_probe(settings) {
        if let Ok(ctrl) = web_sys::AbortController::new() {
            let signal = ctrl.signal();
            let props =
                request_text("GET", &server::props_url(&base), None, None, &signal, 3000).await;
            info.window = props.ok().and_then(|t| server::parse_props(&t));
            let candidates: &[Tokenizer] = if info.window.is_some() {
                &[Tokenizer::LlamaCpp]
            } else {
                &[Tokenizer::LlamaCppPython, Tokenizer::Vllm]
            };
            for t in candidates {
                let (url, body) = server::count_request(*t, &base, &settings.model, "hi");
                let answer = request_text("POST", &url, None, Some(&body), &signal, 3000).await;
                if answer.ok().and_then(|a| server::parse_count(&a)).is_some() {
                    info.tokenizer = Some(*t);
                    break;
                }
            }
        }
    }
    COUNTING.with(|c| c.borrow_mut().servers.insert(base, info));
    info
}

/// Count `texts` with the server's tokenizer and remember them under `scope`.
async fn fetch_counts(
    settings: &Settings,
    tokenizer: Tokenizer,
    scope: &str,
    mut texts: Vec<String>,
) {
    let mut seen = std::collections::HashSet::new();
    texts.retain(|t| seen.insert(text_key(t)));
    let Ok(ctrl) = web_sys::AbortController::new() else {
        return;
    };
    let signal = ctrl.signal();
    for chunk in texts.chunks(8) {
        let asks = chunk.iter().map(|text| {
            let (url, body) =
                server::count_request(tokenizer, &settings.base_url, &settings.model, text);
            let signal = signal.clone();
            async move {
                let answer = request_text("POST", &url, None, Some(&body), &signal, 10_000).await;
                (text, answer.ok().and_then(|a| server::parse_count(&a)))
            }
        });
        let answers = futures::future::join_all(asks).await;
        let mut failed = false;
        COUNTING.with(|c| {
            let mut c = c.borrow_mut();
            let map = c.exact.entry(scope.to_string()).or_default();
            for (text, n) in answers {
                match n {
                    Some(n) => {
                        map.insert(text_key(text), n);
                    }
                    None => failed = true,
                }
            }
        });
        if failed {
            return; // the server stopped answering: the rest stays estimated
        }
    }
}

/// How much the pipeline reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Only what the request can hold (sending).
    Send,
    /// Also every message's stored token count (the inspector).
    Inspect,
}

/// What the pipeline built for a request, with how.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The context.
    pub context: Context,
    /// The configuration.
    pub config: Config,
    /// Where the window came from.
    pub source: WindowSource,
}

/// Build the context for answering `history` (root first, without the reply being written).
pub async fn prepare(
    detail: Detail,
    settings: &Settings,
    history: &[Message],
    summary: Option<&Summary>,
    overrides: &ContextOverrides,
) -> Prepared {
    let info = server_info(settings).await;
    let scope = scope(settings, &info);
    let learned = COUNTING.with(|c| c.borrow().learned.get(&model_key(settings)).copied());
    let window = learned.or(info.window);
    let refs: Vec<&Message> = history.iter().collect();
    let ratio = COUNTING.with(|c| {
        c.borrow()
            .ratios
            .get(&settings.model)
            .copied()
            .unwrap_or(1.0)
    });
    let run = |exact: bool| {
        let (config, source) = models::config(
            &settings.model,
            &settings.context_defaults(),
            overrides,
            window,
            exact,
        );
        let (context, misses) = COUNTING.with(|c| {
            let c = c.borrow();
            let empty = HashMap::new();
            let mut counter = ShellCounter {
                exact: scope.as_ref().map(|s| c.exact.get(s).unwrap_or(&empty)),
                estimator: Estimator { ratio },
                misses: Vec::new(),
            };
            let start = crate::adapters::clock::precise_ms();
            let context = match detail {
                Detail::Send => build_lean(&refs, summary, &config, &mut counter),
                Detail::Inspect => build(&refs, summary, &config, &mut counter),
            };
            let name = match detail {
                Detail::Send => "satori:context-build",
                Detail::Inspect => "satori:context-inspect",
            };
            crate::adapters::clock::measure_since(name, start);
            (context, counter.misses)
        });
        (
            Prepared {
                context,
                config,
                source,
            },
            misses,
        )
    };
    let mut round = 0;
    loop {
        let (prepared, misses) = run(scope.is_some());
        match (info.tokenizer, &scope) {
            (Some(t), Some(scope)) if !misses.is_empty() && round < 2 => {
                fetch_counts(settings, t, scope, misses).await;
                round += 1;
            }
            // Some counts are still estimates (the server stopped answering): the estimated
            // margin applies.
            (Some(_), Some(_)) if !prepared.context.exact => return run(false).0,
            _ => return prepared,
        }
    }
}

/// The key learned windows are kept under: a server and a model.
fn model_key(settings: &Settings) -> String {
    format!("{}|{}", settings.base_url, settings.model)
}

/// Learn from a reply's usage: the estimator's ratio for `model` moves towards what the server
/// counted, when the request was estimated.
pub fn learn(model: &str, estimated: Option<u32>, usage: Option<&Usage>) {
    let (Some(estimated), Some(actual)) = (estimated, usage.and_then(|u| u.prompt_tokens)) else {
        return;
    };
    COUNTING.with(|c| {
        let mut c = c.borrow_mut();
        let ratio = c.ratios.get(model).copied().unwrap_or(1.0);
        let next = crate::core::context::count::corrected_ratio(ratio, estimated, actual);
        c.ratios.insert(model.to_string(), next);
    });
}

/// The server stated the model's window in an error: remember it for the next request.
pub fn learn_window(settings: &Settings, window: u32) {
    COUNTING.with(|c| c.borrow_mut().learned.insert(model_key(settings), window));
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

/// Make the summary `job` asks for, in the on-demand dialogs module (it holds the summarizer
/// template, the fact guard and the summary calls; see `ui::summarize`). `controller` lets Stop
/// abort it.
pub async fn make_summary(
    job: &SummaryJob,
    history: &[Message],
    window: u32,
    settings: &Settings,
    controller: &RefCell<Option<web_sys::AbortController>>,
    at: i64,
    id: String,
) -> Result<Summary, SummaryError> {
    let refs: Vec<&Message> = history.iter().collect();
    let request = SummaryRequest {
        id,
        at,
        through: job.through.clone(),
        covers: job.covers,
        previous: job.previous.clone(),
        turns: job.turns(&refs),
        window: Some(window),
    };
    let ctrl = web_sys::AbortController::new()
        .map_err(|_| SummaryError::Module("no AbortController".into()))?;
    let signal = ctrl.signal();
    *controller.borrow_mut() = Some(ctrl);
    let answer = crate::adapters::prompts_module::summarize(
        &serde_json::to_string(&request).unwrap_or_default(),
        &serde_json::to_string(settings).unwrap_or_default(),
        &signal,
    )
    .await
    .map_err(|e| SummaryError::Module(crate::ui::error_text::module_problem(&e)))?;
    match serde_json::from_str::<SummaryAnswer>(&answer) {
        Ok(SummaryAnswer::Made(s)) => Ok(s),
        Ok(SummaryAnswer::Failed(why)) => Err(SummaryError::Failed(why)),
        Ok(SummaryAnswer::Stopped) => Err(SummaryError::Stopped),
        Err(e) => Err(SummaryError::Module(e.to_string())),
    }
}
