//! The `role="alert"` banner: errors in words a user can act on, with actions.

use crate::ui::chat;
use crate::ui::state::AppState;
use leptos::prelude::*;

/// Shows the current alert and the status line (retry countdowns).
#[component]
pub fn AlertBanner() -> impl IntoView {
    let app = expect_context::<AppState>();
    view! {
        <p class="status-line" role="status">{move || app.turn.status.get()}</p>
        {move || {
            app.overlay.alert
                .get()
                .map(|a| {
                    view! {
                        <div class="alert" role="alert">
                            // Several problems: one per line (`white-space: pre-line`).
                            <p>{a.text.clone()}</p>
                            <div class="alert-actions">
                                {a.settings.then(|| view! {
                                    <button type="button" on:click=move |_| app.open_settings()>
                                        "Open Settings"
                                    </button>
                                })}
                                {a.local.then(|| view! {
                                    <button type="button" on:click=move |_| {
                                        app.use_in_browser();
                                        chat::retry(app);
                                    }>"Use the in-browser model (98 MB download)"</button>
                                })}
                                {a.unpin.then(|| view! {
                                    <button type="button" on:click=move |_| chat::unpin_all_and_send(app)>
                                        "Unpin all and send"
                                    </button>
                                })}
                                {a.export.then(|| view! {
                                    <button type="button" on:click=move |_| crate::ui::transfer::export_chat(app)>
                                        "Export this chat"
                                    </button>
                                })}
                                {a.leave.clone().map(|to| view! {
                                    <button type="button" on:click=move |_| app.leave_unsaved(to.clone())>
                                        "Leave without saving"
                                    </button>
                                })}
                                {a.retry.then(|| view! {
                                    <button type="button" on:click=move |_| chat::retry(app)>"Retry"</button>
                                })}
                                <button type="button" on:click=move |_| app.dismiss()>"Dismiss"</button>
                            </div>
                        </div>
                    }
                })
        }}
    }
}
