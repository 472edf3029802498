//! The "Context" button's region: a host element the on-demand dialogs module draws the context
//! inspector into ([`crate::ui::components::inspector`]). While it is open, the reports are
//! rebuilt when the chat, the settings or the draft change (the draft after a pause in typing).

use crate::adapters::dialogs_module;
use crate::ui::context::inspect;
use crate::ui::state::{Alert, AppState};
use leptos::prelude::*;

/// Id of the region's element.
pub const HOST_ID: &str = "context-inspector";

/// Pause after the last keystroke before the draft is counted again, ms.
const DRAFT_PAUSE_MS: u32 = 400;

/// The "Context inspector" region (shown while `open`).
#[component]
pub fn ContextInspector(
    /// Whether the inspector is shown (the "Context" button toggles it).
    open: RwSignal<bool>,
) -> impl IntoView {
    let app = expect_context::<AppState>();
    let generation = StoredValue::new(0u32);
    Effect::new(move |_| {
        if !open.get() {
            return;
        }
        app.chats.session.track();
        app.conn.settings.track();
        app.chats.draft.track();
        let streaming = app.turn.live.with(Option::is_some);
        if streaming {
            return; // refreshed when the reply ends
        }
        generation.update_value(|g| *g += 1);
        let mine = generation.get_value();
        leptos::task::spawn_local(async move {
            gloo_timers::future::TimeoutFuture::new(DRAFT_PAUSE_MS).await;
            if generation.try_get_value() != Some(mine) || !open.get_untracked() {
                return;
            }
            let shown = match inspect(app).await {
                Ok(json) => {
                    if generation.try_get_value() != Some(mine) || !open.get_untracked() {
                        return;
                    }
                    dialogs_module::show_inspector(HOST_ID, &json)
                        .await
                        .map_err(|e| crate::shell::error_text::module_problem(&e))
                }
                Err(e) => {
                    if generation.try_get_value() != Some(mine) || !open.get_untracked() {
                        return; // a newer report is on its way
                    }
                    Err(crate::shell::error_text::context_module_problem(&e))
                }
            };
            if let Err(text) = shown {
                open.set(false);
                app.show(Alert {
                    text,
                    ..Alert::default()
                });
            }
        });
    });
    view! {
        <Show when=move || open.get()>
            <section class="inspector-region" role="region" aria-label="Context inspector">
                <div id=HOST_ID></div>
            </section>
        </Show>
    }
}

/// Toggle the inspector; closing removes the module's view first.
pub fn toggle(open: RwSignal<bool>) {
    if open.get_untracked() {
        leptos::task::spawn_local(async move {
            let _ = dialogs_module::hide_inspector().await;
            open.set(false);
        });
    } else {
        open.set(true);
    }
}
