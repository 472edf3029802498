//! One message as an `<article>` with `data-role` and `data-status`, rendered as safe markdown.

use crate::adapters::markdown_module;
use crate::core::markdown;
use crate::core::protocol::AgentCall;
use crate::core::reply_meta;
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

/// A reply's quiet line as markup: the model that wrote it, when, tokens in and out ("≈" when
/// estimated) and what it cost where the model's price is known (Settings); see
/// [`crate::core::reply_meta`] (the cost was reckoned when the reply ended).
fn meta_html(msg: &Message) -> String {
    use crate::adapters::language::{money, number, time};
    let Some(meta) = reply_meta::of(msg) else {
        return String::new();
    };
    let mut out = String::from("<span class=\"meta\">");
    if let Some(model) = &meta.model {
        push_span(&mut out, "meta-model\" translate=\"no", model, None, model);
    }
    let (short, long) = time(msg.created_at as f64);
    push_span(&mut out, "meta-time", &long, None, &short);
    let about = |exact: bool| if exact { "" } else { "≈" };
    let counts = [
        ("tokens-in", meta.input, true),
        ("tokens", meta.output, false),
    ];
    for (class, count, sent) in counts {
        if let Some(c) = count {
            let title = match (sent, c.exact) {
                (true, true) => "Tokens sent, counted by the server or the model's tokenizer",
                (true, false) => "Tokens sent, estimated",
                (false, true) => "Tokens written, counted by the server or the model's tokenizer",
                (false, false) => "Tokens written, estimated",
            };
            // ↑ sent, ↓ written: the arrow drawn by the style sheet (silent), said in words
            // (the title, which a screen reader reads inconsistently on a span).
            let text = about(c.exact).to_string() + &number(c.tokens);
            push_span(&mut out, class, title, Some(title), &text);
        }
    }
    if let Some(cost) = meta.cost {
        let text = about(cost.exact).to_string() + &money(cost.amount, &cost.currency);
        push_span(
            &mut out,
            "cost",
            "Cost at the price set in Settings",
            None,
            &text,
        );
    }
    out.push_str("</span>");
    out
}

/// The lines under a message as markup: how a reply ended, in words, and how it matched its
/// template's `output_schema`.
fn notes_html(msg: &Message) -> String {
    let mut out = String::new();
    let mut line = |class: &str, text: &str| {
        out.push_str("<p class=\"");
        out.push_str(class);
        out.push_str("\">");
        markdown::push_escaped(&mut out, text);
        out.push_str("</p>");
    };
    if let Some(note) = &msg.note {
        line("msg-note", note);
    }
    if let Some(s) = &msg.structured {
        let class = if s.failed() {
            "msg-structured failed"
        } else {
            "msg-structured"
        };
        line(class, &s.line);
    }
    out
}

