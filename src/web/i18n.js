// Satori's interface language, on the first load: which language to draw in, and numbers for it.
// English costs nothing more: the Rust code writes English. Another language loads the
// translator (src/web/translate.js, the `translate` module) and its table before the app draws.
//
// The language is the one saved under localStorage "satori.language" ("en" or "zh-CN"), else the
// browser's first language Satori has. The Settings dialog changes it with a `satori:language`
// window event (detail: the language); another tab's change arrives as a storage event. Either
// applies at once, both ways.

const KEY = 'satori.language';
const LANGUAGES = ['en', 'zh-CN'];
let current = 'en';
let numbers = null;
let translator = null;
let asked = 0; // the latest request wins: an older one still loading is dropped

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

/** `n` formatted for the page's language (digit grouping); any module's copy of this file agrees. */
export function formatNumber(n) {
  const lang = document.documentElement.lang || 'en';
  if (!numbers || numbers.lang !== lang) {
    numbers = { lang, format: new Intl.NumberFormat(lang).format };
  }
  return numbers.format(n);
}

/**
 * Start in the chosen language before the app draws (it waits at most 3 s for a slow table, which
 * is applied when it comes), then follow changes.
 */
export async function startLanguage() {
  addEventListener('satori:language', (ev) => apply(ev.detail));
  addEventListener('storage', (ev) => {
    if (ev.key === KEY) apply(ev.newValue);
  });
  await Promise.race([apply(chosenLanguage()), new Promise((done) => setTimeout(done, 3000))]);
}

async function apply(lang) {
  if (!LANGUAGES.includes(lang)) return;
  const mine = ++asked;
  if (lang === 'en' && current === 'en' && !translator) return;
  try {
    if (!translator) {
      const meta = document.querySelector('meta[name="satori-module:translate"]');
      if (!meta) throw new Error('the page does not name the translator');
      translator = import(new URL(meta.getAttribute('content'), document.baseURI).href);
      translator.catch(() => (translator = null));
    }
    const draw = (await translator).default;
    if (mine !== asked) return;
    await draw(lang, () => mine === asked);
    if (mine !== asked) return;
    current = lang;
    document.documentElement.lang = lang;
  } catch (e) {
    console.warn(`Satori: the ${lang} texts could not be loaded (${e && e.message}); the page stays as it was.`);
  }
}
