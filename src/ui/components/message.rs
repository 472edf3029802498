//! One message as an `<article>` with `data-role` and `data-status`, rendered as safe markdown.

use crate::adapters::markdown_module;
use crate::core::markdown;
use crate::core::protocol::AgentCall;
use crate::core::session::{Command, Message, Role, Status};
use crate::ui::chat;
use crate::ui::components::icon;
use crate::ui::state::AppState;
use leptos::prelude::*;

/// A message with what its row needs to know about its place in the tree.
#[derive(Clone, PartialEq)]
pub struct Row {
    /// The message.
    pub msg: Message,
    /// 1-based position among its variants.
    pub variant: usize,
    /// Number of variants.
    pub variants: usize,
    /// Whether it is the last message shown.
    pub last: bool,
}

thread_local! {
    // Why a static: an edit must outlive its message's component (long chats draw only the rows
    // near the view), and the conversation forgets them when another chat opens.
    /// Unsaved edits of the open chat's messages by id: an edit survives its message leaving
    /// the rows drawn (a long chat draws only those near the view) and coming back.
    static EDITS: std::cell::RefCell<Vec<(String, String)>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn edit_of(id: &str) -> Option<String> {
    EDITS.with_borrow(|e| e.iter().find(|(k, _)| k == id).map(|(_, t)| t.clone()))
}

/// Message `id` is being edited with `text` (`None`: no longer).
fn set_edit(id: &str, text: Option<String>) {
    EDITS.with_borrow_mut(|e| {
        e.retain(|(k, _)| k != id);
        if let Some(t) = text {
            e.push((id.to_string(), t));
        }
    });
}

/// Another chat opened: the edits in progress were of the one before.
pub fn forget_edits() {
    EDITS.with_borrow_mut(Vec::clear);
}

impl Row {
    /// Changes whenever the row must re-render.
    pub fn key(&self) -> String {
        format!(
            "{}:{}:{}:{}/{}:{}:{}{}:{}{}",
            self.msg.id,
            self.msg.status.as_str(),
            self.msg.content.len(),
            self.variant,
            self.variants,
            self.last,
            u8::from(self.msg.pinned),
            u8::from(self.msg.excluded),
            self.msg.usage.is_some(),
            u8::from(self.msg.structured.is_some())
        )
    }
}

/// The reply being drawn as it arrives: its content element, where its text is cut (the part
/// before is drawn for good), and how much of its reasoning is shown.
type Drawing = Option<(web_sys::Element, usize, usize)>;

/// Draw a reply as it arrives into `content` and `thoughts` (its reasoning): the finished blocks
/// (up to [`markdown::stream_cut`]) are rendered once and appended; only the block still growing
/// is rendered again each time, and only the new reasoning is appended. Until the renderer has
/// loaded (`ready`), the text is shown escaped.
fn show_live(
    live: &mut Drawing,
    content: &web_sys::Element,
    thoughts: &web_sys::Element,
    text: &str,
    reasoning: &str,
    ready: bool,
) {
    {
        let fresh = !matches!(live, Some((el, cut, shown))
            if el == content && *cut <= text.len() && *shown <= reasoning.len());
        if fresh {
            content.set_inner_html("<div></div><div></div>");
            thoughts.set_text_content(None);
            *live = Some((content.clone(), 0, 0));
        }
        let Some((_, cut, shown)) = live.as_mut() else {
            return;
        };
        let (Some(done), Some(tail)) =
            (content.first_element_child(), content.last_element_child())
        else {
            return;
        };
        if ready {
            let next = *cut + markdown_module::stream_cut(&text[*cut..]).unwrap_or(0);
            if next > *cut && text.is_char_boundary(next) {
                if let Some(html) = markdown_module::render(&text[*cut..next]) {
                    let _ = done.insert_adjacent_html("beforeend", &html);
                    *cut = next;
                }
            }
        }
        let rest = &text[*cut..];
        let html = match ready {
            true => markdown_module::render(rest),
            false => None,
        };
        tail.set_inner_html(&html.unwrap_or_else(|| markdown::render_plain(rest)));
        if reasoning.len() > *shown {
            let _ = thoughts.append_with_str_1(&reasoning[*shown..]);
            *shown = reasoning.len();
        }
    }
}

/// Safe HTML for a reply: rendered markdown once the renderer module has loaded (re-run then),
/// escaped plain text before.
fn to_html(app: AppState, text: &str) -> String {
    app.overlay.markdown_ready.track();
    markdown_module::render(text).unwrap_or_else(|| markdown::render_plain(text))
}

/// Who wrote a message, as the conversation says it.
pub fn role_label(role: Role) -> &'static str {
    match role {
        Role::System => "System prompt",
        Role::User => "You",
        Role::Assistant => "Assistant",
        Role::Tool => "Tool",
    }
}

