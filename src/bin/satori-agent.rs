//! The agent module: the tools agent mode offers the model and runs for it (the calculator, the
//! clock, recall of earlier messages, the planner; `satori::core::agent`) and the tools of the MCP
//! servers connected in Settings (`satori::shell::mcp`), as a wasm module of its own without
//! Leptos. The app loads it only for chats in agent mode, so plain chats never pay for it: the
//! turns module asks it for the tools to offer with each request ([`offered`]), and after
//! each reply the app hands it the branch ([`next`]), which plans the step
//! (`satori::core::agent::plan`) and runs the calls. `scripts/build.sh` builds it into
//! `dist/agent-<hash>/`; `satori::ui::agent` calls it.

use satori::adapters::approval::{self, Question};
use satori::adapters::clock::{new_id, now_ms};
use satori::core::agent::refuses_format;
use satori::core::agent::repair::{repair_context, Repairer, Step, Verdict};
use satori::core::agent::trust::{self, Answer, Exposure, Gate};
use satori::core::agent::{mcp, plan, plan_run, recall, tools, Plan};
use satori::core::context::ask::response_format;
use satori::core::hidden::reveal;
use satori::core::persist;
use satori::core::session::{AgentConfig, Message, Role, ToolCall};
use satori::core::settings::Settings;
use satori::shell::mcp::Session;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;
use web_sys::AbortSignal;

fn main() {}

/// The tools offered with each request of an agent-mode chat: the `tools` field of a chat
/// completion request, as JSON text.
#[wasm_bindgen]
pub fn offered() -> String {
    let toolbox = Toolbox::load();
    let wire = tools::wire(&toolbox.specs).to_string();
    // The calls of the reply to this request run on the tools offered under these names, even
    // if Settings changes meanwhile.
    MODULE.with(|m| *m.offered.borrow_mut() = Some(toolbox));
    wire
}

/// "Run plan": the checklist of a plan (`input`: JSON of [`plan_run::PlanAsk`]): an object
/// `{html, runnable}` — the checklist as escaped HTML (empty if the tool result is not a plan)
/// and whether a step is left to run.
#[wasm_bindgen]
pub fn plan_checklist(input: &str) -> JsValue {
    let (html, runnable) = match serde_json::from_str::<plan_run::PlanRead>(input) {
        Err(_) => (String::new(), false),
        Ok(ask) => match plan_run::read(&ask.plan) {
            None => (String::new(), false),
            Some(Err(e)) => (
                satori::shell::error_text::plan_unrunnable_html(&plan_run::escape_html(&e)),
                false,
            ),
            Some(Ok(plan)) => {
                let done = plan_run::progress(&plan, &plan_run::read_after(&ask.after()));
                let left = done.iter().any(|d| !d);
                (plan_run::checklist_html(&plan, &done), left)
            }
        },
    };
    let out = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&out, &"html".into(), &html.into());
    let _ = js_sys::Reflect::set(&out, &"runnable".into(), &runnable.into());
    out.into()
}

/// "Run plan": the next step of a plan being run (`input` as for [`plan_checklist`]): an object
/// `{status, id, prompt}` — the step to send and the status line while it runs — or `{status}`
/// alone when the run ends there (every step checked off, the plan cannot run, or the step sent
/// last is still without an answer: never sent twice in a row).
#[wasm_bindgen]
pub fn plan_next(input: &str) -> JsValue {
    use satori::shell::error_text::{plan_done, plan_failed, plan_step, plan_stuck};
    let out = js_sys::Object::new();
    let set = |k: &str, v: JsValue| {
        let _ = js_sys::Reflect::set(&out, &JsValue::from_str(k), &v);
    };
    let status = match serde_json::from_str::<plan_run::PlanRead>(input) {
        Err(e) => plan_failed(&e.to_string()),
        Ok(ask) => match plan_run::read(&ask.plan) {
            None => plan_failed("this is not a plan"),
            Some(Err(e)) => plan_failed(&e),
            Some(Ok(plan)) => {
                let done = plan_run::progress(&plan, &plan_run::read_after(&ask.after()));
                let total = plan.steps.len();
                match plan_run::next_step(&plan, &done) {
                    // The id reaches the app as a JS number and comes back from it as read.
                    Some((_, step)) if ask.last == Some(step.id() as f64 as i64) => {
                        plan_stuck(step.id())
                    }
                    Some((i, step)) => {
                        set("id", JsValue::from_f64(step.id() as f64));
                        set(
                            "prompt",
                            plan_run::step_prompt(&plan, step, i + 1, total).into(),
                        );
                        plan_step(i + 1, total)
                    }
                    None => plan_done(total),
                }
            }
        },
    };
    set("status", status.into());
    out.into()
}

