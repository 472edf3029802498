//! The "MCP servers" part of Settings: add a server by URL (and an optional bearer token), see
//! its tools with a switch each and "Always allow" each, choose when its calls ask first ("Tool
//! calls", see `core::agent::trust`), list them again, remove the server. Changes are kept with the
//! other settings when the dialog is saved ([`McpEdit::save`]): the servers in one record, the
//! tokens in another that nothing exports.

use crate::adapters::storage::{StorageError, Store};
use crate::core::agent::mcp::{self, Server, Servers, Tokens};
use crate::core::agent::trust::Trust;
use crate::core::key_binding::{plain_http_remote, same_base};
use crate::core::persist;
use crate::shell::error_text::describe_storage;
use leptos::prelude::*;

/// The MCP servers and tokens as Settings edits them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct McpEdit {
    /// The servers with their tools and switches.
    pub servers: Servers,
    /// Their bearer tokens.
    pub tokens: Tokens,
    /// Why the stored records could not be read: they are then left as they are.
    pub unreadable: Option<String>,
}

impl McpEdit {
    /// What storage holds. A record that cannot be read is never overwritten: the section says
    /// so and saving leaves both records alone.
    pub fn load(store: &Store) -> McpEdit {
        let read = |key: &str| store.get(key).map_err(|e| describe_storage(&e));
        let servers = read(persist::KEY_MCP).and_then(|t| {
            t.map(|t: String| persist::decode_mcp(&t).map_err(|e| e.to_string()))
                .transpose()
        });
        let tokens = read(persist::KEY_MCP_TOKENS).and_then(|t| {
            t.map(|t: String| persist::decode_mcp_tokens(&t).map_err(|e| e.to_string()))
                .transpose()
        });
        match (servers, tokens) {
            (Ok(servers), Ok(tokens)) => McpEdit {
                servers: servers.unwrap_or_default(),
                tokens: tokens.unwrap_or_default(),
                unreadable: None,
            },
            (Err(e), _) | (_, Err(e)) => McpEdit {
                unreadable: Some(crate::shell::error_text::mcp_unreadable(&e)),
                ..McpEdit::default()
            },
        }
    }

    /// Write both records (tokens of removed servers are dropped); nothing when they could not
    /// be read.
    pub fn save(&self, store: &Store) -> Result<(), StorageError> {
        if self.unreadable.is_some() {
            return Ok(());
        }
        let mut tokens = self.tokens.clone();
        tokens.keep_only(&self.servers);
        store.save_mcp(&self.servers, &tokens)
    }
}

/// What the section shows and edits. The list redraws when a server is added, listed again or
/// removed; a switch only updates its tool here (no redraw, so focus stays on it).
#[derive(Clone, Copy)]
struct McpForm {
    /// The servers with their tools and switches.
    rows: RwSignal<Vec<Server>>,
    /// Their bearer tokens.
    tokens: StoredValue<Tokens>,
    /// The stored records could not be read: nothing can be added.
    locked: bool,
    /// The "MCP server URL" and "MCP bearer token" fields.
    url_field: RwSignal<String>,
    token_field: RwSignal<String>,
    /// A server is being listed.
    busy: RwSignal<bool>,
    /// What happened last, and what went wrong.
    status: RwSignal<String>,
    error: RwSignal<String>,
}

impl McpForm {
    /// Connect to `url` with `token`, list its tools and show it (in place of the row of the
    /// same URL, keeping its switches). `added`: typed in (the fields empty on success), else
    /// listed again (dropped if the server was removed meanwhile).
    fn fetch(self, url: String, token: Option<String>, added: bool) {
        let McpForm {
            rows,
            tokens,
            url_field,
            token_field,
            busy,
            status,
            error,
            ..
        } = self;
        busy.set(true);
        error.set(String::new());
        status.set(format!("Connecting to {url}…"));
        leptos::task::spawn_local(async move {
            let Ok(ctrl) = web_sys::AbortController::new() else {
                return;
            };
            let result = crate::shell::mcp::list(&url, token.as_deref(), &ctrl.signal()).await;
            // The dialog may have closed meanwhile.
            if busy.try_set(false).is_some() {
                return;
            }
            let server = match result {
                Ok(server) => server,
                Err(e) => {
                    status.set(String::new());
                    return error.set(crate::shell::error_text::mcp_not_listed(added, &e));
                }
            };
            let mut shown = None;
            rows.update(
                |rows| match rows.iter().position(|r| same_base(&r.url, &url)) {
                    Some(i) => {
                        rows[i] = mcp::relist(&rows[i], server.name, server.tools);
                        shown = Some((rows[i].name.clone(), rows[i].tools.len()));
                    }
                    None if added => {
                        shown = Some((server.name.clone(), server.tools.len()));
                        rows.push(server);
                    }
                    None => {}
                },
            );
            let Some((name, count)) = shown else { return };
            tokens.update_value(|t| t.set(&url, token.as_deref().unwrap_or_default()));
            if added {
                url_field.set(String::new());
                token_field.set(String::new());
            }
            status.set(format!(
                "{name}: {count} tools listed. Save to keep the changes."
            ));
        });
    }

