//! Sending messages and running turns. A turn runs in the turns module, its one owner: its
//! request built (a summary made first when due), sent and read there ([`crate::shell::turn`],
//! running the turn machine [`crate::core::turn`]); this file starts the reply, shows what the
//! module says arrived (only the live message re-renders), keeps a summary it made, saves at
//! its checkpoints and records the [`Outcome`] it hands back in the session. Each turn is a [`Running`] of its own chat. Agent mode's loop is here
//! too: after a reply, the agent module runs the tools it called and the model is asked again.

use crate::adapters::clock::{new_id, now_ms};
use crate::adapters::modules;
use crate::adapters::modules::ModuleError;
use crate::core::agent::plan_run;
use crate::core::context::ask::Ask;
use crate::core::prompts::catalog::StartAnswer;
use crate::core::prompts::RoleRef;
use crate::core::protocol::TurnEvent;
use crate::core::protocol::{AgentCall, TurnsCall};
use crate::core::session::{AgentConfig, Command, Message, MessageId, Role, Status, Summary};
use crate::core::settings::Settings;
use crate::core::turn::{Alerted, Outcome};
use crate::shell::error_text::{
    agent_failed, cannot_start, module_not_sent, plan_failed, CHECKING_OUTPUT, REACT_SWITCH,
    STILL_STARTING, TOOLS_RUNNING,
};
use crate::shell::turn::{RunAsk, RunEnd};
use crate::ui::agent::After;
use crate::ui::context::ask_of;
use crate::ui::state::{start_of, Alert, AppState, Live, CHIPS};
use leptos::prelude::document;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

/// A turn in progress: the chat it belongs to, the reply it writes, the abort handle of the
/// request being built.
struct Running {
    session_id: String,
    reply: MessageId,
    controller: RefCell<Option<web_sys::AbortController>>,
    /// Stop was pressed.
    stopping: Cell<bool>,
    /// A notice to leave on the status line when the reply ends (a summary that failed).
    notice: RefCell<Option<String>>,
}

/// The turns of this tab, owned here and nowhere else: what is running, Stop, and "Run plan".
struct Turns {
    /// Every turn in progress (a chat has at most one).
    running: RefCell<Vec<Rc<Running>>>,
    /// How many times Stop was pressed: agent mode goes on to its next step only if it was not
    /// pressed while the tools ran.
    stops: Cell<u32>,
    /// The plan being run ("Run plan"), if any.
    plan: RefCell<Option<PlanRun>>,
    /// A plan's next step is being worked out (the agent module may still be loading).
    plan_pending: Cell<bool>,
}

thread_local! {
    // Why a static: a turn outlives every component that starts or shows it (the chat can be
    // left and the reply goes on), and Stop reaches it from the keyboard, the button and a
    // chat switch alike; the page has one thread.
    /// The tab's turns.
    static TURNS: Turns = const {
        Turns {
            running: RefCell::new(Vec::new()),
            stops: Cell::new(0),
            plan: RefCell::new(None),
            plan_pending: Cell::new(false),
        }
    };
}

/// How many times Stop was pressed so far.
fn stops_so_far() -> u32 {
    TURNS.with(|t| t.stops.get())
}

fn set_plan_pending(pending: bool) {
    TURNS.with(|t| t.plan_pending.set(pending));
}

fn set_plan(plan: Option<PlanRun>) {
    TURNS.with(|t| *t.plan.borrow_mut() = plan);
}

fn take_plan() -> Option<PlanRun> {
    TURNS.with(|t| t.plan.borrow_mut().take())
}

/// A plan being run: the chat, the planner result it comes from, and the step sent last.
struct PlanRun {
    session_id: String,
    plan_msg: MessageId,
    last: Option<i64>,
    /// The status line of the step sent last (cleared if the run ends badly).
    status: String,
}

/// Whether a reply is streaming.
pub fn is_streaming(app: &AppState) -> bool {
    app.is_streaming()
}