/// The token line of a reply and its tooltip: `N tokens` from the server's `usage`, else
/// `≈N tokens` estimated from the text.
fn reply_tokens(msg: &Message) -> (String, String) {
    // Counts with the digit grouping of the interface language.
    let number = crate::adapters::language::number;
    let usage = msg.usage.as_ref();
    match usage.and_then(|u| u.completion_tokens) {
        Some(n) => {
            let n = number(n);
            let prompt = usage
                .and_then(|u| u.prompt_tokens)
                .map(|p| format!("; the request used {} tokens", number(p)))
                .unwrap_or_default();
            (
                format!("{n} tokens"),
                format!("Reply: {n} tokens, counted by the server{prompt}."),
            )
        }
        None => {
            let n = number(u64::from(crate::core::context::count::estimate(
                &msg.content,
            )));
            (
                format!("≈{n} tokens"),
                "Estimated: the server did not report usage.".into(),
            )
        }
    }
}

/// A message row.
#[component]
pub fn MessageView(
    /// The message and its place among its variants.
    row: Row,
) -> impl IntoView {
    let app = expect_context::<AppState>();
    let msg = row.msg.clone();
    let id = msg.id.clone();
    let role = msg.role;
    let is_live = {
        let id = id.clone();
        move || {
            app.turn
                .live
                .with(|l| l.as_ref().is_some_and(|l| l.id == id))
        }
    };
    let live_now = is_live();
    let draft = edit_of(&id);
    let editing = RwSignal::new(draft.is_some());
    let edit_text = RwSignal::new(draft.unwrap_or_else(|| msg.content.clone()));

    let body = if live_now {
        live_body(app, id.clone())
    } else {
        body(app, &msg)
    };
    let badge = match msg.status {
        Status::Stopped => Some(("badge stopped", "Stopped")),
        Status::Incomplete => Some(("badge incomplete", "Incomplete")),
        _ => None,
    };
    let note = msg.note.clone();
    // How the reply matched its template's `output_schema`.
    let structured = msg.structured.as_ref().map(|s| {
        view! { <p class="msg-structured" class:failed=s.failed()>{s.line.clone()}</p> }
    });
    // The tokens a reply used: the server's count when it sent one, else Satori's estimate.
    let tokens = (role == Role::Assistant && !live_now && !msg.content.is_empty()).then(|| {
        let (text, title) = reply_tokens(&msg);
        view! { <span class="tokens" title=title>{text}</span> }
    });
    let toggles = (matches!(role, Role::User | Role::Assistant) && !msg.example && !live_now)
        .then(|| context_toggles(app, &msg));
    let actions = actions(app, &row, live_now, editing, edit_text);
    let edit_id = id.clone();
    view! {
        <article class="msg" aria-busy={
            let is_live = is_live.clone();
            move || is_live().then_some("true")
        } data-message=id.clone() data-role=role.as_str() data-example=msg.example.then_some("true")
          data-pinned=msg.pinned.then_some("true") data-excluded=msg.excluded.then_some("true") data-status=move || if is_live() { "streaming" } else { msg.status.as_str() }>
            <header class="msg-head" class:hidden=role == Role::System || msg.example>
                <span class="who">{role_label(role)}</span>
                {(row.variants > 1).then(|| variants(app, &row))}
                {badge.map(|(class, text)| view! { <span class=class>{text}</span> })}
                {msg.pinned.then(|| view! { <span class="badge pinned">"Pinned"</span> })}
                {msg.excluded.then(|| view! { <span class="badge excluded">"Excluded"</span> })}
                {tokens}
            </header>
            <Show
                when=move || editing.get()
                fallback=move || ()
            >
                {edit_box(app, edit_id.clone(), editing, edit_text)}
            </Show>
            <div class="msg-body" class:hidden=move || editing.get()>{body}</div>
            {note.map(|n| view! { <p class="msg-note">{n}</p> })}
            {structured}
            <footer class="msg-actions">{actions}{toggles}</footer>
        </article>
    }
}

