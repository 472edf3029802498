//! The one place that turns errors into words a user can act on.

use crate::adapters::modules::ModuleError;
use crate::adapters::storage::StorageError;
use crate::core::provider::error::ApiError;
use crate::core::settings::SettingsError;
use crate::core::startup::LoadProblem;
use crate::core::turn::Alerted;
use crate::core::turn::Note;

/// What the user was talking to when the error happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorContext {
    /// The base URL used.
    pub base_url: String,
    /// The model asked.
    pub model: String,
    /// True when the user never saved settings (the embedded local server is the default).
    pub using_default: bool,
    /// True when the browser says it has no network (`navigator.onLine` is false).
    pub offline: bool,
}

fn with_server_message(text: String, message: &Option<String>) -> String {
    match message {
        Some(m) => format!("{text} The server said: “{m}”"),
        None => text,
    }
}

/// A sentence or two explaining `err` and what to do about it.
pub fn describe(err: &ApiError, ctx: &ErrorContext) -> String {
    match err {
        // The in-browser model's own failures are whole sentences already (no server to blame).
        ApiError::Server {
            message: Some(m), ..
        }
        | ApiError::Http {
            message: Some(m), ..
        }
        | ApiError::InStream { message: m }
            if crate::core::settings::in_browser(&ctx.base_url) =>
        {
            m.clone()
        }
        ApiError::Auth { status, message } => with_server_message(
            format!("The server refused the API key ({status}). Check the key in Settings."),
            message,
        ),
        ApiError::NotFound { message } => with_server_message(
            format!(
                "The server answered 404 Not Found. Check the API base URL ({}) and the model name ({}) in Settings.",
                ctx.base_url, ctx.model
            ),
            message,
        ),
        ApiError::RateLimited { retry_after, message } => with_server_message(
            match retry_after {
                Some(s) => format!("The server is rate limiting requests (429) and asked to wait {s} s. Try again later."),
                None => "The server is rate limiting requests (429). Wait a moment and try again.".into(),
            },
            message,
        ),
        ApiError::Server { status, message } => with_server_message(
            format!("The server had an internal error ({status}). Try again; if it persists, the provider may be down."),
            message,
        ),
        ApiError::Http { status, message } => with_server_message(
            format!("The server rejected the request ({status}). Check the model and settings."),
            message,
        ),
        ApiError::Network if ctx.offline => format!(
            "You are offline, so {} cannot be reached. Your message is kept: send it again when you are back online. Your chats can still be read, searched and exported.",
            ctx.base_url
        ),
        ApiError::Network if ctx.using_default => format!(
            "The built-in local model server is not running at {}. Use the model that runs in this browser (a one-time download of 98 MB), start the server with the README's first command, or open Settings and choose a provider.",
            ctx.base_url
        ),
        ApiError::Network => format!(
            "Could not reach {}. Check that the server is running and the API base URL is right. If it is running, it must allow requests from this page (CORS) — for Ollama set OLLAMA_ORIGINS to this page's origin.",
            ctx.base_url
        ),
        ApiError::Redirected => format!(
            "The server at {} answered with a redirect. Satori does not follow redirects, so your API key never goes to an address you did not enter. Put the final address (https://, exact path) in the API base URL in Settings.",
            ctx.base_url
        ),
        ApiError::NotAStream { content_type, snippet } => {
            let ct = if content_type.is_empty() { "no content type" } else { content_type.as_str() };
            let mut text = format!(
                "The server did not send a stream (it answered with {ct}). Check the API base URL: it should point at an OpenAI-compatible API, usually ending in /v1."
            );
            if !snippet.is_empty() && !content_type.contains("html") {
                text.push_str(&format!(" It said: “{snippet}”"));
            }
            text
        }
        ApiError::InStream { message } => {
            format!("The server reported an error while answering: “{message}”. The partial reply is kept; you can retry.")
        }
        ApiError::Stalled { seconds } => format!(
            "The reply stalled: nothing arrived for {seconds} s. The partial reply is kept; you can retry (the stall timeout is in Settings)."
        ),
        ApiError::Cut => "The connection broke before the reply ended. The partial reply is kept; you can retry.".into(),
        ApiError::BadChunk(detail) => format!("The server sent a stream Satori could not read ({detail}). The partial reply is kept."),
        ApiError::ContextTooLarge { .. } | ApiError::Module(_) | ApiError::PinsTooLarge { .. } => {
            not_sent_text(err)
        }
    }
}

