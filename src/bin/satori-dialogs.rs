//! The dialogs module: the on-demand dialogs (Settings, Prompts, Chat setup, System prompt,
//! export, import, share, search, rename, agent, delete) with the template engine (rendering
//! user templates and non-default values) and the YAML reader, as a wasm module of its own that
//! the app loads on demand (one module, so the Leptos runtime is not copied per dialog). None of
//! it is on the first-load path: the app starts chats from the built-in roles' pre-rendered
//! messages (see `core::prompts::catalog`). `scripts/build.sh` builds it into
//! `dist/dialogs-<hash>/`; `src/adapters/dialogs_module.rs` calls it with `DialogsCall`s.

use leptos::prelude::*;
use satori::adapters::dialogs_module::send;
use satori::adapters::storage::Store;
use satori::core::key_binding::KeyField;
use satori::core::persist;
use satori::core::prompts::catalog::StartAnswer;
use satori::core::prompts::{self, RoleRef, UserPrompts, Vars};
use satori::core::protocol::DialogEvent;
use satori::core::settings::Settings;
use satori::ui::components::mcp_settings::McpEdit;
use satori::ui::components::prompts_dialog::{PromptsCtx, PromptsDialog};
use satori::ui::components::settings_dialog::{self, SettingsDialog};
use satori::ui::components::setup_dialog::SetupDialog;
use satori::ui::components::system_dialog::SystemPromptDialog;
use std::cell::RefCell;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsCast;

type Reports = Vec<satori::core::context::report::Report>;

/// A mounted view's handle.
type Mounted = leptos::mount::UnmountHandle<leptos::tachys::view::any_view::AnyViewState>;

/// What the module has on screen: one dialog and one inspector at a time.
struct Screen {
    /// The context inspector, when shown: its mount and the signal it reads.
    inspector: RefCell<Option<(Mounted, WriteSignal<Reports>)>>,
    /// The dialog mounted, and its host element.
    dialog: RefCell<Option<(Mounted, web_sys::Element)>>,
    /// What to do once the dialog closing now has closed (`close_then`; its `close` event
    /// closes it again, with nothing to do after).
    after_close: RefCell<Option<Box<dyn FnOnce()>>>,
}

thread_local! {
    // Why a static: a wasm module's exported functions share no value but module state; one
    // dialog and one inspector are mounted at a time.
    static SCREEN: Screen = const {
        Screen {
            inspector: RefCell::new(None),
            dialog: RefCell::new(None),
            after_close: RefCell::new(None),
        }
    };
}

/// The user templates record (an unreadable one is an error and is left untouched).
fn user_prompts() -> Result<UserPrompts, String> {
    satori::shell::store::stored_prompts(&Store::local())
}

/// How a chat with `role` (`builtin:key` / `user:key`) and `vars` (JSON object) starts, as a
/// `StartAnswer` in JSON.
#[wasm_bindgen]
pub fn start(role: &str, vars: &str) -> String {
    let answer = match (RoleRef::decode(role), serde_json::from_str::<Vars>(vars)) {
        (Some(role), Ok(vars)) => match user_prompts() {
            Ok(user) => prompts::user::start_answer(&role, &vars, prompts::builtin(), &user),
            Err(e) => StartAnswer::error(e),
        },
        _ => StartAnswer::error(format!("bad request for role `{role}`")),
    };
    serde_json::to_string(&answer).unwrap_or_default()
}

fn close() {
    close_with(None);
}

/// Close the dialog, then (once the app has heard it closed) do `then`.
fn close_then(then: impl FnOnce() + 'static) {
    close_with(Some(Box::new(then)));
}

fn close_with(then: Option<Box<dyn FnOnce()>>) {
    // Close the native dialog at once, so the page is interactive again right away (a modal
    // dialog makes everything else inert), and tell the app now, in the same event: the focus is
    // back on the page, and a key pressed next (Ctrl+K again) finds no dialog open. Unmount once
    // the current event is done with the dialog's nodes. Closing fires the dialog's `close` event
    // later, which calls this again: a dialog already closing is told once only.
    let host = SCREEN.with(|m| m.dialog.borrow().as_ref().map(|(_, host)| host.clone()));
    let Some(host) = host else { return };
    if then.is_some() {
        SCREEN.with(|m| *m.after_close.borrow_mut() = then);
    }
    if let Some(dialog) = host
        .query_selector("dialog")
        .ok()
        .flatten()
        .and_then(|d| d.dyn_into::<web_sys::HtmlDialogElement>().ok())
    {
        if dialog.open() {
            dialog.close();
        }
    }
    if host.has_attribute(CLOSING) {
        return;
    }
    let _ = host.set_attribute(CLOSING, "");
    send(&DialogEvent::Closed);
    let _ = leptos::prelude::set_timeout_with_handle(
        move || {
            // This dialog only: the next one may be open by now (see `mount`).
            if unmount_if(|h| *h == host) {
                if let Some(then) = SCREEN.with(|m| m.after_close.borrow_mut().take()) {
                    then();
                }
            }
        },
        std::time::Duration::ZERO,
    );
}

