//! "Prompts": every built-in and user template with a preview of its system prompt; user
//! templates can be created, copied, edited (as YAML), deleted, imported and exported.
//! Built-in templates are read-only (copy one to change it). Imports and edits are saved only
//! when the whole text is valid.
//!
//! This dialog runs inside the deferred dialogs module (`src/bin/satori-dialogs.rs`), not in
//! the app: it owns the `satori.prompts` record while it is open and tells the app about
//! changes through window events (see `crate::adapters::dialogs_module`).

use crate::adapters::dialogs_module::send;
use crate::adapters::storage::Store;
use crate::core::persist;
use crate::core::prompts::{
    self, emit, RoleRef, Template, UserPrompts, UserTemplate, Vars, What, YamlAnswer,
};
use crate::core::protocol::DialogEvent;
use crate::core::session::PromptSource;
use crate::shell::error_text::{self, describe_storage};
use crate::ui::components::form::{FilePicker, SaveActions};
use crate::ui::components::modal::Modal;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// What the dialog works with.
#[derive(Clone, Copy)]
pub struct PromptsCtx {
    /// The user templates.
    pub prompts: RwSignal<UserPrompts>,
    /// Why the stored record could not be read (saving is refused then, so it is never
    /// overwritten).
    pub problem: RwSignal<Option<String>>,
    /// "Use in new chat".
    pub on_use: Callback<RoleRef>,
    /// The dialog closed.
    pub on_close: Callback<()>,
}

impl PromptsCtx {
    /// Read the user templates from storage.
    pub fn load(on_use: Callback<RoleRef>, on_close: Callback<()>) -> Self {
        let (prompts, problem) = match Store::local().get(persist::KEY_PROMPTS) {
            Ok(Some(text)) => match persist::decode_prompts(&text) {
                Ok(p) => (p, None),
                Err(e) => (
                    UserPrompts::default(),
                    Some(crate::shell::error_text::prompts_unsavable(&e)),
                ),
            },
            Ok(None) => (UserPrompts::default(), None),
            Err(e) => (UserPrompts::default(), Some(describe_storage(&e))),
        };
        PromptsCtx {
            prompts: RwSignal::new(prompts),
            problem: RwSignal::new(problem),
            on_use,
            on_close,
        }
    }

    /// Save the user templates and tell the app. Refused while the stored record is unreadable,
    /// and when the stored templates changed since this dialog read them (another tab, an
    /// import): the dialog then shows the stored ones, so nothing written elsewhere is lost.
    pub fn save(&self, prompts: UserPrompts) -> Result<(), String> {
        if let Some(why) = self.problem.get_untracked() {
            return Err(why);
        }
        let stored = match Store::local().get(persist::KEY_PROMPTS) {
            Ok(Some(text)) => persist::decode_prompts(&text)
                .map_err(|e| crate::shell::error_text::prompts_unsavable(&e))?,
            Ok(None) => UserPrompts::default(),
            Err(e) => return Err(describe_storage(&e)),
        };
        if stored != self.prompts.get_untracked() {
            self.prompts.set(stored);
            send(&DialogEvent::PromptsChanged);
            return Err(crate::shell::error_text::PROMPTS_CHANGED_ELSEWHERE.into());
        }
        Store::local()
            .save_prompts(&prompts)
            .map_err(|e| describe_storage(&e))?;
        self.prompts.set(prompts);
        send(&DialogEvent::PromptsChanged);
        Ok(())
    }
}

/// The editor: the YAML text, and the key of the user template being changed (`None` for a new
/// one).
#[derive(Clone, PartialEq)]
struct Editor {
    original: Option<String>,
    text: String,
}

/// An import waiting for the user's choice about names that clash.
#[derive(Clone)]
struct PendingImport {
    name: String,
    list: Vec<UserTemplate>,
    clashes: Vec<String>,
}

/// What to do with imported templates named like existing ones.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ImportMode {
    /// The imported ones replace yours.
    Replace,
    /// The imported ones get new names (`name-2`, …).
    KeepBoth,
}

/// Largest prompt file accepted for import (prompt files are a few KB; this keeps a wrong file
/// from freezing the page or filling storage).
const MAX_IMPORT_BYTES: f64 = 512.0 * 1024.0;

