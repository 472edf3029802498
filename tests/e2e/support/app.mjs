// The start-up every browser test file shares: one call registers node:test `before` / `after`
// hooks that start the servers and Chromium for the file's tests and stop them afterwards.
//
//   const e2e = useApp();                                 // fake LLM server + dist/ + Chromium
//   const e2e = useApp({ fake: false, llama: true });     // the real llama.cpp server instead
//   const e2e = useApp({ prefix: '/tools/satori/' });     // dist/ served under a sub-path
//   const e2e = useApp({ serviceWorkers: 'block' });      // pages without Satori's service worker
//
//   e2e.fake / e2e.llama / e2e.web / e2e.browser          // getters, usable inside tests
//   await e2e.open(t, async (app) => { … }, options)     // withApp() on the served app
//
// Started in this order: llama.cpp (when asked), the fake server (when asked), the static server
// for dist/ (requireDist() fails first with what to run if there is no build), Chromium; stopped
// in the reverse order, whatever failed.
import { before, after } from 'node:test';
import { startFakeLlm } from './fake-llm.mjs';
import { startStatic } from './static-server.mjs';
import { startLlama, stopLlama } from './llama.mjs';
import { requireDist } from './env.mjs';
import { launch, withApp } from './browser.mjs';

/**
 * Registers the file's before/after hooks; returns getters for what they started.
 * Options: `fake` (default true) starts the scripted fake server, `llama` (default false) the
 * llama.cpp server, `prefix` (default '/') is where the static server serves dist/.
 * `serviceWorkers: 'block'` opens pages without Satori's service worker: for files whose tests
 * make the app's own files fail (`page.route`), which a service worker answering from its cache
 * would hide from the route — a first visit, before the worker kept anything.
 */
export function useApp({ fake = true, llama = false, prefix = '/', serviceWorkers = 'allow' } = {}) {
  const running = { fake: null, llama: null, web: null, browser: null };

  before(async () => {
    const root = requireDist();
    if (llama) running.llama = await startLlama();
    if (fake) running.fake = await startFakeLlm();
    running.web = await startStatic({ root, prefix });
    running.browser = await launch();
  });

  after(async () => {
    await running.browser?.close();
    await running.web?.close();
    await running.fake?.close();
    await stopLlama(running.llama);
  });

  const get = (name) => {
    if (!running[name]) {
      throw new Error(`useApp(): ${name} is not running (not asked for, or before() has not run yet)`);
    }
    return running[name];
  };

  return {
    get fake() {
      return get('fake');
    },
    get llama() {
      return get('llama');
    },
    get web() {
      return get('web');
    },
    get browser() {
      return get('browser');
    },
    /** `withApp(browser, web.url, t, fn, options)`: a fresh page of the served app. */
    open(t, fn, options = {}) {
      const contextOptions = { serviceWorkers, ...options.contextOptions };
      return withApp(get('browser'), get('web').url, t, fn, { ...options, contextOptions });
    },
  };
}