/// Every tool offered: the built-in ones, then the switched-on tools of the MCP servers
/// connected in Settings (read from storage each time, so a change applies to the next request).
struct Toolbox {
    specs: Vec<tools::Spec>,
    remote: Vec<mcp::Offered>,
    servers: mcp::Servers,
}

/// The MCP servers as stored now (none when the record cannot be read).
fn stored_servers() -> mcp::Servers {
    satori::adapters::storage::Store::local()
        .get(persist::KEY_MCP)
        .ok()
        .flatten()
        .and_then(|t| persist::decode_mcp(&t).ok())
        .unwrap_or_default()
}

impl Toolbox {
    fn load() -> Toolbox {
        let servers = stored_servers();
        let mut specs = tools::builtin();
        let remote = mcp::offered(&specs, &servers);
        specs.extend(remote.iter().map(|o| o.spec.clone()));
        Toolbox {
            specs,
            remote,
            servers,
        }
    }

    /// The tools offered with the request just answered (else as stored now).
    fn offered_last() -> Toolbox {
        MODULE
            .with(|m| m.offered.take())
            .unwrap_or_else(Toolbox::load)
    }

    /// Whether the call of MCP tool `name` (as offered) with `args` may go out, the chat having
    /// taken in `exposure` before it: the rule ([`trust::gate`]) with the server's setting as
    /// stored now, and "Allow tool call" when it says to ask. "Always allow this tool" is kept
    /// for the server (if that record cannot be written, the next call asks again). A server
    /// removed since the tools were offered gets nothing: `Err` is the result for the model.
    async fn approve(
        &self,
        name: &str,
        args: &serde_json::Value,
        exposure: Exposure,
        signal: &AbortSignal,
    ) -> Result<Answer, String> {
        // Not offered: [`Toolbox::call`] says so to the model; nothing goes out.
        let Some(o) = self.remote.iter().find(|o| o.spec.name == name) else {
            return Ok(Answer::Once);
        };
        let stored = stored_servers();
        let offered = &self.servers.servers[o.server];
        let Some(server) = stored.find(&offered.url) else {
            return Err(satori::shell::error_text::tool_server_removed(
                &offered.name,
            ));
        };
        if trust::gate(server.trust, server.always_allows(&o.tool), exposure) == Gate::Run {
            return Ok(Answer::Once);
        }
        // What the model wrote and the server calls itself, with any hidden character shown.
        let shown = reveal(&serde_json::to_string_pretty(args).unwrap_or_default());
        let why = satori::shell::error_text::why_ask(exposure);
        let question = Question {
            tool: &reveal(&o.tool),
            server: &reveal(&server.name),
            address: &reveal(&mcp::origin(&server.url)),
            why: &why,
            args: &shown,
        };
        let answer = approval::ask(&question, signal).await;
        if answer == Answer::Always {
            let mut servers = stored_servers();
            if servers.allow_always(&server.url, &o.tool) {
                let _ = satori::adapters::storage::Store::local().save_mcp_servers(&servers);
            }
        }
        Ok(answer)
    }