/// The words for a request refused before it was sent (it does not fit, or the turns module
/// failed); other errors are described by the turns module, which sends and reads replies.
fn not_sent_text(err: &ApiError) -> String {
    match err {
        ApiError::ContextTooLarge { need, budget } => format!(
            "Not sent: this message and the chat's system prompt need {need} tokens even when shortened, but only {budget} fit the model's context window after the reply reserve. Shorten the message, or set a larger context window or a smaller reply reserve in Settings."
        ),
        ApiError::PinsTooLarge { pinned, budget } => format!(
            "Not sent: the pinned messages need {pinned} tokens, more than the {budget} that fit the model's context window. Unpin or exclude some of them and send again, or unpin them all and send — Satori does not drop pinned messages on its own."
        ),
        ApiError::Module(what) => module_text(what),
        _ => module_text("failed"),
    }
}

fn module_text(what: &str) -> String {
    format!("Not sent: the part of Satori that builds each request (the turns module) {what}. Check the connection and reload the page; your message is kept.")
}

/// [`not_sent`] for the refusals the app words itself: the turns module could not be reached
/// (its words, `what`; `None`: the request could not even be started). Every other refusal is
/// worded in the turns module, so the app's first load carries none of their words.
pub fn module_not_sent(what: Option<&str>) -> Alerted {
    Alerted {
        text: module_text(what.unwrap_or("failed")),
        retry: true,
        settings: what.is_none(),
        unpin: false,
        local: false,
    }
}

/// The alert for a request refused before it was sent: Retry, or Open Settings when a setting
/// can fix it (a larger window), or unpinning for pins that alone do not fit.
pub fn not_sent(err: &ApiError) -> Alerted {
    let pins = matches!(err, ApiError::PinsTooLarge { .. });
    Alerted {
        text: not_sent_text(err),
        retry: !pins,
        settings: crate::core::turn::settings_may_fix(err),
        unpin: pins,
        local: false,
    }
}

/// Agent mode could not go on: the agent module `what` (could not be loaded, failed).
pub fn agent_failed(what: &str) -> String {
    format!("Agent mode stopped: the part of Satori that runs its tools (the agent module) {what}. Check the connection and reload the page; the chat is kept.")
}

/// The status line while agent mode's tools run.
pub const TOOLS_RUNNING: &str = "Running the tools the model called…";

/// The status line while a reply is checked against its template's `output_schema` (and
/// repaired, if need be).
pub const CHECKING_OUTPUT: &str = "Checking the reply against the template's JSON schema…";

/// The status line while "Run plan" sends step `number` of `total`.
pub fn plan_step(number: usize, total: usize) -> String {
    format!("Running the plan: step {number} of {total}…")
}

/// The status line when every step of a plan is checked off.
pub fn plan_done(total: usize) -> String {
    format!("Plan done: all {total} steps checked off.")
}

/// The status line when a plan cannot run (`why`: what is wrong with it, or the agent module).
pub fn plan_failed(why: &str) -> String {
    format!("The plan cannot run: {why}.")
}

/// The status line when a step of the plan being run did not end with an answer.
pub fn plan_stuck(id: i64) -> String {
    format!("The plan stopped: step {id} did not end with an answer. “Run plan” tries it again.")
}

/// The status line when the server refused the tools and the chat switched to ReAct text.
pub const REACT_SWITCH: &str = "This server does not take tools: agent mode now describes them in the system prompt (ReAct text) for this chat.";

/// The note stored on a reply that ended with `note`.
pub fn note_text(note: &Note) -> String {
    match note {
        Note::Truncated => "Truncated: the reply reached the max tokens limit.".into(),
        Note::Filtered => "Cut short by the provider's content filter.".into(),
        Note::NoAnswer => "The model returned no visible answer.".into(),
        Note::Failed(ApiError::Stalled { seconds }) => {
            format!("stalled: nothing arrived for {seconds} s")
        }
        Note::Failed(ApiError::InStream { message }) => {
            format!("the server reported an error: {message}")
        }
        Note::Failed(ApiError::Cut) => "the connection broke before the reply ended".into(),
        Note::Failed(other) => other.to_string(),
    }
}