/// A reply arriving: only what is new is drawn (see [`show_live`]), so a piece costs the same
/// however long the reply already is.
fn live_body(app: AppState, live_id: String) -> AnyView {
    let (content, thoughts) = (
        NodeRef::<leptos::html::Div>::new(),
        NodeRef::<leptos::html::Div>::new(),
    );
    // The drawing state goes with the row's effect (the next reply drawn starts afresh).
    let mut drawing: Drawing = None;
    Effect::new(move |_| {
        let ready = app.overlay.markdown_ready.get();
        app.turn.live.with(|l| {
            if let Some(l) = l.as_ref().filter(|l| l.id == live_id) {
                if let (Some(c), Some(t)) = (content.get(), thoughts.get()) {
                    show_live(&mut drawing, &c, &t, &l.content, &l.reasoning, ready);
                }
            }
        })
    });
    view! {
        <details class="reasoning" class:hidden=move || app.turn.live.with(|l| l.as_ref().is_none_or(|l| l.reasoning.is_empty()))>
            <summary>"Reasoning"</summary>
            <div class="reasoning-text" translate="no" node_ref=thoughts></div>
        </details>
        <div class="content markdown" translate="no" node_ref=content></div>
    }
    .into_any()
}

/// The body of a message that is not arriving, by what it is.
fn body(app: AppState, msg: &Message) -> AnyView {
    let role = msg.role;
    if role == Role::System {
        let empty = msg.content.trim().is_empty();
        view! {
            <details class="system-prompt">
                <summary>"System prompt"</summary>
                <p class="hint">{crate::ui::components::system_dialog::origin_text(app)}</p>
                <div class="content plain" translate=(!empty).then_some("no")>{if empty { "(empty: no system prompt is sent)".to_string() } else { msg.content.clone() }}</div>
            </details>
            <button type="button" class="link-btn" on:click=move |_| crate::ui::components::system_dialog::open(app)>"Edit system prompt"</button>
        }
        .into_any()
    } else if msg.example {
        let who = if role == Role::User {
            "Example question"
        } else {
            "Example answer"
        };
        view! {
            <details class="example">
                <summary>{who}</summary>
                <div class="content plain" translate="no">{msg.content.clone()}</div>
            </details>
        }
        .into_any()
    } else if role == Role::User {
        view! { <div class="content plain" translate="no">{msg.content.clone()}</div> }.into_any()
    } else if role == Role::Tool {
        // A plan from the planner: its checklist and "Run plan".
        let plan = (msg.content.starts_with("Plan (") && from_planner(app, msg))
            .then(|| view! { <PlanChecklist msg_id=msg.id.clone() /> });
        view! {
            {plan}
            <details class="tool-result">
                <summary>"Result"</summary>
                <div class="content plain" translate="no">{msg.content.clone()}</div>
            </details>
        }
        .into_any()
    } else {
        reply_body(app, msg)
    }
}