/// Stop the reply in flight (Stop button, Esc, leaving the chat). The partial text is kept,
/// marked stopped.
pub fn stop() {
    TURNS.with(|t| t.stops.set(t.stops.get().wrapping_add(1)));
    set_plan(None);
    set_plan_pending(false);
    let running: Vec<Rc<Running>> = TURNS.with(|t| t.running.borrow().clone());
    for r in running {
        r.stopping.set(true);
        if let Some(c) = r.controller.borrow().as_ref() {
            c.abort();
        }
        let _ = modules::call(
            TurnsCall::StopTurn {
                reply: r.reply.clone(),
            },
            None,
        );
    }
    let _ = modules::call(AgentCall::Stop, None);
}

/// Longest wait for a chat start (the dialogs module) before sending, ms.
const START_WAIT_MS: u32 = 15_000;

/// Send the composer text as a new user message and stream the answer.
pub fn send(app: AppState, text: String) {
    if is_streaming(&app) || (text.trim().is_empty() && !has_attachments()) {
        return;
    }
    // A role change or Chat setup still being rendered: send once the chat has its prompt,
    // so the message never goes out under the previous one.
    if app.start_pending() {
        leptos::task::spawn_local(async move {
            let settled = Box::pin(app.starts_settled());
            let timeout = gloo_timers::future::TimeoutFuture::new(START_WAIT_MS);
            match futures::future::select(settled, timeout).await {
                futures::future::Either::Left(_) => send(app, text),
                futures::future::Either::Right(_) => app.show(Alert {
                    text: STILL_STARTING.into(),
                    ..Alert::default()
                }),
            }
        });
        return;
    }
    // A chat whose role still needs a variable value has no system prompt yet: render it
    // now, or say what is missing instead of sending without it.
    let pending = app.chats.session.with_untracked(|s| {
        s.messages
            .is_empty()
            .then(|| s.prompt.clone().map(|o| (s.id.clone(), o)))
            .flatten()
    });
    if let Some((session_id, o)) = pending {
        app.start_begun();
        leptos::task::spawn_local(async move {
            let role = RoleRef {
                source: o.source,
                key: o.key.clone(),
            };
            let answer = start_of(&role, &o.vars).await;
            app.start_done();
            // The user switched chats meanwhile: this message belongs to the other chat, whose
            // draft still holds it.
            if app.chats.session.with_untracked(|s| s.id != session_id) {
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
                    app.set_setup_problem(Some(m.clone()));
                    m
                }
                other => other.error.unwrap_or_else(|| "no answer".into()),
            };
            app.show(Alert {
                text: cannot_start(&problem),
                ..Alert::default()
            });
        });
        return;
    }
    send_now(app, text);
}

fn send_now(app: AppState, text: String) {
    // (While a file is being read, "Send" is disabled by src/web/attach.js; Enter waits too.)
    let Some(attachments) = chips() else {
        return;
    };
    if add_and_answer(app, text, attachments, None).0 {
        app.set_draft(String::new());
        crate::ui::state::clear_chips();
    }
}

/// Whether the composer has an attachment (ready or being read).
pub fn has_attachments() -> bool {
    chips().is_none_or(|c| !c.is_empty())
}

/// The composer's attachments ready to send, a line each: `src/web/attach.js` keeps them in the
/// chips list's `data-lines` (a chip whose file was refused has none) and marks the list
/// `data-pending` while a file is being read (then `None`).
fn chips() -> Option<String> {
    match document().get_element_by_id(CHIPS) {
        Some(list) if list.has_attribute("data-pending") => None,
        Some(list) => Some(list.get_attribute("data-lines").unwrap_or_default()),
        None => Some(String::new()),
    }
}

/// Add `text` (with `attachments`) as a user message and ask for the answer (leaving `notice`
/// on the status line when it ends); whether it was added, and whether the answer was asked for.
fn add_and_answer(
    app: AppState,
    text: String,
    attachments: String,
    notice: Option<String>,
) -> (bool, bool) {
    if is_streaming(&app) {
        return (false, false);
    }
    let id = new_id();
    app.dismiss();
    let cmd = Command::AddUser {
        id: id.clone(),
        text,
        attachments,
        at: now_ms(),
    };
    ask(app, cmd, id, notice)
}

