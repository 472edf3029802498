//! "Export chat", "Export all" and "Import" (they run in the dialogs module; the app opens them
//! through `adapters::dialogs_module`). Export writes Satori's export format
//! (`core::transfer::format`) or, for one chat, Markdown; never the API key, which lives in a
//! record export does not read. Import reads the whole file and checks it before anything is
//! written, shows what it will do, writes with a backup (all or nothing), and offers "Undo import".
//! What was picked — one file, an export's `.zip`, or its parts picked together — is read in the
//! import worker (`adapters::import_worker`), which posts its chats as it converts them: the page
//! keeps only those, planning the merge as they arrive, and shows how much was read.

use crate::adapters::clock::{new_id, now_ms};
use crate::adapters::download::{download, download_blob};
use crate::adapters::import_worker::{self, ImportWorker, Picked};
use crate::adapters::storage::Store;
use crate::core::persist;
use crate::core::protocol::ImportEvent;
use crate::core::session::Session;
use crate::core::transfer::archive::{self, Carried};
use crate::core::transfer::import::{Plan, Planner, Rest, Skipped};
use crate::core::transfer::report::{skipped_lead, skipped_more, NAMED};
use crate::core::transfer::zip::Entry;
use crate::core::transfer::{format, markdown, parts};
use crate::shell::files;
use crate::shell::store::{stored_chats, stored_prompts, Stored};
use crate::ui::components::form::FilePicker;
use crate::ui::components::modal::Modal;
use leptos::prelude::*;

/// What "Export all" did, or has yet to do.
pub enum ExportAll {
    /// Saved as JSON: what could not be included, one item per line.
    Saved(String),
    /// The chats name files: a `.zip` of the export and the files is to be made, which takes a
    /// while ([`ExportAllDialog`]).
    WithFiles(Pending),
}

/// An export waiting for its files.
pub struct Pending {
    /// The export file.
    text: String,
    /// The files its chats name.
    carried: Vec<Carried>,
    /// What could not be included, one item per line.
    warnings: String,
    /// When it was made.
    now: i64,
}

/// Download every chat (the open one as it is on screen, `current`), the prompt templates and
/// the settings (never the key): as JSON, or — when the chats name attached files — as a `.zip`
/// with them, made by [`ExportAllDialog`].
pub fn export_all(current: Option<Session>) -> Result<ExportAll, String> {
    let store = Store::local();
    let mut warnings = Vec::new();
    let Stored {
        mut chats,
        unreadable,
        raw,
    } = stored_chats(&store).unwrap_or_else(|e| {
        warnings.push(crate::shell::error_text::storage_unreadable(&e));
        Stored {
            chats: Vec::new(),
            unreadable: Vec::new(),
            raw: Vec::new(),
        }
    });
    if let Some(current) = current {
        chats.retain(|s| s.id != current.id);
        chats.push(current);
    }
    chats.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(a.id.cmp(&b.id)));
    if unreadable.len() > raw.len() {
        warnings.push(crate::shell::error_text::chats_left_out(
            unreadable.len() - raw.len(),
        ));
    }
    let prompts = stored_prompts(&store)
        .map_err(|e| warnings.push(format!("{e}; they are not in the file")))
        .ok();
    let settings = store
        .get(persist::KEY_SETTINGS)
        .ok()
        .flatten()
        .and_then(|t| persist::decode_settings(&t).ok())
        .and_then(|s| serde_json::to_value(s).ok());
    let now = now_ms();
    let refs: Vec<&Session> = chats.iter().collect();
    // Damaged chat records go in as they are stored ("unreadable"), for repair elsewhere.
    let text = format::export(&refs, prompts.as_ref(), settings, raw, now);
    let carried = archive::carried(refs);
    if !carried.is_empty() {
        return Ok(ExportAll::WithFiles(Pending {
            text,
            carried,
            warnings: warnings.join("\n"),
            now,
        }));
    }
    download(
        &format::file_name("all", now, "json"),
        "application/json",
        &text,
    )?;
    Ok(ExportAll::Saved(warnings.join("\n")))
}

