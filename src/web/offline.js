// Installable and offline: registers Satori's service worker (dist/sw.js, next to the page, so
// it works under any sub-path) once the app is running, and says when a new version is ready:
// "New version of Satori." with "Reload", which hands over to it and reloads — only on a click,
// never by itself. When another tab's "Reload" made the new version take over, this tab (still
// running the old one) says so the same way, and its "Reload" just reloads. Loaded by the app as
// the `offline` module (src/adapters/modules.rs), which is also when sync starts, if it is on.
export default async function start() {
  startSync();
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  const registration = await navigator.serviceWorker.register(new URL('./sw.js', document.baseURI).href);
  if (!registration) return; // service workers turned off
  let asked = false;
  const offer = () => {
    if (document.querySelector('.update-notice')) return;
    const notice = document.createElement('div');
    notice.className = 'update-notice';
    notice.setAttribute('role', 'status');
    const text = document.createElement('span');
    text.textContent = 'New version of Satori.'; // translated with the page (src/web/translate.js)
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = 'Reload';
    button.addEventListener('click', () => {
      const waiting = registration.waiting;
      if (!waiting) return location.reload(); // already in charge (another tab)
      asked = true;
      button.disabled = true;
      waiting.postMessage('skip-waiting');
    });
    notice.append(text, ' ', button);
    const composer = document.querySelector('.composer');
    if (composer) composer.before(notice);
    else document.body.append(notice);
  };
  const hadController = !!navigator.serviceWorker.controller;
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (asked) location.reload();
    else if (hadController) offer(); // another tab took the new version: this one runs the old
  });
  const watch = (worker) => {
    if (!worker || !navigator.serviceWorker.controller) return;
    if (worker.state === 'installed') offer();
    else worker.addEventListener('statechange', () => worker.state === 'installed' && offer());
  };
  watch(registration.waiting || registration.installing);
  registration.addEventListener('updatefound', () => watch(registration.installing));
  // Tabs left open look for a new version when they are shown again.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') registration.update().catch(() => {});
  });
}

// Sync, when this browser syncs (a setup is stored): the sync module (src/bin/satori-sync.rs)
// runs it from here on. Its problems show in Settings → Sync, which loads the module again.
function startSync() {
  let on = false;
  try {
    on = !!localStorage.getItem('satori.sync');
  } catch {
    return; // storage blocked: the app says so itself
  }
  const modules = globalThis.__satoriModules;
  if (!on || !modules || !modules.load) return;
  modules
    .load('sync')
    .then(() => modules.ready.get('sync').start())
    .catch((e) => console.error('Satori: sync could not start:', e));
}
