//! The "Sync" part of Settings: the WebDAV folder, its user name and password, the encryption
//! passphrase, and "Start syncing", "Sync now", "Stop syncing", with the "Sync status" line. It
//! acts at once (not on Save), through the sync module (`src/bin/satori-sync.rs`), which is
//! loaded only when sync is on or being started.

use crate::adapters::modules;
use crate::adapters::storage::Store;
use crate::core::persist;
use crate::core::protocol::SyncCall;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// How long a call into the sync module may take (the first pass of a large library), ms.
const CALL_MS: u32 = 600_000;

/// What the sync module answered, as text (its error as text too).
async fn ask(call: SyncCall) -> Result<String, String> {
    let signal = web_sys::AbortController::new()
        .map_err(|_| "no AbortController".to_string())?
        .signal();
    match modules::call_within(call, &signal, CALL_MS).await {
        Ok(v) => Ok(v.as_string().unwrap_or_default()),
        Err(modules::ModuleError::Call(why)) => Err(why),
        Err(e) => Err(format!("The sync module {e}.")),
    }
}

/// Settings → Sync.
#[component]
pub fn SyncSection() -> impl IntoView {
    let url = RwSignal::new(String::new());
    let user = RwSignal::new(String::new());
    let password = RwSignal::new(String::new());
    let passphrase = RwSignal::new(String::new());
    let status = RwSignal::new(String::new());
    let new_passphrase = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    // Sync is on in this browser (a setup is stored).
    let stored = Store::local()
        .get(persist::KEY_SYNC)
        .ok()
        .flatten()
        .and_then(|t| persist::decode_sync(&t).ok());
    let on = RwSignal::new(stored.is_some());
    if let Some(s) = stored {
        url.set(s.url);
        user.set(s.user);
        leptos::task::spawn_local(async move {
            // Started with the page (src/web/offline.js); loaded here if it has not yet.
            let said = match ask(SyncCall::Status).await {
                Ok(s) if s.is_empty() => "Sync is on.".to_string(),
                Ok(s) | Err(s) => s,
            };
            status.try_set(said);
        });
    }
    let heard = window_event_listener_untyped("satori-sync", move |ev| {
        let text = ev
            .dyn_ref::<web_sys::CustomEvent>()
            .and_then(|e| e.detail().as_string());
        if let Some(text) = text {
            status.try_set(text);
        }
    });
    on_cleanup(move || heard.remove());
    // Runs `call`, the controls waiting; the status says how it ended.
    let act = move |call: SyncCall, then_on: Option<bool>| {
        busy.set(true);
        leptos::task::spawn_local(async move {
            let answer = ask(call).await;
            if answer.is_ok() {
                if let Some(o) = then_on {
                    on.try_set(o);
                    passphrase.try_set(String::new());
                    password.try_set(String::new());
                }
            }
            match answer {
                Ok(s) | Err(s) => status.try_set(s),
            };
            busy.try_set(false);
        });
    };
    let start = move |_| {
        let setup = serde_json::json!({
            "url": url.get_untracked().trim(),
            "user": user.get_untracked().trim(),
            "password": password.get_untracked(),
            "passphrase": passphrase.get_untracked(),
        });
        status.set("Connecting…".into());
        act(
            SyncCall::Begin {
                setup: setup.to_string(),
            },
            Some(true),
        );
    };
    view! {
        <fieldset class="sync-settings">
            <legend>"Sync"</legend>
            <p class="hint">"Sync your chats with your other devices through a WebDAV folder you choose (Nextcloud, ownCloud, Synology, Apache and others). They are encrypted in this browser with your passphrase before they leave it: the server sees no text, title or name. Every device types the same passphrase; it is not kept, and nobody can recover it."</p>
            <label>"WebDAV URL"<input type="url" placeholder="https://cloud.example.com/remote.php/dav/files/me/satori/" prop:value=move || url.get() prop:disabled=move || on.get() on:input=move |ev| url.set(event_target_value(&ev)) /></label>
            <label>"User name"<input type="text" autocomplete="off" prop:value=move || user.get() prop:disabled=move || on.get() on:input=move |ev| user.set(event_target_value(&ev)) /></label>
            <label class:hidden=move || on.get()>"Password"<input type="password" autocomplete="new-password" prop:value=move || password.get() on:input=move |ev| password.set(event_target_value(&ev)) /></label>
            <label class:hidden=move || on.get()>"Encryption passphrase"<input type="password" autocomplete="new-password" prop:value=move || passphrase.get() on:input=move |ev| passphrase.set(event_target_value(&ev)) /></label>
            <label class:hidden=move || !on.get()>"New encryption passphrase"<input type="password" autocomplete="new-password" prop:value=move || new_passphrase.get() on:input=move |ev| new_passphrase.set(event_target_value(&ev)) /></label>
            <div class="sync-actions">
                <button type="button" class:hidden=move || on.get() prop:disabled=move || busy.get() on:click=start>"Start syncing"</button>
                <button type="button" class:hidden=move || !on.get() prop:disabled=move || busy.get() on:click=move |_| act(SyncCall::Now, None)>"Sync now"</button>
                <button type="button" class:hidden=move || !on.get() prop:disabled=move || busy.get() on:click=move |_| {
                    let passphrase = new_passphrase.get_untracked();
                    new_passphrase.set(String::new());
                    act(SyncCall::Rekey { passphrase }, None)
                }>"Change passphrase"</button>
                <button type="button" class:hidden=move || !on.get() prop:disabled=move || busy.get() on:click=move |_| act(SyncCall::Stop, Some(false))>"Stop syncing"</button>
            </div>
            <p class="sync-status" role="status" aria-label="Sync status">{move || status.get()}</p>
        </fieldset>
    }
}