/// Download the export `text` of `what` (`chat`, `all`) made at `now`: a `.zip` with the files
/// `carried` that this browser holds, or the JSON alone when it holds none — unless `open()`
/// says the dialog closed meanwhile. How many files went in, and how many could not be read.
async fn save_export(
    what: &str,
    text: &str,
    carried: &[Carried],
    now: i64,
    open: &dyn Fn() -> bool,
) -> Result<(usize, usize), String> {
    match files::export_archive(text, carried, now).await? {
        // The dialog closed (cancelled) while the files were read: nothing is saved.
        Some(_) if !open() => Ok((0, 0)),
        Some(a) => {
            download_blob(&format::file_name(what, now, "zip"), &a.zip)?;
            Ok((a.files, a.unreadable))
        }
        None => {
            download(
                &format::file_name(what, now, "json"),
                "application/json",
                text,
            )?;
            Ok((0, 0))
        }
    }
}

/// What saving left out: files this browser holds but could not read.
fn unreadable_files(n: usize) -> String {
    match n {
        0 => String::new(),
        1 => "1 file could not be read from this browser's storage and is not in it.".into(),
        n => format!("{n} files could not be read from this browser's storage and are not in it."),
    }
}

/// "Export all" of chats that name files: the `.zip` being made, then what was saved.
#[component]
pub fn ExportAllDialog(
    /// The export waiting for its files.
    pending: Pending,
    /// Closes the dialog.
    on_close: Callback<()>,
) -> impl IntoView {
    let Pending {
        text,
        carried,
        warnings,
        now,
    } = pending;
    let status = RwSignal::new(format!(
        "Putting the chats and their {} files in a .zip…",
        carried.iter().filter(|c| !c.extracted).count()
    ));
    let problem = RwSignal::new(String::new());
    let left_out: Vec<String> = warnings
        .lines()
        .map(|w| format!("The file was saved, but {w}."))
        .collect();
    leptos::task::spawn_local(async move {
        let open = move || !status.is_disposed();
        let said = match save_export("all", &text, &carried, now, &open).await {
            Ok((n, unreadable)) => (saved_files(n), unreadable_files(unreadable)),
            Err(e) => (String::new(), crate::shell::error_text::file_not_made(&e)),
        };
        // (The dialog may have been closed meanwhile.)
        status.try_set(said.0);
        problem.try_set(said.1);
    });
    view! {
        <Modal title="Export all" on_close=on_close>
            <p role="status">{move || status.get()}</p>
            {left_out.into_iter().map(|w| view! { <p>{w}</p> }).collect_view()}
            <p role="alert" class="form-error">{move || problem.get()}</p>
            <div class="dialog-actions">
                <button type="button" on:click=move |_| on_close.run(())>"Close"</button>
            </div>
        </Modal>
    }
}

/// What an export with `n` files saved says.
fn saved_files(n: usize) -> String {
    match n {
        0 => "Saved as JSON: this browser holds none of the files the chats name.".into(),
        1 => "Saved as a .zip: the export file and 1 file.".into(),
        n => format!("Saved as a .zip: the export file and {n} files."),
    }
}