    /// Run the call of MCP tool `name` (as offered) with `args` on its server. What goes wrong
    /// names the server, never its URL (which may hold a secret): it is stored in the chat.
    async fn call(&self, name: &str, args: &serde_json::Value, signal: &AbortSignal) -> String {
        let Some(o) = self.remote.iter().find(|o| o.spec.name == name) else {
            return satori::shell::error_text::no_such_tool(name);
        };
        let server = &self.servers.servers[o.server];
        match mcp_call(&server.url, &o.tool, args, signal).await {
            Ok(text) => text,
            Err(e) => satori::shell::error_text::tool_error(&e.named(&server.name)),
        }
    }
}

/// What the module's exported calls share.
struct Module {
    /// The tools offered with the last request (see [`offered`]).
    offered: RefCell<Option<Toolbox>>,
    /// Open MCP sessions, by URL and token.
    sessions: RefCell<HashMap<(String, Option<String>), Session>>,
    /// The abort handle of the tool runs in progress (the planner's requests): [`stop`] ends them.
    controller: RefCell<Option<web_sys::AbortController>>,
}

thread_local! {
    // Why a static: a wasm module's exported functions share no value but module state
    // ([`stop`] is another call than the runs it ends).
    static MODULE: Module = Module {
        offered: RefCell::new(None),
        sessions: RefCell::new(HashMap::new()),
        controller: RefCell::new(None),
    };
}

/// Keep `controller` as the runs' abort handle (`None`: the runs ended).
fn set_controller(controller: Option<web_sys::AbortController>) {
    MODULE.with(|m| *m.controller.borrow_mut() = controller);
}

/// Call `tool` on the MCP server at `url` with the token stored for that URL, reusing its
/// session (opened again once if the server forgot it).
async fn mcp_call(
    url: &str,
    tool: &str,
    args: &serde_json::Value,
    signal: &AbortSignal,
) -> Result<String, mcp::McpError> {
    let token = satori::adapters::storage::Store::local()
        .get(persist::KEY_MCP_TOKENS)
        .ok()
        .flatten()
        .and_then(|t| persist::decode_mcp_tokens(&t).ok())
        .and_then(|t| t.token_for(url).map(str::to_string));
    let key = (url.to_string(), token.clone());
    let mut reopened = false;
    loop {
        let mut session = match MODULE.with(|m| m.sessions.borrow_mut().remove(&key)) {
            Some(s) => s,
            None => Session::open(url, token.as_deref(), signal).await?.0,
        };
        match session.call(tool, args, signal).await {
            Ok(text) => {
                MODULE.with(|m| m.sessions.borrow_mut().insert(key, session));
                return Ok(text);
            }
            Err(e) if !reopened && session.expired(&e) => reopened = true,
            Err(e) => return Err(e),
        }
    }
}

/// What [`next`] reads: the branch shown, ending with the reply, the chat's agent mode and the
/// settings in use (the planner asks the same server and model; they never hold the key).
#[derive(serde::Deserialize)]
struct Input {
    path: Vec<Message>,
    agent: AgentConfig,
    settings: Settings,
    /// The chat came from an import or a shared link (its text is untrusted content).
    #[serde(default)]
    foreign: bool,
}

/// Stop the tools running (Stop, Esc, leaving the chat).
#[wasm_bindgen]
pub fn stop() {
    if let Some(c) = MODULE.with(|m| m.controller.take()) {
        c.abort();
    }
}

/// What [`next`] answers (see `satori::ui::agent::Next`).
#[derive(serde::Serialize, Default)]
struct Next {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    calls: Vec<ToolCall>,
    results: Vec<Message>,
    #[serde(skip_serializing_if = "String::is_empty")]
    notice: String,
}

