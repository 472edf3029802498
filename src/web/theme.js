// Settings → Theme: "light", "dark", or the system's (nothing saved), kept under localStorage
// "satori.theme" (written by the app's storage adapter) and set as <html data-theme>
// (style/app.css has a set of colours for each). It is applied as soon as this file runs — with
// the app's script, before the app draws its first screen — and at once when another tab changes
// it.
const KEY = 'satori.theme';

function apply(theme) {
  const root = document.documentElement;
  if (theme === 'light' || theme === 'dark') root.dataset.theme = theme;
  else delete root.dataset.theme;
}

try {
  apply(localStorage.getItem(KEY));
} catch {
  // storage blocked: the system's
}

/** Follow another tab's choice. */
export function followTheme() {
  addEventListener('storage', (ev) => ev.key === KEY && apply(ev.newValue));
}

/** The theme in use: "light", "dark", or "" (the system's). */
export function currentTheme() {
  return document.documentElement.dataset.theme || '';
}

/** Use `theme` ("light", "dark"; anything else: the system's) now (Satori's storage adapter keeps the choice). */
export function applyTheme(theme) {
  apply(theme);
}
