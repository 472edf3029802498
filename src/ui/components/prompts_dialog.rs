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

/// The dialog.
#[component]
pub fn PromptsDialog(
    /// The template shown first.
    selected: RoleRef,
) -> impl IntoView {
    let ctx = expect_context::<PromptsCtx>();
    let selected = RwSignal::new(selected);
    // The open editor (which template it changes) and its text, kept apart so that typing does
    // not re-render the editor (which would lose the caret).
    let editor: RwSignal<Option<Editor>> = RwSignal::new(None);
    let editor_text = RwSignal::new(String::new());
    // Focus moves into the editor when it opens (it may be below the list on a narrow screen).
    let editor_ref: NodeRef<leptos::html::Textarea> = NodeRef::new();
    Effect::new(move |_| {
        if let Some(el) = editor_ref.get() {
            let _ = el.focus();
        }
    });
    let confirm_delete = RwSignal::new(false);
    let status = RwSignal::new(String::new());
    let error = RwSignal::new(String::new());
    let busy = RwSignal::new(false);

    let current = move || {
        let r = selected.get();
        ctx.prompts.with(|p| {
            prompts::user::find(&r, prompts::builtin(), p)
                .cloned()
                .map(|t| (r, t))
        })
    };
    let pick = move |r: RoleRef| {
        selected.set(r);
        editor.set(None);
        confirm_delete.set(false);
        error.set(String::new());
    };

    let save_editor = move || {
        let Some(mut ed) = editor.get_untracked() else {
            return;
        };
        ed.text = editor_text.get_untracked();
        busy.set(true);
        error.set(String::new());
        {
            let result =
                read_yaml("template", &ed.text, true).and_then(|list| match list.as_slice() {
                    [one] => Ok(one.clone()),
                    _ => Err(format!(
                        "The editor holds one template; this text has {}.",
                        list.len()
                    )),
                });
            busy.set(false);
            let t = match result {
                Ok(t) => t,
                Err(e) => return error.set(e),
            };
            let key = t.template.key.clone();
            let mut all = ctx.prompts.get_untracked();
            if ed.original.as_deref() != Some(key.as_str()) && all.get(&key).is_some() {
                return error.set(error_text::prompt_name_taken(&key));
            }
            if let Some(old) = &ed.original {
                if *old != key {
                    all.remove(old);
                }
            }
            all.merge(vec![t]);
            match ctx.save(all) {
                Ok(()) => {
                    status.set(format!("Saved “{key}”."));
                    editor.set(None);
                    focus_selected();
                    selected.set(RoleRef {
                        source: PromptSource::User,
                        key,
                    });
                }
                Err(e) => error.set(e),
            }
        }
    };

    // Import: templates whose names clash with yours wait for a choice (replace them or keep
    // both); nothing is saved before.
    let pending_import: RwSignal<Option<PendingImport>> = RwSignal::new(None);
    let finish_import = move |name: String, mut list: Vec<UserTemplate>, mode: ImportMode| {
        pending_import.set(None);
        let mut all = ctx.prompts.get_untracked();
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
        match ctx.save(all) {
            Ok(()) => {
                let s = if n == 1 { "" } else { "s" };
                let rep = if replaced > 0 {
                    format!(" ({replaced} replaced a prompt with the same name)")
                } else {
                    String::new()
                };
                status.set(format!("Imported {n} prompt{s} from {name}{rep}."));
                if let Some(key) = first {
                    selected.set(RoleRef {
                        source: PromptSource::User,
                        key,
                    });
                }
            }
            Err(e) => error.set(error_text::nothing_imported(": ", &e)),
        }
    };

    let on_import = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let Some(file) = input.files().and_then(|f| f.get(0)) else {
            return;
        };
        input.set_value("");
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
                        finish_import(name, list, ImportMode::Replace);
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
    };

    let export = move |_| {
        let text = ctx.prompts.with_untracked(|p| {
            let list: Vec<Template> = p.templates.iter().map(|t| t.template.clone()).collect();
            emit::templates(&list)
        });
        match download("satori-prompts.yaml", &text) {
            Ok(()) => status.set("Exported your prompts as satori-prompts.yaml.".into()),
            Err(e) => error.set(error_text::export_failed(&e)),
        }
    };

    let item = move |r: RoleRef, t: &Template| {
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
                <button type="button" class="prompt-item" class:active=is_sel2 translate=theirs aria-current=move || is_sel().then_some("true") on:click=move |_| pick(r.clone())>
                    <span class="prompt-name">{label}</span>
                    <span class="prompt-desc">{desc}</span>
                </button>
            </li>
        }
    };
    let builtin_list = prompts::builtin()
        .templates
        .iter()
        .map(|t| {
            item(
                RoleRef {
                    source: PromptSource::Builtin,
                    key: t.key.clone(),
                },
                t,
            )
        })
        .collect_view();
    let user_list = move || {
        ctx.prompts.with(|p| {
            if p.templates.is_empty() {
                view! { <li class="hint">"None yet: create, copy or import one."</li> }.into_any()
            } else {
                p.templates
                    .iter()
                    .map(|t| {
                        item(
                            RoleRef {
                                source: PromptSource::User,
                                key: t.template.key.clone(),
                            },
                            &t.template,
                        )
                    })
                    .collect_view()
                    .into_any()
            }
        })
    };

    let detail = move || {
        if let Some(ed) = editor.get() {
            editor_text.set(ed.text.clone());
            let title = if ed.original.is_some() {
                "Edit prompt"
            } else {
                "New prompt"
            };
            return view! {
                <h3>{title}</h3>
                <label for="prompt-yaml">"Template (YAML)"</label>
                <textarea node_ref=editor_ref id="prompt-yaml" class="code-input" rows="18" spellcheck="false" wrap="off"
                    prop:value=ed.text.clone()
                    on:input=move |ev| editor_text.set(event_target_value(&ev))></textarea>
                <p class="hint">"Fields: version, description, system (text or a list of parts and `fragment:` references), optional examples, user, variables. Write {{ and }} for literal braces."</p>
                <div class="dialog-actions">
                    <button type="button" on:click=move |_| { editor.set(None); error.set(String::new()); focus_selected(); }>"Cancel"</button>
                    <button type="button" class="primary" disabled=move || busy.get() on:click=move |_| save_editor()>"Save prompt"</button>
                </div>
            }
            .into_any();
        }
        let Some((r, t)) = current() else {
            return view! { <p class="hint">"Pick a prompt."</p> }.into_any();
        };
        let is_user = r.source == PromptSource::User;
        let pv = ctx.prompts.with(|p| preview(&t, r.source, p));
        let pv = match pv {
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
                .map(|v| {
                    let mut s = v.name.clone();
                    if let Some(d) = &v.default {
                        s.push_str(&format!(" (default “{d}”)"));
                    } else {
                        s.push_str(" (required)");
                    }
                    if !v.description.is_empty() {
                        s.push_str(&format!(": {}", v.description));
                    }
                    view! { <li>{s}</li> }
                })
                .collect_view();
            view! { <h4>"Variables"</h4><ul class="var-list" translate="no">{items}</ul> }
        });
        let t2 = t.clone();
        let copy = move |_| {
            let key = ctx
                .prompts
                .with_untracked(|p| p.free_key(&format!("{}-copy", t2.key)));
            let mut c = t2.clone();
            c.key = key;
            editor.set(Some(Editor {
                original: None,
                text: emit::template(&c),
            }));
            error.set(String::new());
        };
        let key = t.key.clone();
        let edit = {
            let key = key.clone();
            move |_| {
                let text = ctx
                    .prompts
                    .with_untracked(|p| p.get(&key).map(|u| u.source.clone()))
                    .unwrap_or_default();
                editor.set(Some(Editor {
                    original: Some(key.clone()),
                    text,
                }));
                error.set(String::new());
            }
        };
        let delete = {
            let key = key.clone();
            move |_| {
                let mut all = ctx.prompts.get_untracked();
                all.remove(&key);
                match ctx.save(all) {
                    Ok(()) => {
                        status.set(format!("Deleted “{key}”."));
                        confirm_delete.set(false);
                        focus_selected();
                        selected.set(RoleRef {
                            source: PromptSource::Builtin,
                            key: prompts::DEFAULT_ROLE.into(),
                        });
                    }
                    Err(e) => error.set(e),
                }
            }
        };
        let use_it = {
            let r = r.clone();
            move |_| ctx.on_use.run(r.clone())
        };
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
                <button type="button" on:click=use_it>"Use in new chat"</button>
                <button type="button" on:click=copy>"Copy"</button>
                {is_user.then(|| view! {
                    <button type="button" on:click=edit>"Edit"</button>
                    <button type="button" class="danger" on:click=move |_| confirm_delete.set(true)>"Delete"</button>
                })}
            </div>
            <Show when=move || confirm_delete.get() && is_user>
                <div class="confirm" role="group" aria-label="Confirm delete">
                    <p>{format!("Delete “{key}”? Chats started from it keep their system prompt.")}</p>
                    <button type="button" on:click=move |_| confirm_delete.set(false)>"Cancel"</button>
                    <button type="button" class="danger" on:click=delete.clone()>"Delete prompt"</button>
                </div>
            </Show>
        }
        .into_any()
    };

    view! {
        <Modal title="Prompts" on_close=ctx.on_close>
            <div class="prompts-toolbar">
                <button type="button" on:click=move |_| {
                    editor.set(Some(Editor { original: None, text: NEW_TEMPLATE.into() }));
                    error.set(String::new());
                }>"New prompt"</button>
                <label class="file-btn">
                    "Import prompts"
                    <input type="file" accept=".yaml,.yml,application/yaml,text/yaml" class="visually-hidden" on:change=on_import />
                </label>
                <button type="button" disabled=move || ctx.prompts.with(|p| p.templates.is_empty()) on:click=export>"Export prompts"</button>
            </div>
            <p class="status" role="status">{move || status.get()}</p>
            {move || pending_import.get().map(|p| {
                let names = p.clashes.join(", ");
                let (a, b) = (p.clone(), p.clone());
                view! {
                    <div class="confirm" role="group" aria-label="Names already in use">
                        <p>{format!("{} has prompts named like yours: {names}.", p.name)}</p>
                        <button type="button" on:click=move |_| finish_import(a.name.clone(), a.list.clone(), ImportMode::Replace)>"Replace them"</button>
                        <button type="button" on:click=move |_| finish_import(b.name.clone(), b.list.clone(), ImportMode::KeepBoth)>"Keep both"</button>
                        <button type="button" on:click=move |_| {
                            pending_import.set(None);
                            status.set("Import cancelled; nothing was changed.".into());
                        }>"Cancel import"</button>
                    </div>
                }
            })}
            // One line per problem: each is a text of its own (and translated as one).
            <div class="form-error pre" role="alert" class:hidden=move || error.get().is_empty()>
                {move || error.get().lines().map(|l| view! { <div>{l.to_string()}</div> }).collect_view()}
            </div>
            <div class="prompts-body">
                <div class="prompt-lists">
                    <h3 id="builtin-prompts">"Built-in"</h3>
                    <ul class="prompt-list" aria-labelledby="builtin-prompts">{builtin_list}</ul>
                    <h3 id="user-prompts">"Your prompts"</h3>
                    <ul class="prompt-list" aria-labelledby="user-prompts">{user_list}</ul>
                </div>
                <section class="prompt-detail" aria-label="Prompt details">{detail}</section>
            </div>
            <div class="dialog-actions">
                <button type="button" on:click=move |_| ctx.on_close.run(())>"Close"</button>
            </div>
        </Modal>
    }
}