    /// Add the server typed in. A token left empty keeps the one stored for that URL.
    fn add(self) {
        match mcp::check_url(&self.url_field.get_untracked()) {
            Ok(u) => {
                let typed = self.token_field.get_untracked().trim().to_string();
                let token = if typed.is_empty() {
                    self.tokens
                        .with_value(|t| t.token_for(&u).map(str::to_string))
                } else {
                    Some(typed)
                };
                self.fetch(u, token, true);
            }
            Err(e) => self.error.set(e),
        }
    }

    /// List the tools of the server at `url` again.
    fn refresh(self, url: String) {
        let token = self
            .tokens
            .with_value(|t| t.token_for(&url).map(str::to_string));
        self.fetch(url, token, false);
    }

    /// Change the server at `url` with `f` (no redraw: focus stays where it is).
    fn edit(self, url: &str, f: impl FnOnce(&mut Server)) {
        self.rows.update_untracked(|rows| {
            if let Some(server) = rows.iter_mut().find(|r| r.url == url) {
                f(server);
            }
        });
    }

    /// Switch the tool `tool` of the server at `url` on or off.
    fn switch(self, url: &str, tool: &str, on: bool) {
        self.edit(url, |server| {
            if let Some(t) = server.tools.iter_mut().find(|t| t.name == tool) {
                t.on = on;
            }
        });
    }

    /// "Always allow" the tool `tool` of the server at `url`, or ask again.
    fn always(self, url: &str, tool: &str, on: bool) {
        self.edit(url, |server| {
            server.allowed.retain(|t| t != tool);
            if on {
                server.allowed.push(tool.to_string());
            }
        });
    }

    /// Remove the server at `url`, called `name`.
    fn remove(self, url: &str, name: &str) {
        self.rows.update(|r| r.retain(|r| r.url != url));
        self.status
            .set(format!("{name} removed. Save to keep the change."));
    }
}

/// The MCP servers section; `edit` is read when Settings is saved.
#[component]
pub fn McpSection(
    /// The servers and tokens stored.
    stored: McpEdit,
    /// Set to read the section's state when saving.
    edit: StoredValue<Option<Callback<(), McpEdit>>>,
) -> impl IntoView {
    let unreadable = stored.unreadable;
    let form = McpForm {
        rows: RwSignal::new(stored.servers.servers),
        tokens: StoredValue::new(stored.tokens),
        locked: unreadable.is_some(),
        url_field: RwSignal::new(String::new()),
        token_field: RwSignal::new(String::new()),
        busy: RwSignal::new(false),
        status: RwSignal::new(String::new()),
        error: RwSignal::new(unreadable.clone().unwrap_or_default()),
    };
    let McpForm {
        rows,
        tokens,
        status,
        error,
        ..
    } = form;
    edit.set_value(Some(Callback::new(move |()| McpEdit {
        servers: Servers {
            servers: rows.get_untracked(),
        },
        tokens: tokens.get_value(),
        unreadable: unreadable.clone(),
    })));
    view! {
        <fieldset class="mcp-settings">
            <legend>"MCP servers"</legend>
            <p class="hint">"Tools of MCP servers (Streamable HTTP) are offered to chats in agent mode. A server must allow requests from this page (CORS). A token is sent only to its server's URL and is never exported."</p>
            {move || rows.get().into_iter().map(|server| view! { <McpServer form=form server=server /> }).collect_view()}
            <McpAddFields form=form />
            <p class="hint" role="status">{move || status.get()}</p>
            <p class="form-error" role="alert" class:hidden=move || error.get().is_empty()>{move || error.get()}</p>
        </fieldset>
    }
}

