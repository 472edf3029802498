//! The "Settings" dialog: provider preset, base URL, key, model (with the server's list),
//! temperature, max reply tokens, stall timeout. It runs in the on-demand dialogs module
//! (`src/bin/satori-dialogs.rs`), which saves with [`save`] and tells the app.

use crate::adapters::fetch::get_models;
use crate::adapters::storage::Store;
use crate::core::key_binding::{key_save, plain_http_remote, KeyField, KeySave, SettingsSaved};
use crate::core::persist::{self, ApiKeyRecord};
use crate::core::settings::{
    models_url, preset, ImageSettings, Price, Prices, Settings, IN_BROWSER_ID, PRESETS,
};
use crate::shell::error_text::describe_storage;
use crate::ui::components::form::{FilePicker, NumberField, SaveActions};
use crate::ui::components::mcp_settings::{McpEdit, McpSection};
use crate::ui::components::modal::Modal;
use leptos::prelude::*;
use std::collections::BTreeMap;

/// Save validated `settings` and the key field, each in its own record: the key is bound only
/// to the base URL it was typed for ([`key_save`]). Returns what the app must apply; a storage
/// failure is reported in it, never lost.
pub fn save(store: &Store, settings: Settings, field: &KeyField, mcp: &McpEdit) -> SettingsSaved {
    let stored = store
        .get(persist::KEY_API_KEY)
        .ok()
        .flatten()
        .and_then(|t| persist::decode_api_key(&t).ok());
    let key = key_save(field, &settings.base_url, stored.as_ref());
    let written = store.save_settings(&settings).and_then(|()| match &key {
        KeySave::Write(record) => store.save_api_key(Some(record)),
        KeySave::Remove => store.save_api_key(None),
        KeySave::Keep => Ok(()),
    });
    // The MCP servers are kept apart: their failing to save never holds back the settings.
    let problem = match (written, mcp.save(store)) {
        (Err(e), _) => Some(describe_storage(&e)),
        (Ok(()), Err(e)) => Some(crate::shell::error_text::mcp_not_saved(&e)),
        (Ok(()), Ok(())) => None,
    };
    SettingsSaved {
        settings,
        key,
        problem,
    }
}

fn parse_opt<T: std::str::FromStr>(text: &str) -> Result<Option<T>, ()> {
    let t = text.trim();
    if t.is_empty() {
        Ok(None)
    } else {
        t.parse().map(Some).map_err(|_| ())
    }
}

/// The placeholder of the "Context window" field: what Satori would use for `model`.
fn window_hint(model: &str) -> String {
    match crate::core::context::models::known_window(model) {
        Some(w) => format!("{w} (model table)"),
        None => "automatic".into(),
    }
}

/// What the form's fields hold (numbers as typed, checked on saving) and the server's model
/// list.
#[derive(Clone, Copy)]
struct SettingsForm {
    provider: RwSignal<String>,
    base_url: RwSignal<String>,
    /// The stored key and the base URL it belongs to; the key field only ever shows a key that
    /// belongs to the base URL field's current value.
    stored_key: StoredValue<Option<ApiKeyRecord>>,
    key: RwSignal<KeyField>,
    /// The key field was emptied because the base URL changed.
    key_cleared: RwSignal<bool>,
    model: RwSignal<String>,
    temperature: RwSignal<String>,
    max_tokens: RwSignal<String>,
    stall: RwSignal<String>,
    window: RwSignal<String>,
    reserve: RwSignal<String>,
    keep_recent: RwSignal<String>,
    min_keep: RwSignal<String>,
    summarize: RwSignal<bool>,
    summarizer: RwSignal<String>,
    image_rounds: RwSignal<String>,
    /// Whether the model typed sees images (its mark, else Satori's list).
    sees: RwSignal<bool>,
    /// How images go to models (its own record, saved with the settings).
    images: StoredValue<ImageSettings>,
    /// The context window of each model (the field shows the one of the model typed).
    windows: StoredValue<BTreeMap<String, u32>>,
    /// The model typed's price: per million tokens in and out, and the currency.
    price_in: RwSignal<String>,
    price_out: RwSignal<String>,
    currency: RwSignal<String>,
    /// The price of each model (the fields show the one of the model typed).
    prices: StoredValue<Prices>,
    /// Why the prices record could not be read (it is then never written over).
    prices_unreadable: StoredValue<Option<String>>,
    /// What went wrong, shown above the buttons.
    error: RwSignal<String>,
    /// The models the server offers, and a line about them.
    models: RwSignal<Vec<String>>,
    models_note: RwSignal<String>,
    /// Only the newest model-list request may update the list (answers can arrive out of order).
    generation: StoredValue<u32>,
}

