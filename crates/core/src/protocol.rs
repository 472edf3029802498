//! What crosses a boundary between Satori's parts that do not share Rust types at run time — the
//! app and its lazy wasm modules, the page's window events — as one enum per boundary. No event
//! names per message, no one-letter tags, no JSON picked apart by whoever receives it: the sender
//! builds a variant, the receiver matches on it.

use crate::key_binding::SettingsSaved;
use crate::prompts::{RoleRef, Vars};
use crate::session::{AgentConfig, ChatModel, ContextOverrides, Session};
use crate::transfer::import::Rest;
use crate::transfer::report::ChatReport;
use serde::{Deserialize, Serialize};

/// The one window event the dialogs module tells the app through; its detail is a
/// [`DialogEvent`] as JSON ([`DialogEvent::encode`]).
pub const DIALOG_EVENT: &str = "satori:dialog";

/// The window event the interface language changed by (detail: `en` or `zh-CN`). The page's
/// translator (`src/web/i18n.js`) listens to it, not the app.
pub const LANGUAGE_EVENT: &str = "satori:language";

/// What a dialog (in the dialogs module) tells the app.
///
/// Externally tagged, its values in order (`{"rename": ["c1", "Title"]}`, `"closed"`): an
/// internally tagged enum is read through serde's buffered content, which cost the first load
/// 20 KB gzip, and named fields 2.8 KB more than values in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DialogEvent {
    /// The user templates record was saved.
    PromptsChanged,
    /// "Use in new chat": start a new chat with this role.
    UseRole(#[serde(with = "role_ref")] RoleRef),
    /// "Chat setup" applied: the chat not yet started starts with the role and its variables'
    /// values.
    Setup(#[serde(with = "role_ref")] RoleRef, Vars),
    /// "System prompt" saved for the open chat.
    SystemPrompt(String),
    /// "Settings" saved: what the app applies.
    Settings(SettingsSaved),
    /// A dialog of the module closed.
    Closed,
    /// A summary was edited in the context inspector: its id, its new text.
    SummaryEdited(String, String),
    /// The open chat's context settings were saved in the inspector.
    ChatContext(ContextOverrides),
    /// An import (or "Undo import") changed the stored chats.
    Imported,
    /// "Rename chat" saved: the chat's id, its new title.
    Rename(String, String),
    /// "Search chats" (or a chat saved from a link) chose a chat: open it (its id), at the
    /// message given, if any.
    OpenAt(String, Option<String>),
    /// "Delete chat" confirmed.
    Delete(String),
    /// "Agent" saved: the chat's id, its agent settings.
    Agent(String, AgentConfig),
    /// "Model for this chat" chose: the chat's id, its model (`None`: Settings').
    ChatModel(String, Option<ChatModel>),
    /// "Keyboard shortcuts" asked for (from the command palette).
    Shortcuts,
}

impl DialogEvent {
    /// The event as the window event's detail.
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The event a detail holds; the error says why it is none.
    pub fn decode(detail: &str) -> Result<DialogEvent, String> {
        serde_json::from_str(detail).map_err(|e| e.to_string())
    }
}

/// What a running turn (in the turns module) tells the app as it goes: the app draws it.
///
/// Handed across as three strings ([`TurnEvent::parts`], [`TurnEvent::from_parts`]), not JSON:
/// it goes once per frame while a reply streams, and serde's reader for it cost the first load
/// 0.8 KB gzip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnEvent {
    /// The reply so far, at most once per frame.
    Shown {
        /// Its text.
        content: String,
        /// Its thoughts.
        reasoning: String,
    },
    /// The status line (a retry's countdown); empty clears it.
    Status {
        /// The line.
        text: String,
    },
    /// A checkpoint: the app saves the reply as it stands.
    Checkpoint,
    /// A summary was made before the request (a `Summary` as JSON): the app keeps it with its
    /// chat.
    Summary {
        /// The summary.
        json: String,
    },
}