/// An edited summary could not be kept.
pub fn summary_not_saved(e: &crate::core::session::SessionError) -> String {
    format!("The summary was not changed ({e}). An empty summary cannot be saved.")
}

/// The status line while older messages are summarized before a request.
pub const SUMMARIZING: &str = "Summarizing older messages to fit the model's context window…";

/// The notice when a summary could not be made and the request went out trimmed instead.
pub fn summary_failed(why: &str) -> String {
    format!("Older messages could not be summarized ({why}), so the oldest were left out of this request instead. The chat history itself is unchanged.")
}

/// Summaries wait after the summarizer failed (`why`).
pub fn summary_paused(why: &str) -> String {
    format!("Older messages were left out of this request instead of summarized: the summarizer failed a moment ago ({why}); Satori asks it again in two minutes. The chat history itself is unchanged.")
}

/// The status line while a rate-limited request waits to be retried.
pub fn retry_status(left: u32, attempt: u32, of: u32) -> String {
    format!("Rate limited by the server; retrying in {left} s (attempt {attempt} of {of}).")
}

/// A message was typed while the chat's prompt was still being prepared, for too long.
pub const STILL_STARTING: &str =
    "This chat is still being set up (its dialogs module has not answered). Try again in a moment.";

/// The chat's prompt cannot be rendered yet (`problem` says why).
pub fn cannot_start(problem: &str) -> String {
    format!(
        "This chat cannot start yet: {problem}. Fill it in under Chat setup, or pick another Role."
    )
}

/// A dialog of the dialogs module (`what`) could not be opened.
pub fn dialog_failed(what: &str, e: &ModuleError) -> String {
    format!("{what} could not be opened: the dialogs module {e}. Reload the page to try again.")
}

/// Why the dialogs module could not answer, as part of a sentence.
pub fn module_problem(e: &ModuleError) -> String {
    format!("the dialogs module {e}")
}

/// The turns module (which builds requests and the inspector's reports) failed.
pub fn context_module_problem(e: &ModuleError) -> String {
    format!("The turns module {e}. Check the connection and reload the page.")
}

/// The markdown renderer could not be loaded.
pub fn markdown_failed(e: &ModuleError) -> String {
    format!(
        "Formatting could not be loaded ({}); replies are shown as plain text. Reload to try again.",
        e.detail()
    )
}

/// What the user is told about a record that could not be loaded at start-up.
pub fn load_problem(p: &LoadProblem) -> String {
    match p {
        LoadProblem::Storage(e) => format!("Browser storage could not be read ({e})."),
        LoadProblem::Index(e) => {
            format!("The chat list could not be read ({e}); it was rebuilt from the stored chats.")
        }
        LoadProblem::SettingsInvalid(e) => format!(
            "Saved settings are not valid ({e}); defaults are in use until you save Settings again."
        ),
        LoadProblem::SettingsUnreadable(e) => {
            format!("Saved settings could not be read ({e}); defaults are in use.")
        }
        LoadProblem::Key(e) => {
            format!("The saved API key could not be read ({e}); enter it again in Settings.")
        }
        LoadProblem::Session(e) => {
            format!("A stored chat could not be read ({e}); it was left untouched in storage.")
        }
    }
}

/// An unreadable record was copied to `key` before being replaced.
pub fn kept_as(key: &str) -> String {
    format!("The unreadable original is kept in browser storage as “{key}”.")
}

/// An unreadable record could not be backed up, so it is left in place.
pub fn not_kept(e: &StorageError) -> String {
    let cause = match e {
        StorageError::QuotaExceeded => "browser storage is full",
        StorageError::Unavailable => "browser storage is unavailable",
        StorageError::Failed(m) => m,
    };
    format!("The unreadable original could not be copied ({cause}), so it is left as it is and the rebuilt list is not saved.")
}

/// The user prompt templates record could not be read (`e` says why).
pub fn prompts_unreadable(e: &str) -> String {
    format!("Your prompt templates could not be read ({e}); they were left untouched in storage.")
}