const NEW_TEMPLATE: &str = "my-prompt:\n  version: 1\n  description: What this prompt is for.\n  system: |-\n    You are a helpful assistant who …\n";

/// The preview of a template: system prompt and examples rendered with default values (a
/// required variable shows as its placeholder).
fn preview(
    t: &Template,
    source: PromptSource,
    user: &UserPrompts,
) -> Result<Vec<(String, String)>, String> {
    let vars: Vars = t
        .variables
        .iter()
        .filter(|v| v.default.is_none())
        .map(|v| (v.name.clone(), format!("{{{}}}", v.name)))
        .collect();
    let role = RoleRef {
        source,
        key: t.key.clone(),
    };
    prompts::user::render(&role, What::Preamble, &vars, prompts::builtin(), user)
        .map(|r| {
            r.messages
                .into_iter()
                .map(|m| {
                    let who = match (m.role, m.example) {
                        (prompts::PromptRole::System, _) => "System prompt",
                        (prompts::PromptRole::User, _) => "Example question",
                        (prompts::PromptRole::Assistant, _) => "Example answer",
                    };
                    (who.to_string(), m.content)
                })
                .collect()
        })
        .map_err(|e| e.to_string())
}

fn describe_errors(answer: YamlAnswer) -> Result<Vec<UserTemplate>, String> {
    match answer {
        YamlAnswer::Ok(list) => Ok(list),
        YamlAnswer::Errors(d) => Err(d
            .iter()
            .map(|d| format!("{} {}", d.file, d.in_words()))
            .collect::<Vec<_>>()
            .join("\n")),
    }
}

fn read_yaml(file: &str, text: &str, keep_source: bool) -> Result<Vec<UserTemplate>, String> {
    describe_errors(prompts::user::read_yaml(
        file,
        text,
        keep_source,
        &prompts::builtin().fragments,
    ))
}

/// Put focus on the selected template in the list, after the button that had it went away
/// (Save, Cancel, Delete), so it does not fall back to the page.
fn focus_selected() {
    set_timeout(
        || {
            if let Some(el) = document()
                .query_selector(".prompt-item[aria-current=\"true\"]")
                .ok()
                .flatten()
                .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
            {
                let _ = el.focus();
            }
        },
        std::time::Duration::ZERO,
    );
}

fn download(name: &str, text: &str) -> Result<(), String> {
    crate::adapters::download::download(name, "application/yaml", text)
}

/// What the dialog shows besides the templates: which one is selected, the editor, the import
/// waiting for a choice, and what happened last.
#[derive(Clone, Copy)]
struct PromptsUi {
    ctx: PromptsCtx,
    selected: RwSignal<RoleRef>,
    /// The open editor (which template it changes) and its text, kept apart so that typing does
    /// not re-render the editor (which would lose the caret).
    editor: RwSignal<Option<Editor>>,
    editor_text: RwSignal<String>,
    /// "Delete" was pressed: the confirmation shows.
    confirm_delete: RwSignal<bool>,
    status: RwSignal<String>,
    error: RwSignal<String>,
    busy: RwSignal<bool>,
    /// An import whose templates' names clash with yours waits for a choice (replace them or
    /// keep both); nothing is saved before.
    pending_import: RwSignal<Option<PendingImport>>,
}

impl PromptsUi {
    fn new(ctx: PromptsCtx, selected: RoleRef) -> Self {
        PromptsUi {
            ctx,
            selected: RwSignal::new(selected),
            editor: RwSignal::new(None),
            editor_text: RwSignal::new(String::new()),
            confirm_delete: RwSignal::new(false),
            status: RwSignal::new(String::new()),
            error: RwSignal::new(String::new()),
            busy: RwSignal::new(false),
            pending_import: RwSignal::new(None),
        }
    }

    /// The selected template, if it exists (tracked).
    fn current(self) -> Option<(RoleRef, Template)> {
        let r = self.selected.get();
        self.ctx.prompts.with(|p| {
            prompts::user::find(&r, prompts::builtin(), p)
                .cloned()
                .map(|t| (r, t))
        })
    }

