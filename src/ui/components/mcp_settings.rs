//! The "MCP servers" part of Settings: add a server by URL (and an optional bearer token), see
//! its tools with a switch each, list them again, remove the server. Changes are kept with the
//! other settings when the dialog is saved ([`McpEdit::save`]): the servers in one record, the
//! tokens in another that nothing exports.

use crate::adapters::storage::{StorageError, Store};
use crate::core::agent::mcp::{self, Server, Servers, Tokens};
use crate::core::key_binding::{plain_http_remote, same_base};
use crate::core::persist;
use leptos::prelude::*;

/// The MCP servers and tokens as Settings edits them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct McpEdit {
    /// The servers with their tools and switches.
    pub servers: Servers,
    /// Their bearer tokens.
    pub tokens: Tokens,
}

impl McpEdit {
    /// What storage holds (unreadable records count as empty).
    pub fn load(store: &Store) -> McpEdit {
        let read = |key: &str| store.get(key).ok().flatten();
        McpEdit {
            servers: read(persist::KEY_MCP)
                .and_then(|t| persist::decode_mcp(&t).ok())
                .unwrap_or_default(),
            tokens: read(persist::KEY_MCP_TOKENS)
                .and_then(|t| persist::decode_mcp_tokens(&t).ok())
                .unwrap_or_default(),
        }
    }

    /// Write both records (tokens of removed servers are dropped).
    pub fn save(&self, store: &Store) -> Result<(), StorageError> {
        let mut tokens = self.tokens.clone();
        tokens.keep_only(&self.servers);
        store.set(persist::KEY_MCP, &persist::encode_mcp(&self.servers))?;
        if tokens.tokens.is_empty() {
            store.remove(persist::KEY_MCP_TOKENS)
        } else {
            store.set(
                persist::KEY_MCP_TOKENS,
                &persist::encode_mcp_tokens(&tokens),
            )
        }
    }
}

/// A server as shown: its switches are signals, so flipping one redraws nothing else.
#[derive(Clone)]
struct Row {
    server: Server,
    on: Vec<RwSignal<bool>>,
}

impl Row {
    fn new(server: Server) -> Row {
        let on = server.tools.iter().map(|t| RwSignal::new(t.on)).collect();
        Row { server, on }
    }

