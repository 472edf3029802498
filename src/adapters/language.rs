//! The interface language (`src/web/i18n.js`): the app writes English; in another language the
//! page's texts are translated as they are drawn. See the README's "Languages".

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/web/i18n.js")]
extern "C" {
    #[wasm_bindgen(js_name = startLanguage)]
    async fn start_language();
    #[wasm_bindgen(js_name = appDrawn)]
    fn app_drawn();
    #[wasm_bindgen(js_name = formatNumber)]
    fn format_number(n: f64) -> String;
    #[wasm_bindgen(js_name = formatTime)]
    fn format_time(ms: f64, long: bool) -> String;
    #[wasm_bindgen(js_name = formatMoney)]
    fn format_money(amount: f64, currency: &str) -> String;
    #[wasm_bindgen(js_name = inLanguage)]
    fn in_language(text: &str) -> String;
}

/// Take the saved or the browser's language (loading its texts) before the app draws.
pub async fn start() {
    start_language().await;
}

/// The app has drawn its first screen: the rest of the language's texts may be fetched.
pub fn drawn() {
    app_drawn();
}

/// `n` with the digit grouping of the page's language (`Intl.NumberFormat`).
pub fn number(n: u64) -> String {
    format_number(n as f64)
}

/// Moment `ms` (since the epoch) for the page's language: short (the time of day, with the date
/// when not today) and long (date and time in full).
pub fn time(ms: f64) -> (String, String) {
    (format_time(ms, false), format_time(ms, true))
}

/// `amount` of `currency` (ISO 4217) for the page's language, to two significant digits below one
/// cent.
pub fn money(amount: f64, currency: &str) -> String {
    format_money(amount, currency)
}

/// `text` as the page's language writes it; empty in English or when it has no translation.
pub fn translated(text: &str) -> String {
    in_language(text)
}