impl TurnEvent {
    /// The event's name and its two texts (empty where it has fewer).
    pub fn parts(&self) -> (&'static str, &str, &str) {
        match self {
            TurnEvent::Shown { content, reasoning } => ("shown", content, reasoning),
            TurnEvent::Status { text } => ("status", text, ""),
            TurnEvent::Checkpoint => ("checkpoint", "", ""),
            TurnEvent::Summary { json } => ("summary", json, ""),
        }
    }

    /// The event [`TurnEvent::parts`] gave; `None` for a name it does not give.
    pub fn from_parts(name: &str, a: String, b: String) -> Option<TurnEvent> {
        match name {
            "shown" => Some(TurnEvent::Shown {
                content: a,
                reasoning: b,
            }),
            "status" => Some(TurnEvent::Status { text: a }),
            "checkpoint" => Some(TurnEvent::Checkpoint),
            "summary" => Some(TurnEvent::Summary { json: a }),
            _ => None,
        }
    }
}

/// What the import worker (`src/bin/satori-import.rs`) tells the Import dialog as it reads a
/// file, JSON, one event per message; externally tagged, values in order, like [`DialogEvent`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImportEvent {
    /// Bytes read of the file's total, and the chats converted since the last event, each with
    /// what its import converted (if anything).
    Read(u64, u64, Vec<(Session, Option<ChatReport>)>),
    /// Reading starts again from the first byte: the chats of earlier events are void.
    Again,
    /// The end: what the file holds besides its chats, or why it cannot be imported (the
    /// refusal's words, as `ImportError` says them).
    Done(Result<Rest, String>),
}

impl ImportEvent {
    /// The event as the worker posts it.
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The event a message holds; the error says why it is none.
    pub fn decode(text: &str) -> Result<ImportEvent, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }
}

/// The lazy wasm modules (`scripts/modules.txt`), each fetched the first time it is needed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Module {
    /// The markdown renderer (UI-free), fetched right after the first paint.
    Markdown,
    /// The dialogs (Settings, Prompts, Chat setup, export, import, search …) with the template
    /// engine and the YAML reader: the one module that draws, with its own Leptos runtime.
    Dialogs,
    /// Each turn's request and reply: the context pipeline with its counting, the request sent
    /// and its stream read (UI-free); fetched when the user starts typing.
    Turns,
    /// The agent's tools (UI-free), fetched for chats in agent mode.
    Agent,
    /// Installable and offline (`src/web/offline.js`, plain JavaScript): registers the service
    /// worker after the markdown renderer has arrived.
    Offline,
    /// Sync with a WebDAV folder (UI-free), loaded only when sync is on.
    Sync,
}

impl Module {
    /// The name the manifest and the page use.
    pub const fn name(self) -> &'static str {
        match self {
            Module::Markdown => "markdown",
            Module::Dialogs => "dialogs",
            Module::Turns => "turns",
            Module::Agent => "agent",
            Module::Offline => "offline",
            Module::Sync => "sync",
        }
    }
}

/// A call into a lazy wasm module: the function it exports — named here and nowhere else
/// (`tests/tidy.rs` checks every name against the module's exports, with its arguments) — and
/// its text arguments in order. A call that also hands over a browser object (an abort signal,
/// a callback, files) says so ([`Call::object`]); the caller appends it.
pub trait Call {
    /// The module called.
    const MODULE: Module;
    /// The exported function called.
    fn function(&self) -> &'static str;
    /// Its text arguments, in order (none of the functions takes more than two).
    fn args(&self) -> [Option<&str>; 2];
    /// The type of the browser object appended after the texts (`AbortSignal`, `Function`,
    /// `JsValue`), if the function takes one.
    fn object(&self) -> Option<&'static str> {
        None
    }
}