/// The attribute of a dialog's host once it is closing (the app told, not yet unmounted).
const CLOSING: &str = "data-closing";

/// Unmount the dialog mounted if its host passes `which`; whether it did.
fn unmount_if(which: impl FnOnce(&web_sys::Element) -> bool) -> bool {
    let mounted = SCREEN.with(|m| m.dialog.borrow_mut().take_if(|(_, h)| which(h)));
    let Some((handle, host)) = mounted else {
        return false;
    };
    drop(handle);
    host.remove();
    true
}

/// Mount `view` in a new element at the end of `<body>` (one dialog at a time).
fn mount<V: IntoView + 'static>(view: impl FnOnce() -> V + 'static) {
    // A dialog closed a moment ago and not yet unmounted gives way; what was to follow its
    // closing (a palette action) is dropped: something else opened first (the user's next
    // shortcut, or a share link pasted while it was open, which the app opens on `Closed`).
    unmount_if(|h| h.has_attribute(CLOSING));
    if SCREEN.with(|m| m.dialog.borrow().is_some()) {
        return;
    }
    SCREEN.with(|m| *m.after_close.borrow_mut() = None);
    let Some(host) = document().create_element("div").ok() else {
        return;
    };
    host.set_class_name("prompts-host");
    let Some(body) = document().body() else {
        return;
    };
    let _ = body.append_child(&host);
    let el: web_sys::HtmlElement = wasm_bindgen::JsCast::unchecked_into(host.clone());
    let handle = leptos::mount::mount_to(el, move || view().into_any());
    SCREEN.with(|m| *m.dialog.borrow_mut() = Some((handle, host)));
}

/// Open "Chat setup" for `role` (`builtin:key` / `user:key`) with `vars` (JSON object); for a
/// user role, an unreadable user templates record is reported (the app shows it) instead of a
/// dialog saying the template does not exist.
#[wasm_bindgen]
pub fn open_setup(role: &str, vars: &str) -> Result<(), String> {
    let Some(role) = RoleRef::decode(role) else {
        return Err(format!("bad request for role `{role}`"));
    };
    let vars: Vars = serde_json::from_str(vars).unwrap_or_default();
    // Built-in roles need no user templates: only a user role's dialog depends on the record.
    let user = match role.source {
        satori::core::session::PromptSource::User => user_prompts()?,
        satori::core::session::PromptSource::Builtin => UserPrompts::default(),
    };
    mount(move || {
        let chosen = role.clone();
        view! {
            <SetupDialog
                role=role
                vars=vars
                user=user
                on_apply=Callback::new(move |vars: Vars| {
                    send(&DialogEvent::Setup(chosen.clone(), vars));
                    close();
                })
                on_close=Callback::new(|_| close())
            />
        }
    });
    Ok(())
}

/// Open "System prompt" with the chat's `text` and a line saying where it came from.
#[wasm_bindgen]
pub fn open_system(text: &str, origin: &str) {
    let (text, origin) = (text.to_string(), origin.to_string());
    mount(move || {
        view! {
            <SystemPromptDialog
                text=text
                origin=origin
                on_save=Callback::new(|text: String| {
                    send(&DialogEvent::SystemPrompt(text));
                    close();
                })
                on_close=Callback::new(|_| close())
            />
        }
    });
}

/// Open "Settings" showing `settings` (JSON of the settings in use); the API key record is read
/// here. Saving writes the records and tells the app what to apply (`DialogEvent::Settings`).
#[wasm_bindgen]
pub fn open_settings(settings: &str) {
    let current: Settings = serde_json::from_str(settings).unwrap_or_default();
    let store = Store::local();
    let stored = store
        .get(persist::KEY_API_KEY)
        .ok()
        .flatten()
        .and_then(|t| persist::decode_api_key(&t).ok());
    let mcp = McpEdit::load(&store);
    mount(move || {
        view! {
            <SettingsDialog
                current=current
                stored=stored
                mcp=mcp.clone()
                on_save=Callback::new(move |(settings, key, mcp): (Settings, KeyField, McpEdit)| {
                    // The app applies what was saved even if storage failed (it says so).
                    let saved = settings_dialog::save(&Store::local(), settings, &key, &mcp);
                    send(&DialogEvent::Settings(saved));
                    close();
                    Ok(())
                })
                on_close=Callback::new(|_| close())
            />
        }
    });
}