/// After a reply of an agent-mode chat: `input` is `{"path": [messages], "agent": AgentConfig,
/// "settings": Settings, "foreign": bool}`. A call to an MCP server may ask the user first
/// ("Allow tool call", [`Toolbox::approve`]).
/// Answers JSON `{calls, results, notice}`: the tool results to store (one `tool` message per
/// call, each following the one before), the calls read from a ReAct reply's text, and why the
/// loop ends if it does. A call that cannot run is answered with what went wrong, for the model.
#[wasm_bindgen]
pub async fn next(input: String) -> Result<String, String> {
    let input: Input = serde_json::from_str(&input).map_err(|e| format!("bad request: {e}"))?;
    let toolbox = Toolbox::offered_last();
    let specs = &toolbox.specs;
    let single = |name: &str| tools::single_string(specs, name);
    let path: Vec<&Message> = input.path.iter().collect();
    let mut next = Next::default();
    match plan(&path, &input.agent, &single) {
        Plan::Done => {}
        Plan::Stop(why) => next.notice = why,
        Plan::Run {
            reply,
            calls,
            from_text,
        } => {
            let context: HashSet<String> = input.path.iter().map(|m| m.id.clone()).collect();
            let controller = web_sys::AbortController::new().map_err(|_| "no AbortController")?;
            let signal = controller.signal();
            set_controller(Some(controller));
            let mut parent = reply;
            // What the chat has taken in: a call to an MCP server may ask first.
            let mut exposure = Exposure::of_branch(&path, input.foreign);
            for call in &calls {
                // Stopped: what ran is kept; the calls that did not finish are answered so
                // (every call keeps its one result), and the app ends the run.
                let prepared = tools::prepare(specs, &call.name, &call.arguments);
                let waits = matches!(prepared, Ok(tools::Call::Plan(_) | tools::Call::Other(_)));
                let mut ran = !signal.aborted();
                let content = match prepared {
                    _ if signal.aborted() => STOPPED.into(),
                    Ok(tools::Call::Plan(goal)) => planner(&goal, &input.settings, &signal).await,
                    Ok(tools::Call::Other(args)) => {
                        let answer = toolbox.approve(&call.name, &args, exposure, &signal).await;
                        ran = answer.as_ref().is_ok_and(|a| a.runs());
                        match answer {
                            _ if ran => toolbox.call(&call.name, &args, &signal).await,
                            Err(removed) => removed,
                            Ok(Answer::Deny) => satori::shell::error_text::TOOL_DENIED.into(),
                            Ok(_) => STOPPED.into(),
                        }
                    }
                    _ => run(specs, call, &context),
                };
                if ran {
                    exposure.took(trust::kind(&call.name));
                }
                // A request in flight when Stop came answers with an abort error: not a result.
                let content = match waits && signal.aborted() {
                    true => STOPPED.into(),
                    false => content,
                };
                let id = new_id();
                let mut m = Message::new(
                    id.clone(),
                    Some(std::mem::replace(&mut parent, id)),
                    Role::Tool,
                    content,
                    now_ms(),
                );
                m.tool_call_id = Some(call.id.clone());
                next.results.push(m);
            }
            if from_text {
                next.calls = calls;
            }
            set_controller(None);
        }
    }
    serde_json::to_string(&next).map_err(|e| e.to_string())
}

/// The result of a call that Stop ended before it finished (or before it ran).
const STOPPED: &str = satori::shell::error_text::TOOL_STOPPED;

/// Run one call; its result, or what went wrong, as text for the model.
fn run(specs: &[tools::Spec], call: &ToolCall, context: &HashSet<String>) -> String {
    match tools::prepare(specs, &call.name, &call.arguments) {
        Err(e) => e,
        Ok(tools::Call::Calculate(e)) => tools::calculate(&e),
        Ok(tools::Call::Now) => {
            let date = js_sys::Date::new_0();
            let offset = -date.get_timezone_offset() as i32;
            tools::now_text(date.get_time() as i64, offset, &time_zone())
        }
        Ok(tools::Call::SearchChats { query, limit }) => search(&query, limit, context),
        Ok(tools::Call::Plan(_) | tools::Call::Other(_)) => {
            satori::shell::error_text::TOOL_RUNS_ALONE.into()
        }
    }
}