/// Add user message `id` by `cmd` (new or edited) and ask for its answer: whether it was
/// added, and whether the answer was asked for. The question and the start of its answer are
/// saved in one write, so another tab never reads the question alone (a question it sent then
/// would go beside the answer, where nothing shows it, instead of after it).
fn ask(app: AppState, cmd: Command, id: MessageId, notice: Option<String>) -> (bool, bool) {
    let added = app.apply_unsaved(cmd).is_ok();
    let asked = added && answer_with(app, id, notice);
    if added && !asked {
        app.save_session();
    }
    (added, asked)
}

/// "Run plan": the steps of the plan in tool result `plan_msg` run one by one, each a turn of
/// the chat (an agent turn in agent mode) whose answer checks it off, in dependency order,
/// starting with the first step not done. Stop, an error or a step left without an answer ends
/// the run; running it again goes on from there.
pub fn run_plan(app: AppState, plan_msg: MessageId) {
    let busy = TURNS.with(|t| t.plan.borrow().is_some() || t.plan_pending.get());
    if is_streaming(&app) || busy {
        return;
    }
    let session_id = app.chats.session.with_untracked(|s| s.id.clone());
    set_plan(Some(PlanRun {
        session_id,
        plan_msg,
        last: None,
        status: String::new(),
    }));
    plan_next(app);
}

/// A turn of chat `session_id` ended (`ok`: not stopped, no error): the plan being run goes on.
fn plan_after(app: AppState, session_id: &str, ok: bool) {
    let ours = TURNS.with(|t| {
        t.plan
            .borrow()
            .as_ref()
            .is_some_and(|r| r.session_id == session_id)
    });
    if !ours {
        return;
    }
    if ok {
        plan_next(app);
    } else if let Some(run) = take_plan() {
        // Nothing runs any more: the step's status line goes (another notice stays).
        if app.turn.status.get_untracked() == run.status {
            app.set_status(String::new());
        }
    }
}

/// What the agent module reads of the plan in tool result `plan_msg` of `session`'s branch
/// (JSON of [`plan_run::PlanAsk`]; `last`: the step the run sent last).
pub fn plan_input(
    session: &crate::core::session::Session,
    plan_msg: &str,
    last: Option<i64>,
) -> Option<String> {
    let path = session.path();
    let at = path.iter().position(|m| m.id == plan_msg)?;
    serde_json::to_string(&plan_run::PlanAsk {
        plan: &path[at].content,
        after: &path[at + 1..],
        // Replies are ReAct text only while agent mode is on with it.
        react: session.agent.on && session.agent.react,
        last,
    })
    .ok()
}

/// Send the plan's next step (the agent module picks it and says what the status line says),
/// or end the run: every step done, the chat left, Stop, or the step sent last still without an
/// answer (never sent twice in a row).
fn plan_next(app: AppState) {
    let Some(run) = take_plan() else { return };
    let input = app.chats.session.with_untracked(|s| {
        (s.id == run.session_id)
            .then(|| plan_input(s, &run.plan_msg, run.last))
            .flatten()
    });
    let Some(input) = input else { return };
    let stops = stops_so_far();
    let leaf = app.chats.session.with_untracked(|s| s.leaf.clone());
    set_plan_pending(true);
    leptos::task::spawn_local(async move {
        let next = modules::load_and_call(AgentCall::PlanNext { input }, None).await;
        set_plan_pending(false);
        // Stop, another chat, or a message sent meanwhile: the run ends here.
        let same = app
            .chats
            .session
            .with_untracked(|s| s.id == run.session_id && s.leaf == leaf);
        if stops_so_far() != stops || !same || is_streaming(&app) {
            return;
        }
        let next = match next {
            Ok(v) => v,
            Err(e) => return app.set_status(plan_failed(&e.to_string())),
        };
        let get = |k: &str| js_sys::Reflect::get(&next, &k.into()).unwrap_or_default();
        let status = get("status").as_string().unwrap_or_default();
        let (Some(id), Some(prompt)) = (get("id").as_f64(), get("prompt").as_string()) else {
            return app.set_status(status);
        };
        set_plan(Some(PlanRun {
            last: Some(id as i64),
            status: status.clone(),
            ..run
        }));
        if add_and_answer(app, prompt, String::new(), Some(status.clone())).1 {
            app.set_status(status);
        } else {
            set_plan(None);
        }
    });
}