/// Open the "Prompts" dialog with `selected` (`builtin:key` / `user:key`) shown first.
#[wasm_bindgen]
pub fn open_manager(selected: &str) {
    let selected = RoleRef::decode(selected).unwrap_or(RoleRef {
        source: satori::core::session::PromptSource::Builtin,
        key: prompts::DEFAULT_ROLE.into(),
    });
    mount(move || {
        let ctx = PromptsCtx::load(
            Callback::new(|role: RoleRef| {
                send(&DialogEvent::UseRole(role));
                close();
            }),
            Callback::new(|_| close()),
        );
        provide_context(ctx);
        view! { <PromptsDialog selected=selected.clone() /> }
    });
}

/// Make a summary: `request` is a `SummaryRequest` and `settings` the settings in use (JSON);
/// resolves to a `SummaryAnswer` (JSON). `signal` aborts it (Stop).
#[wasm_bindgen]
pub async fn summarize(request: String, settings: String, signal: web_sys::AbortSignal) -> String {
    use satori::core::context::summary::{SummaryAnswer, SummaryRequest};
    let answer = match (
        serde_json::from_str::<SummaryRequest>(&request),
        serde_json::from_str::<Settings>(&settings),
    ) {
        (Ok(request), Ok(settings)) => {
            satori::shell::summarize::summarize(&request, &settings, &signal).await
        }
        _ => SummaryAnswer::Failed(satori::shell::error_text::SUMMARY_REQUEST_UNREADABLE.into()),
    };
    serde_json::to_string(&answer).unwrap_or_default()
}

/// Show the context inspector in the element with id `host` (the app's "Context inspector"
/// region) with `reports` (JSON array of `Report`); if shown already, update it.
#[wasm_bindgen]
pub fn show_inspector(host: &str, reports: &str) {
    let parsed: Reports = serde_json::from_str(reports).unwrap_or_default();
    if let Some(set) = SCREEN.with(|i| i.inspector.borrow().as_ref().map(|(_, set)| *set)) {
        set.set(parsed);
        return;
    }
    let Some(el) = document().get_element_by_id(host) else {
        return;
    };
    let (get, set) = signal(parsed);
    let el: web_sys::HtmlElement = wasm_bindgen::JsCast::unchecked_into(el);
    let handle = leptos::mount::mount_to(el, move || {
        view! {
            <satori::ui::components::inspector::Inspector
                reports=get
                on_edit_summary=Callback::new(|(id, text): (String, String)| {
                    send(&DialogEvent::SummaryEdited(id, text));
                })
                on_edit_chat=Callback::new(|o: satori::core::session::ContextOverrides| {
                    send(&DialogEvent::ChatContext(o));
                })
            />
        }
        .into_any()
    });
    SCREEN.with(|i| *i.inspector.borrow_mut() = Some((handle, set)));
}

/// Remove the context inspector (the app is closing its region).
#[wasm_bindgen]
pub fn hide_inspector() {
    if let Some((handle, _)) = SCREEN.with(|i| i.inspector.borrow_mut().take()) {
        drop(handle);
    }
}

/// Open "Export chat" for `session` (the open chat as JSON, as it is on screen).
#[wasm_bindgen]
pub fn open_export(session: &str) -> Result<(), String> {
    let session: satori::core::session::Session = serde_json::from_str(session)
        .map_err(|e| satori::shell::error_text::chat_unreadable(&e))?;
    mount(move || {
        view! {
            <satori::ui::components::transfer_dialog::ExportDialog
                session=session
                on_close=Callback::new(|_| close())
            />
        }
    });
    Ok(())
}

/// "Export all": download every chat (the open one as on screen, `session`), the prompt templates
/// and the settings; answers a warning about what could not be included (empty if nothing).
#[wasm_bindgen]
pub fn export_all(session: &str) -> Result<String, String> {
    use satori::ui::components::transfer_dialog::{export_all, ExportAll, ExportAllDialog};
    let current = serde_json::from_str(session).ok();
    match export_all(current)? {
        ExportAll::Saved(warnings) => Ok(warnings),
        // A .zip with the chats' files takes a while: its dialog says how it went.
        ExportAll::WithFiles(pending) => {
            mount(move || {
                view! { <ExportAllDialog pending=pending on_close=Callback::new(|_| close()) /> }
            });
            Ok(String::new())
        }
    }
}

