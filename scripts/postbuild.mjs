// Moves the inline module script trunk writes into dist/index.html to a hashed file next to it,
// so the page runs under `script-src 'self'` with no inline script, and names each lazy module
// (arguments NAME=PATH, PATH relative to dist/) in <meta name="satori-module:NAME">, the stylesheet
// a module brings (style:NAME=PATH) in <meta name="satori-style:NAME">, and each data table
// (arguments table:NAME=PATH) in <meta name="satori-table:NAME">. Then minifies every script and
// stylesheet in DIST with esbuild (trunk leaves the wasm-bindgen glue and the snippets as they
// are; the app's glue and its snippets become one file) and brings the page's `integrity` hashes
// up to date. Fails loudly if the page does not look as expected (better a
// broken build than a silently weakened CSP).
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { buildSync, transformSync } from 'esbuild';

const dist = process.argv[2] ?? 'dist';
const modules = process.argv.slice(3).map((arg) => arg.match(/^((?:table:|style:)?[a-z][a-z0-9_-]*)=([\w./-]+)$/));
if (modules.length === 0 || modules.some((m) => m === null)) {
  console.error('usage: node scripts/postbuild.mjs DIST NAME=MODULE_PATH...');
  process.exit(2);
}
const indexPath = join(dist, 'index.html');
let html = readFileSync(indexPath, 'utf8');
const inline = [...html.matchAll(/<script type="module"(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)];
if (inline.length !== 1) {
  console.error(`postbuild: expected exactly one inline module script in ${indexPath}, found ${inline.length}`);
  process.exit(1);
}
let [tag, body] = inline[0];
// The app's wasm-bindgen glue and the snippets it imports (src/web/i18n.js, src/adapters/*.js)
// as one file: one request and one compressed stream instead of four (about 1 KB less gzip on
// the first load), under a name hashed from what it holds now.
const glue = html.match(/<link rel="modulepreload" href="\.\/(satori-[0-9a-f]+\.js)"[^>]*>/)?.[1];
if (!glue || !body.includes(`./${glue}`)) {
  console.error(`postbuild: the app's script is not named in ${indexPath} as expected`);
  process.exit(1);
}
const [bundle] = buildSync({ entryPoints: [join(dist, glue)], bundle: true, minify: true, legalComments: 'none', format: 'esm', target: 'es2022', write: false, logLevel: 'error' }).outputFiles;
const bundled = `satori-${createHash('sha256').update(bundle.contents).digest('hex').slice(0, 16)}.js`;
rmSync(join(dist, glue));
rmSync(join(dist, 'snippets'), { recursive: true, force: true });
writeFileSync(join(dist, bundled), bundle.contents);
body = body.replaceAll(`./${glue}`, `./${bundled}`);
tag = tag.replaceAll(`./${glue}`, `./${bundled}`);
html = html
  .replaceAll(`./${glue}`, `./${bundled}`)
  .replace(/<link rel="modulepreload" href="\.\/snippets\/[^"]+"[^>]*>\s*/g, '');
// Plain JS modules under hashed names: `offline` (src/web/offline.js) registers the service
// worker once the app runs; `translate` (src/web/translate.js) draws the page in a language other
// than English (src/web/i18n.js loads it only then).
for (const mod of ['offline', 'translate']) {
  const source = readFileSync(new URL(`../src/web/${mod}.js`, import.meta.url), 'utf8');
  const file = `${mod}-${createHash('sha256').update(source).digest('hex').slice(0, 16)}.js`;
  writeFileSync(join(dist, file), source);
  modules.push([null, mod, file]);
}
const name = `boot-${createHash('sha256').update(body).digest('hex').slice(0, 16)}.js`;
writeFileSync(join(dist, name), body.trim() + '\n');
html = html.replace(
  tag,
  modules
    .map(([, mod, path]) =>
      mod.startsWith('table:') || mod.startsWith('style:')
        ? `<meta name="satori-${mod}" content="./${path}" />\n    `
        : `<meta name="satori-module:${mod}" content="./${path}" />\n    `)
    .join('') +
    `<script type="module" src="./${name}"></script>`,
);
// The icons the interface uses (Lucide, ISC licence, from the lucide-static package): every
// `#i-NAME` the Rust sources name becomes one <symbol> in a sprite at the start of <body>, drawn
// by `<use href="#i-NAME">` in the app and the dialogs module alike. Only those icons ship; a
// name Lucide does not have fails the build.
const rsFiles = (dir) => readdirSync(dir, { withFileTypes: true })
  .flatMap((e) => (e.isDirectory() ? rsFiles(join(dir, e.name)) : e.name.endsWith('.rs') ? [join(dir, e.name)] : []));
const root = new URL('..', import.meta.url).pathname;
const iconNames = [...new Set(rsFiles(join(root, 'src'))
  .flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/#i-([a-z0-9-]+)/g)].map((m) => m[1])))].sort();
const symbols = iconNames.map((icon) => {
  let svg;
  try {
    svg = readFileSync(join(root, 'node_modules/lucide-static/icons', `${icon}.svg`), 'utf8');
  } catch {
    console.error(`postbuild: the source names the icon "${icon}", which lucide-static does not have`);
    process.exit(1);
  }
  const inner = svg.replace(/<!--[\s\S]*?-->/g, '').match(/<svg[^>]*>([\s\S]*)<\/svg>/)[1]
    .replace(/\s*\/>/g, '/>').replace(/>\s+</g, '><').trim();
  return `<symbol id="i-${icon}" viewBox="0 0 24 24">${inner}</symbol>`;
});
if (!html.includes('<body>')) {
  console.error('postbuild: no <body> in the page for the icon sprite');
  process.exit(1);
}
// Comments and the blank lines between tags are for people reading index.html, not for browsers
// (the icons' licence notice stays).
html = html.replace(/<!--[\s\S]*?-->/g, '').replace(/>\s+</g, '><');
html = html.replace('<body>', `<body><!-- Icons: Lucide (https://lucide.dev), ISC License, Copyright (c) Lucide Icons and Contributors --><svg class="sprite" aria-hidden="true" xmlns="http://www.w3.org/2000/svg">${symbols.join('')}</svg>`);
if (/<script(?![^>]*\bsrc=)[^>]*>/.test(html)) {
  console.error('postbuild: an inline script is still present');
  process.exit(1);
}
// Minify scripts (as ES modules: exported names stay) and stylesheets.
const files = (dir) => readdirSync(dir, { withFileTypes: true })
  .flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
let before = 0;
let after = 0;
for (const file of files(dist)) {
  const loader = file.endsWith('.js') ? 'js' : file.endsWith('.css') ? 'css' : null;
  // (The bundle is minified already, and named after exactly these bytes; mermaid's build is
  // minified already and is a classic script, which a module transform would break.)
  if (!loader || file === join(dist, bundled) || file.startsWith(join(dist, 'mermaid-'))) continue;
  const source = readFileSync(file, 'utf8');
  const { code } = transformSync(source, { loader, minify: true, format: loader === 'js' ? 'esm' : undefined, target: 'es2022', legalComments: 'none' });
  writeFileSync(file, code);
  before += source.length;
  after += code.length;
}
// `integrity` of every file the page names (trunk computed them before minification).
html = html.replace(/(<link\b[^>]*?\bhref="\.\/([^"]+)"[^>]*?\bintegrity=")sha384-[^"]+"/g, (_, head, path) =>
  `${head}sha384-${createHash('sha384').update(readFileSync(join(dist, path))).digest('base64')}"`);
html = html.replace(/(<link\b[^>]*?\bintegrity=")sha384-[^"]+("[^>]*?\bhref="\.\/([^"]+)")/g, (_, head, tail, path) =>
  `${head}sha384-${createHash('sha384').update(readFileSync(join(dist, path))).digest('base64')}${tail}`);
writeFileSync(indexPath, html);
// The PDF reader (pdf.js: a chunk of the attachments module and its worker, 512 KB gzip), fetched
// with the first PDF attached and kept then, not before.
const PDF_READER = /^attach-[^/]+\/pdf-/;
// The service worker (src/web/sw.js) with this version's files: everything in dist/ but the
// precompressed copies, the token tables (kept once fetched), mermaid and the PDF reader, the in-browser model's pieces (kept
// by its worker, when chosen) and itself; the version is a hash
// of their contents, so a changed build is a changed worker, which the browser installs.
const kept = files(dist)
  .map((f) => f.slice(dist.length).replace(/^\/+/, ''))
  .filter((f) => !/\.(gz|br)$/.test(f) && !f.startsWith('tokens/') && !f.startsWith('model/') && !f.startsWith('mermaid-') && !PDF_READER.test(f) && f !== 'sw.js' && f !== 'index.html')
  .sort();
const version = createHash('sha256');
const sri = (f) => `sha256-${createHash('sha256').update(readFileSync(join(dist, f))).digest('base64')}`;
for (const f of ['index.html', ...kept]) version.update(f).update(readFileSync(join(dist, f)));
const worker = readFileSync(new URL('../src/web/sw.js', import.meta.url), 'utf8')
  .replace("'__SATORI_VERSION__'", JSON.stringify(version.digest('hex').slice(0, 16)))
  .replace('__SATORI_FILES__', JSON.stringify([['./', sri('index.html')], ...kept.map((f) => [`./${f}`, sri(f)])]));
if (worker.includes('__SATORI_')) {
  console.error('postbuild: the service worker template was not filled in');
  process.exit(1);
}
writeFileSync(join(dist, 'sw.js'), transformSync(worker, { loader: 'js', minify: true, target: 'es2022', legalComments: 'none' }).code);
console.log(`postbuild: loader moved to ${name}; scripts and stylesheets minified, ${before} -> ${after} characters`);