/// A call into the markdown module (`src/bin/satori-markdown.rs`), made once per frame while a
/// reply arrives: it borrows its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarkdownCall<'a> {
    /// Safe HTML for a reply's markdown.
    Render(&'a str),
    /// Where a reply still arriving can be cut: the blocks before are finished.
    StreamCut(&'a str),
    /// A message shown as typed, as HTML with its formulas marked. Made by the page's script
    /// that typesets formulas (`src/web/rendered.js`), for the user's messages as they are drawn.
    PlainWithMath(&'a str),
}

impl Call for MarkdownCall<'_> {
    const MODULE: Module = Module::Markdown;
    fn function(&self) -> &'static str {
        match self {
            MarkdownCall::Render(_) => "render",
            MarkdownCall::StreamCut(_) => "stream_cut",
            MarkdownCall::PlainWithMath(_) => "plain_with_math",
        }
    }
    fn args(&self) -> [Option<&str>; 2] {
        match self {
            MarkdownCall::Render(text)
            | MarkdownCall::StreamCut(text)
            | MarkdownCall::PlainWithMath(text) => [Some(text), None],
        }
    }
}

/// A call into the dialogs module (`src/bin/satori-dialogs.rs`). The texts are JSON where they
/// carry a value (a session, settings, variables).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DialogsCall {
    /// How a chat with a role (`builtin:key` / `user:key`) and variables starts.
    Start { role: String, vars: String },
    /// "Chat setup" for a role with variables.
    OpenSetup { role: String, vars: String },
    /// "System prompt" of the open chat: its text and origin.
    OpenSystem { text: String, origin: String },
    /// "Settings", with the settings in use.
    OpenSettings { settings: String },
    /// "Prompts", with the role selected.
    OpenManager { selected: String },
    /// A summary made in the module (with an abort signal).
    Summarize { request: String, settings: String },
    /// The context inspector shown in the element `host`, with reports.
    ShowInspector { host: String, reports: String },
    /// The context inspector removed.
    HideInspector,
    /// "Export chat" of a session.
    OpenExport { session: String },
    /// "Export all", the open chat as on screen.
    ExportAll { session: String },
    /// "Share chat" of a session.
    OpenShare { session: String },
    /// A share link opened.
    OpenShared { fragment: String },
    /// "Import" of the files picked (with the files).
    OpenImport,
    /// "Search chats", the open chat as on screen.
    OpenSearch { session: String },
    /// "Rename chat".
    OpenRename { id: String, title: String },
    /// "Agent" of a chat, with its agent settings.
    OpenAgent { id: String, agent: String },
    /// "Delete chat".
    OpenDelete { id: String, title: String },
    /// "Model for this chat" of chat `id`: `state` is its settings and model as JSON
    /// (`[Settings, Option<ChatModel>]`).
    OpenModel { id: String, state: String },
    /// "Command palette".
    OpenPalette,
    /// "Keyboard shortcuts".
    OpenShortcuts,
}