/// `<span class="CLASS" title="TITLE">TEXT</span>` (title and text escaped).
fn push_span(out: &mut String, class: &str, title: &str, said: Option<&str>, text: &str) {
    out.push_str("<span class=\"");
    out.push_str(class);
    out.push_str("\" title=\"");
    markdown::push_escaped(out, title);
    out.push_str("\">");
    if let Some(said) = said {
        out.push_str("<span class=\"visually-hidden\">");
        markdown::push_escaped(out, said);
        out.push_str(" </span>");
    }
    markdown::push_escaped(out, text);
    out.push_str("</span>");
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
    let editing = RwSignal::new(edit_of(&id).is_some());

    let body = if live_now {
        live_body(app, id.clone())
    } else {
        body(app, &msg)
    };
    let meta = if role == Role::Assistant
        && !live_now
        && !(msg.content.is_empty() && msg.tool_calls.is_empty())
    {
        meta_html(&msg)
    } else {
        String::new()
    };
    let head = head_html(&row, &meta);
    let foot = actions_html(&row, live_now);
    let notes = notes_html(&msg);
    let edit_id = id.clone();
    let box_id = id.clone();
    // Whether "Save and send" waits for a reply arriving: changes twice a reply, not per frame
    // (the edit box is drawn again when it changes).
    let busy = Memo::new(move |_| editing.get() && chat::is_streaming(&app));
    let act = Act {
        id: id.clone(),
        content: msg.content.clone(),
        pinned: msg.pinned,
        excluded: msg.excluded,
    };
    view! {
        <article class="msg" aria-busy={
            let is_live = is_live.clone();
            move || is_live().then_some("true")
        } data-message=id.clone() data-role=role.as_str() data-example=msg.example.then_some("true")
          data-pinned=msg.pinned.then_some("true") data-excluded=msg.excluded.then_some("true") data-status=move || if is_live() { "streaming" } else { msg.status.as_str() }
          on:click=move |ev| act.run(app, &ev, editing)
          on:input=move |ev| {
              // The edit box's text (the only field of a message).
              if event_target::<web_sys::Element>(&ev).id().starts_with("edit-") {
                  set_edit(&edit_id, Some(event_target_value(&ev)));
              }
          }>
            <header class="msg-head" class:hidden=role == Role::System || msg.example inner_html=head></header>
            <div class="body-markup" inner_html=move || edit_box(&box_id, editing.get(), busy.get())></div>
            <div class="msg-body" class:hidden=move || editing.get()>{body}</div>
            <div class="msg-notes" inner_html=notes></div>
            <footer class="msg-actions" inner_html=foot></footer>
        </article>
    }
}

/// What a click on a message's header, body or actions does (each control names its action,
/// `data-act`; a reply's text, the model's, has none, and any there is ignored).
struct Act {
    id: String,
    content: String,
    pinned: bool,
    excluded: bool,
}

impl Act {
    fn run(&self, app: AppState, ev: &leptos::ev::MouseEvent, editing: RwSignal<bool>) {
        use wasm_bindgen::JsCast;
        let Some(el) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("[data-act]").ok().flatten())
            // Nothing in a reply's text is a control of Satori's.
            .filter(|e| e.closest(".markdown").ok().flatten().is_none())
        else {
            return;
        };
        let id = self.id.clone();
        let step = |by: isize| {
            let target = app
                .chats
                .session
                .with_untracked(|s| s.variant(&id, by).map(str::to_string));
            if let Some(t) = target.filter(|_| !chat::is_streaming(&app)) {
                let _ = app.apply(Command::SelectVariant { id: t });
            }
        };
        match el.get_attribute("data-act").as_deref() {
            Some("edit") => {
                // Already open: its text is kept (↑ in the message box asks again).
                if edit_of(&id).is_none() {
                    set_edit(&id, Some(self.content.clone()));
                }
                editing.set(true);
                // The text to edit takes the focus, once drawn.
                let field = format!("edit-{id}");
                request_animation_frame(move || {
                    if let Some(el) = document().get_element_by_id(&field) {
                        let _ = el.unchecked_into::<web_sys::HtmlElement>().focus();
                    }
                });
            }
            Some("copy") => {
                if let Some(w) = web_sys::window() {
                    let _ = w.navigator().clipboard().write_text(&self.content);
                }
            }
            Some("retry") => chat::retry(app),
            Some("regenerate") => chat::regenerate(app, id),
            Some("pin") => {
                let _ = app.apply(Command::SetPinned {
                    id,
                    pinned: !self.pinned,
                });
            }
            Some("exclude") => {
                let _ = app.apply(Command::SetExcluded {
                    id,
                    excluded: !self.excluded,
                });
            }
            Some("system") => crate::ui::components::system_dialog::open(app),
            Some("save-edit") => {
                let text = edit_of(&id).unwrap_or_default();
                if !text.trim().is_empty() && !chat::is_streaming(&app) {
                    set_edit(&id, None);
                    editing.set(false);
                    chat::edit(app, id, text);
                }
            }
            Some("cancel-edit") => {
                set_edit(&id, None);
                editing.set(false);
            }
            Some("prev") => step(-1),
            Some("next") => step(1),
            _ => {}
        }
    }
}