    /// The server with the switches as they are now.
    fn current(&self) -> Server {
        let mut s = self.server.clone();
        for (t, on) in s.tools.iter_mut().zip(&self.on) {
            t.on = on.get_untracked();
        }
        s
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
    let rows = RwSignal::new(
        stored
            .servers
            .servers
            .into_iter()
            .map(Row::new)
            .collect::<Vec<_>>(),
    );
    let tokens = StoredValue::new(stored.tokens);
    let url = RwSignal::new(String::new());
    let token = RwSignal::new(String::new());
    let busy = RwSignal::new(false);
    let status = RwSignal::new(String::new());
    let error = RwSignal::new(String::new());
    edit.set_value(Some(Callback::new(move |()| McpEdit {
        servers: Servers {
            servers: rows.with_untracked(|r| r.iter().map(Row::current).collect()),
        },
        tokens: tokens.get_value(),
    })));

    // Connect to `url` with `token`, list its tools and put it in the list (in place of the
    // row of the same URL, keeping its switches).
    let fetch = move |url: String, token: Option<String>| {
        busy.set(true);
        error.set(String::new());
        status.set(format!("Connecting to {url}…"));
        leptos::task::spawn_local(async move {
            let Ok(ctrl) = web_sys::AbortController::new() else {
                return;
            };
            let result = crate::ui::mcp::list(&url, token.as_deref(), &ctrl.signal()).await;
            // The dialog may have closed meanwhile.
            if busy.try_set(false).is_some() {
                return;
            }
            match result {
                Ok(server) => {
                    let mut fresh = server.clone();
                    rows.update(|rows| {
                        match rows.iter().position(|r| same_base(&r.server.url, &url)) {
                            Some(i) => {
                                fresh = mcp::relist(&rows[i].current(), server.name, server.tools);
                                rows[i] = Row::new(fresh.clone());
                            }
                            None => rows.push(Row::new(server)),
                        }
                    });
                    tokens.update_value(|t| t.set(&url, token.as_deref().unwrap_or_default()));
                    status.set(format!(
                        "{}: {} tools listed. Save to keep the changes.",
                        fresh.name,
                        fresh.tools.len()
                    ));
                }
                Err(e) => {
                    status.set(String::new());
                    error.set(format!("The MCP server was not added: {e}."));
                }
            }
        });
    };

    let add = move |_| match mcp::check_url(&url.get_untracked()) {
        Ok(u) => {
            let t = token.get_untracked().trim().to_string();
            fetch(u, (!t.is_empty()).then_some(t));
            token.set(String::new());
        }
        Err(e) => error.set(e),
    };

    let row_view = move |row: Row| {
        let name = row.server.name.clone();
        let server_url = row.server.url.clone();
        let count = row.server.tools.len();
        let refresh_url = server_url.clone();
        let remove_url = server_url.clone();
        let removed = name.clone();
        view! {
            <div class="mcp-server" role="group" aria-label=format!("MCP server {name}")>
                <p><strong>{name.clone()}</strong>" "<span class="hint">{server_url.clone()}</span></p>
                <p class="hint">{format!("{count} tools; the checked ones are offered in agent mode.")}</p>
                <ul class="mcp-tools">
                    {row.server.tools.iter().zip(row.on.iter().copied()).map(|(t, on)| view! {
                        <li>
                            <label class="check" title=t.description.clone()>
                                <input type="checkbox" prop:checked=move || on.get()
                                    on:change=move |ev| on.set(event_target_checked(&ev)) />
                                <code>{t.name.clone()}</code>
                            </label>
                            <span class="hint">{t.description.clone()}</span>
                        </li>
                    }).collect_view()}
                </ul>
                <div class="row">
                    <button type="button" aria-label=format!("Refresh tools of {name}")
                        prop:disabled=move || busy.get()
                        on:click=move |_| {
                            let t = tokens.with_value(|t| t.token_for(&refresh_url).map(str::to_string));
                            fetch(refresh_url.clone(), t);
                        }>"Refresh tools"</button>
                    <button type="button" aria-label=format!("Remove MCP server {name}")
                        on:click=move |_| {
                            rows.update(|r| r.retain(|r| r.server.url != remove_url));
                            status.set(format!("{removed} removed. Save to keep the change."));
                        }>"Remove"</button>
                </div>
            </div>
        }
    };

    view! {
        <fieldset class="mcp-settings">
            <legend>"MCP servers"</legend>
            <p class="hint">"Tools of MCP servers (Streamable HTTP) are offered to chats in agent mode. A server must allow requests from this page (CORS). A token is sent only to its server's URL and is never exported."</p>
            {move || rows.get().into_iter().map(row_view).collect_view()}
            <div class="row">
                <label>
                    "MCP server URL"
                    <input type="url" placeholder="http://127.0.0.1:8000/mcp"
                        prop:value=move || url.get()
                        on:input=move |ev| url.set(event_target_value(&ev)) />
                </label>
                <label>
                    "MCP bearer token"
                    <input type="password" autocomplete="off" placeholder="optional"
                        prop:value=move || token.get()
                        on:input=move |ev| token.set(event_target_value(&ev)) />
                </label>
            </div>
            <p class="form-warning" class:hidden=move || token.with(|t| t.trim().is_empty()) || !url.with(|u| plain_http_remote(u))>
                "This server is reached over plain http://, so the token would travel unencrypted."
            </p>
            <button type="button" prop:disabled=move || busy.get() on:click=add>"Add MCP server"</button>
            <p class="hint" role="status">{move || status.get()}</p>
            <p class="form-error" role="alert" class:hidden=move || error.get().is_empty()>{move || error.get()}</p>
        </fieldset>
    }
}