    /// Show template `r` (closing the editor).
    fn pick(self, r: RoleRef) {
        self.selected.set(r);
        self.editor.set(None);
        self.confirm_delete.set(false);
        self.error.set(String::new());
    }

    /// Select the user template `key`.
    fn select_user(self, key: String) {
        self.selected.set(RoleRef {
            source: PromptSource::User,
            key,
        });
    }

    /// Open the editor on `text`, changing the user template `original` (`None`: a new one).
    fn open_editor(self, original: Option<String>, text: String) {
        self.editor.set(Some(Editor { original, text }));
        self.error.set(String::new());
    }

    /// Close the editor without saving.
    fn cancel_editor(self) {
        self.editor.set(None);
        self.error.set(String::new());
        focus_selected();
    }

    /// Save the editor's text as one template (renamed: in place of the old one).
    fn save_editor(self) {
        let Some(mut ed) = self.editor.get_untracked() else {
            return;
        };
        ed.text = self.editor_text.get_untracked();
        self.busy.set(true);
        self.error.set(String::new());
        let result = read_yaml("template", &ed.text, true).and_then(|list| match list.as_slice() {
            [one] => Ok(one.clone()),
            _ => Err(format!(
                "The editor holds one template; this text has {}.",
                list.len()
            )),
        });
        self.busy.set(false);
        let t = match result {
            Ok(t) => t,
            Err(e) => return self.error.set(e),
        };
        let key = t.template.key.clone();
        let mut all = self.ctx.prompts.get_untracked();
        if ed.original.as_deref() != Some(key.as_str()) && all.get(&key).is_some() {
            return self.error.set(error_text::prompt_name_taken(&key));
        }
        if let Some(old) = &ed.original {
            if *old != key {
                all.remove(old);
            }
        }
        all.merge(vec![t]);
        match self.ctx.save(all) {
            Ok(()) => {
                self.status.set(format!("Saved “{key}”."));
                self.editor.set(None);
                focus_selected();
                self.select_user(key);
            }
            Err(e) => self.error.set(e),
        }
    }

    /// Open a copy of `t` (named `…-copy`, free) in the editor.
    fn copy(self, t: &Template) {
        let key = self
            .ctx
            .prompts
            .with_untracked(|p| p.free_key(&format!("{}-copy", t.key)));
        let mut c = t.clone();
        c.key = key;
        self.open_editor(None, emit::template(&c));
    }

    /// Open the user template `key` in the editor.
    fn edit(self, key: &str) {
        let text = self
            .ctx
            .prompts
            .with_untracked(|p| p.get(key).map(|u| u.source.clone()))
            .unwrap_or_default();
        self.open_editor(Some(key.to_string()), text);
    }

    /// Delete the user template `key`.
    fn delete(self, key: &str) {
        let mut all = self.ctx.prompts.get_untracked();
        all.remove(key);
        match self.ctx.save(all) {
            Ok(()) => {
                self.status.set(format!("Deleted “{key}”."));
                self.confirm_delete.set(false);
                focus_selected();
                self.selected.set(RoleRef {
                    source: PromptSource::Builtin,
                    key: prompts::DEFAULT_ROLE.into(),
                });
            }
            Err(e) => self.error.set(e),
        }
    }

    /// Read the prompt file `file` picked for import; templates named like yours wait for a
    /// choice ([`Self::finish_import`]).
    fn import(self, file: web_sys::File) {
        let PromptsUi {
            ctx,
            status,
            error,
            busy,
            pending_import,
            ..
        } = self;
        let name = file.name();
        status.set(String::new());
        if file.size() > MAX_IMPORT_BYTES {
            error.set(error_text::import_too_large(
                &name,
                file.size(),
                MAX_IMPORT_BYTES,
            ));
            return;
        }
        busy.set(true);
        error.set(String::new());
        status.set(String::new());
        leptos::task::spawn_local(async move {
            let text = wasm_bindgen_futures::JsFuture::from(file.text())
                .await
                .ok()
                .and_then(|v| v.as_string());
            let result = match text {
                Some(text) => read_yaml(&name, &text, false),
                None => Err(error_text::not_text(&name)),
            };
            busy.set(false);
            match result {
                Err(e) => error.set(error_text::nothing_imported(".\n", &e)),
                Ok(list) => {
                    let clashes: Vec<String> = ctx.prompts.with_untracked(|p| {
                        list.iter()
                            .map(|t| t.template.key.clone())
                            .filter(|k| p.get(k).is_some())
                            .collect()
                    });
                    if clashes.is_empty() {
                        self.finish_import(name, list, ImportMode::Replace);
                    } else {
                        pending_import.set(Some(PendingImport {
                            name,
                            list,
                            clashes,
                        }));
                    }
                }
            }
        });
    }

