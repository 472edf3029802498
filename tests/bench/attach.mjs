// Benchmark: what attaching a photo costs the page, in headless Chromium. For each run, a fresh
// profile attaches a 12-megapixel photo (4 000 × 3 000, made in the page beforehand) through
// "Attach files", and the time from the files being handed over to its chip being ready (resized
// off the page's thread, hashed, kept in IndexedDB, its thumbnail drawn) is taken, with the long
// tasks the page saw meanwhile; a text file of 1 MB is the baseline in the same run (read, checked
// as UTF-8, hashed, kept). A small file attached first loads the attachments module. Prints numbers; asserts nothing.
// usage: node tests/bench/attach.mjs [--dist dist] [--runs 3]
import { chromium } from 'playwright-core';
import { startStatic } from '../e2e/support/static-server.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(`--${name}`); return i >= 0 ? args[i + 1] : dflt; };
const runs = Number(opt('runs', '3'));
const web = await startStatic({ root: opt('dist', 'dist'), prefix: '/' });
const browser = await chromium.launch({
  executablePath: process.env.SATORI_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

/** Attaches `file` (made in the page by `make`) and measures until its chip is ready. */
async function attach(page, make) {
  return page.evaluate(async (make) => {
    const file = await new Function(`return (${make})`)()();
    const long = [];
    const observer = new PerformanceObserver((l) => long.push(...l.getEntries().map((e) => e.duration)));
    observer.observe({ type: 'longtask' });
    const input = document.querySelector('#attach-input');
    const dt = new DataTransfer();
    dt.items.add(file);
    const t0 = performance.now();
    input.files = dt.files;
    input.dispatchEvent(new Event('change', { bubbles: true }));
    await new Promise((resolve) => {
      const check = () => (document.querySelector('#attach-chips li[data-attachment]') || document.querySelector('#attach-chips li.failed') ? resolve() : requestAnimationFrame(check));
      check();
    });
    const ms = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 100));
    observer.disconnect();
    const failed = document.querySelector('#attach-chips li.failed')?.textContent ?? null;
    document.querySelector('#attach-chips').textContent = '';
    return { ms, long: long.length, longMax: Math.max(0, ...long), failed };
  }, make.toString());
}

const photo = async () => {
  const c = new OffscreenCanvas(4000, 3000);
  const g = c.getContext('2d');
  for (let i = 0; i < 200; i++) {
    g.fillStyle = `hsl(${i * 7} 60% ${30 + (i % 40)}%)`;
    g.fillRect((i * 97) % 4000, (i * 53) % 3000, 400, 300);
  }
  return new File([await c.convertToBlob({ type: 'image/jpeg', quality: 0.92 })], 'photo.jpg', { type: 'image/jpeg' });
};
const text = async () => new File(['the quick brown fox jumps over the lazy dog\n'.repeat(24_000)], 'notes.txt', { type: 'text/plain' });

const results = { photo: [], text: [] };
try {
  for (let run = 0; run < runs; run++) {
    const ctx = await browser.newContext({ serviceWorkers: 'block' });
    const page = await ctx.newPage();
    await page.goto(web.url);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await page.waitForFunction(() => globalThis.__satoriModules?.ready.has('markdown'));
    // The attachments module loads on first use: a small file first, not measured.
    await attach(page, async () => new File(['warm'], 'warm.txt', { type: 'text/plain' }));
    results.text.push(await attach(page, text));
    results.photo.push(await attach(page, photo));
    await ctx.close();
  }
} finally {
  await browser.close();
  await web.close();
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log('# attaching files: handed over → chip ready (ms), long tasks on the page meanwhile');
for (const [name, rs] of Object.entries(results)) {
  if (rs.some((r) => r.failed)) console.log(name, 'FAILED:', rs.find((r) => r.failed).failed);
  console.log(
    `${name.padEnd(6)} median ${median(rs.map((r) => r.ms)).toFixed(0)} ms (${rs.map((r) => r.ms.toFixed(0)).join(' / ')}); long tasks ${rs.map((r) => r.long).join(' / ')}, longest ${Math.max(...rs.map((r) => r.longMax)).toFixed(0)} ms`,
  );
}