/// A chat from the list could not be opened (`why` says why).
pub fn chat_unopenable(why: &str) -> String {
    format!("That chat could not be opened: {why}.")
}

/// A role could not start a new chat.
pub fn role_unusable(e: &str) -> String {
    format!("That role could not be used: {e}.")
}

/// The open chat could not be started over with a role.
pub fn role_unusable_here(e: &impl std::fmt::Display) -> String {
    format!("This chat could not be started over with that role: {e}.")
}

/// The system prompt cannot change while a reply streams.
pub const SYSTEM_WHILE_STREAMING: &str =
    "The system prompt was not changed: wait for the reply to finish, or stop it, and save again.";

/// The system prompt could not be changed (`e` says why).
pub fn system_unchanged(e: &impl std::fmt::Display) -> String {
    format!("The system prompt could not be changed: {e}.")
}

/// "Rename chat" with an empty title.
pub const NO_TITLE: &str = "Enter a title.";

/// A reply that ended after the user left its chat could not be added to it.
pub fn reply_not_kept(title: &str, why: &str) -> String {
    format!("A reply in “{title}” ended after you left that chat, but it could not be added to it ({why}). The chat's stored record is left as it is.")
}

/// A stored draft that could not be read was kept under `backup` before the new one was saved.
pub fn draft_kept(backup: &str) -> String {
    format!("This chat's saved draft could not be read; it is kept as it was under the storage key {backup}, and your new draft is saved.")
}

/// The prompt templates changed in storage while the Prompts dialog was open.
pub const PROMPTS_CHANGED_ELSEWHERE: &str = "Your prompt templates were changed elsewhere (another tab or an import) while this dialog was open. Nothing was saved; the list now shows the templates as they are — make your change again.";

/// The open chat was deleted in another tab.
pub const DELETED_ELSEWHERE: &str =
    "The chat you had open was deleted in another tab, so this tab left it too.";

/// Leaving a chat whose latest change could not be saved.
pub const UNSAVED_LEAVE: &str = "This chat's latest changes are not saved: browser storage refused them (it is probably full). Leaving the chat now loses them. Export it first, or leave without saving.";

/// The open chat's role still needs a value (`e` names it).
pub fn not_startable(e: &str) -> String {
    format!("This chat cannot start yet: {e}.")
}

/// "Chat setup" for a user template that was deleted.
pub fn template_gone(key: &str) -> String {
    format!("The template “{key}” no longer exists.")
}

/// A number field of Settings holds something else.
pub const SETTINGS_NOT_NUMBERS: &str =
    "Temperature, max reply tokens, stall timeout, context window, reply reserve and round counts must be numbers.";

/// Settings that do not validate, as a sentence.
pub fn settings_invalid(e: &SettingsError) -> String {
    let mut text = e.to_string();
    if let Some(c) = text.get_mut(0..1) {
        c.make_ascii_uppercase();
    }
    format!("{text}.")
}

/// The prices record is unreadable: it is kept, and Settings leave it alone.
pub fn prices_unreadable(e: &impl std::fmt::Display) -> String {
    format!("The prices of models could not be read ({e}); they were left untouched in storage, and no cost is shown until this is fixed.")
}

/// The user templates record is unreadable, so the Prompts dialog cannot save.
pub fn prompts_unsavable(e: &impl std::fmt::Display) -> String {
    format!("Your prompt templates could not be read ({e}); they were left untouched in storage, and changes cannot be saved until this is fixed.")
}

/// A prompt with that name exists already.
pub fn prompt_name_taken(key: &str) -> String {
    format!("You already have a prompt named “{key}”. Choose another name (the first line of the template).")
}

/// An import was refused; `sep` joins the reason (": " inline, ".\n" for a list).
pub fn nothing_imported(sep: &str, e: &str) -> String {
    format!("Nothing was imported{sep}{e}")
}

/// A file over the import limit (sizes in bytes).
pub fn import_too_large(name: &str, size: f64, limit: f64) -> String {
    format!(
        "Nothing was imported.\n{name} is {:.1} MB; a prompt file may be at most {} KB.",
        size / 1_048_576.0,
        limit / 1024.0
    )
}