impl Call for DialogsCall {
    const MODULE: Module = Module::Dialogs;
    fn function(&self) -> &'static str {
        match self {
            DialogsCall::Start { .. } => "start",
            DialogsCall::OpenSetup { .. } => "open_setup",
            DialogsCall::OpenSystem { .. } => "open_system",
            DialogsCall::OpenSettings { .. } => "open_settings",
            DialogsCall::OpenManager { .. } => "open_manager",
            DialogsCall::Summarize { .. } => "summarize",
            DialogsCall::ShowInspector { .. } => "show_inspector",
            DialogsCall::HideInspector => "hide_inspector",
            DialogsCall::OpenExport { .. } => "open_export",
            DialogsCall::ExportAll { .. } => "export_all",
            DialogsCall::OpenShare { .. } => "open_share",
            DialogsCall::OpenShared { .. } => "open_shared",
            DialogsCall::OpenImport => "open_import",
            DialogsCall::OpenSearch { .. } => "open_search",
            DialogsCall::OpenRename { .. } => "open_rename",
            DialogsCall::OpenAgent { .. } => "open_agent",
            DialogsCall::OpenDelete { .. } => "open_delete",
            DialogsCall::OpenModel { .. } => "open_model",
            DialogsCall::OpenPalette => "open_palette",
            DialogsCall::OpenShortcuts => "open_shortcuts",
        }
    }
    fn args(&self) -> [Option<&str>; 2] {
        match self {
            DialogsCall::Start { role, vars } | DialogsCall::OpenSetup { role, vars } => {
                [Some(role), Some(vars)]
            }
            DialogsCall::OpenSystem { text, origin } => [Some(text), Some(origin)],
            DialogsCall::Summarize { request, settings } => [Some(request), Some(settings)],
            DialogsCall::ShowInspector { host, reports } => [Some(host), Some(reports)],
            DialogsCall::OpenRename { id, title } | DialogsCall::OpenDelete { id, title } => {
                [Some(id), Some(title)]
            }
            DialogsCall::OpenAgent { id, agent } => [Some(id), Some(agent)],
            DialogsCall::OpenModel { id, state } => [Some(id), Some(state)],
            DialogsCall::OpenSettings { settings: one }
            | DialogsCall::OpenManager { selected: one }
            | DialogsCall::OpenExport { session: one }
            | DialogsCall::ExportAll { session: one }
            | DialogsCall::OpenShare { session: one }
            | DialogsCall::OpenShared { fragment: one }
            | DialogsCall::OpenSearch { session: one } => [Some(one), None],
            DialogsCall::HideInspector
            | DialogsCall::OpenImport
            | DialogsCall::OpenPalette
            | DialogsCall::OpenShortcuts => [None, None],
        }
    }
    fn object(&self) -> Option<&'static str> {
        match self {
            DialogsCall::Summarize { .. } => Some("AbortSignal"),
            DialogsCall::OpenImport => Some("JsValue"),
            _ => None,
        }
    }
}

/// A call into the turns module (`src/bin/satori-turns.rs`). The texts are JSON where they carry
/// a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnsCall {
    /// Run one turn (a `RunAsk`): the request built (a summary made first when one is due),
    /// sent and its reply read, telling the app what happens as [`TurnEvent`]s (with the
    /// callback that hears them); answers a `RunEnd`.
    Run { ask: String },
    /// The inspector's reports for chat `session`: the next request an `Ask` describes, then
    /// the requests sent in it, newest first (a JSON array).
    Inspect { session: String, ask: String },
    /// Stop the turn writing this reply.
    StopTurn { reply: String },
    /// Storage is full: pack every chat but the open one now.
    PackNow { open: String },
}

impl Call for TurnsCall {
    const MODULE: Module = Module::Turns;
    fn function(&self) -> &'static str {
        match self {
            TurnsCall::Run { .. } => "run",
            TurnsCall::Inspect { .. } => "inspect",
            TurnsCall::StopTurn { .. } => "stop_turn",
            TurnsCall::PackNow { .. } => "pack_now",
        }
    }
    fn args(&self) -> [Option<&str>; 2] {
        match self {
            TurnsCall::Inspect { session, ask } => [Some(session), Some(ask)],
            TurnsCall::Run { ask: one }
            | TurnsCall::StopTurn { reply: one }
            | TurnsCall::PackNow { open: one } => [Some(one), None],
        }
    }
    fn object(&self) -> Option<&'static str> {
        match self {
            TurnsCall::Run { .. } => Some("Function"),
            _ => None,
        }
    }
}

/// A call into the agent module (`src/bin/satori-agent.rs`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentCall {
    /// The tools to offer with a request (JSON), kept for the run that follows.
    Offered,
    /// A planner's reply as a checklist, if it is a plan (`input`: JSON of
    /// [`crate::agent::plan_run::PlanAsk`]).
    PlanChecklist { input: String },
    /// The next step of a plan being run (`input` as for `PlanChecklist`).
    PlanNext { input: String },
    /// Stop the tools running.
    Stop,
    /// Run the tools a reply asked for (its input as JSON).
    Next { input: String },
    /// Check (and repair) a structured reply (its input as JSON).
    Structured { input: String },
}