/// A reply: its reasoning, its text as markdown, and the tools it called (agent mode).
fn reply_body(app: AppState, msg: &Message) -> AnyView {
    let reasoning = (!msg.reasoning.is_empty()).then(|| {
        view! {
            <details class="reasoning">
                <summary>"Reasoning"</summary>
                <div class="reasoning-text" translate="no">{msg.reasoning.clone()}</div>
            </details>
        }
    });
    // Agent mode: the tools the reply called, with their arguments.
    let calls = (!msg.tool_calls.is_empty()).then(|| {
        let names: Vec<&str> = msg.tool_calls.iter().map(|c| c.name.as_str()).collect();
        let args: Vec<String> = msg
            .tool_calls
            .iter()
            .map(|c| format!("{}({})", c.name, c.arguments))
            .collect();
        view! {
            <details class="tool-calls">
                <summary>{format!("Called {}", names.join(", "))}</summary>
                <div class="content plain" translate="no">{args.join("\n")}</div>
            </details>
        }
    });
    // A reply that matched its template's schema is JSON: shown as a code block.
    let content = match &msg.structured {
        Some(s) if !s.failed() => markdown::code_block("json", &msg.content),
        _ => msg.content.clone(),
    };
    view! {
        {reasoning}
        <div class="content markdown" translate="no" inner_html=move || to_html(app, &content)></div>
        {calls}
    }
    .into_any()
}

/// "‹ 2 / 3 ›": the message's variants (regenerated replies, edited questions).
fn variants(app: AppState, row: &Row) -> impl IntoView {
    let id = &row.msg.id;
    let prev = app
        .chats
        .session
        .with_untracked(|s| s.variant(id, -1).map(str::to_string));
    let next = app
        .chats
        .session
        .with_untracked(|s| s.variant(id, 1).map(str::to_string));
    let go = move |target: Option<String>| {
        move |_| {
            if let Some(t) = target.clone() {
                if !chat::is_streaming(&app) {
                    let _ = app.apply(Command::SelectVariant { id: t });
                }
            }
        }
    };
    view! {
        <span class="variants">
            <button type="button" class="icon-btn" aria-label="Previous variant" disabled=prev.is_none() on:click=go(prev.clone())>"‹"</button>
            <span class="variant-count">{format!("{} / {}", row.variant, row.variants)}</span>
            <button type="button" class="icon-btn" aria-label="Next variant" disabled=next.is_none() on:click=go(next.clone())>"›"</button>
        </span>
    }
}

/// "Pin" and "Exclude": whether the message always goes to the model, or never.
fn context_toggles(app: AppState, msg: &Message) -> impl IntoView {
    let (pin_id, ex_id) = (msg.id.clone(), msg.id.clone());
    let (pinned, excluded) = (msg.pinned, msg.excluded);
    view! {
        <button type="button" class="act" aria-label="Pin" aria-pressed=if pinned { "true" } else { "false" }
            title="Always send this message, whatever the context budget"
            on:click=move |_| { let _ = app.apply(Command::SetPinned { id: pin_id.clone(), pinned: !pinned }); } inner_html=icon::PIN></button>
        <button type="button" class="act" aria-label="Exclude" aria-pressed=if excluded { "true" } else { "false" }
            title="Never send this message to the model"
            on:click=move |_| { let _ = app.apply(Command::SetExcluded { id: ex_id.clone(), excluded: !excluded }); } inner_html=icon::EYE_OFF></button>
    }
}

/// What can be done with the message: "Edit" a question; "Copy", and "Retry" or "Regenerate"
/// the last reply.
fn actions(
    app: AppState,
    row: &Row,
    live_now: bool,
    editing: RwSignal<bool>,
    edit_text: RwSignal<String>,
) -> Option<AnyView> {
    let msg = &row.msg;
    match msg.role {
        _ if msg.example => None,
        Role::User => {
            let (content, id) = (msg.content.clone(), msg.id.clone());
            Some(
                view! {
                    <button type="button" class="act" aria-label="Edit" on:click=move |_| {
                        edit_text.set(content.clone());
                        editing.set(true);
                        set_edit(&id, Some(content.clone()));
                    } inner_html=icon::PENCIL></button>
                }
                .into_any(),
            )
        }
        Role::Assistant if !live_now => {
            let (raw, id) = (msg.content.clone(), msg.id.clone());
            let last = row.last;
            let incomplete = msg.status == Status::Incomplete;
            Some(
                view! {
                    <button type="button" class="act" aria-label="Copy" on:click=move |_| {
                        if let Some(w) = web_sys::window() {
                            let _ = w.navigator().clipboard().write_text(&raw);
                        }
                    } inner_html=icon::COPY></button>
                    {(last && incomplete).then(|| view! {
                        <button type="button" class="act" aria-label="Retry" on:click=move |_| chat::retry(app) inner_html=icon::RETRY></button>
                    })}
                    {(last && !incomplete).then(|| view! {
                        <button type="button" class="act" aria-label="Regenerate" on:click=move |_| chat::regenerate(app, id.clone()) inner_html=icon::REFRESH></button>
                    })}
                }
                .into_any(),
            )
        }
        _ => None,
    }
}