/// A picked file is not text.
pub fn not_text(name: &str) -> String {
    format!("{name} could not be read as text.")
}

/// A download could not be started.
pub fn export_failed(e: &impl std::fmt::Display) -> String {
    format!("Export failed: {e}.")
}

/// "Export chat" could not make the file.
pub fn file_not_made(e: &impl std::fmt::Display) -> String {
    format!("The file could not be made: {e}.")
}

/// "Undo import" failed.
pub fn undo_failed(e: &impl std::fmt::Display) -> String {
    format!("The import could not be undone: {e}.")
}

/// An import failed (`e`); taking back what it wrote failed too for the records `failed`.
pub fn import_failed(e: &impl std::fmt::Display, failed: &[String]) -> String {
    if failed.is_empty() {
        format!("Nothing was imported: {e}.")
    } else {
        format!(
            "The import failed ({e}), and taking back what it had written also failed ({}): some chats may have been added.",
            failed.join("; ")
        )
    }
}

/// The browser refused to copy the share link.
pub const NOT_COPIED: &str =
    "The browser did not allow copying to the clipboard: select the link and copy it.";

/// The open chat cannot be put in a link.
pub fn not_shareable(e: &impl std::fmt::Display) -> String {
    format!("This chat cannot be shared by link: {e}. Export it as a file instead.")
}

/// A share link that cannot be opened.
pub fn link_unopenable(e: &impl std::fmt::Display) -> String {
    format!("This share link cannot be opened: {e}. Nothing was saved.")
}

/// "Save a copy" of a shared chat saved nothing.
pub const NOTHING_SAVED: &str = "Nothing was saved.";

/// A share link opened while another dialog is open.
pub const LINK_WAITS: &str = "another dialog is open; close it and open the link again";

/// The stored MCP servers cannot be read (`e`).
pub fn mcp_unreadable(e: &impl std::fmt::Display) -> String {
    format!("The stored MCP servers cannot be read ({e}); they are left as they are.")
}

/// An MCP server was not added (or, `added` false, listed again) because of `e`.
pub fn mcp_not_listed(added: bool, e: &impl std::fmt::Display) -> String {
    let what = if added { "added" } else { "listed again" };
    format!("The MCP server was not {what}: {e}.")
}

/// The MCP servers could not be saved (with the settings saved).
pub fn mcp_not_saved(e: &StorageError) -> String {
    format!("The MCP servers: {}", describe_storage(e))
}

/// The server has no model list to offer.
pub const NO_MODEL_LIST: &str = "The server offered no model list; type the model name.";

/// The interface language changed but was not stored.
pub fn language_not_kept(e: &impl std::fmt::Display) -> String {
    format!("The language is in use, but it could not be remembered: {e}.")
}

/// The theme is in use, but could not be remembered (`e`: why).
pub fn theme_not_kept(e: &impl std::fmt::Display) -> String {
    format!("The theme is in use, but it could not be remembered: {e}.")
}

/// How much storage is used cannot be read.
pub fn storage_use_unreadable(e: &impl std::fmt::Display) -> String {
    format!("Storage use cannot be read ({e}).")
}

/// A tool result (sent to the model): there is no tool of that name.
pub fn no_such_tool(name: &str) -> String {
    format!("Error: there is no tool `{name}`.")
}

/// A tool result (sent to the model): the tool failed as `why` says.
pub fn tool_error(why: &impl std::fmt::Display) -> String {
    format!("Error: {why}")
}

/// A tool result (sent to the model): Stop ended the call before it finished (or ran).
pub const TOOL_STOPPED: &str = "Error: stopped by the user before this tool finished.";

/// A tool result (sent to the model): the user answered "Deny" in "Allow tool call".
pub const TOOL_DENIED: &str =
    "Error: the user denied this call, so it did not run. Do not call it again unless the user asks.";

/// Settings, once: Satori is served under `folder` of `origin`, whose other pages could read
/// what it keeps.
pub fn shared_origin(folder: &str, origin: &str) -> String {
    format!("Satori is served under the folder {folder} of {origin}. Every other page of that origin can read what Satori keeps in this browser, your API key and chats included. Give Satori an origin of its own, such as a subdomain (see the README on hosting).")
}