impl SettingsForm {
    fn new(current: &Settings, stored: Option<ApiKeyRecord>) -> Self {
        let text = |n: Option<String>| RwSignal::new(n.unwrap_or_default());
        let stored_key = StoredValue::new(stored);
        let (prices, prices_unreadable) = match Store::local().prices() {
            Ok(p) => (p, None),
            Err(e) => (Prices::new(), Some(e)),
        };
        let price = prices.get(&current.model);
        let images = Store::local().images();
        SettingsForm {
            provider: RwSignal::new(current.provider.clone()),
            base_url: RwSignal::new(current.base_url.clone()),
            key: RwSignal::new(
                stored_key.with_value(|r| KeyField::load(r.as_ref(), &current.base_url)),
            ),
            stored_key,
            key_cleared: RwSignal::new(false),
            model: RwSignal::new(current.model.clone()),
            temperature: text(current.temperature.map(|t| t.to_string())),
            max_tokens: text(current.max_tokens.map(|t| t.to_string())),
            stall: RwSignal::new(current.stall_seconds.to_string()),
            window: text(current.window_for(&current.model).map(|w| w.to_string())),
            reserve: text(current.reply_reserve.map(|r| r.to_string())),
            keep_recent: RwSignal::new(current.keep_recent_rounds.to_string()),
            min_keep: RwSignal::new(current.min_keep_rounds.to_string()),
            summarize: RwSignal::new(current.summarize),
            summarizer: RwSignal::new(current.summarizer_model.clone()),
            image_rounds: RwSignal::new(images.rounds.to_string()),
            sees: RwSignal::new(images.sees(&current.model)),
            images: StoredValue::new(images),
            windows: StoredValue::new(current.windows.clone()),
            price_in: text(price.map(|p| p.input.to_string())),
            price_out: text(price.map(|p| p.output.to_string())),
            currency: text(price.map(|p| p.currency.clone())),
            prices: StoredValue::new(prices.clone()),
            prices_unreadable: StoredValue::new(prices_unreadable),
            error: RwSignal::new(String::new()),
            models: RwSignal::new(Vec::new()),
            models_note: RwSignal::new(String::new()),
            generation: StoredValue::new(0),
        }
    }