/// Ask for another answer to the user message that `reply` answered (a new variant).
pub fn regenerate(app: AppState, reply: MessageId) {
    let parent = app
        .chats
        .session
        .with_untracked(|s| s.get(&reply).and_then(|m| m.parent.clone()));
    if let Some(parent) = parent {
        answer(app, parent);
    }
}

/// Answer the last user message (or tool result) again (after an error with nothing kept, or a
/// broken reply).
pub fn retry(app: AppState) {
    let target = app.chats.session.with_untracked(|s| {
        let path = s.path();
        let last = path.last()?;
        match last.role {
            Role::User | Role::Tool => Some(last.id.clone()),
            Role::Assistant => last.parent.clone(),
            _ => None,
        }
    });
    if let Some(user) = target {
        answer(app, user);
    }
}

/// The pinned messages alone did not fit the window and the user chose to let them go: unpin
/// every pinned message of the chat (they stay in the chat, now trimmed like the rest) and answer
/// the last user message again.
pub fn unpin_all_and_send(app: AppState) {
    let pinned: Vec<MessageId> = app.chats.session.with_untracked(|s| {
        s.path()
            .into_iter()
            .filter(|m| m.pinned)
            .map(|m| m.id.clone())
            .collect()
    });
    app.dismiss();
    app.apply_all(
        pinned
            .into_iter()
            .map(|id| Command::SetPinned { id, pinned: false })
            .collect(),
    );
    retry(app);
}

/// Replace user message `of` with edited text (a new branch) and answer it.
pub fn edit(app: AppState, of: MessageId, text: String) {
    if is_streaming(&app) {
        return;
    }
    let id = new_id();
    let cmd = Command::EditUser {
        id: id.clone(),
        of,
        text,
        at: now_ms(),
    };
    ask(app, cmd, id, None);
}

/// Start a streamed reply to user message `parent`.
fn answer(app: AppState, parent: MessageId) -> bool {
    answer_with(app, parent, None)
}

/// [`answer`], leaving `notice` on the status line when the reply ends.
fn answer_with(app: AppState, parent: MessageId, notice: Option<String>) -> bool {
    if is_streaming(&app) {
        return false;
    }
    let settings = app.chat_settings();
    let reply_id = new_id();
    let asked = parent.clone();
    app.dismiss();
    if app
        .apply(Command::StartReply {
            id: reply_id.clone(),
            parent,
            model: settings.model.clone(),
            at: now_ms(),
        })
        .is_err()
    {
        return false;
    }
    let (session_id, ask) = app.chats.session.with_untracked(|s| {
        let history: Vec<Message> = s
            .path()
            .into_iter()
            .filter(|m| m.id != reply_id)
            .cloned()
            .collect();
        let ask = ask_of(app, s, settings.clone(), history, false);
        (s.id.clone(), ask)
    });
    let agent = ask.agent;
    let structured = ask.format.is_some();
    app.live_begin(Live {
        session_id: session_id.clone(),
        id: reply_id.clone(),
        ..Live::default()
    });
    let running = Rc::new(Running {
        session_id,
        reply: reply_id,
        controller: RefCell::new(None),
        stopping: Cell::new(false),
        notice: RefCell::new(notice),
    });
    TURNS.with(|t| t.running.borrow_mut().push(running.clone()));
    leptos::task::spawn_local(async move {
        let (outcome, formatted) = run(app, &settings, ask, &running).await;
        TURNS.with(|t| t.running.borrow_mut().retain(|r| !Rc::ptr_eq(r, &running)));
        finish(app, &running, &outcome);
        let open = app
            .chats
            .session
            .with_untracked(|s| s.id == running.session_id);
        let ok = !running.stopping.get() && outcome.alert.is_none();
        let mut end = if outcome.refused_tools && open && !running.stopping.get() {
            let agent = AgentConfig {
                react: true,
                ..agent
            };
            let again = app.apply(Command::SetAgent { agent }).is_ok()
                && answer_with(app, asked, Some(REACT_SWITCH.into()));
            if again {
                StepEnd::WentOn
            } else {
                StepEnd::Stopped
            }
        } else if outcome.refused_format && open && !running.stopping.get() {
            // The server takes no structured output: the same question again, without it.
            if answer_with(app, asked, None) {
                StepEnd::WentOn
            } else {
                StepEnd::Stopped
            }
        } else {
            StepEnd::Answered
        };
        // Agent mode runs the tools the reply calls; then, in a chat whose template declares an
        // `output_schema`, an answer is checked against it.
        for tools in [true, false] {
            let due = if tools { agent.on } else { structured };
            if matches!(end, StepEnd::Answered) && ok && due {
                end = agent_after(
                    app,
                    &running.session_id,
                    &running.reply,
                    agent,
                    tools,
                    formatted,
                )
                .await;
            }
        }
        // The turn is over: a plan being run goes on with its next step, unless it ended badly.
        match end {
            StepEnd::WentOn => {}
            StepEnd::Answered => plan_after(app, &running.session_id, ok),
            StepEnd::Stopped => plan_after(app, &running.session_id, false),
        }
    });
    true
}

