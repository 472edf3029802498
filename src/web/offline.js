// Installable and offline: registers Satori's service worker (dist/sw.js, next to the page, so
// it works under any sub-path) once the app is running, and says when a new version is ready:
// "New version of Satori" with "Reload", which hands over to it and reloads — only on that click,
// never by itself. Loaded by the app as the `offline` module (src/adapters/modules.rs).
export default async function start() {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  const registration = await navigator.serviceWorker.register(new URL('./sw.js', document.baseURI).href);
  const offer = (worker) => {
    if (!worker || !navigator.serviceWorker.controller || document.querySelector('.update-notice')) return;
    const notice = document.createElement('div');
    notice.className = 'update-notice';
    notice.setAttribute('role', 'status');
    const text = document.createElement('span');
    text.textContent = document.documentElement.lang.startsWith('zh') ? 'Satori 有新版本。' : 'New version of Satori.';
    const button = document.createElement('button');
    button.type = 'button';
    button.textContent = document.documentElement.lang.startsWith('zh') ? '重新加载' : 'Reload';
    button.addEventListener('click', () => {
      button.disabled = true;
      navigator.serviceWorker.addEventListener('controllerchange', () => location.reload(), { once: true });
      worker.postMessage('skip-waiting');
    });
    notice.append(text, ' ', button);
    document.body.append(notice);
  };
  const watch = (worker) => {
    if (!worker) return;
    if (worker.state === 'installed') offer(worker);
    else worker.addEventListener('statechange', () => worker.state === 'installed' && offer(worker));
  };
  watch(registration.waiting || registration.installing);
  registration.addEventListener('updatefound', () => watch(registration.installing));
}