    /// Ask the base URL's server for its models (with the key only if it belongs to that URL).
    fn load_models(self) {
        let Self {
            generation,
            models,
            models_note,
            ..
        } = self;
        generation.update_value(|g| *g += 1);
        let mine = generation.get_value();
        let base = self
            .base_url
            .get_untracked()
            .trim()
            .trim_end_matches('/')
            .to_string();
        let url = models_url(&base);
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return;
        }
        // The key goes only to the server it belongs to, never to one merely typed in here.
        let key = self
            .key
            .with_untracked(|k| k.usable_for(&base).map(str::to_string));
        models_note.set("Loading the server's model list…".into());
        leptos::task::spawn_local(async move {
            let Ok(ctrl) = web_sys::AbortController::new() else {
                return;
            };
            let result = get_models(&url, key.as_deref(), &ctrl.signal()).await;
            if generation.try_get_value() != Some(mine) {
                return;
            }
            match result {
                Ok(list) if !list.is_empty() => {
                    models_note.set(format!("{} models offered by the server.", list.len()));
                    models.set(list);
                }
                _ => {
                    models.set(Vec::new());
                    models_note.set(crate::shell::error_text::NO_MODEL_LIST.into());
                }
            }
        });
    }

    /// The base URL field changed (typed or by a preset): a key never follows it elsewhere.
    fn base_changed(self, new_base: String) {
        let before = self.key.get_untracked();
        let after = self
            .stored_key
            .with_value(|r| before.follow_base(&new_base, r.as_ref()));
        // The note stays until a key is back in the field (typed, or restored for its own URL).
        if !after.text.trim().is_empty() {
            self.key_cleared.set(false);
        } else if !before.text.trim().is_empty() {
            self.key_cleared.set(true);
        }
        self.key.set(after);
        self.base_url.set(new_base);
    }

    /// The provider preset `id` was chosen: its URL and model (if it has them) fill the fields.
    fn preset_chosen(self, id: String) {
        if let Some(p) = preset(&id) {
            if !p.base_url.is_empty() {
                self.base_changed(p.base_url.to_string());
            }
            if !p.model.is_empty() {
                self.model.set(p.model.to_string());
            }
        }
        self.provider.set(id);
        self.load_models();
    }

    /// The model name typed: the context window and price fields show the ones kept for it.
    fn model_typed(self, m: String) {
        self.window.set(
            self.windows
                .with_value(|w| w.get(m.trim()).map(|v| v.to_string()))
                .unwrap_or_default(),
        );
        let price = self.prices.with_value(|p| p.get(m.trim()).cloned());
        self.price_in.set(
            price
                .as_ref()
                .map(|p| p.input.to_string())
                .unwrap_or_default(),
        );
        self.price_out.set(
            price
                .as_ref()
                .map(|p| p.output.to_string())
                .unwrap_or_default(),
        );
        self.currency
            .set(price.map(|p| p.currency).unwrap_or_default());
        self.sees.set(self.images.with_value(|i| i.sees(m.trim())));
        self.model.set(m);
    }

    /// The settings in the fields, validated, and the prices of models; else what is wrong, in
    /// words.
    fn settings(self) -> Result<(Settings, Prices, ImageSettings), String> {
        let (
            Ok(temperature),
            Ok(max_tokens),
            Ok(Some(stall_seconds)),
            Ok(window),
            Ok(reply_reserve),
            Ok(Some(keep_recent_rounds)),
            Ok(Some(min_keep_rounds)),
            Ok(Some(image_rounds)),
        ) = (
            parse_opt::<f32>(&self.temperature.get_untracked()),
            parse_opt::<u32>(&self.max_tokens.get_untracked()),
            parse_opt::<u32>(&self.stall.get_untracked()),
            parse_opt::<u32>(&self.window.get_untracked()),
            parse_opt::<u32>(&self.reserve.get_untracked()),
            parse_opt::<u32>(&self.keep_recent.get_untracked()),
            parse_opt::<u32>(&self.min_keep.get_untracked()),
            parse_opt::<u32>(&self.image_rounds.get_untracked()),
        )
        else {
            return Err(crate::shell::error_text::SETTINGS_NOT_NUMBERS.into());
        };
        let model_name = self.model.get_untracked().trim().to_string();
        let mut windows = self.windows.get_value();
        match window {
            Some(w) => windows.insert(model_name.clone(), w),
            None => windows.remove(&model_name),
        };
        let mut prices = self.prices.get_value();
        match (
            parse_opt::<f64>(&self.price_in.get_untracked()),
            parse_opt::<f64>(&self.price_out.get_untracked()),
        ) {
            (Ok(None), Ok(None)) => {
                prices.remove(&model_name);
            }
            (Ok(Some(input)), Ok(Some(output))) => {
                let currency = self.currency.get_untracked();
                let currency = if currency.trim().is_empty() {
                    "USD".to_string()
                } else {
                    currency
                };
                let price = Price {
                    input,
                    output,
                    currency,
                }
                .validated()
                .map_err(|e| crate::shell::error_text::settings_invalid(&e))?;
                prices.insert(model_name.clone(), price);
            }
            _ => return Err(PRICE_BOTH.into()),
        }
        let settings = Settings {
            provider: self.provider.get_untracked(),
            base_url: self.base_url.get_untracked(),
            model: model_name,
            temperature,
            max_tokens,
            stall_seconds,
            windows,
            reply_reserve,
            keep_recent_rounds,
            min_keep_rounds,
            summarize: self.summarize.get_untracked(),
            summarizer_model: self.summarizer.get_untracked(),
        }
        .validated()
        .map_err(|e| crate::shell::error_text::settings_invalid(&e))?;
        if image_rounds > 1000 {
            return Err(crate::shell::error_text::settings_invalid(
                &crate::core::settings::SettingsError::BadRounds,
            ));
        }
        let images = ImageSettings {
            rounds: image_rounds,
            ..self.images.get_value()
        }
        .marked(&settings.model, self.sees.get_untracked());
        Ok((settings, prices, images))
    }
}

