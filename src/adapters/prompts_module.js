// Loads the prompts module (built by scripts/build.sh into dist/prompts-<hash>/) whose path the
// build writes into <meta name="satori-prompts">. It is fetched the first time it is needed
// (opening "Prompts", or starting a chat that needs a template rendered), from the app's own
// origin.
let mod = null;

export async function loadPrompts() {
  if (mod !== null) return;
  const meta = document.querySelector('meta[name="satori-prompts"]');
  if (!meta) throw new Error('the page does not name the prompts module');
  const url = new URL(meta.getAttribute('content'), document.baseURI);
  const m = await import(url.href);
  await m.default();
  mod = m;
}

export function startChat(role, vars) {
  if (mod === null) throw new Error('the prompts module is not loaded');
  return mod.start(role, vars);
}

export function openManager(selected) {
  if (mod === null) throw new Error('the prompts module is not loaded');
  mod.open_manager(selected);
}

export function openSetup(role, vars) {
  if (mod === null) throw new Error('the prompts module is not loaded');
  mod.open_setup(role, vars);
}

export function openSystem(text, origin) {
  if (mod === null) throw new Error('the prompts module is not loaded');
  mod.open_system(text, origin);
}
