//! The turns module's side of building a request (it runs inside the lazy `context` wasm
//! module, `src/bin/satori-turns.rs`; the app asks it through [`crate::ui::context`]): it
//! gathers what the pure pipeline ([`crate::core::context`]) needs — the server's window and token
//! counts, the estimator's correction — runs it, and answers with the request body, the summary
//! that is due and the inspector's report.
//!
//! Counts come, per text and remembered for the page's life, from the model's own tokenizer when
//! the server offers one (llama.cpp, llama-cpp-python, vLLM; asked once per server, loopback and
//! local presets only), else from the estimator corrected by each reply's `usage.prompt_tokens`.
//! A build that met texts not yet counted asks the server for them and builds again (at most
//! twice); what is still missing stays estimated and is marked so.

use crate::adapters::attachments;
use crate::adapters::fetch::request_text;
use crate::core::attachment::{self, Attachment, Kind};
use crate::core::bpe::{Bpe, Cache};
use crate::core::context::ask::{self, Answer, Ask};
use crate::core::context::count::{text_key, Count, Counter, Estimator};
use crate::core::context::models::{self, Encoding, WindowSource};
use crate::core::context::report::{report, Inputs};
use crate::core::context::summary::SummaryRequest;
use crate::core::context::{build, build_lean, Config, Context};
use crate::core::provider::request::{chat_request, to_json};
use crate::core::provider::server::{self, Tokenizer};
use crate::core::session::{ContextOverrides, Message, Summary};
use crate::core::settings::{preset, Settings};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

/// What a server said about itself (asked once per base URL and page).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct ServerInfo {
    tokenizer: Option<Tokenizer>,
    window: Option<u32>,
    /// An Ollama server: windows are per model ([`ollama_window`]).
    ollama: bool,
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
    /// Ollama windows, by server and model.
    ollama: HashMap<String, u32>,
}

/// An OpenAI token table (o200k_base, cl100k_base) with its piece cache.
struct Loaded {
    table: Bpe,
    cache: Cache,
}

/// Where an encoding's table is.
enum Table {
    /// Being fetched; `waited_out` once a request gave up waiting for it (later ones do not wait).
    Loading {
        waited_out: bool,
    },
    Ready(Box<Loaded>),
    /// The fetch failed at this time (ms); it is tried again after [`TABLE_RETRY_MS`].
    Failed(i64),
}

/// How long after a failed table fetch it is tried again, ms.
const TABLE_RETRY_MS: i64 = 60_000;

/// Each table's piece cache: 65,536 index slots, 2 MB of piece bytes, 512 Ki ids (5 MB; the
/// o200k_base table itself takes about 5.5 MB). Measured on 20,000 chat messages counted twice:
/// half this size was 30% slower on the second pass.
const CACHE: (usize, usize, usize) = (1 << 16, 1 << 21, 1 << 19);

/// How long a request waits for a token table still downloading before it is estimated (with the
/// estimated margin) instead, ms. The table keeps loading for the next request.
const TABLE_WAIT_MS: u32 = 3000;

/// What the module learns for the page's life, across requests and chats.
struct Learned {
    /// The estimator's corrections and exact counts learned.
    counting: RefCell<Counting>,
    /// The token tables loaded, by encoding.
    tables: RefCell<HashMap<&'static str, Table>>,
    /// Servers and models that refused `response_format` (`base_url|model`).
    no_format: RefCell<std::collections::HashSet<String>>,
}

thread_local! {
    // Why a static: what the module learns (counts, corrections, tables, servers' refusals) is
    // kept for the page's life across requests and chats; the module has no app state.
    static LEARNED: Learned = Learned {
        counting: RefCell::new(Counting::default()),
        tables: RefCell::new(HashMap::new()),
        no_format: RefCell::new(Default::default()),
    };
}

/// Read or change what was learned for counting.
fn counting<R>(f: impl FnOnce(&RefCell<Counting>) -> R) -> R {
    LEARNED.with(|l| f(&l.counting))
}