/// Settings form in a modal.
#[component]
pub fn SettingsDialog(
    /// The settings in use.
    current: Settings,
    /// The stored API key and the URL it belongs to.
    stored: Option<ApiKeyRecord>,
    /// The MCP servers and their tokens, as stored.
    mcp: McpEdit,
    /// Save: validated settings, the key field and the MCP servers; an error is shown in the
    /// dialog.
    on_save: Callback<(Settings, KeyField, McpEdit), Result<(), String>>,
    /// The dialog closed.
    on_close: Callback<()>,
) -> impl IntoView {
    let form = SettingsForm::new(&current, stored);
    let error = form.error;
    let mcp_edit = StoredValue::new(None::<Callback<(), McpEdit>>);
    form.load_models();
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        match form.settings() {
            Ok((s, prices, images)) => {
                // The prices and how images go first: a full storage keeps the dialog open,
                // saying so. A prices record that could not be read is left as it is.
                if form.prices_unreadable.with_value(Option::is_none) {
                    if let Err(e) = Store::local().save_prices(&prices) {
                        error.set(describe_storage(&e));
                        return;
                    }
                }
                if let Err(e) = Store::local().save_images(&images) {
                    error.set(describe_storage(&e));
                    return;
                }
                let mcp = mcp_edit.get_value().map(|c| c.run(())).unwrap_or_default();
                if let Err(e) = on_save.run((s, form.key.get_untracked(), mcp)) {
                    error.set(e);
                }
            }
            Err(e) => error.set(e),
        }
    };
    view! {
        <Modal title="Settings" on_close=on_close>
            <form class="settings" on:submit=save>
                <OriginNotice />
                <LanguageField error=error />
                <ThemeField error=error />
                <ConnectionFields form=form />
                <GenerationFields form=form />
                <ContextFields form=form />
                <PriceFields form=form />
                <McpSection stored=mcp edit=mcp_edit />
                <crate::ui::components::sync_settings::SyncSection />
                <StorageSection />
                <p class="hint">"The API key stays in this browser's storage. It is only sent to the API base URL, in the Authorization header."</p>
                <p class="form-error" role="alert" class:hidden=move || error.get().is_empty()>{move || error.get()}</p>
                <SaveActions on_cancel=on_close />
            </form>
        </Modal>
    }
}

/// Said once, until dismissed: Satori runs under a folder of its host, whose other pages could
/// read what it keeps (see `core::key_binding::may_share_origin`).
#[component]
fn OriginNotice() -> impl IntoView {
    let location = window().location();
    let (origin, path) = (location.origin(), location.pathname());
    let (origin, path) = (origin.unwrap_or_default(), path.unwrap_or_default());
    let folder = crate::core::key_binding::page_folder(&path).to_string();
    let store = Store::local();
    let dismissed = store.get(persist::KEY_ORIGIN_NOTICE).ok().flatten();
    let shown = RwSignal::new(
        crate::core::key_binding::may_share_origin(&path) && dismissed.as_ref() != Some(&folder),
    );
    let text = crate::shell::error_text::shared_origin(&folder, &origin);
    let dismiss = move |_| {
        // Not kept (storage full or blocked): it is said again next time, nothing else.
        let _ = Store::local().dismiss_origin_notice(&folder);
        shown.set(false);
    };
    // Nothing in the page at all unless it is said (not even hidden text).
    view! {
        <Show when=move || shown.get()>
            <div class="form-warning origin-notice" role="note">
                <p>{text.clone()}</p>
                <button type="button" aria-label="Dismiss the shared-origin warning" on:click=dismiss.clone()>"Dismiss"</button>
            </div>
        </Show>
    }
}

/// The interface language: it changes at once (not on "Save") and is remembered; each language
/// is named in itself.
#[component]
fn LanguageField(
    /// Where a language that could not be kept is said.
    error: RwSignal<String>,
) -> impl IntoView {
    let chinese = document()
        .document_element()
        .is_some_and(|e| e.get_attribute("lang").is_some_and(|l| l.starts_with("zh")));
    view! {
        <label>
            "Language"
            <select translate="no" on:change=move |ev| {
                if let Err(e) = set_language(&event_target_value(&ev)) {
                    error.set(crate::shell::error_text::language_not_kept(&e));
                }
            }>
                <option value="en" selected=!chinese>"English"</option>
                <option value="zh-CN" selected=chinese>"简体中文"</option>
            </select>
        </label>
    }
}