/// One server: its name and URL, a switch per tool, "Refresh tools" and "Remove".
#[component]
fn McpServer(
    /// The section.
    form: McpForm,
    /// The server shown.
    server: Server,
) -> impl IntoView {
    let busy = form.busy;
    let name = server.name.clone();
    let count = server.tools.len();
    let (refresh_url, remove_url) = (server.url.clone(), server.url.clone());
    let removed = name.clone();
    let tools = server
        .tools
        .iter()
        .map(|t| {
            let (at, tool) = (server.url.clone(), t.name.clone());
            let (always_at, always_tool) = (at.clone(), tool.clone());
            view! {
                <li>
                    <label class="check" title=t.description.clone()>
                        <input type="checkbox" prop:checked=t.on
                            on:change=move |ev| form.switch(&at, &tool, event_target_checked(&ev)) />
                        <code>{t.name.clone()}</code>
                    </label>
                    <label class="check always" translate="yes">
                        <input type="checkbox" prop:checked=server.always_allows(&t.name)
                            aria-label=format!("Always allow {}", t.name)
                            on:change=move |ev| form.always(&always_at, &always_tool, event_target_checked(&ev)) />
                        "Always allow"
                    </label>
                    <span class="hint">{t.description.clone()}</span>
                </li>
            }
        })
        .collect_view();
    let trust_url = server.url.clone();
    let trust = server.trust;
    let options = Trust::ALL
        .iter()
        .map(|(t, label)| view! { <option value=*label selected=*t == trust>{*label}</option> })
        .collect_view();
    view! {
        <div class="mcp-server" role="group" aria-label=format!("MCP server {name}")>
            <p translate="no"><strong>{name.clone()}</strong>" "<span class="hint">{server.url.clone()}</span></p>
            <p class="hint">{format!("{count} tools; the checked ones are offered in agent mode.")}</p>
            <ul class="mcp-tools" translate="no">{tools}</ul>
            <label class="mcp-trust">
                "Tool calls"
                <select on:change=move |ev| {
                    let picked = event_target_value(&ev);
                    if let Some((t, _)) = Trust::ALL.iter().find(|(_, l)| *l == picked) {
                        form.edit(&trust_url, |s| s.trust = *t);
                    }
                }>{options}</select>
            </label>
            <div class="row">
                <button type="button" aria-label=format!("Refresh tools of {name}")
                    prop:disabled=move || busy.get()
                    on:click=move |_| form.refresh(refresh_url.clone())>"Refresh tools"</button>
                <button type="button" aria-label=format!("Remove MCP server {name}")
                    prop:disabled=move || busy.get()
                    on:click=move |_| form.remove(&remove_url, &removed)>"Remove"</button>
            </div>
        </div>
    }
}

/// The fields to add a server (URL, optional token), the plain-http warning and "Add MCP server".
#[component]
fn McpAddFields(
    /// The section.
    form: McpForm,
) -> impl IntoView {
    let McpForm {
        url_field,
        token_field,
        busy,
        locked,
        ..
    } = form;
    // Enter in the fields adds the server (it must not submit Settings).
    let on_enter = move |ev: leptos::ev::KeyboardEvent| {
        if ev.key() == "Enter" {
            ev.prevent_default();
            if !busy.get_untracked() && !locked {
                form.add();
            }
        }
    };
    view! {
        <div class="row">
            <label>
                "MCP server URL"
                <input type="text" inputmode="url" autocomplete="off" spellcheck="false"
                    placeholder="http://127.0.0.1:8000/mcp"
                    prop:value=move || url_field.get()
                    on:input=move |ev| url_field.set(event_target_value(&ev))
                    on:keydown=on_enter />
            </label>
            <label>
                "MCP bearer token"
                <input type="password" autocomplete="off" placeholder="optional"
                    prop:value=move || token_field.get()
                    on:input=move |ev| token_field.set(event_target_value(&ev))
                    on:keydown=on_enter />
            </label>
        </div>
        <p class="form-warning" class:hidden=move || token_field.with(|t| t.trim().is_empty()) || !url_field.with(|u| plain_http_remote(u))>
            "This server is reached over plain http://, so the token would travel unencrypted."
        </p>
        <button type="button" prop:disabled=move || busy.get() || locked on:click=move |_| form.add()>"Add MCP server"</button>
    }
}
