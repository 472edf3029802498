//! The app's state and its one owner, [`AppState`]: it holds every signal, hands components
//! read-only groups by concern (chats, connection, live turn, overlay), and is the only writer —
//! each write goes through a method that also persists what changed. Decisions (which chat to
//! open, when to start over, what a stored record means) come from the core
//! (`core::startup`, `core::chat_start`, `core::key_binding`, `core::saving`, the session
//! reducer).
//!
//! By job: [`startup`] (reading every record, once), [`saving`] (writing the open chat and the
//! others), [`moving`] (between chats, leaving one, deleting), [`starting`] (a chat's start with
//! its role) and [`tabs`] (what another tab wrote).

mod moving;
mod saving;
mod starting;
mod startup;
mod tabs;

pub use starting::{default_role, fresh_session, start_of};
pub use startup::preload;

use crate::adapters::storage::Store;
use crate::core::key_binding::{KeySave, SettingsSaved};
use crate::core::persist::{self, Index};
use crate::core::prompts::catalog::Catalog;
use crate::core::prompts::RoleRef;
use crate::core::protocol::DialogsCall;
use crate::core::saving::Clean;
use crate::core::session::{MessageId, Session};
use crate::core::settings::Settings;
use crate::shell::error_text::{dialog_failed, prompts_unreadable};
use leptos::prelude::*;
use std::cell::{Cell, RefCell};

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
    /// A dialog of the dialogs module ("Prompts", "Chat setup", "System prompt") is open.
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

/// The list of the composer's attachments (drawn by `src/web/attach.js`).
pub const CHIPS: &str = "attach-chips";

/// Empty the composer's attachments: they went with a message, or, like the draft, belong to the
/// chat being left.
pub fn clear_chips() {
    // (src/web/attach.js sees them go and updates what the list says it holds.)
    if let Some(list) = leptos::prelude::document().get_element_by_id(CHIPS) {
        list.set_text_content(None);
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
    /// How many chat starts are waiting for the dialogs module; sending waits for them.
    starting: RwSignal<u32>,
    /// The open chat's latest change could not be saved (storage full or failing).
    unsaved: RwSignal<bool>,
    /// False when an unreadable stored chat list could not be backed up: it is then not
    /// overwritten (the list lives in memory this session).
    index_writable: bool,
}

/// The page's bookkeeping that is not drawn: what [`AppState`] (signals only, `Copy`) keeps
/// beside its signals, for the page's life.
struct Page {
    /// How to stop the replies being written (registered by `ui::chat`, which owns the turns and
    /// uses this module, not the other way round).
    stop_turns: Cell<Option<fn()>>,
    /// Which of the open chat's messages are stored as it has them ([`saving`]).
    clean: RefCell<Clean>,
    /// The chat whose stored draft was checked before the first write over it ([`saving`]).
    draft_checked: RefCell<String>,
    /// An attempt to make room is under way; when the last one that did not get the chat saved
    /// ended ([`saving`]).
    room: Cell<(bool, Option<i64>)>,
    /// Who waits for the pending chat starts to end ([`starting`]).
    start_waiters: RefCell<Vec<futures::channel::oneshot::Sender<()>>>,
    /// The latest chat switch: only it may finish ([`moving`]).
    opening: Cell<u64>,
    /// What [`preload`] read, before the app (and its state) existed ([`startup`]).
    preloaded: RefCell<Option<startup::Preloaded>>,
}

thread_local! {
    // Why a static: the bookkeeping outlives every component and is one per page (the page has
    // one thread); `AppState` is `Copy` and holds signals only, and `preloaded` is read before
    // it exists.
    static PAGE: Page = const {
        Page {
            stop_turns: Cell::new(None),
            clean: RefCell::new(Clean::new()),
            draft_checked: RefCell::new(String::new()),
            room: Cell::new((false, None)),
            start_waiters: RefCell::new(Vec::new()),
            opening: Cell::new(0),
            preloaded: RefCell::new(None),
        }
    };
}

/// Register how to stop the replies being written, so that leaving a chat (after asking, when
/// it could not be saved) stops its reply.
pub fn on_stop_turns(stop: fn()) {
    PAGE.with(|p| p.stop_turns.set(Some(stop)));
}

fn stop_turns() {
    if let Some(stop) = PAGE.with(|p| p.stop_turns.get()) {
        stop();
    }
}

fn store() -> Store {
    Store::local()
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

impl AppState {
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

    /// Whether a reply is streaming.
    pub fn is_streaming(&self) -> bool {
        self.live.with(Option::is_some)
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

    /// The settings the open chat's requests use: Settings, with the chat's own model where it
    /// has one ("Model for this chat", `Settings::for_chat`).
    pub fn chat_settings(&self) -> Settings {
        let s = self.settings.get_untracked();
        self.session
            .with_untracked(|c| s.for_chat(c.model.as_ref()))
    }

    /// "Pin chat" / "Unpin chat" for chat `id` (the open one or one in the list).
    pub fn pin(&self, id: &str, pinned: bool) {
        let cmd = crate::core::session::Command::PinChat { pinned };
        if self.session.with_untracked(|s| s.id == id) {
            let _ = self.apply(cmd);
        } else {
            self.apply_to_stored(id, vec![cmd]);
        }
    }

    /// "Export chat" for a chat of the list that is not open (read, and unpacked, first).
    pub fn export_stored(&self, id: &str) {
        let app = *self;
        with_stored(
            id,
            Box::new(move |read| match read {
                Ok(s) => app.open_external(
                    "Export chat",
                    DialogsCall::OpenExport {
                        session: serde_json::to_string(&s).unwrap_or_default(),
                    },
                    None,
                ),
                Err(why) => app.alert.set(Some(Alert {
                    text: crate::shell::error_text::chat_unopenable(&why),
                    ..Alert::default()
                })),
            }),
        );
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
        self.open_external(
            "Settings",
            DialogsCall::OpenSettings { settings: json },
            None,
        );
    }

    /// The API key to send to `base_url`: only the one saved for exactly that URL.
    pub fn key_for(&self, base_url: &str) -> Option<String> {
        self.api_key.with_untracked(|r| {
            r.as_ref()
                .and_then(|r| r.key_for(base_url))
                .map(str::to_string)
        })
    }

    /// Open a dialog of the dialogs module by `call` (`what` names the dialog in the error;
    /// `object`: the files "Import" reads). The app treats it as an open dialog until the module
    /// says it closed. One function for every dialog, not one per dialog: each would be code of
    /// its own in the first load.
    pub fn open_external(
        &self,
        what: &'static str,
        call: DialogsCall,
        object: Option<wasm_bindgen::JsValue>,
    ) {
        let app = *self;
        app.dialog.set(Some(Dialog::External));
        leptos::task::spawn_local(async move {
            if let Err(e) =
                crate::adapters::dialogs_module::open_dialog(call, object.as_ref()).await
            {
                app.dialog.set(None);
                app.alert.set(Some(Alert {
                    text: dialog_failed(what, &e),
                    ..Alert::default()
                }));
            }
        });
    }

    /// Re-read the roles after the user templates changed (in the dialogs module).
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
}
