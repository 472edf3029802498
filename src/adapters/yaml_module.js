// Loads the YAML reader module for user prompt templates (built by scripts/build.sh into
// dist/yaml-<hash>/) whose path the build writes into <meta name="satori-yaml">. It is fetched
// the first time it is needed, from the app's own origin.
let reader = null;

export async function loadYaml() {
  if (reader !== null) return;
  const meta = document.querySelector('meta[name="satori-yaml"]');
  if (!meta) throw new Error('the page does not name the YAML module');
  const url = new URL(meta.getAttribute('content'), document.baseURI);
  const mod = await import(url.href);
  await mod.default();
  reader = mod.read_templates;
}

export function readTemplates(file, text, keepSource) {
  if (reader === null) throw new Error('the YAML module is not loaded');
  return reader(file, text, keepSource);
}