impl Call for AgentCall {
    const MODULE: Module = Module::Agent;
    fn function(&self) -> &'static str {
        match self {
            AgentCall::Offered => "offered",
            AgentCall::PlanChecklist { .. } => "plan_checklist",
            AgentCall::PlanNext { .. } => "plan_next",
            AgentCall::Stop => "stop",
            AgentCall::Next { .. } => "next",
            AgentCall::Structured { .. } => "structured",
        }
    }
    fn args(&self) -> [Option<&str>; 2] {
        match self {
            AgentCall::PlanChecklist { input }
            | AgentCall::PlanNext { input }
            | AgentCall::Next { input }
            | AgentCall::Structured { input } => [Some(input), None],
            AgentCall::Offered | AgentCall::Stop => [None, None],
        }
    }
}

/// A call into the sync module (`src/bin/satori-sync.rs`), from Settings → Sync (and, for
/// [`SyncCall::Start`], from the page's plain JavaScript).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyncCall {
    /// Sync as stored, when the app is up (made by `src/web/offline.js`).
    Start,
    /// "Start syncing": JSON `{url, user, password, passphrase}`.
    Begin { setup: String },
    /// "Change passphrase" to the new one.
    Rekey { passphrase: String },
    /// "Sync now".
    Now,
    /// "Stop syncing".
    Stop,
    /// The status line as it stands.
    Status,
    /// Where sync goes (JSON `{url, user}`), "" when off.
    Setup,
}

impl Call for SyncCall {
    const MODULE: Module = Module::Sync;
    fn function(&self) -> &'static str {
        match self {
            SyncCall::Start => "start",
            SyncCall::Begin { .. } => "begin",
            SyncCall::Rekey { .. } => "rekey",
            SyncCall::Now => "now",
            SyncCall::Stop => "stop",
            SyncCall::Status => "status",
            SyncCall::Setup => "setup",
        }
    }
    fn args(&self) -> [Option<&str>; 2] {
        match self {
            SyncCall::Begin { setup } => [Some(setup), None],
            SyncCall::Rekey { passphrase } => [Some(passphrase), None],
            _ => [None, None],
        }
    }
}

/// One call of each kind, with distinct texts: what the tests check against the modules' exports.
pub fn every_call() -> Vec<(Module, &'static str, Vec<String>, Option<&'static str>)> {
    fn row<C: Call>(c: C) -> (Module, &'static str, Vec<String>, Option<&'static str>) {
        let args = c.args().into_iter().flatten().map(str::to_string).collect();
        (C::MODULE, c.function(), args, c.object())
    }
    let t = |s: &str| s.to_string();
    vec![
        row(MarkdownCall::Render("a")),
        row(MarkdownCall::StreamCut("a")),
        row(MarkdownCall::PlainWithMath("a")),
        row(DialogsCall::Start {
            role: t("a"),
            vars: t("b"),
        }),
        row(DialogsCall::OpenSetup {
            role: t("a"),
            vars: t("b"),
        }),
        row(DialogsCall::OpenSystem {
            text: t("a"),
            origin: t("b"),
        }),
        row(DialogsCall::OpenSettings { settings: t("a") }),
        row(DialogsCall::OpenManager { selected: t("a") }),
        row(DialogsCall::Summarize {
            request: t("a"),
            settings: t("b"),
        }),
        row(DialogsCall::ShowInspector {
            host: t("a"),
            reports: t("b"),
        }),
        row(DialogsCall::HideInspector),
        row(DialogsCall::OpenExport { session: t("a") }),
        row(DialogsCall::ExportAll { session: t("a") }),
        row(DialogsCall::OpenShare { session: t("a") }),
        row(DialogsCall::OpenShared { fragment: t("a") }),
        row(DialogsCall::OpenImport),
        row(DialogsCall::OpenSearch { session: t("a") }),
        row(DialogsCall::OpenRename {
            id: t("a"),
            title: t("b"),
        }),
        row(DialogsCall::OpenAgent {
            id: t("a"),
            agent: t("b"),
        }),
        row(DialogsCall::OpenDelete {
            id: t("a"),
            title: t("b"),
        }),
        row(DialogsCall::OpenModel {
            id: t("a"),
            state: t("b"),
        }),
        row(DialogsCall::OpenPalette),
        row(DialogsCall::OpenShortcuts),
        row(TurnsCall::Run { ask: t("a") }),
        row(TurnsCall::Inspect {
            session: t("a"),
            ask: t("b"),
        }),
        row(TurnsCall::StopTurn { reply: t("a") }),
        row(TurnsCall::PackNow { open: t("a") }),
        row(AgentCall::Offered),
        row(AgentCall::PlanChecklist { input: t("a") }),
        row(AgentCall::PlanNext { input: t("a") }),
        row(AgentCall::Stop),
        row(AgentCall::Next { input: t("a") }),
        row(AgentCall::Structured { input: t("a") }),
        row(SyncCall::Start),
        row(SyncCall::Begin { setup: t("a") }),
        row(SyncCall::Rekey { passphrase: t("a") }),
        row(SyncCall::Now),
        row(SyncCall::Stop),
        row(SyncCall::Status),
        row(SyncCall::Setup),
    ]
}

