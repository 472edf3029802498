//! The app's state and its one owner, [`AppState`]: it holds every signal, hands components
//! read-only groups by concern (chats, connection, live turn, overlay), and is the only writer —
//! each write goes through a method that also persists what changed. Decisions (which chat to
//! open, when to start over, what a stored record means) come from the core
//! (`core::startup`, `core::chat_start`, `core::key_binding`, the session reducer).

use crate::adapters::clock::{new_id, now_ms};
use crate::adapters::modules::ModuleError;
use crate::adapters::storage::{StorageError, Store};
use crate::core::chat_start::{self, NewChat};
use crate::core::key_binding::{KeySave, SettingsSaved};
use crate::core::persist::{self, Index};
use crate::core::prompts::catalog::{self, Catalog, StartAnswer};
use crate::core::prompts::{self, RoleRef, Vars};
use crate::core::session::Preamble;
use crate::core::session::{Command, MessageId, PromptOrigin, PromptSource, Session, SessionError};
use crate::core::settings::Settings;
use crate::core::startup;
use crate::shell::error_text::{
    chat_unopenable, describe_storage, dialog_failed, kept_as, load_problem, module_problem,
    not_kept, prompts_unreadable, role_unusable, role_unusable_here,
};
use leptos::prelude::*;

/// A reply that is arriving right now. Shown live; committed to the session when it ends.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Live {
    /// Session the reply belongs to.
    pub session_id: String,
    /// The reply message.
    pub id: MessageId,
    /// Visible text so far.
    pub content: String,
    /// Reasoning so far.
    pub reasoning: String,
}

/// The message in the `role="alert"` banner, with the actions it offers.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Alert {
    /// Words for the user.
    pub text: String,
    /// Offer "Open Settings".
    pub settings: bool,
    /// Offer "Retry" (answers the last user message again).
    pub retry: bool,
    /// Offer "Unpin all and send" (the pinned messages alone did not fit).
    pub unpin: bool,
    /// Offer "Use the in-browser model" (no local server answered).
    pub local: bool,
    /// Offer "Export chat" (the open chat could not be saved).
    pub export: bool,
    /// Offer "Leave without saving": the user asked to leave an unsaved chat for this.
    pub leave: Option<Leave>,
}

/// Where the user asked to go from a chat that could not be saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Leave {
    /// Open this chat.
    Open(String),
    /// Start a new chat.
    New,
}

/// Which modal dialog is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialog {
    /// A dialog of the prompts module ("Prompts", "Chat setup", "System prompt") is open.
    External,
}

/// A read-only handle on one of the owner's signals: it can be read and tracked, never set.
/// (A thin wrapper rather than Leptos's `ReadSignal`, so no second copy of the signal code is
/// compiled for each type.)
pub struct Ro<T: 'static>(RwSignal<T>);

impl<T> Clone for Ro<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Ro<T> {}

impl<T: Send + Sync + 'static> Ro<T> {
    /// Read by reference, tracking.
    pub fn with<U>(&self, f: impl FnOnce(&T) -> U) -> U {
        self.0.with(f)
    }

    /// Read by reference, not tracking.
    pub fn with_untracked<U>(&self, f: impl FnOnce(&T) -> U) -> U {
        self.0.with_untracked(f)
    }

    /// A clone of the value, tracking.
    pub fn get(&self) -> T
    where
        T: Clone,
    {
        self.0.get()
    }

    /// A clone of the value, not tracking.
    pub fn get_untracked(&self) -> T
    where
        T: Clone,
    {
        self.0.get_untracked()
    }

    /// Track changes without reading.
    pub fn track(&self) {
        self.0.track();
    }
}

/// The chats: the list, the open session, its draft, and the roles new chats start with.
/// Read-only: changes go through [`AppState`]'s methods, which also persist them.
#[derive(Clone, Copy)]
pub struct Chats {
    /// The chat list.
    pub index: Ro<Index>,
    /// The open session.
    pub session: Ro<Session>,
    /// Unsent text of the open session.
    pub draft: Ro<String>,
    /// Every role the "Role" select offers (built-in and the user's templates).
    pub catalog: Ro<Catalog>,
    /// The role the next new chat starts with (the "Role" select).
    pub next_role: Ro<RoleRef>,
    /// Why the open, untouched chat cannot start yet (a template variable needs a value).
    pub setup_problem: Ro<Option<String>>,
}

/// The connection settings (the API key is not readable from here).
#[derive(Clone, Copy)]
pub struct Connection {
    /// Connection settings.
    pub settings: Ro<Settings>,
    /// Whether the user has saved settings (else the embedded default is in use).
    pub saved: Ro<bool>,
}

/// The reply arriving now.
#[derive(Clone, Copy)]
pub struct LiveTurn {
    /// The reply arriving now, if any.
    pub live: Ro<Option<Live>>,
    /// A one-line status for screen readers and the user (e.g. retry countdowns).
    pub status: Ro<String>,
}

/// What shows over the chat: the alert banner, the open dialog, whether formatting is ready.
#[derive(Clone, Copy)]
pub struct Overlay {
    /// The alert banner.
    pub alert: Ro<Option<Alert>>,
    /// The open dialog.
    pub dialog: Ro<Option<Dialog>>,
    /// Whether the markdown renderer module has loaded (replies show plain text until then).
    pub markdown_ready: Ro<bool>,
}