/// Read or change the token tables.
fn with_tables<R>(f: impl FnOnce(&mut HashMap<&'static str, Table>) -> R) -> R {
    LEARNED.with(|l| f(&mut l.tables.borrow_mut()))
}

/// The server at `base_url` refused structured output for `model`: later requests go without.
pub fn refuse_format(base_url: &str, model: &str) {
    LEARNED.with(|l| {
        l.no_format
            .borrow_mut()
            .insert(format!("{base_url}|{model}"))
    });
}

fn format_refused(base_url: &str, model: &str) -> bool {
    LEARNED.with(|l| {
        l.no_format
            .borrow()
            .contains(&format!("{base_url}|{model}"))
    })
}

/// A counter over the page's remembered exact counts, estimating (and noting) the rest. With an
/// OpenAI table it counts what is not remembered yet itself (and remembers it).
struct ShellCounter<'a> {
    exact: Option<&'a HashMap<(u64, usize), u32>>,
    table: Option<&'a mut Loaded>,
    /// Whether the table's counts are the request's (see [`models::openai_exact`]).
    table_exact: bool,
    fresh: Vec<((u64, usize), u32)>,
    estimator: Estimator,
    misses: Vec<String>,
}

impl Counter for ShellCounter<'_> {
    fn count(&mut self, text: &str) -> Count {
        if text.is_empty() {
            return Count::exact(0);
        }
        let key = text_key(text);
        if let Some(n) = self.exact.and_then(|m| m.get(&key)) {
            return Count::exact(*n);
        }
        if let Some(t) = self.table.as_deref_mut() {
            let n = u32::try_from(t.table.count_cached(text, &mut t.cache)).unwrap_or(u32::MAX);
            self.fresh.push((key, n));
            return Count {
                tokens: n,
                exact: self.table_exact,
            };
        }
        if self.exact.is_some() && self.misses.len() < 400 {
            self.misses.push(text.to_string());
        }
        self.estimator.count(text)
    }
}

/// Whether `encoding`'s table is loaded: starts loading it (once per page) and waits for it up
/// to [`TABLE_WAIT_MS`]. A table that cannot be loaded leaves counting to the estimator.
async fn table_ready(encoding: Encoding) -> bool {
    let name = encoding.name();
    let now = crate::adapters::clock::now_ms();
    let (start, wait) = with_tables(|t| match t.get(name) {
        None => (true, true),
        Some(Table::Failed(at)) if now - at > TABLE_RETRY_MS => (true, true),
        Some(Table::Loading { waited_out }) => (false, !waited_out),
        Some(_) => (false, false),
    });
    if start {
        with_tables(|t| t.insert(name, Table::Loading { waited_out: false }));
        wasm_bindgen_futures::spawn_local(async move {
            let state = match crate::adapters::tables::fetch(name).await {
                Ok(bytes) => match Bpe::from_bytes(&bytes) {
                    Ok(table) if table.name() == name => Table::Ready(Box::new(Loaded {
                        table,
                        cache: Cache::new(CACHE.0, CACHE.1, CACHE.2),
                    })),
                    Ok(table) => table_failed(name, &format!("the file holds {}", table.name())),
                    Err(e) => table_failed(name, &e.to_string()),
                },
                Err(e) => table_failed(name, &e),
            };
            with_tables(|t| t.insert(name, state));
        });
    }
    if wait {
        for _ in 0..TABLE_WAIT_MS / 50 {
            match with_tables(|t| matches!(t.get(name), Some(Table::Loading { .. }))) {
                true => gloo_timers::future::TimeoutFuture::new(50).await,
                false => break,
            }
        }
        with_tables(|t| {
            if let Some(Table::Loading { waited_out }) = t.get_mut(name) {
                *waited_out = true;
            }
        });
    }
    with_tables(|t| matches!(t.get(name), Some(Table::Ready(_))))
}