/// What went wrong talking to the sync folder at `url`, and what to do.
pub fn dav_problem(url: &str, e: &crate::adapters::webdav::DavError) -> String {
    use crate::adapters::webdav::DavError::*;
    match e {
        Unreachable => format!("Could not reach {url}: the server is down, the address is wrong, or it does not allow requests from this page (CORS: it must allow this page's origin, the methods GET, PUT, PROPFIND and MKCOL, the headers Authorization, Content-Type, Depth, If-Match and If-None-Match, and expose ETag)."),
        MixedContent => format!("This page is served over https://, so the browser will not send anything to {url} over plain http://. Use the server's https:// address."),
        Refused(status) => format!("{url} refused the user name or password (HTTP {status}). Check them in Settings."),
        NoFolder(status) => format!("{url} has no such folder (HTTP {status}). Check the WebDAV URL, or create the folder on the server."),
        Full => format!("{url} is full (HTTP 507): free some space on the server. Nothing was lost; the changes wait here."),
        Changed => format!("{url} changed while this device was writing; it will read it again and merge."),
        Redirected => format!("{url} answered with a redirect, which Satori never follows with your password. Use the address it redirects to."),
        Status(status) => format!("{url} answered HTTP {status}."),
        Aborted => "Sync was stopped.".into(),
        TimedOut => format!("{url} did not answer within a minute."),
        NotListing(why) => format!("{url} is not a WebDAV folder: {why}."),
    }
}

/// Why sync could not go on at `url`, and what to do.
pub fn sync_problem(url: &str, e: &crate::shell::sync_error::SyncError) -> String {
    use crate::adapters::crypto::CryptoError;
    use crate::shell::sync_error::SyncError;
    match e {
        SyncError::Dav(d) => dav_problem(url, d),
        SyncError::Crypto(CryptoError::WrongPassphrase) => "This encryption passphrase is not the one the sync folder was started with, so nothing was read or written. Type the passphrase your other devices sync with.".into(),
        SyncError::Crypto(c) => format!("Sync cannot go on: {c}."),
        SyncError::Url(why) => format!("The WebDAV URL cannot be used: {why}."),
        SyncError::Local(why) => format!("This device's chats could not be read ({why}), so nothing was synced and nothing was taken as deleted."),
        SyncError::NoAccount => format!("Sync cannot start: {e}."),
        SyncError::AccountChanged => "The sync folder's encryption passphrase was changed on another device, so nothing was written. Choose Stop syncing, then Start syncing with the new passphrase.".into(),
        SyncError::NotRekeyed(why) => format!("The passphrase was not changed: {why}."),
        SyncError::WeakEtags => format!("{url} gives only weak ETags (W/…), and no write can be made conditional on one, so Satori wrote nothing rather than risk writing over another device's changes. Use a WebDAV server that gives strong ETags (WsgiDAV, Apache mod_dav, Nextcloud, rclone)."),
    }
}

/// Sync's status line: in step at `time` (the local time of day), what could not be read or
/// written (`damaged`: objects of the folder; `not_stored`: chats here).
pub fn sync_done(time: &str, damaged: usize, not_stored: usize) -> String {
    let mut out = format!("Synced at {time}.");
    if damaged > 0 {
        out.push_str(&format!(" {damaged} record(s) on the server could not be opened (damaged, or written by a newer Satori): they were left as they are and nothing here was deleted."));
    }
    if not_stored > 0 {
        out.push_str(&format!(" {not_stored} chat(s) from the server could not be saved in this browser (is its storage full?): they are tried again on the next sync."));
    }
    out
}

/// Sync's status line after the passphrase changed (`left`: old objects not removed).
pub fn sync_rekeyed(left: usize) -> String {
    let mut out = "The passphrase was changed: everything on the server is encrypted with the new one. Type it on your other devices (Stop syncing, then Start syncing).".to_string();
    if left > 0 {
        out.push_str(&format!(" {left} old record(s) could not be removed from the server; nothing can open them now."));
    }
    out
}

