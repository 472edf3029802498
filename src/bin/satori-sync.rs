//! The sync module: syncs this browser's chats with a WebDAV folder (`satori::shell::sync`), as a
//! wasm module of its own without Leptos. Nothing of it loads unless sync is on: the page starts
//! it after the app is up when a sync setup is stored (`src/web/offline.js` calls [`start`]), and
//! Settings → Sync calls it ([`begin`], [`now`], [`stop`], [`status`]).
//!
//! When a pass runs: at start, a few seconds after this device's chats change (the chat list
//! record is looked at every 2 s; a reply still arriving is synced when it ends), when the page
//! is shown again or regains focus, when the browser comes back online, every 5 minutes while
//! the page is shown, and on "Sync now". A pass that another device's write beat (412) runs
//! again at once: the loser reads, merges and writes. Each pass holds a lock across this site's
//! tabs and reads the state it left in IndexedDB, so two tabs never sync over each other.
//! Changes made while offline wait in the chats themselves (a pass sends whatever differs from
//! how each chat last was in step), so they survive a reload. Every status change is told to
//! the page as a `satori-sync` event (its text in `detail`).
//!
//! The passphrase is never kept: the keys it gives are (in IndexedDB, as WebCrypto keys that
//! cannot be read back). The WebDAV URL, user name and password are kept in localStorage
//! (`persist::KEY_SYNC`), like the API key, and never exported.

use satori::adapters::clock::{new_id, now_ms};
use satori::adapters::crypto::Keys;
use satori::adapters::storage::Store;
use satori::adapters::webdav::DavError;
use satori::adapters::{idb, lock};
use satori::core::persist::{self, SyncSetup};
use satori::shell::error_text;
use satori::shell::sync::{self, Connection, Local, StoredChats, SyncError};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

fn main() {}

/// The IndexedDB record of the account's keys.
const KEYS_RECORD: &str = "sync.keys";
/// The IndexedDB record of the account object those keys belong to (its text).
const ACCOUNT_RECORD: &str = "sync.account";
/// How often the chat list is looked at for changes, ms.
const TICK_MS: i32 = 2_000;
/// A pass this long after the last change seen (changes keep coming while a reply arrives).
const QUIET_MS: i64 = 3_000;
/// A pass at least this often while the page is shown, ms (other devices' changes).
const PULL_MS: i64 = 300_000;
/// The lock (across this site's tabs) a pass holds, and the forgetting of the state.
const LOCK: &str = "satori-sync";
/// Passes run at once after one another device's write beat.
const RETRIES: u32 = 3;

/// Sync running in this page.
struct Runner {
    /// Which runner of the page this is (a pass of a runner stopped since touches nothing).
    id: u64,
    setup: SyncSetup,
    /// A pass is running; `again`: another was asked meanwhile.
    busy: bool,
    again: bool,
    /// The chat list as last seen, and when it last changed (ms) if no pass took it in yet.
    seen: String,
    changed_at: Option<i64>,
    /// When the last pass started (ms).
    last_pass: i64,
    abort: web_sys::AbortController,
    interval: i32,
    _tick: Closure<dyn FnMut()>,
    listeners: Vec<Listener>,
}

