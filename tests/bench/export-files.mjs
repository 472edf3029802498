// Benchmark: what carrying attached files in an export costs, in headless Chromium against the
// fake server. For each run, a fresh profile sends one question with 12 photos (2 048 × 1 536
// noisy JPEGs made in the page, kept resized to 1 024 × 768: about 390 KB each), then:
// - "Export chat": click → download, as JSON alone (the baseline, in the same run) and as the .zip
//   with the photos;
// - "Delete chat": click → every photo freed from IndexedDB (the sweep reads every stored chat);
// - "Import" of the .zip: click "Import 1 chat" → "12 files restored." (each photo read from the
//   archive, its CRC-32 and SHA-256 checked, kept), against importing the JSON alone (baseline).
// Prints numbers; asserts nothing.
// usage: node tests/bench/export-files.mjs [--dist dist] [--runs 3]
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';
import { startFakeLlm } from '../e2e/support/fake-llm.mjs';
import { configure, chatAction } from '../e2e/support/browser.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
const runs = Number(opt('runs', '3'));
const PHOTOS = 12;
const web = await startStatic({ root: opt('dist', 'dist'), prefix: '/' });
const fake = await startFakeLlm();
const browser = await chromium.launch({
  executablePath: process.env.SATORI_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const byName = (name) => ({ name, exact: true });
const kept = (page) => page.evaluate(() => new Promise((resolve, reject) => {
  const open = indexedDB.open('satori-attachments');
  open.onerror = () => reject(open.error);
  open.onsuccess = () => {
    const db = open.result;
    if (!db.objectStoreNames.contains('files')) return resolve(0);
    const n = db.transaction('files').objectStore('files').count();
    n.onsuccess = () => { db.close(); resolve(n.result); };
  };
}));

/** Milliseconds from `start()` until `done()` resolves. */
async function timed(start, done) {
  const t0 = performance.now();
  await Promise.all([done(), start()]);
  return performance.now() - t0;
}

async function importFile(page, file, button, said) {
  await page.getByRole('button', byName('Import')).click();
  const dialog = page.getByRole('dialog', byName('Import chats'));
  await dialog.getByLabel('Import file').setInputFiles(file);
  await dialog.getByRole('button', byName(button)).waitFor({ timeout: 60_000 });
  const ms = await timed(() => dialog.getByRole('button', byName(button)).click(), () => dialog.getByText(said, { exact: false }).waitFor({ timeout: 120_000 }));
  await dialog.getByRole('button', byName('Close')).click();
  return ms;
}

const results = { exportJson: [], exportZip: [], zipMb: [], sweep: [], importJson: [], importZip: [] };
try {
  for (let run = 0; run < runs; run++) {
    const ctx = await browser.newContext({ serviceWorkers: 'block', acceptDownloads: true });
    const page = await ctx.newPage();
    await page.goto(web.url);
    await page.getByRole('textbox', byName('Message')).waitFor();
    await configure(page, { baseUrl: fake.baseUrl, model: 'gpt-4o', apiKey: 'sk-bench' });
    await page.waitForFunction(() => globalThis.__satoriModules?.ready.has('markdown'));
    await page.getByRole('button', byName('Attach')).waitFor();
    await page.evaluate(async (n) => {
      const dt = new DataTransfer();
      for (let k = 0; k < n; k++) {
        const c = new OffscreenCanvas(2048, 1536);
        const g = c.getContext('2d');
        const img = g.createImageData(2048, 1536);
        for (let i = 0; i < img.data.length; i += 4) {
          const v = (i * (k + 3) * 2654435761) >>> 24;
          img.data[i] = v; img.data[i + 1] = (v * 3) & 255; img.data[i + 2] = (v * 7) & 255; img.data[i + 3] = 255;
        }
        g.putImageData(img, 0, 0);
        dt.items.add(new File([await c.convertToBlob({ type: 'image/jpeg', quality: 0.8 })], `photo-${k}.jpg`, { type: 'image/jpeg' }));
      }
      const input = document.querySelector('#attach-input');
      input.files = dt.files;
      input.dispatchEvent(new Event('change', { bubbles: true }));
    }, PHOTOS);
    await page.waitForFunction((n) => document.querySelectorAll('#attach-chips li[data-attachment]').length === n, PHOTOS, { timeout: 120_000 });
    await page.getByRole('textbox', byName('Message')).fill('Twelve photos.');
    await page.getByRole('textbox', byName('Message')).press('Enter');
    await page.getByRole('button', byName('Send')).waitFor({ timeout: 60_000 });
    await page.waitForFunction(() => document.querySelectorAll('.attachments li[data-attachment]').length > 0);

    const exportAs = async (button) => {
      await chatAction(page, 'Export chat');
      const dialog = page.getByRole('dialog', byName('Export chat'));
      let download;
      const ms = await timed(() => dialog.getByRole('button', byName(button)).click(), async () => { download = await page.waitForEvent('download', { timeout: 120_000 }); });
      const file = `${await download.path()}.${button === 'Download ZIP' ? 'zip' : 'json'}`;
      fs.copyFileSync(await download.path(), file);
      await dialog.waitFor({ state: 'hidden' });
      return { ms, file };
    };
    const json = await exportAs('Download JSON');
    const zip = await exportAs('Download ZIP');
    results.exportJson.push(json.ms);
    results.exportZip.push(zip.ms);
    results.zipMb.push(fs.statSync(zip.file).size / 1e6);

    await chatAction(page, 'Delete chat');
    const del = page.getByRole('dialog', byName('Delete chat'));
    results.sweep.push(await timed(() => del.getByRole('button', byName('Delete')).click(), () => page.waitForFunction(async () => {
      const db = await new Promise((r) => { const o = indexedDB.open('satori-attachments'); o.onsuccess = () => r(o.result); });
      const n = await new Promise((r) => { const q = db.transaction('files').objectStore('files').count(); q.onsuccess = () => r(q.result); });
      db.close();
      return n === 0;
    }, null, { timeout: 60_000, polling: 20 })));

    results.importJson.push(await importFile(page, json.file, 'Import 1 chat', 'Imported 1 chat'));
    // The chat is there now (identical): its files come back with "Restore files".
    results.importZip.push(await importFile(page, zip.file, 'Restore files', `${PHOTOS} files restored.`));
    if ((await kept(page)) !== PHOTOS) throw new Error(`expected ${PHOTOS} files kept, found ${await kept(page)}`);
    await ctx.close();
  }
} finally {
  await browser.close();
  await web.close();
  await fake.close();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const line = (name, xs, unit = 'ms') => console.log(`${name.padEnd(44)} median ${median(xs).toFixed(unit === 'ms' ? 0 : 1)} ${unit} (${xs.map((x) => x.toFixed(unit === 'ms' ? 0 : 1)).join(' / ')})`);
console.log(`# ${PHOTOS} photos of one question (2 048 × 1 536 JPEG): export, delete, import`);
line('"Export chat", JSON alone (baseline)', results.exportJson);
line('"Export chat", .zip with the photos', results.exportZip);
line('  .zip size', results.zipMb, 'MB');
line('"Delete chat" → every photo freed', results.sweep);
line('import of the JSON alone (baseline)', results.importJson);
line('import of the .zip → photos restored', results.importZip);