/// The planner: a sub-agent with the `planner` template's system prompt and examples, asked for
/// a plan for `goal` with the same server and model; its output made to match the template's
/// `output_schema` by [`conform`]. The answer says how the plan was obtained, or
/// `Plan unavailable: …`.
async fn planner(goal: &str, settings: &Settings, signal: &web_sys::AbortSignal) -> String {
    let library = satori::core::prompts::builtin();
    let schema = library
        .get("planner")
        .and_then(|t| t.output_schema.as_deref())
        .and_then(|s| serde_json::from_str::<serde_json::Value>(s).ok());
    let role = satori::core::prompts::RoleRef {
        source: satori::core::session::PromptSource::Builtin,
        key: "planner".into(),
    };
    let start = satori::core::prompts::user::start(
        &role,
        &Default::default(),
        library,
        &Default::default(),
        String::new,
    )
    .ok();
    let (Some(schema), Some((_, preamble))) = (schema, start) else {
        return satori::shell::error_text::NO_PLANNER.into();
    };
    let mut messages: Vec<serde_json::Value> = preamble
        .iter()
        .map(|m| serde_json::json!({"role": m.role.as_str(), "content": m.content}))
        .collect();
    messages.push(serde_json::json!({"role": "user", "content": goal}));
    let asked = Asked {
        settings,
        name: "plan",
        schema,
        who: "the planner's",
    };
    match conform(&asked, messages, None, true, signal).await {
        (Some(value), verdict, _) => tools::plan_text(&value, &verdict),
        (None, verdict, _) => tools::plan_text(&serde_json::Value::Null, &verdict),
    }
}

/// Who is asked for structured output, and for what.
struct Asked<'a> {
    settings: &'a Settings,
    /// The `json_schema` name (made valid by [`response_format`]).
    name: &'a str,
    schema: serde_json::Value,
    /// Whose request it is, in a failure's words ("the planner's").
    who: &'a str,
}

/// Make the model's answer to `messages` match `asked.schema`: `first` is the answer already
/// given, if any (else it is asked for). Asked with `response_format` (`json_schema`) while
/// `with_format` and the server takes it (a server that refuses it is asked again without),
/// each answer is validated,
/// repaired locally, and sent back to the model with the exact errors at most
/// [`Repairer::DEFAULT_MODEL_REPAIRS`] times. Answers the value (if any), the verdict, and the
/// repair requests made.
async fn conform(
    asked: &Asked<'_>,
    mut messages: Vec<serde_json::Value>,
    mut first: Option<String>,
    mut with_format: bool,
    signal: &web_sys::AbortSignal,
) -> (Option<serde_json::Value>, Verdict, u32) {
    let mut repairer = Repairer::new(asked.schema.clone(), Repairer::DEFAULT_MODEL_REPAIRS);
    let failed = |reason: String| Verdict::Failed { reason };
    loop {
        let text = match first.take() {
            Some(text) => text,
            None => {
                let mut body = serde_json::json!({
                    "model": asked.settings.model, "messages": messages, "stream": true,
                });
                if with_format {
                    body["response_format"] = response_format(asked.name, &asked.schema);
                }
                let reply =
                    satori::shell::summarize::reply_text(asked.settings, &body.to_string(), signal)
                        .await;
                match reply {
                    Ok(t) => t,
                    // A server without structured output: ask again without it (validated all
                    // the same).
                    Err(Some(e)) if with_format && refuses_format(&e) => {
                        with_format = false;
                        continue;
                    }
                    Err(Some(e)) => {
                        let why = satori::shell::error_text::request_failed(asked.who, &e);
                        return (None, failed(why), repairer.tries());
                    }
                    Err(None) => return (None, failed("stopped.".into()), repairer.tries()),
                }
            }
        };
        // A reasoning model's thoughts may hold drafts of the JSON: only the answer counts.
        let text = satori::core::context::filter::strip_thoughts(&text);
        match repairer.step(&text) {
            Step::Done { value, verdict } => return (Some(value), verdict, repairer.tries()),
            Step::Retry { prompt, .. } => {
                messages.push(serde_json::json!({"role": "assistant", "content": text}));
                messages.push(serde_json::json!({"role": "user", "content": prompt}));
            }
            Step::Failed { verdict, .. } => return (None, verdict, repairer.tries()),
        }
    }
}