/// The one owner of the app's state: it holds every signal, writes them only through its
/// methods (which persist what they change), and hands out read-only groups by concern
/// ([`Chats`], [`Connection`], [`LiveTurn`], [`Overlay`]), each provided as its own context.
#[derive(Clone, Copy)]
pub struct AppState {
    /// The chats, read-only.
    pub chats: Chats,
    /// The connection settings, read-only.
    pub conn: Connection,
    /// The live reply, read-only.
    pub turn: LiveTurn,
    /// Alert and dialogs, read-only.
    pub overlay: Overlay,
    index: RwSignal<Index>,
    session: RwSignal<Session>,
    settings: RwSignal<Settings>,
    settings_saved: RwSignal<bool>,
    /// The stored API key and the base URL it belongs to (its own storage record only).
    api_key: RwSignal<Option<persist::ApiKeyRecord>>,
    live: RwSignal<Option<Live>>,
    alert: RwSignal<Option<Alert>>,
    dialog: RwSignal<Option<Dialog>>,
    draft: RwSignal<String>,
    status: RwSignal<String>,
    markdown_ready: RwSignal<bool>,
    catalog: RwSignal<Catalog>,
    setup_problem: RwSignal<Option<String>>,
    next_role: RwSignal<RoleRef>,
    /// How many chat starts are waiting for the prompts module; sending waits for them.
    starting: RwSignal<u32>,
    /// The open chat's latest change could not be saved (storage full or failing).
    unsaved: RwSignal<bool>,
    /// False when an unreadable stored chat list could not be backed up: it is then not
    /// overwritten (the list lives in memory this session).
    index_writable: bool,
}