/// The colour theme: the system's, light or dark; it changes at once (not on "Save") and is
/// remembered.
#[component]
fn ThemeField(
    /// Where a theme that could not be kept is said.
    error: RwSignal<String>,
) -> impl IntoView {
    let now = crate::adapters::theme::current();
    let option = move |value: &'static str, name: &'static str| {
        view! { <option value=value selected=now == value>{name}</option> }
    };
    view! {
        <label>
            "Theme"
            <select on:change=move |ev| {
                let theme = event_target_value(&ev);
                crate::adapters::theme::apply(&theme);
                if let Err(e) = crate::adapters::storage::Store::local().save_theme(&theme) {
                    error.set(crate::shell::error_text::theme_not_kept(&e));
                }
            }>
                {option("", "System")}
                {option("light", "Light")}
                {option("dark", "Dark")}
            </select>
        </label>
    }
}

/// Where requests go: provider preset (with the in-browser model's file for that one), base
/// URL, API key (with its notes), model (with the server's list).
#[component]
fn ConnectionFields(
    /// The form.
    form: SettingsForm,
) -> impl IntoView {
    let SettingsForm {
        provider,
        base_url,
        key,
        key_cleared,
        model,
        models,
        models_note,
        error,
        ..
    } = form;
    // The preset in use when the dialog opened is the one selected.
    let chosen = provider.get_untracked();
    view! {
        <label>
            "Provider"
            <select on:change=move |ev| form.preset_chosen(event_target_value(&ev)) prop:value=move || provider.get()>
                {PRESETS
                    .iter()
                    .map(|p| view! { <option value=p.id selected=p.id == chosen>{p.label}</option> })
                    .collect_view()}
            </select>
        </label>
        {move || provider.with(|p| p == IN_BROWSER_ID).then(|| view! { <ModelFileSection error=error /> })}
        <label>
            "API base URL"
            <input
                type="url"
                placeholder="https://api.example.com/v1"
                prop:value=move || base_url.get()
                on:input=move |ev| form.base_changed(event_target_value(&ev))
                on:change=move |_| form.load_models()
            />
        </label>
        <label>
            "API key"
            <input
                type="password"
                autocomplete="off"
                placeholder="Not needed for local servers"
                prop:value=move || key.with(|k| k.text.clone())
                on:input=move |ev| {
                    key_cleared.set(false);
                    key.set(KeyField::typed(&event_target_value(&ev), &base_url.get_untracked()));
                }
            />
        </label>
        <p class="hint" role="status">
            {move || key_cleared.get().then_some("The API key field was emptied: a key belongs to the server it was entered for. Enter the key for this server.")}
        </p>
        <p class="form-warning" class:hidden=move || !key.with(|k| !k.text.trim().is_empty()) || !base_url.with(|b| plain_http_remote(b))>
            "This server is reached over plain http://, so the API key would travel unencrypted. Use https:// unless the server is on a network you trust."
        </p>
        <label>
            "Model"
            <input
                type="text"
                list="model-options"
                prop:value=move || model.get()
                on:input=move |ev| form.model_typed(event_target_value(&ev))
            />
        </label>
        <datalist id="model-options">
            <For each=move || models.get() key=|m| m.clone() children=|m| view! { <option value=m.clone()></option> } />
        </datalist>
        <p class="hint">{move || models_note.get()}</p>
    }
}

/// How replies are asked for: temperature, length, stall timeout.
#[component]
fn GenerationFields(
    /// The form.
    form: SettingsForm,
) -> impl IntoView {
    view! {
        <div class="row">
            <NumberField label="Temperature" value=form.temperature min="0" max="2" step="0.1" placeholder="server default" />
            <NumberField label="Max reply tokens" value=form.max_tokens min="1" step="1" placeholder="server default" />
            <NumberField label="Stall timeout (seconds)" value=form.stall min="1" max="3600" step="1" />
        </div>
    }
}

/// What the form says when only one of a model's two prices is a number.
const PRICE_BOTH: &str =
    "Enter both prices of the model (per million tokens sent and written), or neither.";

