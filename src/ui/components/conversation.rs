//! The conversation log: the visible branch of the open session, one article per message.

use crate::ui::components::message::{MessageView, Row};
use crate::ui::state::{Chats, LiveTurn, Overlay};
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// `role="log"` named "Conversation".
#[component]
pub fn Conversation() -> impl IntoView {
    let chats = expect_context::<Chats>();
    let turn = expect_context::<LiveTurn>();
    let rows = Memo::new(move |_| {
        chats.session.with(|s| {
            let path = s.path();
            let n = path.len();
            path.iter()
                .enumerate()
                .map(|(i, m)| {
                    let sibs = s.siblings(&m.id);
                    Row {
                        msg: (*m).clone(),
                        variant: sibs.iter().position(|x| *x == m.id).map_or(1, |p| p + 1),
                        variants: sibs.len().max(1),
                        last: i + 1 == n,
                    }
                })
                .collect::<Vec<_>>()
        })
    });
    let log: NodeRef<html::Div> = NodeRef::new();
    // A chat opens at its latest message (also once rendered markdown has changed the heights);
    // then the newest text stays in view while it arrives, unless the user scrolled up.
    let overlay = expect_context::<Overlay>();
    // Whether the view was at the bottom when the user last scrolled (our own scrolls count).
    let pinned = StoredValue::new(true);
    let found =
        move |el: &web_sys::HtmlDivElement| matches!(el.query_selector(".msg.found"), Ok(Some(_)));
    Effect::new(move |shown: Option<Option<(String, bool)>>| {
        rows.track();
        turn.live.track();
        let now = (
            chats.session.with(|s| s.id.clone()),
            overlay.markdown_ready.get(),
        );
        let Some(el) = log.get() else {
            return shown.flatten();
        };
        let shown = shown.flatten();
        let opened = shown.as_ref().map(|s| &s.0) != Some(&now.0);
        let relaid = shown.as_ref().is_some_and(|s| s.1 != now.1) && pinned.get_value();
        let near_bottom = el.scroll_height() - el.scroll_top() - el.client_height() < 120;
        let force = (opened || relaid) && !found(&el);
        if force
            || near_bottom
            || turn
                .live
                .with_untracked(|l| l.as_ref().is_some_and(|l| l.content.is_empty()))
        {
            el.set_scroll_top(el.scroll_height());
            // Again once laid out — unless a search result is being shown instead.
            request_animation_frame(move || {
                if let Some(el) = log.get_untracked() {
                    if !found(&el) {
                        el.set_scroll_top(el.scroll_height());
                    }
                }
            });
        }
        Some(now)
    });
    let on_scroll = move |_| {
        if let Some(el) = log.get_untracked() {
            pinned.set_value(el.scroll_height() - el.scroll_top() - el.client_height() < 120);
        }
    };
    // One listener for every "Copy code" button in rendered markdown.
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(target) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        else {
            return;
        };
        let Ok(Some(button)) = target.closest(".copy-code") else {
            return;
        };
        let code = button
            .closest(".code-block")
            .ok()
            .flatten()
            .and_then(|b| b.query_selector("code").ok().flatten())
            .and_then(|c| c.text_content());
        if let (Some(code), Some(w)) = (code, web_sys::window()) {
            let _ = w.navigator().clipboard().write_text(&code);
            button.set_text_content(Some("Copied"));
        }
    };
    view! {
        <div class="log" role="log" aria-label="Conversation" node_ref=log on:click=on_click on:scroll=on_scroll>
            <For each=move || rows.get() key=Row::key children=move |row| view! { <MessageView row=row /> } />
        </div>
    }
}

/// Scroll message `id` of the open chat into view and mark it (a search result chosen).
pub fn show_message(id: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    // Ids come from imported files: every character but letters and digits as a CSS escape.
    let quoted: String = id
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' => c.to_string(),
            c => format!("\\{:x} ", c as u32),
        })
        .collect();
    if let Ok(Some(old)) = doc.query_selector(".msg.found") {
        let _ = old.class_list().remove_1("found");
    }
    if let Ok(Some(el)) = doc.query_selector(&format!("article[data-message=\"{quoted}\"]")) {
        el.scroll_into_view();
        let _ = el.class_list().add_1("found");
    }
}