/// "Export chat": the chat on screen as Satori's JSON (complete) or Markdown (the branch shown).
#[component]
pub fn ExportDialog(
    /// The chat, as it is on screen.
    session: Session,
    /// Closes the dialog.
    on_close: Callback<()>,
) -> impl IntoView {
    let carried = archive::carried([&session]);
    let with_files = carried.iter().filter(|c| !c.extracted).count();
    let carried = StoredValue::new(carried);
    let session = StoredValue::new(session);
    let problem = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    // `with_files`: the JSON and the files, as a `.zip`; else the JSON alone.
    let save = move |markdown_too: bool, with_files: bool| {
        let now = now_ms();
        if markdown_too {
            let result = session.with_value(|s| {
                download(
                    &format::file_name("chat", now, "md"),
                    "text/markdown",
                    &markdown::markdown(s, now),
                )
            });
            match result {
                Ok(()) => on_close.run(()),
                Err(e) => problem.set(crate::shell::error_text::file_not_made(&e)),
            }
            return;
        }
        let text = session.with_value(|s| format::export(&[s], None, None, Vec::new(), now));
        if !with_files {
            match download(
                &format::file_name("chat", now, "json"),
                "application/json",
                &text,
            ) {
                Ok(()) => on_close.run(()),
                Err(e) => problem.set(crate::shell::error_text::file_not_made(&e)),
            }
            return;
        }
        busy.set(true);
        leptos::task::spawn_local(async move {
            let Some(carried) = carried.try_get_value() else {
                return;
            };
            // (The dialog may have been closed meanwhile: then nothing more is said.)
            let open = move || !busy.is_disposed();
            match save_export("chat", &text, &carried, now, &open).await {
                Ok((_, 0)) => {
                    on_close.try_run(());
                }
                Ok((_, unreadable)) => {
                    busy.try_set(false);
                    problem.try_set(unreadable_files(unreadable));
                }
                Err(e) => {
                    busy.try_set(false);
                    problem.try_set(crate::shell::error_text::file_not_made(&e));
                }
            }
        });
    };
    let count = session.with_value(|s| s.messages.len());
    let lead = if with_files == 0 {
        format!("JSON keeps everything ({count} messages with every branch, summaries and settings of this chat) and can be imported again; Markdown is the conversation on screen, for reading. Neither contains your API key.")
    } else {
        format!("ZIP keeps everything ({count} messages with every branch, summaries and settings of this chat, as JSON, and the {with_files} files its messages carry) and can be imported again; JSON alone names the files without them; Markdown is the conversation on screen, for reading. None contains your API key.")
    };
    view! {
        <Modal title="Export chat" on_close=on_close>
            <p>{lead}</p>
            <p role="alert" class="form-error">{move || problem.get()}</p>
            <div class="dialog-actions">
                {(with_files > 0).then(|| view! {
                    <button type="button" disabled=move || busy.get() on:click=move |_| save(false, true)>
                        "Download ZIP"
                    </button>
                })}
                <button type="button" disabled=move || busy.get() on:click=move |_| save(false, false)>
                    "Download JSON"
                </button>
                <button type="button" on:click=move |_| save(true, false)>"Download Markdown"</button>
                <button type="button" on:click=move |_| on_close.run(())>"Cancel"</button>
            </div>
        </Modal>
    }
}

/// Where the import dialog is.
#[derive(Clone)]
enum Step {
    /// Waiting for a file.
    Choose,
    /// Reading and checking it.
    Reading(String),
    /// Checked: what importing it would do.
    Preview { name: String, plan: Box<Plan> },
    /// Written: what was imported ([`Plan::summary_head`]), what was skipped, and what became
    /// of the files of a `.zip` (a sentence each; none when it carried none); whether it can be
    /// undone (it wrote chats or templates).
    Done(String, Vec<Skipped>, Vec<String>, bool),
    /// Undone.
    Undone,
}

/// Bytes read of a file's total, while the import worker reads it.
type Progress = RwSignal<Option<(u64, u64)>>;

/// Where the import worker is kept while it reads: the dialog ends it when it closes.
type Running = StoredValue<Option<ImportWorker>, LocalStorage>;

/// The `.zip` being imported and its entries: Satori's export with files, or another app's
/// export with images.
type Zipped = StoredValue<Option<(web_sys::File, Vec<Entry>)>, LocalStorage>;

/// Read and check `files` in the import worker — one file; or the parts of a ChatGPT export
/// (the others picked with them counted, not read); or its `.zip` — planning the merge against
/// what is stored as the chats arrive.
async fn examine(
    files: Vec<web_sys::File>,
    progress: Progress,
    running: Running,
    zipped: Zipped,
) -> Result<Plan, String> {
    let is_part = |f: &web_sys::File| parts::kind(&f.name()) != parts::Kind::Other;
    zipped.set_value(None);
    let picked = match files.as_slice() {
        // Satori's own export with files: its export file read as any is. Its files, or
        // another app's images, are restored on "Import".
        [one] if is_zip(one) => {
            let entries = files::listing(one).await?.unwrap_or_default();
            let json = files::satori_json(one, &entries).await?;
            zipped.set_value(Some((one.clone(), entries)));
            match json {
                Some(json) => Picked::One(json),
                None => Picked::Zip(one.clone()),
            }
        }
        // One part of an export in parts: read as such, so the parts it lacks are said.
        [one]
            if matches!(
                parts::kind(&one.name()),
                parts::Kind::Conversations(Some(_))
            ) =>
        {
            Picked::Parts(files)
        }
        [one] => Picked::One(one.clone()),
        many if many
            .iter()
            .any(|f| is_part(f) && parts::kind(&f.name()) != parts::Kind::Manifest) =>
        {
            Picked::Parts(files)
        }
        _ => return Err("choose one file at a time; several files are read together only as the parts of a ChatGPT export (conversations-000.json, conversations-001.json, …)".into()),
    };
    read_in_worker(&picked, progress, running).await
}