/// Editing a question: its text (kept across redraws, [`set_edit`]), "Save and send", "Cancel".
fn edit_box(
    app: AppState,
    id: String,
    editing: RwSignal<bool>,
    edit_text: RwSignal<String>,
) -> impl IntoView {
    let end_edit = {
        let id = id.clone();
        move || {
            editing.set(false);
            set_edit(&id, None);
        }
    };
    let label_id = format!("edit-{id}");
    let of = id.clone();
    view! {
        <div class="edit-box">
            <label for=label_id.clone() class="visually-hidden">"Edit message"</label>
            <textarea id=label_id rows="3" prop:value=move || edit_text.get() on:input=move |ev| {
                let text = event_target_value(&ev);
                set_edit(&id, Some(text.clone()));
                edit_text.set(text);
            }></textarea>
            <div class="edit-actions">
                <button type="button" class="primary" disabled=move || chat::is_streaming(&app) on:click={
                    let end_edit = end_edit.clone();
                    move |_| {
                        let text = edit_text.get_untracked();
                        if !text.trim().is_empty() {
                            end_edit();
                            chat::edit(app, of.clone(), text);
                        }
                    }
                }>"Save and send"</button>
                <button type="button" on:click=move |_| end_edit()>"Cancel"</button>
            </div>
        </div>
    }
}

/// Whether tool result `msg` answers a call of the planner (no other tool's output gets "Run plan").
fn from_planner(app: AppState, msg: &Message) -> bool {
    app.chats.session.with_untracked(|s| {
        let mut at = msg.parent.as_deref();
        while let Some(m) = at.and_then(|id| s.get(id)) {
            if m.role == Role::Assistant {
                return m.tool_calls.iter().any(|c| {
                    c.name == "planner" && msg.tool_call_id.as_deref() == Some(c.id.as_str())
                });
            }
            at = m.parent.as_deref();
        }
        false
    })
}

/// A plan's steps, checked off as their answers arrive, and "Run plan" (see
/// [`chat::run_plan`]). The agent module reads the plan and makes the checklist (escaped HTML),
/// so none of it weighs on the first load; "Run plan" is off while a reply streams and when the
/// plan cannot run or is done.
#[component]
fn PlanChecklist(msg_id: String) -> impl IntoView {
    use crate::adapters::modules::{self, Module};
    let app = expect_context::<AppState>();
    let ready = RwSignal::new(modules::loaded(Module::Agent));
    let runnable = RwSignal::new(false);
    if !ready.get_untracked() {
        leptos::task::spawn_local(async move {
            if modules::load(Module::Agent).await.is_ok() {
                let _ = ready.try_set(true);
            }
        });
    }
    let at = msg_id.clone();
    let checklist = move || {
        if !ready.get() {
            return String::new();
        }
        let input = app.chats.session.with(|s| chat::plan_input(s, &at, None));
        let answer =
            input.and_then(|input| modules::call(AgentCall::PlanChecklist { input }, None).ok());
        let field = |k: &str| {
            answer
                .as_ref()
                .and_then(|a| js_sys::Reflect::get(a, &k.into()).ok())
        };
        let can = field("runnable").is_some_and(|v| v.is_truthy());
        if runnable.get_untracked() != can {
            runnable.set(can);
        }
        field("html")
            .and_then(|h| h.as_string())
            .unwrap_or_default()
    };
    view! {
        <div class="plan" role="group" aria-label="Plan">
            // Not announced on every check-off inside the conversation's live region: the
            // status line says which step runs.
            <div aria-live="off" inner_html=checklist></div>
            <button type="button" prop:disabled=move || app.is_streaming() || !runnable.get()
                on:click=move |_| chat::run_plan(app, msg_id.clone())>"Run plan"</button>
        </div>
    }
}