/// Open "Share chat" for `session` (the open chat as JSON, as it is on screen).
#[wasm_bindgen]
pub fn open_share(session: &str) -> Result<(), String> {
    let session: satori::core::session::Session = serde_json::from_str(session)
        .map_err(|e| satori::shell::error_text::chat_unreadable(&e))?;
    mount(move || {
        view! {
            <satori::ui::components::share_dialog::ShareDialog
                session=session
                on_close=Callback::new(|_| close())
            />
        }
    });
    Ok(())
}

/// Open "Shared chat" for the share link in the page's address (`fragment`, `#share=…`):
/// read-only until "Save a copy", which stores it and opens it in the app.
#[wasm_bindgen]
pub fn open_shared(fragment: &str) -> Result<(), String> {
    use satori::ui::components::share_dialog::{forget_link, SharedChatDialog};
    if SCREEN.with(|m| m.dialog.borrow().is_some()) {
        // Said, not dropped: the link stays in the address bar for when the dialog is closed.
        return Err(satori::shell::error_text::LINK_WAITS.into());
    }
    let fragment = fragment.to_string();
    let (opened, saved, closed) = (fragment.clone(), fragment.clone(), fragment);
    mount(move || {
        view! {
            <SharedChatDialog
                fragment=opened
                on_saved=Callback::new(move |id: String| {
                    forget_link(&saved);
                    send(&DialogEvent::Imported);
                    send(&DialogEvent::OpenAt(id, None));
                    close();
                })
                on_close=Callback::new(move |_| {
                    forget_link(&closed);
                    close();
                })
            />
        }
    });
    Ok(())
}

/// Open "Import chats", with `files` (an array of the `File`s dropped on the window) if given.
#[wasm_bindgen]
pub fn open_import(files: wasm_bindgen::JsValue) {
    let dropped: Vec<web_sys::File> = files
        .dyn_into::<js_sys::Array>()
        .map(|a| a.iter().filter_map(|f| f.dyn_into().ok()).collect())
        .unwrap_or_default();
    mount(move || {
        view! {
            <satori::ui::components::transfer_dialog::ImportDialog
                dropped=dropped
                on_changed=Callback::new(|_| send(&DialogEvent::Imported))
                on_close=Callback::new(|_| close())
            />
        }
    });
}

/// Open "Search chats" over every stored chat (the open one as on screen: `session`, JSON, if
/// started), newest first.
#[wasm_bindgen]
pub fn open_search(session: &str) -> Result<(), String> {
    use satori::shell::store::stored_chats;
    let store = satori::adapters::storage::Store::local();
    let mut stored = stored_chats(&store)?;
    if let Ok(current) = serde_json::from_str::<satori::core::session::Session>(session) {
        if current.started() {
            stored.chats.retain(|c| c.id != current.id);
            stored.chats.push(current);
        }
    }
    stored
        .chats
        .sort_by_key(|c| std::cmp::Reverse(c.updated_at));
    // Letters with accents as base letter + combining mark (NFD), which the search folds away:
    // every accented Latin letter (ș, ǎ, ế…) then matches its base letter. Shown as NFC again.
    let nfd =
        |s: &mut String| *s = String::from(js_sys::JsString::from(s.as_str()).normalize("NFD"));
    for chat in &mut stored.chats {
        nfd(&mut chat.title);
        for m in &mut chat.messages {
            nfd(&mut m.content);
        }
    }
    let (chats, unreadable) = (stored.chats, stored.unreadable.len());
    mount(move || {
        view! {
            <satori::ui::components::search_dialog::SearchDialog
                chats=chats
                unreadable=unreadable
                on_open=Callback::new(|(id, message): (String, Option<String>)| {
                    send(&DialogEvent::OpenAt(id, message));
                    close();
                })
                on_close=Callback::new(|_| close())
            />
        }
    });
    Ok(())
}

/// Open "Rename chat" for chat `id`, called `title`; the answer names the chat.
#[wasm_bindgen]
pub fn open_rename(id: &str, title: &str) {
    let (id, title) = (id.to_string(), title.to_string());
    mount(move || {
        view! {
            <satori::ui::components::chat_dialogs::RenameDialog
                title=title
                on_save=Callback::new(move |t: String| {
                    send(&DialogEvent::Rename(id.clone(), t));
                    close();
                })
                on_close=Callback::new(|_| close())
            />
        }
    });
}