/// What was picked, read in the import worker: its chats planned as they arrive (each event is
/// one task of the page's), `progress` following the bytes read.
async fn read_in_worker(
    picked: &Picked,
    progress: Progress,
    running: Running,
) -> Result<Plan, String> {
    use std::cell::RefCell;
    use std::rc::Rc;
    let store = Store::local();
    let stored = Rc::new(stored_chats(&store)?);
    let prompts = stored_prompts(&store)?;
    let planner = Rc::new(RefCell::new(Planner::new(
        &stored.chats,
        &stored.unreadable,
    )));
    let (done, ended) = futures::channel::oneshot::channel::<Result<Rest, String>>();
    let mut done = Some(done);
    let planning = planner.clone();
    let worker = import_worker::start(picked, move |event| {
        let end = match event {
            Ok(ImportEvent::Read(read, total, chats)) => {
                progress.set(Some((read, total)));
                let mut planner = planning.borrow_mut();
                for (chat, report) in chats {
                    planner.take(chat, report, &mut new_id);
                }
                return;
            }
            Ok(ImportEvent::Again) => {
                *planning.borrow_mut() = Planner::new(&stored.chats, &stored.unreadable);
                return;
            }
            Ok(ImportEvent::Done(end)) => end,
            Err(e) => Err(crate::shell::error_text::file_unreadable(&e)),
        };
        if let Some(done) = done.take() {
            let _ = done.send(end);
        }
    })
    .map_err(|e| crate::shell::error_text::file_unreadable(&e))?;
    running.set_value(Some(worker));
    // The dialog closed (the worker ended with it): nothing more to do.
    let end = ended.await.map_err(|_| String::new())?;
    running.set_value(None);
    let rest = end?;
    let planner = Rc::try_unwrap(planner)
        .map_err(|_| String::new())?
        .into_inner();
    Ok(planner.finish(&prompts, rest))
}

/// Files a `.zip` carries for the chats of `plan`: Satori's files, or the images its chats want.
fn carried(zip: Option<&(web_sys::File, Vec<Entry>)>, plan: &Plan) -> usize {
    let Some((_, entries)) = zip else { return 0 };
    let own = entries
        .iter()
        .filter(|e| e.name.starts_with(archive::FILES) && archive::entry_hash(&e.name).is_some())
        .count();
    let holders = archive::Holders::new(entries);
    let wanted = archive::wanted(&plan.add)
        .iter()
        .filter(|w| holders.of(&w.id).next().is_some())
        .count();
    own + wanted
}

/// Restore from the `.zip` being imported (`zip`: it and its entries) the files the chats of
/// `plan`, or chats already here (an identical chat in the file is skipped, its files may be
/// missing), name, and the images the chats of another app's export want; then make every chat's
/// attachments what was found — while `open()` (the dialog is still there). What it did, in
/// sentences; the error is a sentence of why nothing was imported (storage full).
async fn restore_files(
    zip: Option<&(web_sys::File, Vec<Entry>)>,
    plan: &mut Plan,
    open: &dyn Fn() -> bool,
) -> Result<Vec<String>, String> {
    let wanted = archive::wanted(&plan.add);
    let mut found = std::collections::BTreeMap::new();
    let mut done = files::Restored::default();
    let mut unchecked = String::new();
    if let Some((zip, entries)) = zip {
        let full = |e: crate::adapters::js::JsError| {
            if e.name == "QuotaExceededError" {
                "Nothing was imported: the browser's storage is too full for the files of this export. Delete old chats or attachments, then import again.".to_string()
            } else {
                format!(
                    "Nothing was imported: its files could not be kept ({}).",
                    e.message
                )
            }
        };
        let stored = stored_chats(&Store::local())?;
        let needed = files::needed(plan.add.iter().chain(&stored.chats));
        let restored = match files::restore(zip, entries, &needed, open).await {
            Ok(own) if wanted.is_empty() => Ok((own, std::collections::BTreeMap::new())),
            Ok(own) => files::restore_wanted(zip, entries, &wanted, open)
                .await
                .map(|(images, more)| {
                    let both = files::Restored {
                        restored: own.restored + more.restored,
                        damaged: own.damaged + more.damaged,
                    };
                    (both, images)
                }),
            Err(e) => Err(e),
        };
        match restored {
            Ok((both, images)) => {
                done = both;
                found = images;
            }
            // Without WebCrypto no file can be checked: the chats come in without them.
            Err(e) if e.message == files::NOT_CHECKED => {
                unchecked = format!("No file was restored: {}.", files::NOT_CHECKED);
            }
            Err(e) => return Err(full(e)),
        }
    }
    // What was not found stays named in its message's text; nothing but attachments is stored.
    for chat in &mut plan.add {
        archive::resolve(chat, &found);
    }
    let restored = match done.restored {
        0 => String::new(),
        1 => "1 file restored.".into(),
        n => format!("{n} files restored."),
    };
    let damaged = match done.damaged {
        0 => String::new(),
        1 => "1 file was left out: it is damaged, or its bytes are not those its name says.".into(),
        n => format!("{n} files were left out: they are damaged, or their bytes are not those their names say."),
    };
    Ok([restored, damaged, unchecked]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect())
}

