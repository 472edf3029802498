// Satori's interface language, on the first load: which language to draw in, and numbers for it.
// English costs nothing more: the Rust code writes English. Another language loads the
// translator (src/web/translate.js, the `translate` module: it draws the page in the language
// asked for last) and its table before the app draws.
//
// The language is the one saved under localStorage "satori.language" ("en" or "zh-CN"), else the
// browser's first language Satori has. The Settings dialog changes it with a `satori:language`
// window event (detail: the language); another tab's change arrives as a storage event. Either
// applies at once, both ways.

const KEY = 'satori.language';
const LANGUAGES = ['en', 'zh-CN'];
let translator = null; // the translate module, once a language other than English was asked for

/** The language to start in: the saved choice, else the browser's. */
export function chosenLanguage() {
  let saved = null;
  try {
    saved = localStorage.getItem(KEY);
  } catch {
    // storage blocked: follow the browser
  }
  if (LANGUAGES.includes(saved)) return saved;
  for (const tag of navigator.languages || [navigator.language || 'en']) {
    const low = String(tag).toLowerCase();
    if (low === 'zh' || low.startsWith('zh-')) return 'zh-CN';
    if (low === 'en' || low.startsWith('en-')) return 'en';
  }
  return 'en';
}

/** The app has drawn its first screen: what waits for it (the rest of a language's table) goes on. */
export function appDrawn() {
  globalThis.__satoriDrawn = true;
  dispatchEvent(new Event('satori:drawn'));
}

/** `n` formatted for the page's language (digit grouping); any module's copy of this file agrees. */
let numbers = null; // [language, its Intl.NumberFormat]
export function formatNumber(n) {
  const lang = document.documentElement.lang || 'en';
  if (!numbers || numbers[0] !== lang) numbers = [lang, new Intl.NumberFormat(lang)];
  return numbers[1].format(n);
}

/** Moment `ms` for the page's language: in full (`long`), else the time, with the day when not today. */
export function formatTime(ms, long) {
  const lang = document.documentElement.lang || 'en';
  const at = new Date(ms);
  if (long) return at.toLocaleString(lang, { dateStyle: 'full', timeStyle: 'short' });
  const clock = { hour: 'numeric', minute: '2-digit' };
  const today = at.toDateString() === new Date().toDateString();
  return at.toLocaleString(lang, today ? clock : { ...clock, month: 'short', day: 'numeric' });
}

/** `text` as the page's language writes it; '' when that is English or it has no translation. */
export function inLanguage(text) {
  const name = globalThis.__satoriInLanguage;
  return name ? name(text) : '';
}

/**
 * `amount` of `currency` (ISO 4217) for the page's language; an amount below the currency's
 * smallest unit (a cent, a yen) to two significant digits; a code Intl refuses is written out.
 */
export function formatMoney(amount, currency) {
  const lang = document.documentElement.lang || 'en';
  try {
    const money = new Intl.NumberFormat(lang, { style: 'currency', currency });
    const unit = 10 ** -money.resolvedOptions().maximumFractionDigits;
    if (!(amount > 0 && amount < unit)) return money.format(amount);
    return new Intl.NumberFormat(lang, { style: 'currency', currency, maximumSignificantDigits: 2 }).format(amount);
  } catch {
    return `${new Intl.NumberFormat(lang).format(amount)} ${currency}`;
  }
}

/**
 * Start in the chosen language before the app draws (it waits at most 3 s for a slow table, which
 * is applied when it comes), then follow changes. English, never left, loads nothing more.
 */
export async function startLanguage() {
  const use = (lang) => {
    if (!LANGUAGES.includes(lang) || (!translator && lang === 'en')) return;
    if (!translator) {
      const meta = document.querySelector('meta[name="satori-module:translate"]');
      translator = import(new URL(meta ? meta.getAttribute('content') : 'missing', document.baseURI).href);
      translator.catch((e) => {
        translator = null;
        console.warn(`Satori: the translator could not be loaded (${e && e.message}); the page stays in English.`);
      });
    }
    return translator.then((m) => m.use(lang), () => {});
  };
  addEventListener('satori:language', (ev) => use(ev.detail));
  addEventListener('storage', (ev) => ev.key === KEY && use(ev.newValue));
  await Promise.race([use(chosenLanguage()), new Promise((done) => setTimeout(done, 3000))]);
}