/// Sync's status line when other devices kept writing the chats this one was sending.
pub fn sync_contended(waiting: usize) -> String {
    format!("{waiting} change(s) waiting: other devices kept writing the same chats meanwhile. Satori tries again in a few seconds; nothing is lost.")
}

/// Sync's status line when the folder cannot be reached: `waiting` chats changed here wait.
pub fn sync_offline(waiting: usize, detail: &str) -> String {
    format!("Offline: {waiting} change(s) waiting. They are sent when the server answers again. {detail}")
}

/// A tool result (sent to the model): the tool's server was removed in Settings meanwhile.
pub fn tool_server_removed(server: &str) -> String {
    format!("Error: the MCP server {server} was removed in Settings, so this call was not sent.")
}

/// Why "Allow tool call" asks, given what the chat took in (`exposure`).
pub fn why_ask(exposure: crate::core::agent::trust::Exposure) -> String {
    let mut why = Vec::new();
    if exposure.private {
        why.push("This chat has read your other chats (search_chats): the arguments may carry what it found.");
    }
    if exposure.untrusted {
        why.push("This chat has taken in text Satori did not write (a tool's result, or an imported or shared chat), which may tell the model to send your data out.");
    }
    if why.is_empty() {
        why.push("This server's calls ask first (its setting in Settings, MCP servers).");
    }
    why.join("\n")
}

/// A tool result (sent to the model): a tool that is not called like the others.
pub const TOOL_RUNS_ALONE: &str = "Error: this tool runs on its own.";

/// A tool result (sent to the model): the stored chats cannot be read.
pub fn chats_unreadable_for_tool(e: &impl std::fmt::Display) -> String {
    format!("Error: the stored chats could not be read ({e}).")
}

/// The planner has no template to plan with.
pub const NO_PLANNER: &str = "Plan unavailable: the planner template is missing.";

/// Why part of what "Export all" writes is missing: storage could not be read.
pub fn storage_unreadable(e: &impl std::fmt::Display) -> String {
    format!("browser storage could not be read ({e})")
}

/// Why part of what "Export all" writes is missing: `n` stored chats are unreadable.
pub fn chats_left_out(n: usize) -> String {
    format!("{n} stored chat(s) could not be read at all and are not in the file (they are kept as they are)")
}

/// A picked file the browser could not read (its words), as part of a sentence.
pub fn file_unreadable(why: &str) -> String {
    format!("the file could not be read ({why})")
}

/// A file (`name`) refused by "Import" because of `e`.
pub fn not_importable(name: &str, e: &impl std::fmt::Display) -> String {
    format!("{name} cannot be imported: {e}. Nothing was changed.")
}

/// "Search chats": `n` stored chats could not be searched (empty when none).
pub fn chats_not_searched(n: usize) -> String {
    match n {
        0 => String::new(),
        n => format!(" {n} chat(s) could not be read and were not searched."),
    }
}

/// A plan that cannot run (`why`, as HTML already escaped), in the checklist.
pub fn plan_unrunnable_html(why_html: &str) -> String {
    format!("<p class=\"hint\">This plan cannot run: {why_html}.</p>")
}

/// The model's request for structured output (or its repair) failed: who asked, and why.
pub fn request_failed(who: &str, e: &impl std::fmt::Display) -> String {
    format!("{who} request failed ({e}).")
}

/// A template's `output_schema` that cannot be used.
pub fn schema_unusable(e: &impl std::fmt::Display) -> String {
    format!("the template's output_schema cannot be used: {e}")
}

/// A summary request the dialogs module could not read.
pub const SUMMARY_REQUEST_UNREADABLE: &str = "the summary request could not be read";

/// The chat handed to a dialog could not be read, as part of a sentence.
pub fn chat_unreadable(e: &impl std::fmt::Display) -> String {
    format!("the chat could not be read ({e})")
}

/// The stored prompt templates could not be read, as part of a sentence.
pub fn templates_unreadable(e: &impl std::fmt::Display) -> String {
    format!("your prompt templates could not be read ({e})")
}

/// The stored chat list could not be read, as part of a sentence.
pub fn list_unreadable(e: &impl std::fmt::Display) -> String {
    format!("the chat list record could not be read ({e})")
}

