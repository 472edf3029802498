//! The sidebar: "New chat", the role, the prompt library, search, import and export, and the
//! chat list ("Chats": pinned chats, then by date, the open one marked `aria-current="page"`,
//! each with its "Chat options" menu).

use crate::core::prompts::{RoleRef, Vars};
use crate::core::protocol::DialogsCall;
use crate::ui::chat;
use crate::ui::state::AppState;
use leptos::prelude::*;

/// Open the "Prompts" dialog (in the dialogs module, loaded now if needed).
fn open_prompts(app: AppState) {
    let selected = app.chats.next_role.get_untracked().encode();
    app.open_external("Prompts", DialogsCall::OpenManager { selected }, None);
}

/// Sidebar with "New chat", the role, the tools and the list of chats.
#[component]
pub fn Sidebar(
    /// Called after the user picks or creates a chat (closes the narrow-screen drawer).
    on_pick: Callback<()>,
) -> impl IntoView {
    let app = expect_context::<AppState>();
    view! {
        <nav class="sidebar" aria-label="Chats">
            // The buttons are one piece of markup and one listener: each names its action
            // (`data-act`).
            <div
                class="side-tools"
                on:click=move |ev| {
                    use wasm_bindgen::JsCast;
                    let act = ev
                        .target()
                        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                        .and_then(|e| e.closest("[data-act]").ok().flatten())
                        .and_then(|e| e.get_attribute("data-act"));
                    match act.as_deref() {
                        Some("new") => {
                            app.new_chat();
                            on_pick.run(());
                        }
                        Some("search") => crate::ui::transfer::search(app),
                        Some("prompts") => open_prompts(app),
                        Some("import") => crate::ui::transfer::import(app, None),
                        Some("export") => crate::ui::transfer::export_all(app),
                        _ => {}
                    }
                }
                inner_html=SIDE_TOOLS
            ></div>
            <RoleSelect />
            <ChatList on_pick=on_pick />
        </nav>
    }
}

/// The sidebar's buttons (`data-act`: what the sidebar's listener does), with their icons.
const SIDE_TOOLS: &str = concat!(
    r##"<button type="button" class="new-chat" data-act="new"><svg class="icon" aria-hidden="true"><use href="#i-square-pen"></use></svg>New chat</button>"##,
    r##"<button type="button" class="tool" data-act="search"><svg class="icon" aria-hidden="true"><use href="#i-search"></use></svg>Search chats</button>"##,
    r##"<button type="button" class="tool" data-act="prompts"><svg class="icon" aria-hidden="true"><use href="#i-library"></use></svg>Prompts</button>"##,
    r##"<div class="data-actions"><button type="button" class="tool" data-act="import"><svg class="icon" aria-hidden="true"><use href="#i-upload"></use></svg>Import</button>"##,
    r##"<button type="button" class="tool" data-act="export"><svg class="icon" aria-hidden="true"><use href="#i-download"></use></svg>Export all</button></div>"##,
);

/// The "Role" select: the role new chats start with. Each option shows the role's name and
/// description (the options are the core's markup, `Catalog::options_html`). Changing it also
/// starts the open chat over if nothing was sent in it yet.
#[component]
fn RoleSelect() -> impl IntoView {
    let app = expect_context::<AppState>();
    view! {
        <div class="role-pick">
            <label for="role-select">"Role"</label>
            <select
                id="role-select"
                on:change=move |ev| {
                    if let Some(role) = RoleRef::decode(&event_target_value(&ev)) {
                        pick_role(app, role);
                    }
                }
                inner_html=move || app.chats.catalog.with(|c| app.chats.next_role.with(|r| c.options_html(r)))
            ></select>
        </div>
    }
}

/// `role` chosen (the "Role" select, a starter of a new chat): new chats start with it, and the
/// open chat too if nothing was sent in it yet.
pub fn pick_role(app: AppState, role: RoleRef) {
    app.choose_role(role.clone());
    if !app.chats.session.with_untracked(|s| s.started()) && !chat::is_streaming(&app) {
        app.start_chat(role, Vars::new(), true);
    }
}

/// A list this long (headings included) draws only the rows near the view.
const WINDOW_FROM: usize = 200;

/// The chat list: its markup is the core's (`core::chat_list`), drawn whole, or for a long list
/// only near the view (between two spacers); one listener for the clicks of every row, and one
/// "Chat options" menu that every row opens (it carries the row's `data-id`, see
/// `src/web/menus.js`).
#[component]
fn ChatList(on_pick: Callback<()>) -> impl IntoView {
    let app = expect_context::<AppState>();
    let list = NodeRef::<leptos::html::Ul>::new();
    let scroller = NodeRef::<leptos::html::Div>::new();
    let drawn = StoredValue::new((0..0usize, String::new()));
    Effect::new(move |_| {
        app.chats.index.track();
        app.chats.session.with(|s| s.id.len());
        if let (Some(ul), Some(div)) = (list.get(), scroller.get()) {
            draw(app, &ul, &div, drawn, true);
        }
    });
    view! {
        <span id="opts-label" hidden>"Chat options:"</span>
        <div
            class="chat-scroll"
            node_ref=scroller
            on:scroll=move |_| {
                if let (Some(ul), Some(div)) = (list.get_untracked(), scroller.get_untracked()) {
                    draw(app, &ul, &div, drawn, false);
                }
            }
        >
        <ul
            class="chat-list"
            node_ref=list
            on:click=move |ev| {
                use wasm_bindgen::JsCast;
                let Some(link) = ev
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                    .and_then(|e| e.closest(".chat-link").ok().flatten())
                else {
                    return;
                };
                if let Some(id) = link.get_attribute("data-id") {
                    if !app.chats.session.with_untracked(|s| s.id == id) {
                        let _ = app.open(&id);
                    }
                    on_pick.run(());
                }
            }
        ></ul>
        </div>
        <div
            id="row-menu"
            class="menu"
            role="menu"
            aria-label="Chat options"
            popover="auto"
            on:click=move |ev| crate::ui::actions::chat_action(app, &ev)
            inner_html=ROW_ACTIONS
        ></div>
    }
}