/// After a reply, the agent module's part (`tools`: agent mode; else the output check).
///
/// Agent mode: the module reads the reply (its calls, or in ReAct text the call its text asks
/// for), runs the tools and hands back their results, which are stored; then the model is asked
/// again — until it answers without tools, Stop, or the chat's "Max steps".
///
/// The output check, in a chat whose template declares an `output_schema`: the module checks the
/// reply against it and repairs it (locally, else by asking the model with the exact errors —
/// with the template's system prompt and examples and the question it answers — a bounded number
/// of times); the outcome is recorded on the reply, whose text becomes the repaired JSON. Stop
/// ends the repair (recorded as failed: stopped; leaving the chat leaves the reply unchecked).
/// `formatted`: the reply was asked for with `response_format` (so the server takes it: the
/// repair requests carry it too).
async fn agent_after(
    app: AppState,
    session_id: &str,
    reply: &MessageId,
    agent: AgentConfig,
    tools: bool,
    formatted: bool,
) -> StepEnd {
    /// What the module reads: `next` the branch, agent mode, settings and whether the chat came
    /// from outside (an import or a share link: untrusted content for "Allow tool call");
    /// `structured` also the template's key and schema.
    #[derive(serde::Serialize)]
    struct Input<'a> {
        path: Vec<&'a Message>,
        agent: AgentConfig,
        settings: Settings,
        name: &'a str,
        schema: &'a str,
        format: bool,
        foreign: bool,
    }
    let settings = app.chat_settings();
    let input = app.chats.session.with_untracked(|s| {
        if s.id != session_id {
            return Err(if tools {
                StepEnd::Stopped
            } else {
                StepEnd::Answered
            });
        }
        let path = s.path();
        let last = path.last().ok_or(StepEnd::Answered)?;
        let (name, schema) = if tools {
            // Nothing to run (a reply without calls, outside ReAct text): the run is over.
            if last.tool_calls.is_empty() && !agent.react {
                return Err(StepEnd::Answered);
            }
            ("", "")
        } else {
            let answered = last.id == *reply
                && last.role == Role::Assistant
                && last.status == Status::Complete
                && last.tool_calls.is_empty()
                && last.structured.is_none();
            let origin = s.prompt.as_ref().filter(|_| answered);
            match origin.and_then(|o| Some((o.key.as_str(), o.output_schema.as_deref()?))) {
                Some(template) => template,
                None => return Err(StepEnd::Answered),
            }
        };
        let input = Input {
            path,
            agent,
            settings,
            name,
            schema,
            format: formatted,
            foreign: s.foreign,
        };
        Ok(serde_json::to_string(&input).unwrap_or_default())
    });
    let input = match input {
        Ok(input) => input,
        Err(end) => return end,
    };
    let stops = stops_so_far();
    // A notice of the run so far (the switch to ReAct text) stays until the run ends.
    let carried = app.turn.status.get_untracked();
    let (call, status) = match tools {
        true => (AgentCall::Next { input }, TOOLS_RUNNING),
        false => (AgentCall::Structured { input }, CHECKING_OUTPUT),
    };
    let Some(after) = agent_answer(app, session_id, call, status, stops).await else {
        return StepEnd::Stopped;
    };
    // Stop (also by leaving the chat): what ran is kept (calls that did not finish say so), and
    // the run ends.
    let stopped_by_user = stops_so_far() != stops;
    let parent = after.results.first().and_then(|m| m.parent.clone());
    let (here, moved, react) = app.chats.session.with_untracked(|s| {
        let here = s.id == session_id;
        let moved = !here || (parent.is_some() && s.leaf != parent);
        (here, moved, s.agent.on && s.agent.react)
    });
    let mut cmds = Vec::new();
    let mut end = if stopped_by_user {
        StepEnd::Stopped
    } else {
        StepEnd::Answered
    };
    if tools {
        // A message sent meanwhile: the run ends here.
        if (here && moved) || is_streaming(&app) {
            return StepEnd::Stopped;
        }
        // Max steps, or a ReAct reply in neither form: the run ends without an answer.
        if !after.notice.is_empty() {
            end = StepEnd::Stopped;
            if here {
                app.set_status(after.notice);
            }
        }
        if let Some(m) = after.results.first().filter(|_| !after.calls.is_empty()) {
            cmds.push(Command::SetToolCalls {
                id: m.parent.clone().unwrap_or_default(),
                tool_calls: after.calls,
            });
        }
        cmds.extend(after.results.into_iter().map(|m| Command::AddTool {
            id: m.id,
            parent: m.parent.unwrap_or_default(),
            call_id: m.tool_call_id.unwrap_or_default(),
            content: m.content,
            at: m.created_at,
        }));
    } else {
        // Stopped by leaving the chat: the check did not finish; the reply stays unchecked.
        if stopped_by_user && !here {
            return StepEnd::Stopped;
        }
        if let Some(structured) = after.structured {
            cmds.push(Command::SetStructured {
                id: reply.clone(),
                // A ReAct `Final Answer: …` keeps its form (Run plan reads it).
                content: after.content.filter(|_| !react),
                structured,
            });
        }
    }
    let last = match cmds.last() {
        None => return end,
        Some(Command::AddTool { id, .. }) => id.clone(),
        Some(_) => String::new(),
    };
    // The chat was left meanwhile: what came back is kept in it all the same.
    if !here {
        app.apply_to_stored(session_id, cmds);
        return if tools { StepEnd::Stopped } else { end };
    }
    app.apply_all(cmds);
    if !tools || stopped_by_user {
        return end;
    }
    if answer_with(app, last, Some(carried).filter(|s| !s.is_empty())) {
        StepEnd::WentOn
    } else {
        StepEnd::Stopped
    }
}