/// A [`RoleRef`] as its text (`builtin:key`, `user:key`).
mod role_ref {
    use crate::prompts::RoleRef;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(role: &RoleRef, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&role.encode())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<RoleRef, D::Error> {
        let text = String::deserialize(d)?;
        RoleRef::decode(&text).ok_or_else(|| D::Error::custom(format!("not a role: {text:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key_binding::KeySave;
    use crate::settings::Settings;

    /// One of each dialog event, with values that are not their defaults.
    fn dialog_events() -> Vec<DialogEvent> {
        let role = RoleRef::decode("user:reviewer").expect("a role");
        vec![
            DialogEvent::PromptsChanged,
            DialogEvent::UseRole(role.clone()),
            DialogEvent::Setup(role, [("lang".to_string(), "中文".to_string())].into()),
            DialogEvent::SystemPrompt("Be brief.\n简洁".into()),
            DialogEvent::Settings(SettingsSaved {
                settings: Settings::default(),
                key: KeySave::Remove,
                problem: Some("browser storage is full".into()),
            }),
            DialogEvent::Closed,
            DialogEvent::SummaryEdited("s1".into(), "订单 #4417".into()),
            DialogEvent::ChatContext(ContextOverrides {
                window: Some(4096),
                ..ContextOverrides::default()
            }),
            DialogEvent::Imported,
            DialogEvent::Rename("c1".into(), "\"Quoted\" title".into()),
            DialogEvent::OpenAt("c2".into(), Some("m9".into())),
            DialogEvent::OpenAt("c3".into(), None),
            DialogEvent::Delete("c4".into()),
            DialogEvent::Agent(
                "c5".into(),
                AgentConfig {
                    on: true,
                    max_steps: Some(7),
                    ..AgentConfig::default()
                },
            ),
            DialogEvent::ChatModel(
                "c6".into(),
                Some(ChatModel {
                    name: "qwen-plus".into(),
                    base_url: "https://dashscope.aliyuncs.com/compatible-mode/v1".into(),
                }),
            ),
            DialogEvent::ChatModel("c7".into(), None),
            DialogEvent::Shortcuts,
        ]
    }

    /// Which variant `e` is: a new variant does not compile until it is listed here, and the
    /// round-trip test then asks for a sample of it.
    fn dialog_variant(e: &DialogEvent) -> usize {
        match e {
            DialogEvent::PromptsChanged => 0,
            DialogEvent::UseRole(_) => 1,
            DialogEvent::Setup(..) => 2,
            DialogEvent::SystemPrompt(_) => 3,
            DialogEvent::Settings(_) => 4,
            DialogEvent::Closed => 5,
            DialogEvent::SummaryEdited(..) => 6,
            DialogEvent::ChatContext(_) => 7,
            DialogEvent::Imported => 8,
            DialogEvent::Rename(..) => 9,
            DialogEvent::OpenAt(..) => 10,
            DialogEvent::Delete(_) => 11,
            DialogEvent::Agent(..) => 12,
            DialogEvent::ChatModel(..) => 13,
            DialogEvent::Shortcuts => 14,
        }
    }

    #[test]
    fn every_dialog_event_round_trips() {
        let events = dialog_events();
        let mut seen: Vec<usize> = events.iter().map(dialog_variant).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(
            seen,
            (0..15).collect::<Vec<_>>(),
            "a sample of every variant"
        );
        for e in events {
            let text = e.encode();
            assert_eq!(DialogEvent::decode(&text), Ok(e.clone()), "{text}");
        }
    }

    #[test]
    fn dialog_events_read_as_named_fields() {
        assert_eq!(
            DialogEvent::Rename("c1".into(), "T".into()).encode(),
            r#"{"rename":["c1","T"]}"#
        );
        assert_eq!(
            DialogEvent::UseRole(RoleRef::decode("builtin:coder").expect("a role")).encode(),
            r#"{"use_role":"builtin:coder"}"#
        );
    }

    #[test]
    fn a_bad_detail_is_an_error_not_an_event() {
        assert_eq!(DialogEvent::Closed.encode(), r#""closed""#);
        for bad in [
            "",
            "{}",
            r#""no_such_event""#,
            r#"{"rename":["c1"]}"#,
            r#"{"use_role":"nowhere:x"}"#,
            r#""delete""#,
        ] {
            assert!(DialogEvent::decode(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_import_event_round_trips() {
        use crate::transfer::report::Skipped;
        let mut chat = Session::new("c1".into(), 5, None, Vec::new());
        chat.title = "Trip 旅行".into();
        let report = ChatReport {
            chat: "c1".into(),
            title: "Trip 旅行".into(),
            tool_calls: 2,
            ..ChatReport::default()
        };
        let events = [
            ImportEvent::Read(10, 100, vec![(chat.clone(), Some(report)), (chat, None)]),
            ImportEvent::Read(0, 0, Vec::new()),
            ImportEvent::Again,
            ImportEvent::Done(Ok(Rest {
                settings: true,
                damaged: 1,
                notes: vec!["part 2 is missing".into()],
                skipped: vec![Skipped::new(2, "", "not an object")],
                ..Rest::default()
            })),
            ImportEvent::Done(Err("the file is empty".into())),
        ];
        for e in events {
            let text = e.encode();
            assert_eq!(ImportEvent::decode(&text), Ok(e.clone()), "{text}");
        }
        assert!(ImportEvent::decode(r#"{"read":[1]}"#).is_err());
    }

    #[test]
    fn every_turn_event_round_trips() {
        let events = [
            TurnEvent::Shown {
                content: "Paris 巴黎".into(),
                reasoning: "<think>".into(),
            },
            TurnEvent::Status {
                text: "Retrying in 3 s".into(),
            },
            TurnEvent::Status { text: "".into() },
            TurnEvent::Checkpoint,
            TurnEvent::Summary {
                json: r#"{"id":"s1","text":"订单 #4417"}"#.into(),
            },
        ];
        for e in events {
            // Exhaustive: a new variant needs a sample above.
            match &e {
                TurnEvent::Shown { .. }
                | TurnEvent::Status { .. }
                | TurnEvent::Checkpoint
                | TurnEvent::Summary { .. } => {}
            }
            let (name, a, b) = e.parts();
            assert_eq!(
                TurnEvent::from_parts(name, a.to_string(), b.to_string()),
                Some(e.clone()),
                "{name}"
            );
        }
        assert_eq!(TurnEvent::from_parts("d", "x".into(), "".into()), None);
        assert_eq!(TurnEvent::Checkpoint.parts(), ("checkpoint", "", ""));
    }
}