/// An action button: `act` names it for the listener, `label` is its accessible name (and
/// tooltip), `pressed` a toggle's state, `title` a longer description, `icon` its icon.
fn push_act(
    out: &mut String,
    act: &str,
    label: &str,
    pressed: Option<bool>,
    title: &str,
    icon: &str,
) {
    out.push_str("<button type=\"button\" class=\"act\" data-act=\"");
    out.push_str(act);
    out.push_str("\" aria-label=\"");
    out.push_str(label);
    out.push('"');
    if let Some(p) = pressed {
        out.push_str(if p {
            " aria-pressed=\"true\""
        } else {
            " aria-pressed=\"false\""
        });
    }
    if !title.is_empty() {
        out.push_str(" title=\"");
        out.push_str(title);
        out.push('"');
    }
    out.push('>');
    out.push_str(icon);
    out.push_str("</button>");
}

/// The header of message `row` as markup: who wrote it, "‹ 2 / 3 ›" among its variants, its
/// badges and a reply's line (`meta`, markup).
fn head_html(row: &Row, meta: &str) -> String {
    let msg = &row.msg;
    let mut out = String::from("<span class=\"who\">");
    out.push_str(role_label(msg.role));
    out.push_str("</span>");
    if row.variants > 1 {
        let off = |on: bool| if on { "" } else { " disabled" };
        out.push_str(&format!(
            "<span class=\"variants\"><button type=\"button\" class=\"icon-btn\" data-act=\"prev\" aria-label=\"Previous variant\"{}>‹</button><span class=\"variant-count\">{} / {}</span><button type=\"button\" class=\"icon-btn\" data-act=\"next\" aria-label=\"Next variant\"{}>›</button></span>",
            off(row.variant > 1),
            row.variant,
            row.variants,
            off(row.variant < row.variants)
        ));
    }
    match msg.status {
        Status::Stopped => out.push_str("<span class=\"badge stopped\">Stopped</span>"),
        Status::Incomplete => out.push_str("<span class=\"badge incomplete\">Incomplete</span>"),
        _ => {}
    }
    if msg.pinned {
        out.push_str("<span class=\"badge pinned\">Pinned</span>");
    }
    if msg.excluded {
        out.push_str("<span class=\"badge excluded\">Excluded</span>");
    }
    out.push_str(meta);
    out
}

