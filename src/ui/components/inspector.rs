//! The context inspector's view (it runs in the on-demand dialogs module): for the next request
//! and the last few sent, how the window is spent, every message's tokens and fate, the total
//! against the budget, the summary (editable) and what it covers, the stage log, and the exact
//! JSON body with "Copy as curl". Counts that are estimated carry "≈".

use crate::core::context::report::Report;
use crate::core::session::ContextOverrides;
use crate::ui::components::form::NumberField;
use leptos::prelude::*;

/// Tokens as shown: `1234`, or `≈1234` when estimated.
fn tokens(n: u32, exact: bool) -> String {
    if exact {
        n.to_string()
    } else {
        format!("≈{n}")
    }
}

/// The inspector for `reports` (the next request first, then the requests sent, newest first).
#[component]
pub fn Inspector(
    /// What to show.
    reports: ReadSignal<Vec<Report>>,
    /// The user saved an edited summary: (summary id, text).
    on_edit_summary: Callback<(String, String)>,
    /// The user saved this chat's context settings.
    on_edit_chat: Callback<ContextOverrides>,
) -> impl IntoView {
    let chosen = RwSignal::new(0usize);
    let current = move || reports.with(|r| r.get(chosen.get()).or_else(|| r.first()).cloned());
    view! {
        <div class="inspector">
            <label class="inline">
                "Request "
                <select on:change=move |ev| chosen.set(event_target_value(&ev).parse().unwrap_or(0))>
                    {move || reports.with(|r| r.iter().enumerate().map(|(i, rep)| {
                        view! { <option value=i.to_string() selected=i == chosen.get_untracked()>{rep.title.clone()}</option> }
                    }).collect_view())}
                </select>
            </label>
            {move || current().map(|r| report_view(r, on_edit_summary, on_edit_chat))}
        </div>
    }
}

/// The chat's own context settings: empty fields follow Settings.
fn chat_settings(current: ContextOverrides, on_save: Callback<ContextOverrides>) -> impl IntoView {
    let text = |v: Option<u32>| v.map(|n| n.to_string()).unwrap_or_default();
    let window = RwSignal::new(text(current.window));
    let reserve = RwSignal::new(text(current.reply_reserve));
    let keep = RwSignal::new(text(current.keep_recent_rounds));
    let min = RwSignal::new(text(current.min_keep_rounds));
    let summarize = RwSignal::new(
        match current.summarize {
            None => "default",
            Some(true) => "on",
            Some(false) => "off",
        }
        .to_string(),
    );
    let error = RwSignal::new(String::new());
    let field = |label: &'static str, value: RwSignal<String>| {
        view! { <NumberField label=label value=value min="0" step="1" placeholder="as in Settings" /> }
    };
    let save = move |_| {
        let num = |v: RwSignal<String>| -> Result<Option<u32>, ()> {
            let t = v.get_untracked();
            let t = t.trim();
            if t.is_empty() {
                Ok(None)
            } else {
                t.parse().map(Some).map_err(|_| ())
            }
        };
        let (Ok(window), Ok(reply_reserve), Ok(keep_recent_rounds), Ok(min_keep_rounds)) =
            (num(window), num(reserve), num(keep), num(min))
        else {
            error.set("These fields take whole numbers (or nothing, to follow Settings).".into());
            return;
        };
        if window.is_some_and(|w| w < 256) || reply_reserve.zip(window).is_some_and(|(r, w)| r >= w)
        {
            error.set(
                "The window must be at least 256 tokens and larger than the reply reserve.".into(),
            );
            return;
        }
        error.set(String::new());
        on_save.run(ContextOverrides {
            window,
            reply_reserve,
            keep_recent_rounds,
            min_keep_rounds,
            summarize: match summarize.get_untracked().as_str() {
                "on" => Some(true),
                "off" => Some(false),
                _ => None,
            },
        });
    };
    view! {
        <details class="ctx-chat">
            <summary>"This chat's context settings"</summary>
            <div class="row">
                {field("Chat context window", window)}
                {field("Chat reply reserve", reserve)}
                {field("Chat keep recent rounds", keep)}
                {field("Chat minimum rounds", min)}
            </div>
            <label>"Chat summaries"
                <select prop:value=move || summarize.get() on:change=move |ev| summarize.set(event_target_value(&ev))>
                    <option value="default">"As in Settings"</option>
                    <option value="on">"On"</option>
                    <option value="off">"Off"</option>
                </select>
            </label>
            <p class="form-error" role="alert" class:hidden=move || error.get().is_empty()>{move || error.get()}</p>
            <button type="button" on:click=save>"Save for this chat"</button>
        </details>
    }
}

