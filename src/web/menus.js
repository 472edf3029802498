// Satori's menus (an element with role="menu" and the `popover` attribute, opened by a button
// with `popovertarget`), for every menu of the page: opening one puts the focus on its first
// item; the arrow keys, Home and End move through its items; choosing an item, or Tab out of
// it, closes the menu — choosing before the item's own action runs (so a dialog it opens gives
// the focus back to the menu's button). Esc and a click outside close it: the browser's popover
// does that. A menu that several buttons open (a chat list row's "Chat options") is put under the
// button that opened it and carries that button's `data-id` and `data-pinned`; its items hidden
// by the style sheet (Pin or Unpin) are skipped.

const items = (menu) => [...menu.querySelectorAll('[role="menuitem"]')].filter((i) => i.getClientRects().length > 0);
let opener = null; // the last button that opened a menu

/** Listen, once per page, for what every menu does. */
export function startMenus() {
  if (globalThis.__satoriMenus) return;
  globalThis.__satoriMenus = true;
  // `toggle` does not bubble: heard while it goes down (capture).
  // Before it shows (no frame drawn in the wrong place): under its button, or above it when the
  // button is low on the screen, right edges aligned. (Styles through the CSSOM: the page's CSP
  // forbids style attributes.)
  document.addEventListener('beforetoggle', (ev) => {
    const menu = ev.target;
    if (menu.id !== 'row-menu' || ev.newState !== 'open' || !opener) return;
    menu.dataset.id = opener.dataset.id;
    menu.dataset.pinned = opener.dataset.pinned ?? '';
    const at = opener.getBoundingClientRect();
    const low = at.bottom > innerHeight * 0.6;
    menu.style.top = low ? 'auto' : `${at.bottom + 2}px`;
    menu.style.bottom = low ? `${innerHeight - at.top + 2}px` : 'auto';
    menu.style.right = `${Math.max(4, innerWidth - at.right)}px`;
  }, true);
  document.addEventListener('toggle', (ev) => {
    if (ev.target.getAttribute?.('role') === 'menu' && ev.newState === 'open') items(ev.target)[0]?.focus();
  }, true);
  document.addEventListener('click', (ev) => {
    opener = ev.target.closest?.('[popovertarget]') ?? opener;
    const menu = ev.target.closest?.('[role="menuitem"]')?.closest('[role="menu"][popover]');
    if (menu) menu.hidePopover();
  }, true);
  // Tab out of an open menu closes it.
  document.addEventListener('focusout', (ev) => {
    const menu = ev.target.closest?.('[role="menu"][popover]');
    if (menu && ev.relatedTarget && !menu.contains(ev.relatedTarget) && menu.matches(':popover-open')) menu.hidePopover();
  });
  document.addEventListener('keydown', (ev) => {
    const menu = ev.target.closest?.('[role="menu"]');
    if (!menu) return;
    const all = items(menu);
    const at = all.indexOf(ev.target);
    const next = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: all.length - 1 }[ev.key];
    if (next === undefined || all.length === 0) return;
    ev.preventDefault();
    all[(next + all.length) % all.length].focus();
  });
}