fn is_zip(file: &web_sys::File) -> bool {
    file.name().to_ascii_lowercase().ends_with(".zip")
        || matches!(
            file.type_().as_str(),
            "application/zip" | "application/x-zip-compressed"
        )
}

/// "Import": choose a file — or the parts of a ChatGPT export, or its `.zip` — (or those dropped
/// on the window, `dropped`), see what it holds, import. `on_changed` runs after storage changed
/// (import or undo), so the app reloads its chat list.
#[component]
pub fn ImportDialog(
    /// Files dropped onto the window.
    dropped: Vec<web_sys::File>,
    /// Storage changed.
    on_changed: Callback<()>,
    /// Closes the dialog.
    on_close: Callback<()>,
) -> impl IntoView {
    let step = RwSignal::new(Step::Choose);
    let problem = RwSignal::new(String::new());
    let progress: Progress = RwSignal::new(None);
    let running: Running = StoredValue::new_local(None);
    let zipped: Zipped = StoredValue::new_local(None);
    // Closing the dialog ends a worker still reading.
    on_cleanup(move || {
        running.try_update_value(|w| w.take());
    });
    let take = move |files: Vec<web_sys::File>| {
        let name = match files.as_slice() {
            [] => return,
            [one] => one.name(),
            [first, rest @ ..] => format!(
                "{} and {} more {}",
                first.name(),
                rest.len(),
                if rest.len() == 1 { "file" } else { "files" }
            ),
        };
        problem.set(String::new());
        progress.set(None);
        step.set(Step::Reading(name.clone()));
        leptos::task::spawn_local(async move {
            match examine(files, progress, running, zipped).await {
                // The dialog closed while the file was read.
                Err(e) if e.is_empty() => {}
                Ok(plan) => step.set(Step::Preview {
                    name,
                    plan: Box::new(plan),
                }),
                Err(e) => {
                    problem.set(crate::shell::error_text::not_importable(&name, &e));
                    step.set(Step::Choose);
                }
            }
        });
    };
    take(dropped);
    let on_pick = Callback::new(take);
    let importing = RwSignal::new(false);
    let on_import = Callback::new(move |()| {
        let Step::Preview { mut plan, .. } = step.get_untracked() else {
            return;
        };
        if importing.get_untracked() {
            return;
        }
        importing.set(true);
        leptos::task::spawn_local(async move {
            // The files first: a storage too full for them leaves the chats unwritten.
            let zip = zipped.get_value();
            let open = move || !importing.is_disposed();
            let restored = restore_files(zip.as_ref(), &mut plan, &open).await;
            // The dialog closed meanwhile: nothing is written (the files kept are named by
            // nothing, and freed by the next sweep), since nothing could tell the app.
            if importing.try_set(false).is_some() {
                return;
            }
            let restored = match restored {
                Ok(said) => said,
                Err(e) => {
                    problem.set(e);
                    return;
                }
            };
            let written = match plan.is_empty() {
                true => Ok(()),
                false => crate::shell::store::import(&Store::local(), &plan, true),
            };
            match written {
                Ok(()) => {
                    step.set(Step::Done(
                        plan.summary_head(true),
                        plan.skipped.clone(),
                        restored,
                        !plan.is_empty(),
                    ));
                    on_changed.run(());
                }
                Err(e) => problem.set(e),
            }
        });
    });
    let on_again = Callback::new(move |()| {
        if importing.get_untracked() {
            return;
        }
        problem.set(String::new());
        step.set(Step::Choose)
    });
    let undo_import = move |_| match crate::shell::store::undo(&Store::local()) {
        Ok(()) => {
            step.set(Step::Undone);
            on_changed.run(());
        }
        Err(e) => problem.set(crate::shell::error_text::undo_failed(&e)),
    };
    let body = move || {
        match step.get() {
            Step::Choose => view! {
                <p>
                    "Satori exports (from “Export chat” or “Export all”), ChatGPT’s export (its .zip, conversations.json, or its conversations-000.json, -001.json … parts picked together), Claude’s data export (its .zip or conversations.json), Open WebUI and LibreChat chat exports, NextChat backups and BetterChatGPT exports. Everything is checked before anything is written; chats you already have are never overwritten, and a chat that cannot be read is named and skipped."
                </p>
                <label for="import-file">"Import file"</label>
                <FilePicker id="import-file" multiple=true accept=".json,.zip,application/json,application/zip" on_pick=on_pick />
            }
            .into_any(),
            Step::Reading(name) => view! {
                <p role="status">{format!("Reading {name}…")}</p>
                <ReadingProgress progress=progress />
            }
            .into_any(),
            Step::Preview { name, plan } => view! {
                <ImportPreview
                    files=zipped.with_value(|z| carried(z.as_ref(), &plan))
                    name=name
                    plan=*plan
                    on_import=on_import
                    on_again=on_again
                />
            }
            .into_any(),
            Step::Done(head, skipped, restored, undoable) => view! {
                <ImportSummary head=head skipped=skipped />
                {(!restored.is_empty()).then(|| {
                    let last = restored.len() - 1;
                    let said = restored
                        .into_iter()
                        .enumerate()
                        .map(|(i, s)| view! { <span>{s}</span>{(i < last).then_some(" ")} })
                        .collect_view();
                    view! { <p role="status">{said}</p> }
                })}
                {undoable.then(|| view! {
                    <div class="dialog-actions">
                        <button type="button" on:click=undo_import>"Undo import"</button>
                    </div>
                })}
            }
            .into_any(),
            Step::Undone => view! { <p role="status">"Import undone: everything is as it was before."</p> }.into_any(),
    }
    };
    // Undo is offered only while the dialog is open: closing it lets the backup go.
    let on_close = Callback::new(move |_| {
        let _ = Store::local().save_import_backup(None);
        on_close.run(())
    });
    view! {
        <Modal title="Import chats" on_close=on_close>
            {body}
            <p role="alert" class="form-error">{move || problem.get()}</p>
            <div class="dialog-actions">
                <button type="button" on:click=move |_| on_close.run(())>"Close"</button>
            </div>
        </Modal>
    }
}