/// The actions of message `row` as markup: "Edit" a question; "Copy", and "Retry" or
/// "Regenerate" the last reply; "Pin" and "Exclude" (whether the message always goes to the
/// model, or never) on questions and replies. None on examples, nor on a reply arriving.
fn actions_html(row: &Row, live_now: bool) -> String {
    let msg = &row.msg;
    let mut out = String::new();
    if msg.example || live_now {
        return out;
    }
    match msg.role {
        Role::User => push_act(&mut out, "edit", "Edit", None, "", icon::PENCIL),
        Role::Assistant => {
            push_act(&mut out, "copy", "Copy", None, "", icon::COPY);
            if row.last && msg.status == Status::Incomplete {
                push_act(&mut out, "retry", "Retry", None, "", icon::RETRY);
            } else if row.last {
                push_act(
                    &mut out,
                    "regenerate",
                    "Regenerate",
                    None,
                    "",
                    icon::REFRESH,
                );
            }
        }
        _ => return out,
    }
    push_act(
        &mut out,
        "pin",
        "Pin",
        Some(msg.pinned),
        "Always send this message, whatever the context budget",
        icon::PIN,
    );
    push_act(
        &mut out,
        "exclude",
        "Exclude",
        Some(msg.excluded),
        "Never send this message to the model",
        icon::EYE_OFF,
    );
    out
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

/// The body of a message that is not arriving, by what it is: markup (one listener, the
/// message's) for a question, the system prompt, an example or a tool's result; views for a reply
/// and a plan's checklist.
fn body(app: AppState, msg: &Message) -> AnyView {
    let role = msg.role;
    // `text` in a `.content.plain` box: the user's or a tool's words, never translated (Satori's
    // own, `ours`, are).
    let plain = |out: &mut String, text: &str, ours: bool| {
        out.push_str(if ours {
            "<div class=\"content plain\">"
        } else {
            "<div class=\"content plain\" translate=\"no\">"
        });
        markdown::push_escaped(out, text);
        out.push_str("</div>");
    };
    let mut out = String::new();
    if role == Role::System {
        out.push_str(
            "<details class=\"system-prompt\"><summary>System prompt</summary><p class=\"hint\">",
        );
        markdown::push_escaped(
            &mut out,
            &crate::ui::components::system_dialog::origin_text(app),
        );
        out.push_str("</p>");
        if msg.content.trim().is_empty() {
            plain(&mut out, "(empty: no system prompt is sent)", true);
        } else {
            plain(&mut out, &msg.content, false);
        }
        out.push_str("</details><button type=\"button\" class=\"link-btn\" data-act=\"system\">Edit system prompt</button>");
    } else if msg.example {
        out.push_str(if role == Role::User {
            "<details class=\"example\"><summary>Example question</summary>"
        } else {
            "<details class=\"example\"><summary>Example answer</summary>"
        });
        plain(&mut out, &msg.content, false);
        out.push_str("</details>");
    } else if role == Role::User {
        plain(&mut out, &msg.content, false);
        push_attachments(&mut out, &msg.attachments);
    } else if role == Role::Tool {
        // A plan from the planner: its checklist and "Run plan".
        let plan = (msg.content.starts_with("Plan (") && from_planner(app, msg))
            .then(|| view! { <PlanChecklist msg_id=msg.id.clone() /> });
        out.push_str("<details class=\"tool-result\"><summary>Result</summary>");
        plain(&mut out, &msg.content, false);
        out.push_str("</details>");
        return view! {
            {plan}
            <div class="body-markup" inner_html=out></div>
        }
        .into_any();
    } else {
        return reply_body(app, msg);
    }
    view! { <div class="body-markup" inner_html=out></div> }.into_any()
}

/// A question's files, each its line, as a list `src/web/attach.js` draws (names, sizes, the
/// images' thumbnails from where the page keeps their bytes).
fn push_attachments(out: &mut String, lines: &str) {
    if lines.is_empty() {
        return;
    }
    out.push_str("<ul class=\"attachments\" aria-label=\"Attachments\">");
    for line in lines.split('\n') {
        out.push_str("<li data-attachment=\"");
        markdown::push_escaped(out, line);
        out.push_str("\"></li>");
    }
    out.push_str("</ul>");
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

/// Editing question `id` (`editing`), as markup: its text (kept across redraws, [`set_edit`]),
/// "Save and send" (not while a reply arrives: drawn again when that changes, the text and the
/// focus kept), "Cancel"; the message's listeners act on them.
fn edit_box(id: &str, editing: bool, busy: bool) -> String {
    if !editing {
        return String::new();
    }
    let field = format!("edit-{id}");
    // Drawn again while its text has the focus: the focus and the caret go back to the end.
    if document().active_element().is_some_and(|e| e.id() == field) {
        let field = field.clone();
        request_animation_frame(move || {
            if let Some(el) = document().get_element_by_id(&field) {
                use wasm_bindgen::JsCast;
                let el: web_sys::HtmlTextAreaElement = el.unchecked_into();
                let _ = el.focus();
                let end = el.value().len() as u32;
                let _ = el.set_selection_range(end, end);
            }
        });
    }
    let mut out = String::from("<div class=\"edit-box\"><label class=\"visually-hidden\" for=\"");
    markdown::push_escaped(&mut out, &field);
    out.push_str("\">Edit message</label><textarea rows=\"3\" id=\"");
    markdown::push_escaped(&mut out, &field);
    // (The page drops a newline right after `<textarea>`: one of the text's own is kept.)
    out.push_str("\">\n");
    markdown::push_escaped(&mut out, &edit_of(id).unwrap_or_default());
    out.push_str("</textarea><div class=\"edit-actions\"><button type=\"button\" class=\"primary\" data-act=\"save-edit\"");
    if busy {
        out.push_str(" disabled");
    }
    out.push_str(">Save and send</button><button type=\"button\" data-act=\"cancel-edit\">Cancel</button></div></div>");
    out
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