/// What the model typed costs (kept per model, like its context window): each reply's cost
/// is shown from it.
#[component]
fn PriceFields(
    /// The form.
    form: SettingsForm,
) -> impl IntoView {
    let currency = form.currency;
    let unreadable = form
        .prices_unreadable
        .get_value()
        .map(|e| crate::shell::error_text::prices_unreadable(&e));
    view! {
        <fieldset class="price-settings">
            <legend>"Price"</legend>
            <p class="form-error">{unreadable}</p>
            <div class="row">
                <NumberField label="Input price per 1M tokens" value=form.price_in min="0" step="any" placeholder="unknown" />
                <NumberField label="Output price per 1M tokens" value=form.price_out min="0" step="any" placeholder="unknown" />
                <label>
                    "Currency"
                    <input type="text" maxlength="3" placeholder="USD" autocomplete="off"
                        prop:value=move || currency.get()
                        on:input=move |ev| currency.set(event_target_value(&ev)) />
                </label>
            </div>
            <p class="hint">"The price is kept for this model; each reply then shows what it cost. Satori knows no prices of its own: take them from your provider's price page. Without a price, no cost is shown."</p>
        </fieldset>
    }
}

/// How the context is built: window, reply reserve, rounds kept, summaries.
#[component]
fn ContextFields(
    /// The form.
    form: SettingsForm,
) -> impl IntoView {
    let SettingsForm {
        model,
        summarize,
        summarizer,
        sees,
        ..
    } = form;
    let automatic = Signal::derive(move || model.with(|m| window_hint(m)));
    view! {
        <fieldset class="context-settings">
            <legend>"Context"</legend>
            <div class="row">
                <NumberField label="Context window" value=form.window min="256" step="1" placeholder=automatic />
                <NumberField label="Reply reserve" value=form.reserve min="0" step="1" placeholder="automatic" />
                <NumberField label="Keep recent rounds" value=form.keep_recent min="0" max="1000" step="1" />
                <NumberField label="Minimum rounds" value=form.min_keep min="0" max="1000" step="1" />
                <NumberField label="Keep images for the last N rounds" value=form.image_rounds min="1" max="1000" step="1" />
            </div>
            <label class="check">
                <input type="checkbox"
                    prop:checked=move || sees.get()
                    on:change=move |ev| sees.set(event_target_checked(&ev)) />
                "Sees images"
            </label>
            <label class="check">
                <input type="checkbox"
                    prop:checked=move || summarize.get()
                    on:change=move |ev| summarize.set(event_target_checked(&ev)) />
                "Summarize old turns"
            </label>
            <label>
                "Summarizer model"
                <input type="text" list="model-options" placeholder="the chat model"
                    prop:value=move || summarizer.get()
                    on:input=move |ev| summarizer.set(event_target_value(&ev)) />
            </label>
            <p class="hint">"The context window and whether it sees images are kept for this model. Empty fields use what the server or Satori's model table says. Images in older rounds are sent as a line naming them."</p>
        </fieldset>
    }
}

/// The in-browser model's file: the built-in one, or a GGUF file picked from disk, which takes
/// its place at once (like the language, not on "Save") and is kept in this browser.
#[component]
fn ModelFileSection(error: RwSignal<String>) -> impl IntoView {
    use crate::adapters::modules::local_model;
    let note = RwSignal::new(String::new());
    let picked = RwSignal::new(false);
    // A change under way: the controls wait for it (one change at a time).
    let busy = RwSignal::new(true);
    // Shows the file in use after `action` (and what went wrong, if anything).
    let run = move |action: &'static str, file: Option<web_sys::File>| {
        busy.set(true);
        leptos::task::spawn_local(async move {
            let mut result = local_model(action, file).await;
            if let Err(e) = &result {
                error.try_set(e.clone());
                result = local_model("which", None).await;
            }
            // The dialog may have closed meanwhile.
            match result {
                Ok(info) => {
                    picked.try_set(info.is_some());
                    note.try_set(model_note(info.as_deref()));
                }
                Err(e) => {
                    // A file that cannot be read any more: going back must stay possible.
                    picked.try_set(true);
                    note.try_set(e);
                }
            }
            busy.try_set(false);
        });
    };
    run("which", None);
    let on_pick = move |files: Vec<web_sys::File>| {
        let Some(file) = files.into_iter().next() else {
            return;
        };
        error.set(String::new());
        note.set(format!("Checking “{}”…", file.name()));
        run("pick", Some(file));
    };
    view! {
        <fieldset class="model-settings">
            <legend>"In-browser model"</legend>
            <p class="hint" role="status">{move || note.get()}</p>
            <label>
                "Model file (GGUF)"
                <FilePicker accept=".gguf" disabled=busy on_pick=Callback::new(on_pick) />
            </label>
            <p class="hint">"A GGUF file of the SmolLM2 family (Q4_K_M, Q5_K_M, Q6_K, Q8_0, Q4_0, Q4_1, Q5_0 or Q5_1) runs instead of the built-in model. It is read from this computer, never uploaded."</p>
            <button type="button" class:hidden=move || !picked.get() prop:disabled=move || busy.get() on:click=move |_| {
                error.set(String::new());
                run("forget", None);
            }>"Use the built-in model"</button>
        </fieldset>
    }
}