/// The inspector's title of a request whose summary waits after the summarizer failed.
pub fn summary_waits(title: &str) -> String {
    format!("{title} (older turns left out: the summarizer failed a moment ago)")
}

/// Words for a storage failure while saving.
pub fn describe_storage(err: &StorageError) -> String {
    match err {
        StorageError::QuotaExceeded => "Browser storage is full, so the latest change was not saved. Your chat stays on screen: export it, or delete old chats to make room.".into(),
        StorageError::Unavailable => "Browser storage is unavailable (private mode or blocked), so chats will not be kept after this tab closes.".into(),
        StorageError::Failed(m) => format!("Saving failed ({m}). Your open chat stays on screen."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(default: bool) -> ErrorContext {
        ErrorContext {
            base_url: "http://127.0.0.1:8080/v1".into(),
            model: "m".into(),
            using_default: default,
            offline: false,
        }
    }

    #[test]
    fn offline_says_so_first() {
        let offline = ErrorContext {
            offline: true,
            ..ctx(true)
        };
        let text = describe(&ApiError::Network, &offline);
        assert!(text.starts_with("You are offline"), "{text}");
        assert!(!describe(&ApiError::Network, &ctx(true)).contains("offline"));
    }

    #[test]
    fn each_error_names_the_action() {
        let cases: Vec<(ApiError, bool, &str)> = vec![
            (
                ApiError::Auth {
                    status: 401,
                    message: Some("Incorrect API key".into()),
                },
                false,
                "Check the key in Settings",
            ),
            (ApiError::NotFound { message: None }, false, "API base URL"),
            (
                ApiError::RateLimited {
                    retry_after: Some(3),
                    message: None,
                },
                false,
                "wait 3 s",
            ),
            (
                ApiError::Server {
                    status: 502,
                    message: None,
                },
                false,
                "internal error (502)",
            ),
            (ApiError::Network, false, "CORS"),
            (ApiError::Network, true, "open Settings"),
            (ApiError::Redirected, false, "does not follow redirects"),
            (
                ApiError::NotAStream {
                    content_type: "text/html".into(),
                    snippet: "<html>".into(),
                },
                false,
                "did not send a stream",
            ),
            (
                ApiError::InStream {
                    message: "overloaded".into(),
                },
                false,
                "overloaded",
            ),
            (ApiError::Stalled { seconds: 60 }, false, "60 s"),
            (ApiError::Cut, false, "partial reply is kept"),
        ];
        for (err, default, needle) in cases {
            let text = describe(&err, &ctx(default));
            assert!(text.contains(needle), "{err:?}: {text}");
        }
        assert!(!describe(
            &ApiError::NotAStream {
                content_type: "text/html".into(),
                snippet: "<b>".into()
            },
            &ctx(false)
        )
        .contains("<b>"));
    }

    #[test]
    fn the_in_browser_model_speaks_for_itself() {
        let said = "This copy of Satori is served without the in-browser model.";
        // As the fetch adapter routes it: a trailing slash still reaches the model in the page.
        let local = ErrorContext {
            base_url: format!("{}/", crate::core::settings::IN_BROWSER_URL),
            ..ctx(false)
        };
        for err in [
            ApiError::Server {
                status: 501,
                message: Some(said.into()),
            },
            ApiError::Http {
                status: 400,
                message: Some(said.into()),
            },
            ApiError::InStream {
                message: said.into(),
            },
        ] {
            assert_eq!(describe(&err, &local), said);
            assert!(describe(&err, &ctx(false)).starts_with("The server"));
        }
    }

    #[test]
    fn module_failures_read_as_sentences() {
        let load = ModuleError::Load("Failed to fetch".into());
        assert_eq!(
            dialog_failed("Prompts", &load),
            "Prompts could not be opened: the dialogs module could not be loaded (Failed to fetch). Reload the page to try again."
        );
        assert_eq!(
            cannot_start(&module_problem(&ModuleError::Call("boom".into()))),
            "This chat cannot start yet: the dialogs module failed (boom). Fill it in under Chat setup, or pick another Role."
        );
        assert_eq!(
            markdown_failed(&load),
            "Formatting could not be loaded (Failed to fetch); replies are shown as plain text. Reload to try again."
        );
    }
}
