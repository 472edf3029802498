// The self-hosting recipes, run as written: the nginx and Caddy blocks are read from docs/self-hosting.md
// (only the folder and the address are replaced) and served on 127.0.0.1 with their own
// configuration; a release tarball (scripts/release.sh --no-build) is unpacked and served by
// `python3 -m http.server`. Through each: the page, the headers the README asks for, the
// precompressed wasm, and the app itself (its service worker keeping every file).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { requireDist, repoRoot, freePort } from './support/env.mjs';
import { launch, withApp, poll, sleep } from './support/browser.mjs';

const README = fs.readFileSync(path.join(repoRoot, 'docs/self-hosting.md'), 'utf8');
let browser;
before(async () => {
  requireDist();
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** The README's fenced block of `lang`, its indentation removed. */
function recipe(lang) {
  const m = new RegExp('^( *)```' + lang + '\\n([\\s\\S]*?)^\\1```', 'm').exec(README);
  assert.ok(m, `the README has a ${lang} block`);
  return m[2].split('\n').map((l) => l.slice(m[1].length)).join('\n');
}

/** Starts `command` (stopped by its pid afterwards) and waits until `url` answers. */
async function serve(t, command, args, url, options = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let log = '';
  child.on('error', (e) => (log += `${e}`));
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  t.after(() => {
    try {
      process.kill(child.pid);
    } catch {}
  });
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) break;
    try {
      await fetch(url);
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`${command} did not start (exit ${child.exitCode}): ${log}`);
}

/** A copy of dist/ in a fresh folder. */
function distCopy() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satori-deploy-'));
  fs.cpSync(requireDist(), path.join(dir, 'dist'), { recursive: true });
  return dir;
}

/** The page, the headers, the precompressed wasm (when `compressed`), and the app at `url`. */
async function check(t, url, { headers = true, compressed = true } = {}) {
  const page = await fetch(url);
  assert.equal(page.status, 200, `${url}: the page`);
  if (headers) {
    assert.equal(page.headers.get('content-security-policy'), "frame-ancestors 'none'");
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    const preview = await fetch(new URL('preview.html', url));
    assert.equal(preview.status, 200);
    assert.match(preview.headers.get('content-type'), /^text\/html/);
    assert.equal(preview.headers.get('content-security-policy'), "sandbox allow-scripts; frame-ancestors 'self'", 'preview.html: sandboxed, framed by Satori only');
    await preview.text();
  }
  const html = await page.text();
  const wasm = /href="\.\/([^"]+_bg\.wasm)"/.exec(html)[1];
  for (const encoding of compressed ? ['br', 'gzip'] : ['identity']) {
    const res = await fetch(new URL(wasm, url), { headers: { 'accept-encoding': encoding } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/wasm', `${wasm}: its type`);
    if (compressed) assert.equal(res.headers.get('content-encoding'), encoding, `${wasm} sent as ${encoding}`);
    await res.arrayBuffer();
  }
  const manifest = await fetch(new URL('manifest.webmanifest', url));
  assert.equal(manifest.status, 200);
  assert.equal((await manifest.json()).name, 'Satori');
  await withApp(browser, url, t, async ({ page: tab, responses }) => {
    await poll(
      () => tab.evaluate(async () => !!navigator.serviceWorker.controller && (await caches.keys()).some((k) => k.startsWith('satori:'))),
      { message: 'the service worker in charge with every file kept', timeout: 30_000 },
    );
    // A code block's "Preview" draws through this server's headers.
    await poll(() => tab.evaluate(() => !!globalThis.__satoriModules?.ready.has('markdown')), { message: 'the markdown module' });
    await tab.evaluate(() =>
      document.body.insertAdjacentHTML(
        'beforeend',
        '<div class="code-block"><div class="code-head"><button type="button" class="preview-code" aria-expanded="false">Preview</button></div><pre><code>&lt;p id="drawn"&gt;drawn here&lt;/p&gt;</code></pre></div>',
      ),
    );
    await tab.locator('.preview-code').last().click();
    await tab.frameLocator('.code-preview iframe').locator('#drawn').waitFor({ timeout: 10_000 });
    const failed = responses.filter((r) => r.url.startsWith(url) && r.status >= 400);
    assert.deepEqual(failed, [], 'nothing failed to load');
  });
}

test('nginx, with the README recipe: headers, brotli and gzip copies, the app at the root of its own host', async (t) => {
  const dir = distCopy();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const location = recipe('nginx').replaceAll('/srv/satori/dist', `${dir}/dist`);
  const conf = path.join(dir, 'nginx.conf');
  fs.writeFileSync(
    conf,
    `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
load_module /usr/lib/nginx/modules/ngx_http_brotli_static_module.so;
events {}
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
${location}
  }
}
`,
  );
  const url = `http://127.0.0.1:${port}/`;
  // Debian puts nginx in /usr/sbin, which is not on every user's PATH.
  await serve(t, fs.existsSync('/usr/sbin/nginx') ? '/usr/sbin/nginx' : 'nginx', ['-c', conf, '-p', dir], url);
  await check(t, url);
});

test('Caddy, with the README recipe: headers, brotli and gzip copies, the app', async (t) => {
  const dir = distCopy();
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const site = recipe('caddy').replace('example.org', `http://127.0.0.1:${port}`).replace('/srv/satori/dist', `${dir}/dist`);
  const conf = path.join(dir, 'Caddyfile');
  fs.writeFileSync(conf, `{\n  admin off\n  storage file_system ${dir}/caddy\n}\n${site}\n`);
  const url = `http://127.0.0.1:${port}/`;
  await serve(t, 'caddy', ['run', '--config', conf, '--adapter', 'caddyfile'], url, {
    env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
  });
  await check(t, url);
});

test('a release tarball, unpacked and served by python3 -m http.server', async (t) => {
  const tarball = execFileSync('bash', [path.join(repoRoot, 'scripts/release.sh'), '--no-build'], { encoding: 'utf8' }).trim();
  assert.match(path.basename(tarball), /^satori-.+\.tar\.gz$/);
  t.after(() => fs.rmSync(tarball, { force: true }));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satori-release-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  execFileSync('tar', ['-xzf', tarball, '-C', dir]);
  assert.ok(fs.existsSync(path.join(dir, 'index.html')) && fs.existsSync(path.join(dir, 'sw.js')), 'the build at the top of the tarball');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  await serve(t, 'python3', ['-m', 'http.server', '-b', '127.0.0.1', '-d', dir, String(port)], url);
  await check(t, url, { headers: false, compressed: false });
});