/// What [`structured`] reads.
#[derive(serde::Deserialize)]
struct Structure {
    /// The branch shown, ending with the reply.
    path: Vec<Message>,
    /// The template's key.
    name: String,
    /// Its `output_schema`, as text.
    schema: String,
    settings: Settings,
    /// The reply was asked for with `response_format` (the server takes it).
    #[serde(default)]
    format: bool,
}

/// A reply of a chat whose template declares an `output_schema` ended: check it against the
/// schema and repair it if need be ([`conform`], with the template's first messages and the
/// question: `repair::repair_context`; Stop ends the repair). `input`: `{path, name, schema,
/// settings, format}`. Answers JSON `{content, structured}`: the repaired JSON (to
/// replace the reply's text; none when it was valid as sent or never became valid) and the
/// outcome.
#[wasm_bindgen]
pub async fn structured(input: String) -> Result<String, String> {
    let input: Structure = serde_json::from_str(&input).map_err(|e| format!("bad request: {e}"))?;
    // A schema Satori cannot apply (an imported chat's, say): the reply is kept, and says why.
    let schema = match serde_json::from_str::<serde_json::Value>(&input.schema) {
        Ok(v) => satori::core::agent::schema::check_schema(&v).map(|()| v),
        Err(e) => Err(format!("it is not JSON ({e})")),
    };
    let schema = match schema {
        Ok(v) => v,
        Err(e) => {
            let reason = satori::shell::error_text::schema_unusable(&e);
            let failed = Verdict::Failed { reason }.structured(input.name == "planner");
            let out = serde_json::json!({ "structured": failed });
            return Ok(out.to_string());
        }
    };
    let path: Vec<&Message> = input.path.iter().collect();
    let (Some(asked_with), Some(reply)) = (repair_context(&path), path.last()) else {
        return Err("the branch does not end with a reply to a question".into());
    };
    let messages = asked_with
        .iter()
        .map(|m| serde_json::json!({"role": m.role.as_str(), "content": m.content}))
        .collect();
    let reply = reply.content.clone();
    let answer = satori::core::context::filter::strip_thoughts(&reply)
        .trim()
        .to_string();
    let asked = Asked {
        settings: &input.settings,
        name: &input.name,
        schema,
        who: "the repair",
    };
    let controller = web_sys::AbortController::new().map_err(|_| "no AbortController")?;
    let signal = controller.signal();
    set_controller(Some(controller));
    let (value, verdict, _) =
        conform(&asked, messages, Some(reply.clone()), input.format, &signal).await;
    set_controller(None);
    let content = match (&verdict, value) {
        (Verdict::RepairedLocally(_) | Verdict::RepairedByModel { .. }, Some(v)) => {
            serde_json::to_string_pretty(&v).ok()
        }
        // Valid once its thoughts are left out: the JSON alone is the reply.
        (Verdict::Valid, _) if answer != reply.trim() => Some(answer),
        _ => None,
    };
    let structured = verdict.structured(input.name == "planner");
    let out = serde_json::json!({"content": content, "structured": structured});
    Ok(out.to_string())
}

/// The browser's time zone name (`Asia/Shanghai`), or empty.
fn time_zone() -> String {
    let options = js_sys::Intl::DateTimeFormat::new(&js_sys::Array::new(), &js_sys::Object::new())
        .resolved_options();
    js_sys::Reflect::get(&options, &JsValue::from_str("timeZone"))
        .ok()
        .and_then(|z| z.as_string())
        .unwrap_or_default()
}

/// `search_chats`: the stored chats' messages most relevant to `query`, but those in the request
/// already (`context`).
fn search(query: &str, limit: usize, context: &HashSet<String>) -> String {
    let store = satori::adapters::storage::Store::local();
    match satori::shell::store::stored_chats(&store) {
        Ok(stored) => {
            let hits = recall::recall(&stored.chats, query, context, limit);
            recall::format(&hits, query, &|ms| {
                satori::core::transfer::time::iso(ms)
                    .get(..10)
                    .unwrap_or_default()
                    .to_string()
            })
        }
        Err(e) => satori::shell::error_text::chats_unreadable_for_tool(&e),
    }
}