/// How much of the file the import worker has read: a progress bar named "Reading the file"
/// and the share read, once the worker says.
#[component]
fn ReadingProgress(
    /// Bytes read of the file's total.
    progress: Progress,
) -> impl IntoView {
    let percent = move || {
        progress
            .get()
            .map(|(read, total)| (read as f64 * 100.0 / (total.max(1) as f64)).min(100.0))
    };
    view! {
        <div class="import-progress">
            <progress
                aria-label="Reading the file"
                max="100"
                value=move || percent().map(|p| format!("{p:.0}"))
            ></progress>
            <span translate="no">{move || percent().map(|p| format!("{p:.0} %"))}</span>
        </div>
    }
}

/// A sentence of an import: `head` (what [`Plan::summary_head`] says), then the conversations
/// `skipped`, drawn in pieces — the opening, each name (a chat's own title is never translated)
/// and its reason, "and N more" — so that each is translated alone; in English the words of
/// [`Plan::summary`].
#[component]
fn ImportSummary(
    /// The sentence up to what was skipped, without its full stop.
    head: String,
    /// The conversations that could not be read.
    skipped: Vec<Skipped>,
) -> impl IntoView {
    if skipped.is_empty() {
        return view! { <p role="status">{format!("{head}.")}</p> }.into_any();
    }
    let n = skipped.len();
    let last = n.min(NAMED) - 1;
    let items = skipped
        .into_iter()
        .take(NAMED)
        .enumerate()
        .map(|(i, s)| {
            let name = if s.is_untitled() {
                view! { <span>{s.name.clone()}</span> }.into_any()
            } else {
                view! { <span translate="no">{s.shown_name()}</span> }.into_any()
            };
            view! { {name}" ("<span>{s.reason}</span>")"{(i < last).then_some(", ")} }
        })
        .collect_view();
    let more = skipped_more(n).map(|m| view! { " "<span>{m}</span> });
    view! {
        <p role="status"><span>{head}</span>"; "<span>{skipped_lead(n)}</span>" "{items}{more}"."</p>
    }
    .into_any()
}