/// Run the agent module's `function` on `input` the way a reply arrives: Stop shows, nothing
/// else can be sent meanwhile, and the status line says `status` (the one before comes back
/// after, in its own chat only). Answers what the module answered; `None` if Stop (counted from
/// `stops`) came before the module was there, or it failed (said in an alert).
async fn agent_answer(
    app: AppState,
    session_id: &str,
    call: AgentCall,
    status: &str,
    stops: u32,
) -> Option<After> {
    let carried = app.turn.status.get_untracked();
    app.live_begin(Live {
        session_id: session_id.to_string(),
        ..Live::default()
    });
    app.set_status(status.into());
    let answer = crate::ui::agent::call(call, || stops_so_far() != stops).await;
    app.live_end();
    if app.chats.session.with_untracked(|s| s.id == session_id) {
        app.set_status(carried);
    } else if app.turn.status.get_untracked() == status {
        app.set_status(String::new());
    }
    let parsed = answer.map_err(|e| e.to_string()).and_then(|a| {
        a.map(|a| serde_json::from_str(&a))
            .transpose()
            .map_err(|e| e.to_string())
    });
    match parsed {
        Ok(after) => after,
        Err(e) => {
            app.show(Alert {
                text: agent_failed(&e),
                ..Alert::default()
            });
            None
        }
    }
}