/// Open "Agent" for chat `id` whose settings are `agent` (JSON); the answer names the chat.
#[wasm_bindgen]
pub fn open_agent(id: &str, agent: &str) {
    let id = id.to_string();
    let agent = serde_json::from_str(agent).unwrap_or_default();
    mount(move || {
        view! {
            <satori::ui::components::agent_dialog::AgentDialog
                agent=agent
                on_save=Callback::new(move |a: satori::core::session::AgentConfig| {
                    send(&DialogEvent::Agent(id.clone(), a));
                    close();
                })
                on_close=Callback::new(|_| close())
            />
        }
    });
}

/// Free the attached files no stored chat names any more (after a chat was deleted). A failure
/// frees nothing and is only logged: the files stay, and the next deletion tries again.
fn sweep_files() {
    leptos::task::spawn_local(async {
        // What the page names: the composer's chips, and every message it shows (the open
        // chat's, saved or not — storage may have refused its last change).
        let page = document();
        let reading = page
            .get_element_by_id("attach-chips")
            .is_some_and(|list| list.has_attribute("data-pending"));
        let mut named = String::new();
        if let Ok(all) = page.query_selector_all("[data-attachment], #attach-chips[data-lines]") {
            for i in 0..all.length() {
                let Some(el) = all
                    .item(i)
                    .and_then(|n| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(n).ok())
                else {
                    continue;
                };
                for name in ["data-attachment", "data-lines"] {
                    named.extend(el.get_attribute(name));
                    named.push('\n');
                }
            }
        }
        let composer = (!reading).then_some(named);
        let store = satori::adapters::storage::Store::local();
        if let Err(e) = satori::shell::files::sweep(&store, composer.as_deref()).await {
            web_sys::console::warn_1(&format!("Satori: attached files were not freed: {e}").into());
        }
    });
}

/// Open "Delete chat" for chat `id`, called `title`; the answer names the chat.
#[wasm_bindgen]
pub fn open_delete(id: &str, title: &str) {
    let (id, title) = (id.to_string(), title.to_string());
    mount(move || {
        view! {
            <satori::ui::components::chat_dialogs::DeleteDialog
                title=title
                on_delete=Callback::new(move |_| {
                    // The app deletes the chat as it hears this; then what no chat names is freed.
                    send(&DialogEvent::Delete(id.clone()));
                    close();
                    sweep_files();
                })
                on_close=Callback::new(|_| close())
            />
        }
    });
}

/// Open "Model for this chat" for chat `id`; `state` is `[Settings, Option<ChatModel>]` as JSON.
/// The answer names the chat.
#[wasm_bindgen]
pub fn open_model(id: &str, state: &str) {
    let id = id.to_string();
    let (settings, chosen): (
        satori::core::settings::Settings,
        Option<satori::core::session::ChatModel>,
    ) = serde_json::from_str(state).unwrap_or_default();
    mount(move || {
        view! {
            <satori::ui::components::model_dialog::ModelDialog
                settings=settings
                chosen=chosen
                on_pick=Callback::new(move |m| {
                    send(&DialogEvent::ChatModel(id.clone(), m));
                    close();
                })
                on_close=Callback::new(|_| close())
            />
        }
    });
}

/// Open "Command palette" over the stored chats.
#[wasm_bindgen]
pub fn open_palette() {
    use satori::core::palette::{Do, Item};
    use satori::ui::components::palette_dialog::{run, PaletteDialog};
    // An unreadable chat list leaves only the actions (the app says what is wrong with it).
    let chats = Store::local()
        .get(persist::KEY_INDEX)
        .ok()
        .flatten()
        .and_then(|text| persist::decode_index(&text).ok())
        .map(|index| index.sessions)
        .unwrap_or_default();
    mount(move || {
        view! {
            <PaletteDialog
                chats=chats
                on_pick=Callback::new(|item: Item| match item {
                    Item::Chat { id, .. } => {
                        send(&DialogEvent::OpenAt(id, None));
                        close();
                    }
                    Item::Action(a) if a.does == Do::Shortcuts => {
                        close_then(|| send(&DialogEvent::Shortcuts));
                    }
                    Item::Action(a) => close_then(move || {
                        run(a.does);
                    }),
                })
                on_close=Callback::new(|_| close())
            />
        }
    });
}

/// Open "Keyboard shortcuts".
#[wasm_bindgen]
pub fn open_shortcuts() {
    mount(|| {
        view! {
            <satori::ui::components::palette_dialog::ShortcutsDialog on_close=Callback::new(|_| close()) />
        }
    });
}

fn main() {}