/// An event listener the runner added: where, for which event, and the function.
type Listener = (web_sys::EventTarget, &'static str, Closure<dyn FnMut()>);

/// The module's state: sync running in this page (if it is), and its status line, which
/// outlives both the runner and the Settings dialog that shows it.
struct Module {
    runner: Option<Runner>,
    status: String,
    /// The id of the last runner started.
    started: u64,
    /// The next pass lists the whole folder rather than learning what changed from its write
    /// log: the first pass in this page, and after "Sync now".
    thorough: bool,
}

thread_local! {
    // Why a static: a wasm module's exported functions share no value but module state; sync
    // runs for the page, whoever asked.
    static SYNC: RefCell<Module> = const {
        RefCell::new(Module {
            runner: None,
            status: String::new(),
            started: 0,
            thorough: true,
        })
    };
}

/// Run `f` on the runner, if sync is running.
fn with_runner<T>(f: impl FnOnce(&mut Runner) -> T) -> Option<T> {
    SYNC.with(|s| s.borrow_mut().runner.as_mut().map(f))
}

/// Run `f` on runner `id`, if it is still the one running.
fn with_runner_of<T>(id: u64, f: impl FnOnce(&mut Runner) -> T) -> Option<T> {
    SYNC.with(|s| s.borrow_mut().runner.as_mut().filter(|r| r.id == id).map(f))
}

/// Sync's status line as it stands ("" when sync is off and nothing was said).
#[wasm_bindgen]
pub fn status() -> String {
    SYNC.with(|s| s.borrow().status.clone())
}

/// Where sync goes, for Settings: JSON `{url, user}` (never the password), or "" when it is off.
#[wasm_bindgen]
pub fn setup() -> String {
    let setup = with_runner(|r| r.setup.clone());
    let setup = setup.or_else(stored_setup);
    match setup {
        Some(s) => serde_json::json!({ "url": s.url, "user": s.user }).to_string(),
        None => String::new(),
    }
}

fn say(text: String) {
    SYNC.with(|s| s.borrow_mut().status = text.clone());
    let init = web_sys::CustomEventInit::new();
    init.set_detail(&JsValue::from_str(&text));
    if let Ok(event) = web_sys::CustomEvent::new_with_event_init_dict("satori-sync", &init) {
        if let Some(w) = web_sys::window() {
            let _ = w.dispatch_event(&event);
        }
    }
}

fn stored_setup() -> Option<SyncSetup> {
    let text = Store::local().get(persist::KEY_SYNC).ok()??;
    persist::decode_sync(&text).ok()
}

fn index_text() -> String {
    Store::local()
        .get(persist::KEY_INDEX)
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// The account's keys and the account object they belong to, as this browser keeps them
/// (`None`: not kept). Read by each pass, so every tab syncs with the keys of the latest
/// "Start syncing" or "Change passphrase", whichever tab did it.
async fn kept_keys() -> Result<Option<(Keys, String)>, String> {
    let keys = idb::get_value(KEYS_RECORD)
        .await?
        .and_then(Keys::from_stored);
    let account = idb::get(ACCOUNT_RECORD).await?;
    Ok(keys.zip(account))
}

/// Keep `conn`'s keys and account object (before the state that goes with them).
async fn keep_keys(conn: &Connection) -> Result<(), String> {
    idb::put_value(KEYS_RECORD, conn.keys().stored()).await?;
    idb::put(ACCOUNT_RECORD, &conn.account).await
}

const NO_KEYS: &str = "Sync cannot go on here: the keys of its passphrase are not in this browser any more. Choose Stop syncing, then Start syncing with your passphrase.";

/// Start syncing as stored (the page calls this once the app is up). Resolves to the status.
#[wasm_bindgen]
pub async fn start() -> Result<String, String> {
    if with_runner(|_| ()).is_some() {
        return Ok(status());
    }
    let Some(setup) = stored_setup() else {
        return Ok(String::new());
    };
    if kept_keys().await?.is_none() {
        say(NO_KEYS.into());
        return Ok(status());
    }
    run(setup);
    ask_pass();
    Ok(status())
}

/// "Start syncing" (`setup`: JSON `{url, user, password, passphrase}`): open the folder's
/// account (a new one on an empty folder; a wrong passphrase is refused and nothing is written
/// or kept), keep the setup and keys, run the first pass. Resolves to the status; rejects with
/// what went wrong.
#[wasm_bindgen]
pub async fn begin(setup: String) -> Result<String, String> {
    #[derive(serde::Deserialize)]
    struct Asked {
        url: String,
        user: String,
        password: String,
        passphrase: String,
    }
    let asked: Asked = serde_json::from_str(&setup).map_err(|e| e.to_string())?;
    if asked.passphrase.is_empty() {
        return Err("Type an encryption passphrase: your chats are encrypted with it before they leave this browser, and every device you sync types the same one.".into());
    }
    let abort = web_sys::AbortController::new().map_err(|_| "no AbortController".to_string())?;
    say("Connecting…".into());
    let conn = sync::connect(
        &asked.url,
        &asked.user,
        &asked.password,
        &asked.passphrase,
        &abort.signal(),
    )
    .await;
    let conn = match conn {
        Ok(c) => c,
        Err(e) => {
            let text = error_text::sync_problem(&asked.url, &e);
            say(text.clone());
            return Err(text);
        }
    };
    halt();
    let setup = SyncSetup {
        url: conn.folder.url.clone(),
        user: asked.user,
        password: asked.password,
    };
    // What this device knew of a folder before does not hold now (another folder, or another
    // passphrase): forgotten once no pass of this or another tab is under way, and the new keys
    // kept. The first pass merges this device's chats with the folder's, as a new device's.
    lock::exclusive(
        LOCK,
        async move {
            sync::forget_state().await?;
            keep_keys(&conn).await
        },
        None,
    )
    .await??;
    Store::local()
        .save_sync(Some(&setup))
        .map_err(|e| e.to_string())?;
    run(setup);
    pass_now().await;
    Ok(status())
}

/// "Change passphrase" (`passphrase`: the new one): the folder's records sealed anew with it
/// (`satori::shell::sync::rekey`), its keys kept here. Resolves to the status; rejects with what
/// went wrong (then the old passphrase still holds).
#[wasm_bindgen]
pub async fn rekey(passphrase: String) -> Result<String, String> {
    if passphrase.is_empty() {
        return Err("Type the new encryption passphrase.".into());
    }
    let Some(setup) = with_runner(|r| r.setup.clone()) else {
        return Err("Sync is off.".into());
    };
    halt();
    say("Changing the passphrase…".into());
    let url = setup.url.clone();
    let work = {
        let setup = setup.clone();
        async move {
            let Some((keys, account)) = kept_keys().await.map_err(SyncError::Local)? else {
                return Err(SyncError::Local(NO_KEYS.into()));
            };
            let conn =
                Connection::with_keys(&setup.url, &setup.user, &setup.password, keys, account)?;
            let mut state = sync::load_state(&new_id())
                .await
                .map_err(SyncError::Local)?;
            let mut local = StoredChats {
                store: Store::local(),
            };
            let never = web_sys::AbortController::new()
                .map_err(|_| SyncError::Local("no AbortController".into()))?;
            let changed = sync::rekey(
                &conn,
                &mut state,
                &mut local,
                &passphrase,
                now_ms(),
                &never.signal(),
            )
            .await;
            // The new keys before the state that goes with them.
            if let Ok((fresh, _)) = &changed {
                keep_keys(fresh).await.map_err(SyncError::Local)?;
            }
            sync::save_state(&state).await.map_err(SyncError::Local)?;
            changed.map(|(_, left)| left)
        }
    };
    let outcome = lock::exclusive(LOCK, work, None).await?;
    run(setup);
    // What was merged during the change goes now; then the change is what the status says.
    pass_now().await;
    match outcome {
        Ok(left) => {
            say(error_text::sync_rekeyed(left));
            Ok(status())
        }
        Err(e) => {
            let text = error_text::sync_problem(&url, &e);
            say(text.clone());
            Err(text)
        }
    }
}

/// "Sync now": a pass now. Resolves to the status.
#[wasm_bindgen]
pub async fn now() -> Result<String, String> {
    if with_runner(|_| ()).is_none() {
        start().await?;
    }
    if with_runner(|_| ()).is_none() {
        return Err(match status() {
            s if s.is_empty() => "Sync is off.".to_string(),
            s => s,
        });
    }
    SYNC.with(|s| s.borrow_mut().thorough = true);
    pass_now().await;
    Ok(status())
}

/// "Stop syncing": no more passes; the setup, keys and state kept here are forgotten. The chats
/// here stay, and so does the folder.
#[wasm_bindgen]
pub async fn stop() -> Result<String, String> {
    halt();
    Store::local().save_sync(None).map_err(|e| e.to_string())?;
    // Once no pass of this or another tab is under way (an aborted one saves nothing).
    let forget = async {
        idb::delete(KEYS_RECORD).await?;
        idb::delete(ACCOUNT_RECORD).await?;
        sync::forget_state().await
    };
    lock::exclusive(LOCK, forget, None).await??;
    say("Sync is off. The chats here stay, and so does everything on the server.".into());
    Ok(status())
}

/// Stop the runner of this page, if any (a pass under way is aborted).
fn halt() {
    let Some(runner) = SYNC.with(|s| s.borrow_mut().runner.take()) else {
        return;
    };
    runner.abort.abort();
    if let Some(w) = web_sys::window() {
        w.clear_interval_with_handle(runner.interval);
    }
    for (target, kind, f) in &runner.listeners {
        let _ = target.remove_event_listener_with_callback(kind, f.as_ref().unchecked_ref());
    }
}

/// Start the runner: listeners and the tick (the caller runs the first pass).
fn run(setup: SyncSetup) {
    halt();
    let Some(window) = web_sys::window() else {
        return;
    };
    let Ok(abort) = web_sys::AbortController::new() else {
        return;
    };
    let mut listeners = Vec::new();
    let document: web_sys::EventTarget = match window.document() {
        Some(d) => d.into(),
        None => return,
    };
    let win: web_sys::EventTarget = window.clone().into();
    for (target, kind) in [
        (&win, "focus"),
        (&win, "online"),
        (&document, "visibilitychange"),
    ] {
        let f = Closure::<dyn FnMut()>::new(move || {
            if !hidden() {
                ask_pass();
            }
        });
        let _ = target.add_event_listener_with_callback(kind, f.as_ref().unchecked_ref());
        listeners.push((target.clone(), kind, f));
    }
    let tick = Closure::<dyn FnMut()>::new(tick);
    let interval = window
        .set_interval_with_callback_and_timeout_and_arguments_0(
            tick.as_ref().unchecked_ref(),
            TICK_MS,
        )
        .unwrap_or(0);
    SYNC.with(|s| {
        let mut s = s.borrow_mut();
        s.started += 1;
        let id = s.started;
        s.runner = Some(Runner {
            id,
            setup,
            busy: false,
            again: false,
            seen: index_text(),
            changed_at: None,
            last_pass: 0,
            abort,
            interval,
            _tick: tick,
            listeners,
        })
    });
}

fn hidden() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .is_some_and(|d| d.hidden())
}

/// Every 2 s: a pass when the chat list changed and then stayed as it is for a while, or when
/// the folder was not looked at for 5 minutes.
fn tick() {
    let now = now_ms();
    let index = index_text();
    let due = with_runner(|r| {
        if index != r.seen {
            r.seen = index;
            r.changed_at = Some(now);
            return false;
        }
        let quiet = r.changed_at.is_some_and(|t| now - t >= QUIET_MS);
        quiet || (!hidden() && now - r.last_pass >= PULL_MS)
    });
    if due == Some(true) {
        ask_pass();
    }
}

/// A pass soon (after the one running, if any).
fn ask_pass() {
    wasm_bindgen_futures::spawn_local(pass_now());
}

/// Run passes until none is asked for (one at a time in this page).
async fn pass_now() {
    let Some(id) = with_runner(|r| r.id) else {
        return;
    };
    let start = with_runner_of(id, |r| {
        if r.busy {
            r.again = true;
            return false;
        }
        r.busy = true;
        true
    });
    if start != Some(true) {
        // Wait for the pass under way, so "Sync now" answers after a pass.
        while with_runner_of(id, |r| r.busy) == Some(true) {
            gloo_timers::future::TimeoutFuture::new(100).await;
        }
        return;
    }
    loop {
        let Some((setup, signal)) = with_runner_of(id, |r| {
            r.again = false;
            r.changed_at = None;
            r.last_pass = now_ms();
            (r.setup.clone(), r.abort.signal())
        }) else {
            return;
        };
        let outcome = lock::exclusive(LOCK, one_pass(setup, signal.clone()), Some(&signal)).await;
        // Stopped meanwhile: whatever comes next says its own status.
        if signal.aborted() {
            return;
        }
        match outcome {
            Ok(Some(text)) => say(text),
            Ok(None) => {}
            Err(e) => say(format!("Sync could not take its turn: {e}")),
        }
        if with_runner_of(id, |r| r.again) != Some(true) {
            break;
        }
    }
    with_runner_of(id, |r| r.busy = false);
}

/// One pass and its retries after a lost race; the status it ends with (`None`: stopped).
async fn one_pass(setup: SyncSetup, signal: web_sys::AbortSignal) -> Option<String> {
    if signal.aborted() {
        return None;
    }
    // Another tab stopped sync, or moved it to another folder, while this one waited.
    match stored_setup() {
        Some(stored) if stored == setup => {}
        Some(_) => {
            halt();
            wasm_bindgen_futures::spawn_local(async {
                if let Err(e) = start().await {
                    say(e);
                }
            });
            return None;
        }
        None => {
            halt();
            return Some("Sync is off: it was stopped in another tab.".into());
        }
    }
    let (keys, account) = match kept_keys().await {
        Ok(Some(kept)) => kept,
        Ok(None) => return Some(NO_KEYS.into()),
        Err(e) => {
            return Some(format!(
                "Sync could not read its keys in this browser ({e})."
            ))
        }
    };
    let conn = match Connection::with_keys(&setup.url, &setup.user, &setup.password, keys, account)
    {
        Ok(c) => c,
        Err(e) => return Some(error_text::sync_problem(&setup.url, &e)),
    };
    let device = new_id();
    let mut state = match sync::load_state(&device).await {
        Ok(s) => s,
        Err(e) => {
            return Some(format!(
                "Sync stopped: {e}. Stop syncing and start again to sync this device anew."
            ))
        }
    };
    let mut local = StoredChats {
        store: Store::local(),
    };
    say("Syncing…".into());
    let mut tries = 0;
    loop {
        let thorough = SYNC.with(|s| s.borrow().thorough);
        let result = sync::pass(&conn, &mut state, &mut local, now_ms(), thorough, &signal).await;
        if matches!(&result, Ok(r) if r.listed) {
            SYNC.with(|s| s.borrow_mut().thorough = false);
        }
        // Stopped: what this device keeps of the folder may be forgotten already.
        if signal.aborted() {
            return None;
        }
        if let Err(e) = sync::save_state(&state).await {
            return Some(format!("Sync could not keep its state in this browser ({e}): nothing is lost, the next sync sends the changes again."));
        }
        match result {
            Ok(report) if report.waiting > 0 && tries < RETRIES => tries += 1,
            Ok(report) => {
                if report.waiting == 0 {
                    state.synced_at = now_ms();
                    let _ = sync::save_state(&state).await;
                }
                let time = js_sys::Date::new_0()
                    .to_locale_time_string("default")
                    .as_string()
                    .unwrap_or_default();
                let mut text =
                    error_text::sync_done(&time, report.damaged.len(), report.not_stored.len());
                if report.waiting > 0 {
                    text = error_text::sync_contended(report.waiting);
                    // Tried again a few seconds from now, as after a change.
                    with_runner(|r| r.changed_at = Some(now_ms()));
                }
                return Some(text);
            }
            Err(SyncError::Dav(DavError::Aborted)) => return None,
            Err(e @ SyncError::Dav(DavError::Unreachable | DavError::TimedOut)) => {
                let waiting = local
                    .chats()
                    .map(|(chats, _)| state.waiting(&chats))
                    .unwrap_or(0);
                let offline = web_sys::window().is_some_and(|w| !w.navigator().on_line());
                let detail = if offline {
                    "This device is offline.".to_string()
                } else {
                    error_text::sync_problem(&setup.url, &e)
                };
                return Some(error_text::sync_offline(waiting, &detail));
            }
            Err(e) => return Some(error_text::sync_problem(&setup.url, &e)),
        }
    }
}
