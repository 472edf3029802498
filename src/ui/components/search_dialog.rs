//! "Search chats" (in the dialogs module): a search box over every stored chat's title and the
//! messages of its branch on screen (`core::search`), results with the hits marked; choosing one
//! opens the chat at that message (the app gets `DialogEvent::OpenAt`).

use crate::core::search::{ChatHit, Corpus};
use crate::core::session::Session;
use crate::ui::components::modal::Modal;
use leptos::either::Either;
use leptos::prelude::*;

/// Text in pieces, the hits marked (the text is searched decomposed, NFD; it is shown composed).
fn marked(pieces: Vec<(String, bool)>) -> impl IntoView {
    pieces
        .into_iter()
        .map(|(t, hit)| {
            (
                String::from(js_sys::JsString::from(t).normalize("NFC")),
                hit,
            )
        })
        .map(|(t, hit)| match hit {
            true => Either::Left(view! { <mark>{t}</mark> }),
            false => Either::Right(t),
        })
        .collect_view()
}

/// Search `chats` (newest first); `on_open` gets a chat id and the message to show.
#[component]
pub fn SearchDialog(
    /// The chats to search.
    chats: Vec<Session>,
    /// Chats that could not be read (said, not searched).
    unreadable: usize,
    /// Open a chat (id) at a message (id), if any.
    on_open: Callback<(String, Option<String>)>,
    /// Closes the dialog.
    on_close: Callback<()>,
) -> impl IntoView {
    let total = chats.len();
    let corpus = StoredValue::new(Corpus::new(&chats));
    let query = RwSignal::new(String::new());
    // The query decomposed like the chats (NFD), so Hangul and accented letters meet theirs.
    let results = Memo::new(move |_| {
        let q = String::from(js_sys::JsString::from(query.get()).normalize("NFD"));
        corpus.with_value(|c| c.search(&q))
    });
    let status = move || {
        let n = results.with(Vec::len);
        let skipped = crate::shell::error_text::chats_not_searched(unreadable);
        match (query.with(|q| q.trim().is_empty()), n) {
            (true, _) => format!("Search {total} chats by title and message text.{skipped}"),
            (false, 0) => format!("No chat matches.{skipped}"),
            (false, 1) => format!("1 chat matches.{skipped}"),
            (false, n) if n >= crate::core::search::MAX_CHATS => {
                format!("The first {n} matching chats.{skipped}")
            }
            (false, n) => format!("{n} chats match.{skipped}"),
        }
    };
    let hit_view = move |hit: ChatHit| {
        let id = hit.id.clone();
        let more = hit.count.saturating_sub(hit.messages.len());
        let messages = hit
            .messages
            .into_iter()
            .map(|m| {
                let (chat, at) = (id.clone(), m.id);
                view! {
                    <li>
                        <button type="button" class="search-message" translate="no"
                            on:click=move |_| on_open.run((chat.clone(), Some(at.clone())))>
                            {marked(m.excerpt)}
                        </button>
                    </li>
                }
            })
            .collect_view();
        // A title the user gave is theirs: never translated ("Untitled chat" is).
        let theirs = (!hit.title.is_empty()).then_some("no");
        let title = if hit.title.is_empty() {
            vec![("Untitled chat".to_string(), false)]
        } else {
            hit.title
        };
        view! {
            <li>
                <button type="button" class="search-chat" translate=theirs on:click=move |_| on_open.run((id.clone(), None))>
                    {marked(title)}
                </button>
                <ul>{messages}</ul>
                {(more > 0).then(|| view! { <p class="hint">{format!("and {more} more message(s)")}</p> })}
            </li>
        }
    };
    view! {
        <Modal title="Search chats" on_close=on_close>
            <input type="search" class="search-box" aria-label="Search chats" autofocus
                placeholder="Words from titles and messages"
                prop:value=move || query.get()
                on:input=move |ev| query.set(event_target_value(&ev)) />
            <p role="status" class="hint">{status}</p>
            <ul class="search-results">
                {move || results.get().into_iter().map(hit_view).collect_view()}
            </ul>
            <div class="dialog-actions">
                <button type="button" on:click=move |_| on_close.run(())>"Close"</button>
            </div>
        </Modal>
    }
}