    /// Save the templates `list` read from the file `name`, clashing names handled by `mode`.
    fn finish_import(self, name: String, mut list: Vec<UserTemplate>, mode: ImportMode) {
        self.pending_import.set(None);
        let mut all = self.ctx.prompts.get_untracked();
        if mode == ImportMode::KeepBoth {
            let mut taken = all.clone();
            for t in &mut list {
                if taken.get(&t.template.key).is_some() {
                    t.template.key = taken.free_key(&t.template.key);
                    t.source = emit::template(&t.template);
                }
                taken.merge(vec![t.clone()]);
            }
        }
        let n = list.len();
        let first = list.first().map(|t| t.template.key.clone());
        let replaced = all.merge(list);
        match self.ctx.save(all) {
            Ok(()) => {
                let s = if n == 1 { "" } else { "s" };
                let rep = if replaced > 0 {
                    format!(" ({replaced} replaced a prompt with the same name)")
                } else {
                    String::new()
                };
                self.status
                    .set(format!("Imported {n} prompt{s} from {name}{rep}."));
                if let Some(key) = first {
                    self.select_user(key);
                }
            }
            Err(e) => self.error.set(error_text::nothing_imported(": ", &e)),
        }
    }

    /// Drop the import waiting for a choice.
    fn cancel_import(self) {
        self.pending_import.set(None);
        self.status
            .set("Import cancelled; nothing was changed.".into());
    }

    /// Download the user templates as one YAML file.
    fn export(self) {
        let text = self.ctx.prompts.with_untracked(|p| {
            let list: Vec<Template> = p.templates.iter().map(|t| t.template.clone()).collect();
            emit::templates(&list)
        });
        match download("satori-prompts.yaml", &text) {
            Ok(()) => self
                .status
                .set("Exported your prompts as satori-prompts.yaml.".into()),
            Err(e) => self.error.set(error_text::export_failed(&e)),
        }
    }
}

/// The dialog.
#[component]
pub fn PromptsDialog(
    /// The template shown first.
    selected: RoleRef,
) -> impl IntoView {
    let ctx = expect_context::<PromptsCtx>();
    let ui = PromptsUi::new(ctx, selected);
    let PromptsUi {
        editor,
        editor_text,
        status,
        error,
        pending_import,
        ..
    } = ui;
    // The editor, or the selected template (the reads that choose what shows are tracked here).
    let detail = move || {
        if let Some(ed) = editor.get() {
            editor_text.set(ed.text.clone());
            return view! { <PromptEditor ui=ui editor=ed /> }.into_any();
        }
        let Some((r, t)) = ui.current() else {
            return view! { <p class="hint">"Pick a prompt."</p> }.into_any();
        };
        let pv = ctx.prompts.with(|p| preview(&t, r.source, p));
        view! { <TemplateView ui=ui role=r template=t preview=pv /> }.into_any()
    };
    view! {
        <Modal title="Prompts" on_close=ctx.on_close>
            <PromptsToolbar ui=ui />
            <p class="status" role="status">{move || status.get()}</p>
            {move || pending_import.get().map(|p| view! { <ImportClashes ui=ui pending=p /> })}
            // One line per problem: each is a text of its own (and translated as one).
            <div class="form-error pre" role="alert" class:hidden=move || error.get().is_empty()>
                {move || error.get().lines().map(|l| view! { <div>{l.to_string()}</div> }).collect_view()}
            </div>
            <div class="prompts-body">
                <TemplateLists ui=ui />
                <section class="prompt-detail" aria-label="Prompt details">{detail}</section>
            </div>
            <div class="dialog-actions">
                <button type="button" on:click=move |_| ctx.on_close.run(())>"Close"</button>
            </div>
        </Modal>
    }
}