/// How a turn's agent step ended.
enum StepEnd {
    /// The model is asked again.
    WentOn,
    /// The model answered (no tools to run).
    Answered,
    /// Stop, an error, Max steps, a ReAct reply in neither form, or the chat left.
    Stopped,
}

/// Run the turn in the turns module (its request built, sent and read), showing what it says
/// arrives, keeping a summary it made with the chat and saving at its checkpoints; the outcome
/// to record, and whether the request asked for structured output.
async fn run(app: AppState, settings: &Settings, ask: Ask, running: &Running) -> (Outcome, bool) {
    let session_id = running.session_id.clone();
    let made: Rc<RefCell<Option<Summary>>> = Rc::default();
    let kept = made.clone();
    let on_event = Closure::<dyn FnMut(String, String, String)>::new(
        move |name: String, a: String, b: String| match TurnEvent::from_parts(&name, a, b) {
            Some(TurnEvent::Shown { content, reasoning }) => app.live_append(&content, &reasoning),
            Some(TurnEvent::Status { text }) => app.set_status(text),
            Some(TurnEvent::Checkpoint) => app.save_session(),
            Some(TurnEvent::Summary { json }) => {
                if let Ok(s) = serde_json::from_str::<Summary>(&json) {
                    store_summary(app, &session_id, s.clone());
                    *kept.borrow_mut() = Some(s);
                }
            }
            None => {}
        },
    );
    let Ok(ctrl) = web_sys::AbortController::new() else {
        return (Outcome::not_sent(Some(module_not_sent(None))), false);
    };
    let signal = ctrl.signal();
    *running.controller.borrow_mut() = Some(ctrl);
    let ask = RunAsk {
        session: running.session_id.clone(),
        reply: running.reply.clone(),
        key: app.key_for(&settings.base_url),
        using_default: !app.conn.saved.get_untracked(),
        started: 0.0,
        ask,
    };
    let end = crate::ui::context::run(ask, on_event.as_ref(), &made, &signal).await;
    drop(on_event);
    let failed = match end {
        Ok(RunEnd {
            outcome: Some(outcome),
            formatted,
            notice,
            ..
        }) => {
            if notice.is_some() {
                *running.notice.borrow_mut() = notice;
            }
            return (outcome, formatted);
        }
        // Stopped while the module loaded.
        Err(ModuleError::Aborted) => return (Outcome::not_sent(None), false),
        Ok(_) => "asked twice for the whole chat".to_string(),
        Err(e) => e.to_string(),
    };
    // The module failed mid-turn: what arrived so far is kept, marked incomplete.
    let mut outcome = Outcome::not_sent(Some(module_not_sent(Some(&failed))));
    if let Some(live) = app.turn.live.get_untracked() {
        outcome.discard = live.content.is_empty() && live.reasoning.is_empty();
        (outcome.content, outcome.reasoning) = (live.content, live.reasoning);
    }
    (outcome, false)
}

/// Keep a new summary with its chat (open or not).
fn store_summary(app: AppState, session_id: &str, summary: Summary) {
    let cmd = Command::PutSummary { summary };
    if app.chats.session.with_untracked(|s| s.id == session_id) {
        let _ = app.apply(cmd);
    } else {
        app.apply_to_stored(session_id, vec![cmd]);
    }
}

/// Record how the reply ended: in the session (the open one, or the stored one when the user
/// switched chats, which stops the reply), and the alert it brings.
fn finish(app: AppState, running: &Running, outcome: &Outcome) {
    app.live_end();
    let open_id = app.chats.session.with_untracked(|s| s.id.clone());
    // A notice belongs to its chat: not shown over another one.
    if let Some(notice) = running.notice.borrow_mut().take() {
        if open_id == running.session_id {
            app.set_status(notice);
        }
    }
    let cmds = outcome.commands(&running.reply, now_ms());
    if open_id != running.session_id {
        app.apply_to_stored(&running.session_id, cmds);
        return;
    }
    app.apply_all(cmds);
    if let Some(Alerted {
        text,
        retry,
        settings,
        unpin,
        local,
    }) = outcome.alert.clone()
    {
        app.show(Alert {
            text,
            settings,
            retry,
            unpin,
            local,
            ..Alert::default()
        });
    }
}