/// What importing the file `name` would do (`plan`): a sentence, the chats listed, and
/// "Import N chats" (if there is anything to import) and "Choose another file".
#[component]
fn ImportPreview(
    /// The file (or files) read.
    name: String,
    /// What importing it would do.
    plan: Plan,
    /// Files the `.zip` carries for its chats.
    files: usize,
    /// "Import N chats" was pressed.
    on_import: Callback<()>,
    /// "Choose another file" was pressed.
    on_again: Callback<()>,
) -> impl IntoView {
    let titles = |list: Vec<(String, String)>| {
        list.into_iter()
            .map(|(title, what)| view! { <li>{title}" — "{what}</li> })
            .collect_view()
    };
    // The list shows at most this many lines; the sentence above counts them all.
    const SHOWN: usize = 200;
    let copies: std::collections::HashSet<&str> = plan.copies.iter().map(String::as_str).collect();
    let adding: Vec<(String, String)> = plan
        .add
        .iter()
        .take(SHOWN)
        .map(|s| {
            let copy = if copies.contains(s.id.as_str()) {
                ", as a copy (the id was taken)"
            } else {
                ""
            };
            (
                crate::core::hidden::reveal(s.display_title()),
                format!("{} messages{copy}", s.messages.len()),
            )
        })
        .collect();
    let skipping: Vec<(String, String)> = plan
        .identical
        .iter()
        .take(SHOWN.saturating_sub(adding.len()))
        .map(|t| (t.clone(), "skipped: identical to another chat".to_string()))
        .collect();
    let n = plan.add.len();
    let empty = plan.is_empty();
    // What was converted, per chat (tool steps, citations, attachments, parts left out): each
    // phrase on its own, so each is translated alone.
    let converted = plan.report_parts();
    let report = (!converted.is_empty()).then(|| {
        let lines = converted
            .into_iter()
            .take(SHOWN)
            .map(|(title, parts)| {
                let last = parts.len().saturating_sub(1);
                let parts = parts
                    .into_iter()
                    .enumerate()
                    .map(|(i, p)| view! { <span>{p}</span>{(i < last).then_some(", ")} })
                    .collect_view();
                view! { <li><span translate="no">{title}</span>": "{parts}"."</li> }
            })
            .collect_view();
        view! {
            <h3 class="import-report-title">"What was converted"</h3>
            <ul class="import-report" aria-label="What was converted">{lines}</ul>
        }
    });
    view! {
        <ImportSummary head=format!("{name}: {}", plan.summary_head(false)) skipped=plan.skipped.clone() />
        {(files > 0).then(|| view! {
            <p>{match files {
                1 => "It carries 1 file for its chats (an image, a PDF or a text file): restored if this browser does not have it, once its bytes are checked against its name.".to_string(),
                n => format!("It carries {n} files for its chats (images, PDFs, text files): those this browser does not have are restored, each once its bytes are checked against its name."),
            }}</p>
        })}
        <ul class="import-list" translate="no">{titles(adding)}{titles(skipping)}</ul>
        {report}
        <div class="dialog-actions">
            {(!empty || files > 0).then(|| view! {
                <button type="button" on:click=move |_| on_import.run(())>
                    {match n {
                        // Its chats are here already: their files may not be.
                        0 if empty => "Restore files".to_string(),
                        n => format!("Import {n} {}", if n == 1 { "chat" } else { "chats" }),
                    }}
                </button>
            })}
            <button type="button" on:click=move |_| on_again.run(())>
                "Choose another file"
            </button>
        </div>
    }
}