/// "New prompt", "Import prompts" (a file picker) and "Export prompts".
#[component]
fn PromptsToolbar(
    /// The dialog.
    ui: PromptsUi,
) -> impl IntoView {
    let on_pick = Callback::new(move |files: Vec<web_sys::File>| {
        if let Some(file) = files.into_iter().next() {
            ui.import(file);
        }
    });
    view! {
        <div class="prompts-toolbar">
            <button type="button" on:click=move |_| ui.open_editor(None, NEW_TEMPLATE.into())>"New prompt"</button>
            <label class="file-btn">
                "Import prompts"
                <FilePicker accept=".yaml,.yml,application/yaml,text/yaml" class="visually-hidden" on_pick=on_pick />
            </label>
            <button type="button" disabled=move || ui.ctx.prompts.with(|p| p.templates.is_empty()) on:click=move |_| ui.export()>"Export prompts"</button>
        </div>
    }
}

/// An import with names already in use: replace them, keep both, or cancel.
#[component]
fn ImportClashes(
    /// The dialog.
    ui: PromptsUi,
    /// The import waiting.
    pending: PendingImport,
) -> impl IntoView {
    let names = pending.clashes.join(", ");
    let (a, b) = (pending.clone(), pending.clone());
    view! {
        <div class="confirm" role="group" aria-label="Names already in use">
            <p>{format!("{} has prompts named like yours: {names}.", pending.name)}</p>
            <button type="button" on:click=move |_| ui.finish_import(a.name.clone(), a.list.clone(), ImportMode::Replace)>"Replace them"</button>
            <button type="button" on:click=move |_| ui.finish_import(b.name.clone(), b.list.clone(), ImportMode::KeepBoth)>"Keep both"</button>
            <button type="button" on:click=move |_| ui.cancel_import()>"Cancel import"</button>
        </div>
    }
}

/// The built-in templates and yours, each a button that shows it.
#[component]
fn TemplateLists(
    /// The dialog.
    ui: PromptsUi,
) -> impl IntoView {
    let builtin_list = prompts::builtin()
        .templates
        .iter()
        .map(|t| {
            let r = RoleRef {
                source: PromptSource::Builtin,
                key: t.key.clone(),
            };
            template_item(ui, r, t)
        })
        .collect_view();
    let user_list = move || {
        ui.ctx.prompts.with(|p| {
            if p.templates.is_empty() {
                view! { <li class="hint">"None yet: create, copy or import one."</li> }.into_any()
            } else {
                p.templates
                    .iter()
                    .map(|t| {
                        let r = RoleRef {
                            source: PromptSource::User,
                            key: t.template.key.clone(),
                        };
                        template_item(ui, r, &t.template)
                    })
                    .collect_view()
                    .into_any()
            }
        })
    };
    view! {
        <div class="prompt-lists">
            <h3 id="builtin-prompts">"Built-in"</h3>
            <ul class="prompt-list" aria-labelledby="builtin-prompts">{builtin_list}</ul>
            <h3 id="user-prompts">"Your prompts"</h3>
            <ul class="prompt-list" aria-labelledby="user-prompts">{user_list}</ul>
        </div>
    }
}

/// One template of a list: `t`, known as `r`.
fn template_item(ui: PromptsUi, r: RoleRef, t: &Template) -> impl IntoView {
    let selected = ui.selected;
    let theirs = (r.source == PromptSource::User).then_some("no");
    let label = t.key.clone();
    let desc = t.description.clone();
    let is_sel = {
        let r = r.clone();
        move || selected.get() == r
    };
    let is_sel2 = is_sel.clone();
    view! {
        <li>
            // The user's own templates are theirs: never translated.
            <button type="button" class="prompt-item" class:active=is_sel2 translate=theirs aria-current=move || is_sel().then_some("true") on:click=move |_| ui.pick(r.clone())>
                <span class="prompt-name">{label}</span>
                <span class="prompt-desc">{desc}</span>
            </button>
        </li>
    }
}