/// The items of a row's "Chat options" (`data-act`: what `actions::chat_action` does); "Pin chat"
/// or "Unpin chat" shows as the row's chat is (`data-pinned`).
const ROW_ACTIONS: &str = concat!(
    r##"<button type="button" role="menuitem" data-act="rename"><svg class="icon" aria-hidden="true"><use href="#i-pencil"></use></svg>Rename chat</button>"##,
    r##"<button type="button" role="menuitem" data-act="pin"><svg class="icon" aria-hidden="true"><use href="#i-pin"></use></svg>Pin chat</button>"##,
    r##"<button type="button" role="menuitem" data-act="unpin"><svg class="icon" aria-hidden="true"><use href="#i-pin-off"></use></svg>Unpin chat</button>"##,
    r##"<button type="button" role="menuitem" data-act="export"><svg class="icon" aria-hidden="true"><use href="#i-download"></use></svg>Export chat</button>"##,
    r##"<button type="button" role="menuitem" data-act="delete" class="danger-item"><svg class="icon" aria-hidden="true"><use href="#i-trash-2"></use></svg>Delete chat</button>"##,
);

/// Draw the list's rows into `ul`, which scrolls in `scroller` (`changed`: the list or the open chat changed; else it
/// scrolled, and the rows drawn are kept while they still cover the view). The focus stays on
/// the row's control it was on.
fn draw(
    app: AppState,
    ul: &web_sys::HtmlUListElement,
    scroller: &web_sys::HtmlDivElement,
    drawn: StoredValue<(std::ops::Range<usize>, String)>,
    changed: bool,
) {
    use crate::core::{chat_list, window};
    let now = js_sys::Date::now() as i64;
    // The time zone's offset at each moment (daylight saving time may differ from today's).
    let offset = |t: i64| {
        js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(t as f64)).get_timezone_offset() as i64
    };
    let active = app.chats.session.with_untracked(|s| s.id.clone());
    app.chats.index.with_untracked(|index| {
        let rows = chat_list::rows(index, now, offset);
        let n = rows.len();
        // Every row is one height (the style sheet's); measured from a row drawn.
        let h = ul
            .first_element_child()
            .and_then(|r| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(r).ok())
            .map(|r| f64::from(r.offset_height()))
            .filter(|h| *h > 0.0)
            .unwrap_or(36.0);
        let heights = vec![h; n];
        let top = f64::from(scroller.scroll_top());
        let view = f64::from(scroller.client_height()).max(h);
        let old = drawn.with_value(|(r, _)| r.clone());
        let range = if n < WINDOW_FROM {
            0..n
        } else {
            match window::plan(&heights, &old, top, view) {
                Some(r) => r,
                None if changed => old.start.min(n)..old.end.min(n),
                None => return,
            }
        };
        if !changed && range == old {
            return;
        }
        // The same markup (a save that changed nothing the list shows, as while a reply
        // streams): nothing is drawn again, so a click in progress or a screen reader's place
        // in the list is not lost.
        let html = chat_list::html(&rows[range.clone()], range.start, &active);
        if range == old && drawn.with_value(|(_, h)| *h == html) {
            return;
        }
        // The control with the focus, to put it back on the same chat's.
        let focus = document()
            .active_element()
            .filter(|e| ul.contains(Some(e.as_ref())));
        let was = focus.and_then(|e| {
            Some((
                e.get_attribute("data-id")?,
                e.has_attribute("popovertarget"),
            ))
        });
        // Heights go through the CSSOM: `style-src 'self'` forbids style attributes.
        let style = web_sys::HtmlElement::style(ul);
        let px = |v: f64| format!("{}px", v.round() as i64);
        let _ = style.set_property("padding-top", &px(window::before(&heights, &range)));
        let _ = style.set_property("padding-bottom", &px(window::after(&heights, &range)));
        ul.set_inner_html(&html);
        drawn.set_value((range.clone(), html));
        if let Some((id, opts)) = was {
            let at = rows
                .iter()
                .position(|r| matches!(r, chat_list::Row::Chat(e) if e.id == id))
                .filter(|p| range.contains(p));
            let link = at.and_then(|p| document().get_element_by_id(&format!("t-{p}")));
            let again = if opts {
                link.and_then(|l| l.next_element_sibling())
            } else {
                link
            };
            if let Some(e) =
                again.and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok())
            {
                let _ = e.focus();
            }
        }
    });
}