/// The model file in use, said for the Settings dialog: `info` is its description (JSON from
/// `llm-local.js`), `None` the built-in model.
pub fn model_note(info: Option<&str>) -> String {
    #[derive(serde::Deserialize)]
    struct Info {
        name: String,
        bytes: f64,
        kept: bool,
        layers: u32,
        width: u32,
    }
    let Some(info) = info else {
        return "Model: the built-in SmolLM2-135M.".into();
    };
    match serde_json::from_str::<Info>(info) {
        Ok(i) => format!(
            "Model: “{}”, {} MB, {} layers of {}. {}",
            i.name,
            (i.bytes / 1e6).round(),
            i.layers,
            i.width,
            match i.kept {
                true => "Kept in this browser.",
                false => "For this visit only: the browser did not keep it (its storage is full, or the page is not on https).",
            }
        ),
        Err(_) => "Model: a file picked from disk.".into(),
    }
}

/// What Satori's data takes of this site's storage, and whether the browser keeps it.
#[component]
fn StorageSection() -> impl IntoView {
    use crate::adapters::storage;
    let used = Store::local().used(crate::core::persist::PREFIX);
    let kept = RwSignal::new(None::<bool>);
    let asked = RwSignal::new(String::new());
    leptos::task::spawn_local(async move { kept.set(storage::persisted().await) });
    let ask = move |_| {
        leptos::task::spawn_local(async move {
            let answer = storage::persist().await;
            kept.set(answer.or(kept.get_untracked()));
            asked.set(storage_answer(answer).into());
        })
    };
    view! {
        <fieldset class="storage-settings">
            <legend>"Storage"</legend>
            <p>{storage_use(used)}</p>
            <p>{move || storage_kept(kept.get())}</p>
            {move || (kept.get() == Some(false)).then(|| view! {
                <button type="button" on:click=ask>"Ask the browser to keep my chats"</button>
            })}
            <p role="status">{move || asked.get()}</p>
        </fieldset>
    }
}

/// "Satori's chats and settings take 2.1 of the about 5 MB …".
pub fn storage_use(used: Result<usize, crate::adapters::storage::StorageError>) -> String {
    match used {
        Ok(n) => format!(
            "Satori's chats and settings take {} of the about 5 MB this browser lets a site keep (counted in characters, as browsers count).",
            if n < 100_000 {
                "less than 0.1".to_string()
            } else {
                format!("{:.1}", n as f64 / 1e6)
            }
        ),
        Err(e) => crate::shell::error_text::storage_use_unreadable(&e),
    }
}

/// Whether the browser keeps the data, in words.
pub fn storage_kept(kept: Option<bool>) -> &'static str {
    match kept {
        Some(true) => "The browser keeps this data until you clear it (persistent storage).",
        Some(false) => "The browser may clear this data when the disk runs low, and Safari clears a site's data after 7 days without a visit: export your chats now and then (Export all), or install Satori.",
        None => "",
    }
}

fn storage_answer(answer: Option<bool>) -> &'static str {
    match answer {
        Some(true) => "Granted: the browser will keep Satori's data.",
        Some(false) => "Refused: the browser decides by how often you use Satori (bookmarking or installing it helps). Export your chats now and then.",
        None => "This browser cannot be asked.",
    }
}

/// Draw Satori in `language` (`en`, `zh-CN`) from now on, in this tab at once and in the others
/// through the stored choice (`src/web/i18n.js` does the drawing).
fn set_language(language: &str) -> Result<(), crate::adapters::storage::StorageError> {
    crate::adapters::dialogs_module::language_changed(language);
    crate::adapters::storage::Store::local().save_language(language)
}
