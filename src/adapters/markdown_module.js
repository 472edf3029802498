// Loads the markdown renderer module (built by scripts/build.sh into dist/md-<hash>/) whose path
// the build writes into <meta name="satori-markdown">. Dynamic import from the app's own origin.
let renderer = null;

export async function loadMarkdown() {
  const meta = document.querySelector('meta[name="satori-markdown"]');
  if (!meta) throw new Error('the page does not name the markdown module');
  const url = new URL(meta.getAttribute('content'), document.baseURI);
  const mod = await import(url.href);
  await mod.default();
  renderer = mod.render;
}

export function renderMarkdown(text) {
  return renderer === null ? undefined : renderer(text);
}