/// The editor: a template as YAML, "Cancel" and "Save prompt". Focus moves into it when it
/// opens (it may be below the list on a narrow screen).
#[component]
fn PromptEditor(
    /// The dialog.
    ui: PromptsUi,
    /// What the editor opens with.
    editor: Editor,
) -> impl IntoView {
    let editor_text = ui.editor_text;
    let editor_ref: NodeRef<leptos::html::Textarea> = NodeRef::new();
    Effect::new(move |_| {
        if let Some(el) = editor_ref.get() {
            let _ = el.focus();
        }
    });
    let title = if editor.original.is_some() {
        "Edit prompt"
    } else {
        "New prompt"
    };
    view! {
        <h3>{title}</h3>
        <label for="prompt-yaml">"Template (YAML)"</label>
        <textarea node_ref=editor_ref id="prompt-yaml" class="code-input" rows="18" spellcheck="false" wrap="off"
            prop:value=editor.text
            on:input=move |ev| editor_text.set(event_target_value(&ev))></textarea>
        <p class="hint">"Fields: version, description, system (text or a list of parts and `fragment:` references), optional examples, user, variables. Write {{ and }} for literal braces."</p>
        <SaveActions
            on_cancel=Callback::new(move |()| ui.cancel_editor())
            label="Save prompt"
            on_save=Callback::new(move |()| ui.save_editor())
            busy=ui.busy
        />
    }
}

/// Template `t` (known as `role`): its preview (`preview`, or why there is none), variables,
/// and what can be done with it (use, copy; for yours, edit and delete).
#[component]
fn TemplateView(
    /// The dialog.
    ui: PromptsUi,
    /// Which template.
    role: RoleRef,
    /// The template.
    template: Template,
    /// Its preview ([`preview`]).
    preview: Result<Vec<(String, String)>, String>,
) -> impl IntoView {
    let t = template;
    let confirm_delete = ui.confirm_delete;
    let is_user = role.source == PromptSource::User;
    let pv = match preview {
        Ok(parts) => parts
            .into_iter()
            .map(|(who, text)| view! { <h4>{who}</h4><pre class="prompt-preview" translate="no">{text}</pre> })
            .collect_view()
            .into_any(),
        Err(e) => view! { <p class="form-error">{e}</p> }.into_any(),
    };
    let vars = (!t.variables.is_empty()).then(|| {
        let items = t
            .variables
            .iter()
            .map(|v| view! { <li>{variable_line(v)}</li> })
            .collect_view();
        view! { <h4>"Variables"</h4><ul class="var-list" translate="no">{items}</ul> }
    });
    let t2 = t.clone();
    let key = t.key.clone();
    let (edit_key, delete_key) = (key.clone(), key.clone());
    let kind = if is_user {
        "Your prompt"
    } else {
        "Built-in (read-only)"
    };
    view! {
        <h3 translate="no">{t.key.clone()}</h3>
        <p class="hint">{format!("{kind} · version {} · {}", t.version, t.description)}</p>
        {pv}
        {vars}
        <div class="prompt-actions">
            <button type="button" on:click=move |_| ui.ctx.on_use.run(role.clone())>"Use in new chat"</button>
            <button type="button" on:click=move |_| ui.copy(&t2)>"Copy"</button>
            {is_user.then(|| view! {
                <button type="button" on:click=move |_| ui.edit(&edit_key)>"Edit"</button>
                <button type="button" class="danger" on:click=move |_| confirm_delete.set(true)>"Delete"</button>
            })}
        </div>
        <Show when=move || confirm_delete.get() && is_user>
            <div class="confirm" role="group" aria-label="Confirm delete">
                <p>{format!("Delete “{key}”? Chats started from it keep their system prompt.")}</p>
                <button type="button" on:click=move |_| confirm_delete.set(false)>"Cancel"</button>
                <button type="button" class="danger" on:click={
                    let key = delete_key.clone();
                    move |_| ui.delete(&key)
                }>"Delete prompt"</button>
            </div>
        </Show>
    }
}

/// A variable in the list: its name, default (or "required") and description.
fn variable_line(v: &prompts::Variable) -> String {
    let mut s = v.name.clone();
    if let Some(d) = &v.default {
        s.push_str(&format!(" (default “{d}”)"));
    } else {
        s.push_str(" (required)");
    }
    if !v.description.is_empty() {
        s.push_str(&format!(": {}", v.description));
    }
    s
}