/// A table that could not be loaded: said in the console (counts fall back to estimates, which
/// the inspector marks), tried again later.
fn table_failed(name: &str, why: &str) -> Table {
    web_sys::console::warn_1(&format!("Satori: the {name} token table could not be loaded ({why}); counts are estimated until it can.").into());
    Table::Failed(crate::adapters::clock::now_ms())
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

/// What the server of `settings` offers: asked once per server and page (and per model for an
/// Ollama window).
async fn server_info(settings: &Settings) -> ServerInfo {
    let base = settings.base_url.clone();
    let cached = counting(|c| c.borrow().servers.get(&base).copied());
    let mut info = match cached {
        Some(info) => info,
        None => {
            let info = probe_server(settings).await;
            counting(|c| c.borrow_mut().servers.insert(base, info));
            info
        }
    };
    if info.ollama {
        info.window = ollama_window(settings).await;
    }
    info
}

async fn probe_server(settings: &Settings) -> ServerInfo {
    let mut info = ServerInfo::default();
    if !may_probe(settings) {
        return info;
    }
    let Ok(ctrl) = web_sys::AbortController::new() else {
        return info;
    };
    let signal = ctrl.signal();
    let base = &settings.base_url;
    // The in-browser model counts once its tokenizer has arrived (the model file's first 1.8 MB).
    let ms = if crate::core::settings::in_browser(base) {
        120_000
    } else {
        3000
    };
    let get = |url: String| {
        let signal = signal.clone();
        async move {
            request_text("GET", &url, None, None, &signal, ms)
                .await
                .ok()
        }
    };
    info.window = get(server::props_url(base))
        .await
        .and_then(|t| server::parse_props(&t));
    let candidates: &[Tokenizer] = if info.window.is_some() {
        &[Tokenizer::LlamaCpp]
    } else if get(server::ollama_version_url(base))
        .await
        .is_some_and(|t| server::is_ollama_version(&t))
    {
        info.ollama = true;
        &[] // Ollama has no tokenizer endpoint
    } else {
        &[Tokenizer::LlamaCppPython, Tokenizer::Vllm]
    };
    for t in candidates {
        let (url, body) = server::count_request(*t, base, &settings.model, "hi");
        let answer = request_text("POST", &url, None, Some(&body), &signal, ms).await;
        if answer.ok().and_then(|a| server::parse_count(&a)).is_some() {
            info.tokenizer = Some(*t);
            break;
        }
    }
    info
}

/// The window Ollama runs `settings.model` with: what the model sets (`/api/show`), or less if
/// the loaded model runs with less (`/api/ps`). Remembered per server and model once known; a
/// model Ollama does not know (yet) is asked about again next time.
async fn ollama_window(settings: &Settings) -> Option<u32> {
    let key = model_key(settings);
    if let Some(w) = counting(|c| c.borrow().ollama.get(&key).copied()) {
        return Some(w);
    }
    let ctrl = web_sys::AbortController::new().ok()?;
    let signal = ctrl.signal();
    let (url, body) = server::ollama_show_request(&settings.base_url, &settings.model);
    let show = request_text("POST", &url, None, Some(&body), &signal, 3000).await;
    let shown = show.ok().and_then(|t| server::parse_ollama_show(&t))?;
    let url = server::ollama_ps_url(&settings.base_url);
    let ps = request_text("GET", &url, None, None, &signal, 3000).await;
    let running = ps
        .ok()
        .and_then(|t| server::parse_ollama_ps(&t, &settings.model));
    let window = running.map_or(shown, |r| r.min(shown));
    counting(|c| c.borrow_mut().ollama.insert(key, window));
    Some(window)
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
        counting(|c| {
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
enum Detail {
    /// Only what the request can hold (sending).
    Send,
    /// Also every message's stored token count (the inspector).
    Inspect,
}

/// What the pipeline built for a request, with how.
#[derive(Debug, Clone)]
struct Prepared {
    context: Context,
    config: Config,
    source: WindowSource,
}

/// Build the context for answering `history` (root first, without the reply being written).
async fn prepare(
    detail: Detail,
    settings: &Settings,
    history: &[Message],
    summary: Option<&Summary>,
    overrides: &ContextOverrides,
    elided: Elided,
    tools: u32,
) -> Prepared {
    let info = server_info(settings).await;
    // The server's own tokenizer first; else OpenAI's tables for OpenAI models.
    let encoding = match info.tokenizer {
        None => models::encoding_for(&settings.model),
        Some(_) => None,
    };
    let table = match encoding {
        Some(e) if table_ready(e).await => Some(e),
        _ => None,
    };
    let scope = match table {
        Some(e) => Some(format!("bpe:{}", e.name())),
        None => scope(settings, &info),
    };
    let table_exact = models::openai_exact(&settings.model);
    // Whether counts can be exact at all (the margin follows).
    let exact_counts = scope.is_some() && (table.is_none() || table_exact);
    let learned = counting(|c| c.borrow().learned.get(&model_key(settings)).copied());
    let window = learned.or(info.window);
    let refs: Vec<&Message> = history.iter().collect();
    let ratio = counting(|c| {
        c.borrow()
            .ratios
            .get(&settings.model)
            .copied()
            .unwrap_or(1.0)
    });
    let images = crate::adapters::storage::Store::local().images();
    let defaults = crate::core::context::models::Defaults {
        image_rounds: images.rounds,
        images: images.sees(&settings.model),
        ..settings.context_defaults()
    };
    let run = |exact: bool| {
        let (mut config, source) =
            models::config(&settings.model, &defaults, overrides, window, exact);
        // The tools offered take room in the window like the messages.
        config.margin = config.margin.saturating_add(tools);
        let (context, misses) = counting(|c| {
            let c = &mut *c.borrow_mut();
            let mut tables = with_tables(std::mem::take);
            let loaded = match table.and_then(|e| tables.get_mut(e.name())) {
                Some(Table::Ready(t)) => Some(&mut **t),
                _ => None,
            };
            let empty = HashMap::new();
            let mut counter = ShellCounter {
                exact: scope.as_ref().map(|s| c.exact.get(s).unwrap_or(&empty)),
                table: loaded,
                table_exact,
                fresh: Vec::new(),
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
            let (fresh, misses) = (counter.fresh, counter.misses);
            with_tables(|t| *t = std::mem::take(&mut tables));
            if let (Some(scope), false) = (&scope, fresh.is_empty()) {
                c.exact.entry(scope.clone()).or_default().extend(fresh);
            }
            (context, misses)
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
        let (prepared, misses) = run(exact_counts);
        // A build that needs elided text is asked again whole: its counts never go to the server.
        if elided.needed(&prepared.context, history, summary) {
            return prepared;
        }
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

/// How many messages of the history came without their text (`Ask::elided`), and whether the
/// summary job's turns will be read.
#[derive(Debug, Clone, Copy)]
struct Elided {
    count: usize,
    summarizing: bool,
}

impl Elided {
    /// Whether `context` needs the text of an elided message (the app then asks again whole).
    fn needed(self, context: &Context, history: &[Message], summary: Option<&Summary>) -> bool {
        let through = summary.map(|s| s.through.as_str());
        self.count > 0
            && ask::read_from(context, history, through, self.summarizing)
                .is_some_and(|i| i < self.count)
    }
}

/// The key learned windows are kept under: a server and a model.
fn model_key(settings: &Settings) -> String {
    format!("{}|{}", settings.base_url, settings.model)
}

/// Learn from a reply's usage: the estimator's ratio for `model` moves towards the `actual`
/// prompt tokens the server counted for a request estimated at `estimated`.
pub fn learn(model: &str, estimated: u32, actual: u32) {
    counting(|c| {
        let mut c = c.borrow_mut();
        let ratio = c.ratios.get(model).copied().unwrap_or(1.0);
        let next =
            crate::core::context::count::corrected_ratio(ratio, estimated, u64::from(actual));
        c.ratios.insert(model.to_string(), next);
    });
}

/// The server stated the model's window in an error: remember it for the next request.
pub fn learn_window(base_url: &str, model: &str, window: u32) {
    counting(|c| {
        c.borrow_mut()
            .learned
            .insert(format!("{base_url}|{model}"), window)
    });
}

/// Answer `ask`: build the context (asking the server for counts when it can), the request body,
/// the summary request when one is due, and the report when asked for.
///
/// `tools`: in agent mode, the tools the agent module offers (the `tools` field of a request).
pub async fn answer(ask: &Ask, tools: Option<serde_json::Value>) -> Answer {
    // The questions' files go in as their text, read from where the page keeps them.
    let through = ask.summary.as_ref().map(|s| s.through.as_str());
    let (history, files) = with_files(&ask.history, ask.elided as usize, through).await;
    // Structured output, unless tools go with the request or the server refused it before.
    let format = ask
        .format
        .as_ref()
        .filter(|_| tools.is_none())
        .filter(|_| !format_refused(&ask.settings.base_url, &ask.settings.model))
        .and_then(|f| f.wire());
    // The tools (or their ReAct description) and the schema take room like the messages;
    // estimated.
    let tools_tokens = tools
        .iter()
        .chain(format.iter())
        .map(|t| crate::core::context::count::estimate(&t.to_string()))
        .sum::<u32>();
    let detail = if ask.inspect {
        Detail::Inspect
    } else {
        Detail::Send
    };
    let prepared = prepare(
        detail,
        &ask.settings,
        &history,
        ask.summary.as_ref(),
        &ask.overrides,
        Elided {
            count: ask.elided as usize,
            summarizing: !ask.summaries_paused,
        },
        tools_tokens,
    )
    .await;
    let settings = &ask.settings;
    let context = &prepared.context;
    let through = ask.summary.as_ref().map(|s| s.through.as_str());
    let read_from = ask::read_from(context, &history, through, !ask.summaries_paused);
    if read_from.is_some_and(|i| i < ask.elided as usize) {
        return Answer {
            verdict: context.verdict,
            total: 0,
            exact: false,
            window: prepared.config.window,
            summary: None,
            body: String::new(),
            report: None,
            need_full: true,
            read_from: read_from.map(|i| i as u32),
            formatted: false,
            blind: 0,
        };
    }
    // The images sent: refused for a model that does not see them; else as `data:` URLs (the
    // inspector shows each as its type alone).
    let sent: Vec<&Attachment> = context.messages.iter().flat_map(|m| &m.images).collect();
    let blind = match prepared.config.images {
        true => 0,
        false => sent.len() as u32,
    };
    let mut images = match ask.inspect {
        true => shown_images(&context.messages),
        false => BTreeMap::new(),
    };
    for a in sent {
        if images.contains_key(&a.hash) || blind > 0 || ask.inspect {
            continue;
        }
        if let Some(url) = attachments::data_url(&a.hash).await {
            images.insert(a.hash.clone(), url);
        }
    }
    let react = match (&tools, ask.agent.react) {
        (Some(t), true) => Some(crate::core::agent::react::for_react(
            context.messages.clone(),
            t,
        )),
        _ => None,
    };
    let body_with = |images: &BTreeMap<String, String>| {
        let mut request = chat_request(
            settings,
            &settings.model,
            react.as_deref().unwrap_or(&context.messages),
            images,
        );
        if react.is_some() {
            request.stop = Some(crate::core::agent::react::STOP);
        } else {
            request.tools = tools.as_ref();
        }
        request.response_format = format.as_ref();
        to_json(&request)
    };
    let body = body_with(&images);
    let summary = context.summary_job.as_ref().map(|job| {
        let refs: Vec<&Message> = history.iter().collect();
        SummaryRequest {
            id: String::new(),
            at: 0,
            through: job.through.clone(),
            covers: job.covers,
            previous: job.previous.clone(),
            // Paused: the app only says a summary was due; its turns may be elided.
            turns: match ask.summaries_paused {
                true => Vec::new(),
                false => job.turns(&refs),
            },
            window: Some(prepared.config.window),
        }
    });
    let report = ask.report.as_ref().map(|r| {
        let report = report(
            context,
            &Inputs {
                // The next request says when a summary comes first.
                title: match &summary {
                    Some(_) if r.editable && ask.summaries_paused => {
                        crate::shell::error_text::summary_waits(&r.title)
                    }
                    Some(_) if r.editable => format!("{} (a summary will be made first)", r.title),
                    _ => r.title.clone(),
                },
                history: &history,
                elided: ask.elided as usize,
                summary: ask.summary.as_ref(),
                config: &prepared.config,
                source: prepared.source,
                // (Each image as its type alone: a report is kept, and drawn whole.)
                body: &match images.is_empty() || ask.inspect {
                    true => body.clone(),
                    false => body_with(&shown_images(&context.messages)),
                },
                url: &settings.chat_url(),
                with_key: r.with_key,
                overrides: r.editable.then_some(&ask.overrides),
                files: &files,
            },
        );
        serde_json::to_string(&report).unwrap_or_default()
    });
    Answer {
        verdict: context.verdict,
        // The server counts the tools too: the estimate learnt from `usage` includes them.
        total: context.total.saturating_add(tools_tokens),
        exact: context.exact && tools_tokens == 0,
        window: prepared.config.window,
        summary,
        body,
        report,
        need_full: false,
        read_from: read_from.map(|i| i as u32),
        formatted: format.is_some(),
        blind,
    }
}

/// The images of `messages` as the inspector shows them: a `data:` URL of their type alone.
fn shown_images(messages: &[crate::core::context::Sent]) -> BTreeMap<String, String> {
    messages
        .iter()
        .flat_map(|m| &m.images)
        .map(|a| (a.hash.clone(), format!("data:{};base64,…", a.mime)))
        .collect()
}

/// `history` with each question's files after its text (`attachment::with_files`), their text
/// read from where the page keeps it, borrowed when no question has a file; and the estimated
/// tokens of each file's block, for the inspector. The first `elided` messages came without their
/// text (`ask::elide`: the request is not expected to need them) and are left as they are.
async fn with_files<'a>(
    history: &'a [Message],
    elided: usize,
    through: Option<&str>,
) -> (Cow<'a, [Message]>, BTreeMap<String, u32>) {
    let has_files = |i: usize, m: &Message| {
        (i >= elided || ask::kept_whole(m, through))
            && attachment::read(&m.attachments)
                .iter()
                .any(|a| a.kind != Kind::Image)
    };
    let mut tokens = BTreeMap::new();
    if !history.iter().enumerate().any(|(i, m)| has_files(i, m)) {
        return (Cow::Borrowed(history), tokens);
    }
    let mut texts = BTreeMap::new();
    let mut out = history.to_vec();
    for (_, m) in out.iter_mut().enumerate().filter(|(i, m)| has_files(*i, m)) {
        let files = attachment::read(&m.attachments);
        for key in files.iter().filter_map(Attachment::text_key) {
            if !texts.contains_key(key) {
                if let Some(text) = attachments::text(key).await {
                    texts.insert(key.to_string(), text);
                }
            }
        }
        for a in files.iter().filter(|a| a.kind != Kind::Image) {
            let block = attachment::with_files("", std::slice::from_ref(a), &texts);
            tokens.insert(
                a.hash.clone(),
                crate::core::context::count::estimate(&block),
            );
        }
        m.content = attachment::with_files(&m.content, &files, &texts);
    }
    (Cow::Owned(out), tokens)
}