fn report_view(
    r: Report,
    on_edit_summary: Callback<(String, String)>,
    on_edit_chat: Callback<ContextOverrides>,
) -> impl IntoView {
    let exact = r.exact;
    let window = r.window.max(1);
    let bar = r
        .segments
        .iter()
        .filter(|s| s.tokens > 0)
        .map(|s| {
            let pct = f64::from(s.tokens.min(window)) * 100.0 / f64::from(window);
            view! {
                <span class=format!("seg seg-{}", s.kind) style:width=format!("{pct:.2}%")
                    title=format!("{}: {} tokens", s.label, tokens(s.tokens, exact))></span>
            }
        })
        .collect_view();
    let legend = r
        .segments
        .iter()
        .filter(|s| s.tokens > 0 || s.kind == "free")
        .map(|s| {
            view! {
                // The label and the count apart: the label is a text of the interface (translated),
                // the count a number.
                <li><span class=format!("swatch seg-{}", s.kind)></span>{s.label.clone()}" "{tokens(s.tokens, exact)}</li>
            }
        })
        .collect_view();
    let bar_label = r
        .segments
        .iter()
        .map(|s| format!("{} {}", s.label, tokens(s.tokens, exact)))
        .collect::<Vec<_>>()
        .join(", ");
    let rows = r
        .rows
        .iter()
        .map(|row| {
            view! {
                <tr data-fate=row.fate.clone()>
                    <td>{row.role.clone()}{row.pinned.then_some(" (pinned)")}</td>
                    <td class="preview" translate="no">{row.preview.clone()}
                        {row.attachments.iter().map(|a| view! { <div class="attachment-line">{a.clone()}</div> }).collect_view()}
                    </td>
                    <td class="num">{if row.tokens > 0 { tokens(row.tokens, exact) } else { "–".into() }}</td>
                    <td class="num">{if row.sent > 0 { tokens(row.sent, exact) } else { "–".into() }}</td>
                    <td>{row.fate.clone()}</td>
                </tr>
            }
        })
        .collect_view();
    let summary = r.summary.clone().map(|s| {
        let text = RwSignal::new(s.text.clone());
        let id = s.id.clone();
        let restored = (!s.restored.is_empty()).then(|| {
            view! { <p class="hint">{format!("Key facts restored by Satori: {}", s.restored.join(", "))}</p> }
        });
        view! {
            <section class="ctx-summary">
                <h3>{format!("Summary — covers {} messages, up to “{}”{}", s.covers, s.through, if s.edited { " (edited)" } else { "" })}</h3>
                <textarea aria-label="Summary text" rows="6" prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))></textarea>
                {restored}
                <button type="button" on:click=move |_| on_edit_summary.run((id.clone(), text.get_untracked()))>"Save summary"</button>
            </section>
        }
    });
    let log = r
        .log
        .iter()
        .map(|l| view! { <li>{l.clone()}</li> })
        .collect_view();
    let curl = r.curl.clone();
    let copied = RwSignal::new(String::new());
    view! {
        <div class="ctx-report">
            <p class="ctx-total">
                <strong>{format!("{} / {} tokens", tokens(r.total, exact), r.budget)}</strong>
                {format!(" — window {}, {}", r.window, if exact { "counted exactly" } else { "≈ estimated" })}
            </p>
            <p class="hint">{r.window_hint.clone()}</p>
            {(!r.refused.is_empty()).then(|| view! { <p class="form-error">{r.refused.clone()}</p> })}
            <div class="ctx-bar" role="img" aria-label=format!("Context window: {bar_label}")>{bar}</div>
            <ul class="ctx-legend">{legend}</ul>
            {r.overrides.clone().map(|o| chat_settings(o, on_edit_chat))}
            {summary}
            <table class="ctx-table">
                <caption>"Messages"</caption>
                <thead><tr><th>"Role"</th><th>"Text"</th><th>"Tokens"</th><th>"Sent"</th><th>"Fate"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            <details class="ctx-log">
                <summary>"Stage log"</summary>
                <ol>{log}</ol>
            </details>
            <details class="ctx-body">
                <summary>"Request body (JSON)"</summary>
                <pre>{r.body.clone()}</pre>
            </details>
            <button type="button" on:click=move |_| {
                let Some(w) = web_sys::window() else { return };
                let promise = w.navigator().clipboard().write_text(&curl);
                leptos::task::spawn_local(async move {
                    copied.set(match wasm_bindgen_futures::JsFuture::from(promise).await {
                        Ok(_) => " Copied. The command reads the API key from $SATORI_API_KEY.".into(),
                        Err(_) => " The browser did not allow copying to the clipboard.".into(),
                    });
                });
            }>"Copy as curl"</button>
            <span role="status" class="hint">{move || copied.get()}</span>
        </div>
    }
}