thread_local! {
    // Why statics: `AppState` is `Copy` (signals only) and these are the app's non-reactive
    // bookkeeping for the page's life, one per page (the page has one thread); `STOP_TURNS`
    // because `ui::chat` (which owns the turns) uses this module, not the other way round.
    /// How to stop the replies being written (registered by `ui::chat`, which runs turns).
    static STOP_TURNS: std::cell::Cell<Option<fn()>> = const { std::cell::Cell::new(None) };
    /// The chat whose stored draft was checked before the first write over it.
    static DRAFT_CHECKED: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    /// Who waits for the pending chat starts to end.
    static START_WAITERS: std::cell::RefCell<Vec<futures::channel::oneshot::Sender<()>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Register how to stop the replies being written, so that leaving a chat (after asking, when
/// it could not be saved) stops its reply.
pub fn on_stop_turns(stop: fn()) {
    STOP_TURNS.set(Some(stop));
}

fn stop_turns() {
    if let Some(stop) = STOP_TURNS.get() {
        stop();
    }
}

/// Read stored chat `id` and hand it — or why it cannot be read, in words that follow
/// "because" — to `then`: at once, or once a packed record is unpacked (if the record changed
/// meanwhile, it is read again). Answers whether `then` already ran.
fn with_stored(id: &str, then: Box<dyn FnOnce(Result<Session, String>)>) -> bool {
    let key = persist::session_key(id);
    match store().chat(id) {
        Ok(Some(persist::ChatRecord { text, .. })) => match persist::decode_session(&text) {
            Err(persist::DecodeError::Packed) => {
                let id = id.to_string();
                leptos::task::spawn_local(async move {
                    let result = unpack_session(&text).await;
                    if store().get(&key) == Ok(Some(text)) {
                        then(result);
                    } else {
                        with_stored(&id, then);
                    }
                });
                false
            }
            result => {
                then(result.map_err(|e| e.to_string()));
                true
            }
        },
        Ok(None) => {
            then(Err("it is no longer in storage".into()));
            true
        }
        Err(e) => {
            then(Err(e.to_string()));
            true
        }
    }
}

/// The chat a packed record holds.
async fn unpack_session(text: &str) -> Result<Session, String> {
    let json = crate::adapters::compression::unpack(text).await?;
    persist::decode_session(&json).map_err(|e| e.to_string())
}

fn store() -> Store {
    Store::local()
}

thread_local! {
    // Why a static: which parts of the open chat are stored outlives every component, and the
    // saves of every path (reply, edit, chat switch) read it.
    /// The open chat's id and how many of its first messages are stored exactly as it has them,
    /// in parts at their places: a save writes the parts from the first other one on.
    static STORED: std::cell::RefCell<(String, usize)> = const { std::cell::RefCell::new((String::new(), 0)) };
}

/// How many of chat `id`'s first messages are stored as the open chat has them.
fn stored_clean(id: &str) -> usize {
    STORED.with_borrow(|(at, n)| if at == id { *n } else { 0 })
}

/// The first `n` messages of chat `id` are stored as the open chat has them.
fn set_stored_clean(id: &str, n: usize) {
    STORED.with_borrow_mut(|s| *s = (id.to_string(), n));
}

/// Chat `id`'s message `from` may differ from what is stored.
fn touch_stored(id: &str, from: usize) {
    STORED.with_borrow_mut(|(at, n)| {
        if at == id {
            *n = (*n).min(from);
        }
    });
}

/// The default role.
pub fn default_role() -> RoleRef {
    RoleRef {
        source: PromptSource::Builtin,
        key: prompts::DEFAULT_ROLE.to_string(),
    }
}

/// A fresh session with the default role (pre-rendered at build time: no template engine is
/// needed for it).
pub fn fresh_session() -> Session {
    match catalog::builtin_start(prompts::DEFAULT_ROLE, &Vars::new(), new_id) {
        Some((origin, preamble)) => Session::new(new_id(), now_ms(), Some(origin), preamble),
        None => Session::new(new_id(), now_ms(), None, Vec::new()),
    }
}

/// Session messages (with new ids) for the start of a chat.
fn preamble_of(messages: Vec<catalog::StartMessage>) -> Vec<Preamble> {
    messages
        .into_iter()
        .map(|m| Preamble {
            id: new_id(),
            role: m.role,
            content: m.content,
            example: m.example,
        })
        .collect()
}

/// How a chat with `role` and `vars` starts: directly for a built-in role with default values,
/// otherwise asked of the prompts module.
pub async fn start_of(role: &RoleRef, vars: &Vars) -> StartAnswer {
    if role.source == PromptSource::Builtin {
        if let Some((origin, preamble)) = catalog::builtin_start(&role.key, vars, String::new) {
            return StartAnswer {
                origin: Some(origin),
                messages: preamble
                    .into_iter()
                    .map(|p| catalog::StartMessage {
                        role: p.role,
                        content: p.content,
                        example: p.example,
                    })
                    .collect(),
                ..Default::default()
            };
        }
    }
    let vars_json = serde_json::to_string(vars).unwrap_or_else(|_| "{}".into());
    match crate::adapters::prompts_module::start(&role.encode(), &vars_json).await {
        Ok(json) => serde_json::from_str(&json).unwrap_or_else(|e| {
            StartAnswer::error(module_problem(&ModuleError::Call(format!(
                "unreadable answer: {e}"
            ))))
        }),
        Err(e) => StartAnswer::error(module_problem(&e)),
    }
}

/// What [`preload`] read, whether another tab wrote since (its `storage` events come before the
/// app listens), and the listener that notes it.
type Preloaded = (
    startup::Loaded,
    std::rc::Rc<std::cell::Cell<bool>>,
    WindowListenerHandle,
);

thread_local! {
    // Why a static: it is read before the app (and its state) exists, once.
    static PRELOADED: std::cell::RefCell<Option<Preloaded>> = const { std::cell::RefCell::new(None) };
}

/// Read every stored record now, so the app's mount (a task later) does not: a long chat's
/// start-up is then two tasks instead of one twice as long. Pure reading; [`AppState::load`]
/// takes what was read, or reads anew when nothing was or another tab wrote in between (what it
/// wrote would otherwise be missed, and overwritten by the first save).
pub fn preload() {
    if let Some((_, _, old)) = PRELOADED.take() {
        old.remove();
    }
    let changed = std::rc::Rc::new(std::cell::Cell::new(false));
    let seen = changed.clone();
    let listener = window_event_listener(leptos::ev::storage, move |_| seen.set(true));
    let loaded = startup::load(&store());
    PRELOADED.set(Some((loaded, changed, listener)));
}

impl AppState {
    /// Load everything from storage ([`startup::load`]). Corrupt records are reported, never
    /// fatal.
    pub fn load() -> Self {
        let s = store();
        if PRELOADED.with_borrow(|p| p.as_ref().is_none_or(|(_, changed, _)| changed.get())) {
            preload();
        }
        // The app's own listener takes over from here (same task).
        let loaded = match PRELOADED.take() {
            Some((loaded, _, listener)) => {
                listener.remove();
                loaded
            }
            None => startup::Loaded::default(),
        };
        let mut problems: Vec<String> = Vec::new();
        if !s.is_available() {
            problems.push(describe_storage(&StorageError::Unavailable));
        }
        problems.extend(loaded.problems.iter().map(load_problem));
        // An unreadable chat list is kept under a backup key before the rebuilt one replaces
        // it; if even that cannot be written, the stored list is left alone this session.
        let mut index_writable = true;
        if let Some(original) = &loaded.index_original {
            match s.keep_backup("index", now_ms(), original) {
                Ok(key) => problems.push(kept_as(&key)),
                Err(e) => {
                    index_writable = false;
                    problems.push(not_kept(&e));
                }
            }
        }
        let mut index = loaded.index;
        let saved = loaded.settings.is_some();
        let settings = loaded.settings.unwrap_or_default();
        let api_key = loaded.api_key;
        let draft = loaded.draft;
        let (catalog, problem) = Catalog::load(loaded.prompts.as_deref());
        if let Some(e) = problem {
            problems.push(prompts_unreadable(&e));
        }
        let packed = loaded.packed;
        let session = loaded.session;
        let mut session = session.unwrap_or_else(fresh_session);
        let next_role = session
            .prompt
            .as_ref()
            .map(|o| RoleRef {
                source: o.source,
                key: o.key.clone(),
            })
            .filter(|r| catalog.find(r.source, &r.key).is_some())
            .unwrap_or_else(default_role);
        let recovered = session.recover_interrupted();
        index.active = Some(session.id.clone());

        let index = RwSignal::new(index);
        let session = RwSignal::new(session);
        let settings = RwSignal::new(settings);
        let settings_saved = RwSignal::new(saved);
        let live = RwSignal::new(None);
        let alert = RwSignal::new(None);
        let dialog = RwSignal::new(None);
        let draft = RwSignal::new(draft);
        let status = RwSignal::new(String::new());
        let markdown_ready = RwSignal::new(false);
        let catalog = RwSignal::new(catalog);
        let setup_problem = RwSignal::new(None);
        let next_role = RwSignal::new(next_role);
        let state = AppState {
            chats: Chats {
                index: Ro(index),
                session: Ro(session),
                draft: Ro(draft),
                catalog: Ro(catalog),
                next_role: Ro(next_role),
                setup_problem: Ro(setup_problem),
            },
            conn: Connection {
                settings: Ro(settings),
                saved: Ro(settings_saved),
            },
            turn: LiveTurn {
                live: Ro(live),
                status: Ro(status),
            },
            overlay: Overlay {
                alert: Ro(alert),
                dialog: Ro(dialog),
                markdown_ready: Ro(markdown_ready),
            },
            index,
            session,
            settings,
            settings_saved,
            api_key: RwSignal::new(api_key),
            live,
            alert,
            dialog,
            draft,
            status,
            markdown_ready,
            catalog,
            setup_problem,
            next_role,
            starting: RwSignal::new(0),
            unsaved: RwSignal::new(false),
            index_writable,
        };
        if recovered {
            state.save_session();
        } else {
            state
                .session
                .with_untracked(|sess| set_stored_clean(&sess.id, s.stored_in_parts(sess)));
            state.save_index();
        }
        if !problems.is_empty() {
            state.alert.set(Some(Alert {
                // One per line: a paragraph each.
                text: problems.join("\n"),
                ..Alert::default()
            }));
        }
        if let Some(id) = packed {
            // Its alert (start-up problems) stays: the chat opens under it.
            state.open_with(&id, false, Box::new(|_, _| {}));
        }
        state
    }

    /// Show a storage failure (keeps an existing alert about something else).
    fn report_storage(&self, result: Result<(), StorageError>) {
        if let Err(e) = result {
            self.alert.set(Some(Alert {
                text: describe_storage(&e),
                export: true,
                ..Alert::default()
            }));
        }
    }

    /// Whether the open chat may be left for `to`: yes if it is saved (or saving it again now
    /// works); otherwise the alert asks first — export it, or leave without saving.
    fn may_leave(&self, to: Leave) -> bool {
        if !self.unsaved.get_untracked() {
            return true;
        }
        self.save_session();
        if !self.unsaved.get_untracked() {
            return true;
        }
        self.alert.set(Some(Alert {
            text: crate::shell::error_text::UNSAVED_LEAVE.into(),
            export: true,
            leave: Some(to),
            ..Alert::default()
        }));
        false
    }

    /// "Leave without saving": drop the unsaved changes of the open chat and go to `to`.
    pub fn leave_unsaved(&self, to: Leave) {
        self.alert.set(None);
        // A chat that was never written leaves no entry behind in the list.
        let open = self.session.with_untracked(|s| s.id.clone());
        if matches!(store().get(&persist::session_key(&open)), Ok(None)) {
            self.index.update(|i| i.remove(&open));
        }
        stop_turns();
        match to {
            // `open_now` clears the flag only once the other chat is open.
            Leave::Open(id) => {
                self.open_now(&id);
            }
            Leave::New => {
                self.unsaved.set(false);
                self.start_chat(self.next_role.get_untracked(), Vars::new(), false);
            }
        }
    }

    /// Read the chat list again from storage after an import (or its undo) changed it; the chat
    /// on screen stays open.
    pub fn reload_index(&self) {
        let stored = store()
            .get(persist::KEY_INDEX)
            .ok()
            .flatten()
            .and_then(|t| persist::decode_index(&t).ok());
        if let Some(stored) = stored {
            let open = self.session.get_untracked();
            self.index.update(|i| {
                let active = i.active.take();
                *i = stored;
                i.active = active;
                // The chat on screen stays listed (it may not be written yet).
                if open.started() && !i.sessions.iter().any(|e| e.id == open.id) {
                    i.upsert(&open);
                }
            });
        }
    }

    /// Write the index record.
    pub fn save_index(&self) {
        if !self.index_writable {
            return;
        }
        let written = self.index.with_untracked(|i| store().save_index(i));
        self.report_storage(written);
    }

    /// Write the open session (that record only) and its index entry. A reply that is still
    /// arriving is saved with the text received so far, so no save ever drops it.
    ///
    /// The chat is stored in parts ([`persist::encode_head`]): only the parts from the first
    /// message changed since the last save on are written (normally the last one), then the head.
    /// The whole save is the User Timing measure `satori:save`.
    pub fn save_session(&self) {
        let start = crate::adapters::clock::precise_ms();
        let live = self.live.get_untracked();
        let mut write = None;
        self.session.update_untracked(|s| {
            let n = s.messages.len();
            // What this tab last wrote must still be there (not packed, say, or removed).
            if store()
                .head(&s.id)
                .is_none_or(|(_, count)| count < stored_clean(&s.id))
            {
                touch_stored(&s.id, 0);
            }
            let streaming = live
                .as_ref()
                .filter(|l| l.session_id == s.id)
                .and_then(|l| {
                    let at = s.messages.iter().position(|m| {
                        m.id == l.id && m.status == crate::core::session::Status::Streaming
                    })?;
                    Some((at, l))
                });
            let from = stored_clean(&s.id).min(streaming.map_or(n, |(at, _)| at));
            // The reply still arriving is written with the text received so far: put in for
            // the encoding, then taken out again.
            let mut text = streaming.map(|(_, l)| (l.content.clone(), l.reasoning.clone()));
            let mut swap = |s: &mut Session| {
                if let (Some((at, _)), Some((content, reasoning))) = (streaming, text.as_mut()) {
                    std::mem::swap(&mut s.messages[at].content, content);
                    std::mem::swap(&mut s.messages[at].reasoning, reasoning);
                }
            };
            swap(s);
            let (head, parts) = persist::encode_from(s, from);
            swap(s);
            // The reply arriving is written again by every save until it ends.
            let clean = streaming.map_or(n, |(at, _)| at);
            write = Some((s.id.clone(), head, parts, clean));
        });
        let Some((id, head, parts, clean)) = write else {
            return;
        };
        let result = store().write_chat(&id, &head, &parts);
        if result.is_ok() {
            set_stored_clean(&id, clean);
        }
        self.session.with_untracked(|s| self.after_write(s, result));
        crate::adapters::clock::measure_since("satori:save", start);
    }

    /// The open session as it is on screen: a reply still arriving has the text received so far.
    pub fn snapshot(&self) -> Session {
        let mut snapshot = self.session.get_untracked();
        if let Some(live) = self.live.get_untracked() {
            if live.session_id == snapshot.id {
                let _ = snapshot.apply(Command::SetReply {
                    id: live.id,
                    content: live.content,
                    reasoning: live.reasoning,
                });
            }
        }
        snapshot
    }

    /// Write every record of a chat that is not open.
    fn save_other(&self, session: &mut Session) {
        let (head, parts) = persist::encode_chat(session);
        let result = store().write_chat(&session.id, &head, &parts);
        self.after_write(session, result);
    }

    /// After a chat was written (or not): the unsaved flag, its chat list entry, the index
    /// record, and room made when storage is full.
    fn after_write(&self, session: &Session, result: Result<(), StorageError>) {
        let open = self.session.with_untracked(|s| s.id.clone());
        if session.id == open {
            // Storage that is unavailable keeps nothing anyway (said once at start-up): leaving
            // a chat then is not guarded.
            self.unsaved.set(matches!(
                result,
                Err(StorageError::QuotaExceeded | StorageError::Failed(_))
            ));
        }
        let full = matches!(result, Err(StorageError::QuotaExceeded)) && session.id == open;
        // The chat stays listed even when it could not be written.
        self.index.update(|idx| {
            idx.upsert(session);
            idx.active = Some(open);
        });
        if result.is_ok() {
            self.save_index();
        } else {
            self.report_storage(result);
        }
        if full {
            self.make_room();
        }
    }

    /// Storage is full: pack the other chats now, then save the chat on screen again if it is
    /// still the one that could not be saved, and take back the alert this raised if nothing
    /// replaced it and the save went through. One attempt at a time, and none for half a minute
    /// after one that did not get the chat saved.
    fn make_room(&self) {
        thread_local! {
            // Why statics: one attempt at a time for the whole page, whichever chat asked.
            static BUSY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
            static FRUITLESS: std::cell::Cell<i64> = const { std::cell::Cell::new(0) };
        }
        if now_ms() - FRUITLESS.with(std::cell::Cell::get) < 30_000
            || BUSY.with(|b| b.replace(true))
        {
            return;
        }
        let app = *self;
        let id = self.session.with_untracked(|s| s.id.clone());
        let raised = self.alert.get_untracked();
        leptos::task::spawn_local(async move {
            let _ = crate::shell::compact::make_room(&id).await;
            let here = app.session.with_untracked(|s| s.id == id);
            if here && app.unsaved.get_untracked() {
                // Written whole: what is stored of it may have changed meanwhile.
                touch_stored(&id, 0);
                app.save_session();
            }
            if app.unsaved.get_untracked() {
                FRUITLESS.with(|f| f.set(now_ms()));
            } else if here && app.alert.get_untracked() == raised {
                // Saved (now, or by a save that found the room while the others were packed).
                app.alert.set(None);
            }
            BUSY.with(|b| b.set(false));
        });
    }

    /// Apply a command to the open session and save it.
    pub fn apply(&self, cmd: Command) -> Result<(), SessionError> {
        let mut result = Ok(());
        self.session.update(|s| {
            touch_stored(&s.id, s.touched(&cmd));
            result = s.apply(cmd);
        });
        if result.is_ok() {
            self.save_session();
        }
        result
    }

    /// Apply commands to a stored session that is not open (a reply that ended after the user
    /// switched chats). If that cannot be done — the record is gone or unreadable, or a command
    /// fails — the alert says so and an unreadable record is left untouched; a chat deleted here
    /// (no longer listed) is let go quietly.
    pub fn apply_to_stored(&self, id: &str, cmds: Vec<Command>) {
        let Some(title) = self.index.with_untracked(|i| {
            i.sessions
                .iter()
                .find(|e| e.id == id)
                .map(|e| e.title.clone())
        }) else {
            return;
        };
        let app = *self;
        let target = id.to_string();
        with_stored(
            id,
            Box::new(move |read| {
                let open = app.session.with_untracked(|s| s.id == target);
                let applied = if open {
                    // Opened while it was unpacked: the reply goes into the chat on screen.
                    cmds.into_iter()
                        .try_for_each(|cmd| app.apply(cmd))
                        .map_err(|e| e.to_string())
                } else {
                    read.and_then(|mut sess| {
                        if let Some(e) = cmds.into_iter().find_map(|cmd| sess.apply(cmd).err()) {
                            return Err(e.to_string());
                        }
                        app.save_other(&mut sess);
                        Ok(())
                    })
                };
                if let Err(why) = applied {
                    app.alert.set(Some(Alert {
                        text: crate::shell::error_text::reply_not_kept(&title, &why),
                        ..Alert::default()
                    }));
                }
            }),
        );
    }

    /// Whether a chat start is still waiting for the prompts module.
    pub fn start_pending(&self) -> bool {
        self.starting.get_untracked() > 0
    }

    /// Provide the state and each read-only group as contexts.
    pub fn provide(self) {
        provide_context(self);
        provide_context(self.chats);
        provide_context(self.conn);
        provide_context(self.turn);
        provide_context(self.overlay);
    }

    /// Show `alert` in the banner.
    pub fn show(&self, alert: Alert) {
        self.alert.set(Some(alert));
    }

    /// Clear the banner.
    pub fn dismiss(&self) {
        self.alert.set(None);
    }

    /// Open `dialog` (or close the open one with `None`).
    pub fn set_dialog(&self, dialog: Option<Dialog>) {
        self.dialog.set(dialog);
    }

    /// The markdown renderer has loaded: replies re-render as formatted text.
    pub fn markdown_loaded(&self) {
        self.markdown_ready.set(true);
    }

    /// The composer's text changed: keep it and persist it as the open chat's draft.
    pub fn set_draft(&self, text: String) {
        self.save_draft(&text);
        self.draft.set(text);
    }

    /// The role the next new chat starts with.
    pub fn choose_role(&self, role: RoleRef) {
        self.next_role.set(role);
    }

    /// Why the open chat cannot start yet (`None`: it can).
    pub fn set_setup_problem(&self, problem: Option<String>) {
        self.setup_problem.set(problem);
    }

    /// A reply starts arriving.
    pub fn live_begin(&self, live: Live) {
        self.live.set(Some(live));
    }

    /// More of the live reply arrived.
    pub fn live_append(&self, content: &str, reasoning: &str) {
        self.live.update(|l| {
            if let Some(l) = l {
                l.content.push_str(content);
                l.reasoning.push_str(reasoning);
            }
        });
    }

    /// The live reply ended: what it was.
    pub fn live_end(&self) -> Option<Live> {
        let live = self.live.get_untracked();
        self.live.set(None);
        self.status.set(String::new());
        live
    }

    /// The status line (retry countdowns); empty clears it.
    pub fn set_status(&self, text: String) {
        self.status.set(text);
    }

    /// Apply `cmds` to the open session, then save it (commands the session refuses change
    /// nothing).
    pub fn apply_all(&self, cmds: Vec<Command>) {
        self.session.update(|s| {
            for cmd in cmds {
                touch_stored(&s.id, s.touched(&cmd));
                let _ = s.apply(cmd);
            }
        });
        self.save_session();
    }

    /// Whether a reply is streaming.
    pub fn is_streaming(&self) -> bool {
        self.live.with(Option::is_some)
    }

    /// A chat start (which may wait for the prompts module) began.
    pub fn start_begun(&self) {
        self.starting.update(|n| *n += 1);
    }

    /// A chat start ended; when none is left, everyone waiting in [`Self::starts_settled`] goes on.
    pub fn start_done(&self) {
        self.starting.update(|n| *n = n.saturating_sub(1));
        if self.starting.get_untracked() == 0 {
            for waiter in START_WAITERS.with(|w| std::mem::take(&mut *w.borrow_mut())) {
                let _ = waiter.send(());
            }
        }
    }

    /// Resolves once no chat start is pending.
    pub async fn starts_settled(self) {
        if self.starting.get_untracked() == 0 {
            return;
        }
        let (tx, rx) = futures::channel::oneshot::channel();
        START_WAITERS.with(|w| w.borrow_mut().push(tx));
        let _ = rx.await;
    }

    /// "Settings" saved (in the dialogs module): apply what it saved — in memory too when
    /// storage failed, which the alert then says.
    pub fn apply_settings(&self, saved: SettingsSaved) {
        // Checked again: the event is the only way in.
        let Ok(settings) = saved.settings.validated() else {
            return;
        };
        match saved.key {
            KeySave::Write(record) => self.api_key.set(Some(record)),
            KeySave::Remove => self.api_key.set(None),
            KeySave::Keep => {}
        }
        self.settings.set(settings);
        self.settings_saved.set(true);
        self.alert.set(saved.problem.map(|text| Alert {
            text,
            ..Alert::default()
        }));
    }

    /// "Use the in-browser model": the provider "In this browser", saved like "Settings" saves it
    /// (and used for this page when storage fails, which the alert then says).
    pub fn use_in_browser(&self) {
        use crate::core::settings::{IN_BROWSER_ID, IN_BROWSER_MODEL, IN_BROWSER_URL};
        let mut s = self.settings.get_untracked();
        // The preset's values (not the preset table, which only Settings needs).
        s.provider = IN_BROWSER_ID.into();
        s.base_url = IN_BROWSER_URL.into();
        s.model = IN_BROWSER_MODEL.into();
        let written = store().save_settings(&s);
        self.settings.set(s);
        self.settings_saved.set(true);
        self.alert.set(written.err().map(|e| Alert {
            text: crate::shell::error_text::describe_storage(&e),
            ..Alert::default()
        }));
    }

    /// Open "Settings" (in the dialogs module, loaded now if needed).
    pub fn open_settings(&self) {
        let json = self
            .settings
            .with_untracked(|s| serde_json::to_string(s).unwrap_or_default());
        self.open_external("Settings", "open_settings", vec![json.into()]);
    }

    /// The API key to send to `base_url`: only the one saved for exactly that URL.
    pub fn key_for(&self, base_url: &str) -> Option<String> {
        self.api_key.with_untracked(|r| {
            r.as_ref()
                .and_then(|r| r.key_for(base_url))
                .map(str::to_string)
        })
    }

    /// Persist the draft of the open session. The first write over a stored draft that cannot be
    /// read keeps that record under a backup key first, and says so.
    pub fn save_draft(&self, text: &str) {
        let id = self.session.with_untracked(|s| s.id.clone());
        let key = persist::draft_key(&id);
        if DRAFT_CHECKED.with_borrow(|c| *c != id) {
            if let Ok(Some(raw)) = store().get(&key) {
                if persist::decode_draft(&raw).is_err() {
                    match store().keep_backup("draft", now_ms(), &raw) {
                        Ok(backup) => self.alert.set(Some(Alert {
                            text: crate::shell::error_text::draft_kept(&backup),
                            ..Alert::default()
                        })),
                        Err(e) => {
                            // Never overwrite what could not be kept (checked again next time).
                            self.report_storage(Err(e));
                            return;
                        }
                    }
                }
            }
            DRAFT_CHECKED.with_borrow_mut(|c| c.clone_from(&id));
        }
        self.report_storage(store().save_draft(&id, text));
    }

    /// Open another session by id; returns whether it could be opened.
    /// A reply streaming in the chat on screen is stopped first — after asking, if that chat
    /// could not be saved.
    pub fn open(&self, id: &str) -> bool {
        self.open_at(id, || {})
    }

    /// [`Self::open`], then `then` once the chat is on screen (a packed chat is unpacked first).
    pub fn open_at(&self, id: &str, then: impl FnOnce() + 'static) -> bool {
        if !self.may_leave(Leave::Open(id.to_string())) {
            return false;
        }
        stop_turns();
        self.open_with(
            id,
            true,
            Box::new(move |_, opened| {
                if opened {
                    then()
                }
            }),
        )
    }

    /// Open chat `id` without asking about the one on screen. A packed chat opens once it is
    /// unpacked (unless another chat was opened meanwhile).
    fn open_now(&self, id: &str) -> bool {
        self.open_with(id, true, Box::new(|_, _| {}))
    }

    /// Open chat `id`, then call `then` with whether it opened — at once, or once a packed chat
    /// is unpacked; not at all if another chat was opened (or started) meanwhile. Answers whether
    /// the chat opened or is opening. The alert on screen goes when it opens if `clear_alert`,
    /// and an alert that appeared while a packed chat was unpacked is kept.
    fn open_with(
        &self,
        id: &str,
        clear_alert: bool,
        then: Box<dyn FnOnce(AppState, bool)>,
    ) -> bool {
        thread_local! {
            // Why a static: only the latest chat switch of the page may finish.
            static OPENING: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
        }
        let generation = OPENING.with(|g| g.get() + 1);
        OPENING.with(|g| g.set(generation));
        let app = *self;
        let from = self.session.with_untracked(|s| s.id.clone());
        let alert = self.alert.get_untracked();
        let answer = std::rc::Rc::new(std::cell::Cell::new(None));
        let answered = answer.clone();
        let target = id.to_string();
        with_stored(
            id,
            Box::new(move |read| {
                if OPENING.with(std::cell::Cell::get) != generation
                    || app.session.with_untracked(|s| s.id != from)
                {
                    return;
                }
                let opened = match read {
                    Ok(sess) => {
                        let keep = app.alert.get_untracked() != alert;
                        app.show_opened(&target, sess, clear_alert && !keep);
                        true
                    }
                    Err(why) => {
                        app.alert.set(Some(Alert {
                            text: chat_unopenable(&why),
                            ..Alert::default()
                        }));
                        false
                    }
                };
                answered.set(Some(opened));
                then(app, opened);
            }),
        );
        // Not answered yet: a packed chat, opening.
        answer.get().unwrap_or(true)
    }

    fn show_opened(&self, id: &str, mut sess: Session, clear_alert: bool) {
        let s = store();
        let recovered = sess.recover_interrupted();
        let written = recovered && {
            let (head, parts) = persist::encode_chat(&mut sess);
            s.write_chat(id, &head, &parts).is_ok()
        };
        set_stored_clean(
            id,
            if recovered && !written {
                0
            } else {
                s.stored_in_parts(&sess)
            },
        );
        let draft = s
            .get(&persist::draft_key(id))
            .ok()
            .flatten()
            .and_then(|t| persist::decode_draft(&t).ok())
            .unwrap_or_default();
        self.session.set(sess);
        self.setup_problem.set(None);
        self.unsaved.set(false);
        self.draft.set(draft);
        self.index.update(|i| i.active = Some(id.to_string()));
        self.save_index();
        if clear_alert {
            self.alert.set(None);
        }
    }

    /// Start a new chat with the role of the "Role" select and open it. An untouched open
    /// chat is reused (started over with that role) instead of piling up empty chats.
    pub fn new_chat(&self) {
        let role = self.next_role.get_untracked();
        match self
            .session
            .with_untracked(|s| chat_start::new_chat(s, &role))
        {
            NewChat::Keep => {}
            NewChat::Restart => {
                stop_turns();
                self.start_chat(role, Vars::new(), true)
            }
            NewChat::Open if self.may_leave(Leave::New) => {
                stop_turns();
                self.start_chat(role, Vars::new(), false)
            }
            NewChat::Open => {}
        }
    }

    /// Start a chat with `role` and `vars`: over the open, untouched chat (`restart`) or as a
    /// new one. Built-in roles with default values start at once; anything else waits for the
    /// prompts module.
    pub fn start_chat(&self, role: RoleRef, vars: Vars, restart: bool) {
        let app = *self;
        let (session_id, may) = self
            .session
            .with_untracked(|s| (s.id.clone(), chat_start::may_restart(s)));
        // Starting over would discard a system prompt the user edited: open a new chat instead.
        let restart = restart && may;
        self.start_begun();
        leptos::task::spawn_local(async move {
            let answer = start_of(&role, &vars).await;
            app.start_done();
            let (origin, messages, problem) = match answer {
                StartAnswer {
                    origin: Some(origin),
                    error: None,
                    messages,
                    missing,
                } => (origin, messages, missing),
                other => {
                    let e = other.error.unwrap_or_else(|| "no answer".into());
                    app.alert.set(Some(Alert {
                        text: role_unusable(&e),
                        ..Alert::default()
                    }));
                    return;
                }
            };
            if restart {
                // The user may have switched chats meanwhile: only the chat asked about changes.
                if app.session.with_untracked(|s| s.id != session_id) {
                    return;
                }
                match app.restart_with(origin, messages) {
                    Ok(()) => {
                        app.setup_problem.set(problem);
                        app.alert.set(None);
                    }
                    Err(e) => app.alert.set(Some(Alert {
                        text: role_unusable_here(&e),
                        ..Alert::default()
                    })),
                }
            } else {
                app.session.set(Session::new(
                    new_id(),
                    now_ms(),
                    Some(origin),
                    preamble_of(messages),
                ));
                app.setup_problem.set(problem);
                app.draft.set(String::new());
                app.alert.set(None);
                app.save_session();
            }
        });
    }

    /// Start the open, untouched chat over with `origin` and `messages`.
    pub fn restart_with(
        &self,
        origin: PromptOrigin,
        messages: Vec<catalog::StartMessage>,
    ) -> Result<(), SessionError> {
        self.apply(Command::Restart {
            origin: Some(origin),
            preamble: preamble_of(messages),
            at: now_ms(),
        })
    }

    /// After the user templates changed: an open chat that has not started, comes from a user
    /// template and still has that template's system prompt is started over from the template as
    /// it is now (or from the default role if it was deleted).
    pub fn refresh_untouched(&self) {
        if self.is_streaming() {
            return;
        }
        let follow = self.session.with_untracked(|s| {
            self.catalog
                .with_untracked(|c| chat_start::follow_template(s, c))
        });
        if let Some((role, vars)) = follow {
            self.start_chat(role, vars, true);
        }
    }

    /// Open a dialog of the prompts module: call its `function` with `args` (`what` names the
    /// dialog in the error). The app treats it as an open dialog until the module says it
    /// closed. One function for every dialog, not one per dialog: each would be code of its own
    /// in the first load.
    pub fn open_external(
        &self,
        what: &'static str,
        function: &'static str,
        args: Vec<wasm_bindgen::JsValue>,
    ) {
        let app = *self;
        app.dialog.set(Some(Dialog::External));
        leptos::task::spawn_local(async move {
            if let Err(e) = crate::adapters::prompts_module::open_dialog(function, &args).await {
                app.dialog.set(None);
                app.alert.set(Some(Alert {
                    text: dialog_failed(what, &e),
                    ..Alert::default()
                }));
            }
        });
    }

    /// Re-read the roles after the user templates changed (in the prompts module).
    pub fn reload_catalog(&self) {
        let record = match store().get(persist::KEY_PROMPTS) {
            Ok(r) => r,
            Err(e) => return self.report_storage(Err(e)),
        };
        let (catalog, problem) = Catalog::load(record.as_deref());
        if let Some(e) = problem {
            self.alert.set(Some(Alert {
                text: prompts_unreadable(&e),
                ..Alert::default()
            }));
        }
        let next = self.next_role.get_untracked();
        if catalog.find(next.source, &next.key).is_none() {
            self.next_role.set(default_role());
        }
        self.catalog.set(catalog);
    }

    /// Delete the open chat (its record, draft and index entry) and open the next one.
    pub fn delete_active(&self) {
        let id = self.session.with_untracked(|s| s.id.clone());
        let s = store();
        self.report_storage(s.remove_chat(&id));
        let _ = s.save_draft(&id, "");
        self.leave_removed(&id);
        self.save_index();
    }

    /// Delete chat `id`, which is not the open one (its record, draft and list entry).
    pub fn delete_stored(&self, id: &str) {
        let s = store();
        self.report_storage(s.remove_chat(id));
        let _ = s.save_draft(id, "");
        self.index.update(|i| i.remove(id));
        self.save_index();
    }

    /// The open chat `id` is gone (deleted here or in another tab): drop it from the list and
    /// open the next one, or a fresh chat.
    fn leave_removed(&self, id: &str) {
        self.index.update(|i| i.remove(id));
        let next = self.index.with_untracked(|i| i.active.clone());
        self.unsaved.set(false);
        // The next chat, or (if there is none, or it cannot be opened) a fresh one. The chat
        // that is gone leaves the screen at once — an unsaved placeholder stands in while a
        // packed next chat is unpacked — so no save can bring it back.
        let fresh = |app: AppState| {
            app.session.set(fresh_session());
            app.draft.set(String::new());
            app.save_session();
            app.start_chat(app.next_role.get_untracked(), Vars::new(), true);
        };
        match next {
            Some(next) => {
                self.session.set(fresh_session());
                self.open_with(
                    &next,
                    true,
                    Box::new(move |app, opened| {
                        if !opened {
                            // Starting the fresh chat would take back the alert saying why.
                            let why = app.alert.get_untracked();
                            fresh(app);
                            if why.is_some() {
                                app.alert.set(why);
                            }
                        }
                    }),
                );
            }
            None => fresh(*self),
        }
    }

    /// Another tab changed record `key` (a `storage` event; `value` is the new text, `None` when
    /// it was removed). The chat list is read again; the open chat takes in what the other tab
    /// added (and writes back what that tab lacks, so both converge without losing a message);
    /// if the other tab deleted the open chat, this tab leaves it and says so.
    pub fn on_storage(&self, key: &str, value: Option<String>) {
        if key == persist::KEY_INDEX {
            self.reload_index();
            return;
        }
        let open = self.session.with_untracked(|s| s.id.clone());
        // A part written alone is a change too: a tab whose save leaves the head as it was (the
        // same count, leaf and time) writes only parts, and no event for the head comes.
        let part = persist::is_part_of(key, &open);
        if key != persist::session_key(&open) && !part {
            return;
        }
        match value {
            None if !part => {
                stop_turns();
                self.leave_removed(&open);
                self.alert.set(Some(Alert {
                    text: crate::shell::error_text::DELETED_ELSEWHERE.into(),
                    ..Alert::default()
                }));
            }
            _ => {
                // The other tab wrote the chat's parts as it has them.
                touch_stored(&open, 0);
                let Ok(Some(record)) = store().chat(&open) else {
                    return;
                };
                let Ok(theirs) = persist::decode_session(&record.text) else {
                    return;
                };
                // A part written before its head: the save is not over, the head's event follows.
                if part && record.count != Some(theirs.messages.len()) {
                    return;
                }
                let mut mine = self.session.get_untracked();
                let live = self
                    .live
                    .with_untracked(|l| l.as_ref().map(|l| l.id.clone()));
                let merged = mine.merge_stored(&theirs, live.as_deref());
                if merged.added > 0 {
                    self.session.set(mine);
                }
                if merged.theirs_lack {
                    self.save_session();
                }
            }
        }
    }
}
