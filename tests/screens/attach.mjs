// Screenshots of attachments (not a test): the composer with a photo, a PDF and a refused file as
// chips, then a sent question with its files and their thumbnails, "Export chat" offering the
// .zip, "Export all" saying what it saved, and the import of that .zip (its preview, then what
// was restored), in light and dark, desktop and phone width.
// usage: node tests/screens/attach.mjs [outdir]
import fs from 'node:fs';
import { configure, chatAction } from '../e2e/support/browser.mjs';
import { stage } from './stage.mjs';

const { out, web, fake, browser, close } = await stage();
const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [4 0 R] /Count 1 >>\nendobj\n' +
  '3 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>\nendobj\n4 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 5 0 R /Resources << /Font << /F1 3 0 R >> >> >>\nendobj\n' +
  '5 0 obj\n<< /Length 44 >>\nstream\nBT /F1 18 Tf 72 700 Td (Invoice 4471) Tj ET\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n',
  'latin1',
);
try {
  for (const scheme of ['light', 'dark']) {
    for (const [label, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 800 }]]) {
      const ctx = await browser.newContext({ colorScheme: scheme, viewport, hasTouch: label === 'phone' });
      const page = await ctx.newPage();
      await page.goto(web.url);
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.waitFor();
      await configure(page, { baseUrl: fake.baseUrl, model: 'gpt-4o', apiKey: 'sk-demo' });
      await page.getByRole('button', { name: 'Attach', exact: true }).waitFor();
      const photo = Buffer.from(await page.evaluate(async () => {
        const c = new OffscreenCanvas(1600, 1200);
        const g = c.getContext('2d');
        const sky = g.createLinearGradient(0, 0, 0, 1200);
        sky.addColorStop(0, '#7cb7e8');
        sky.addColorStop(1, '#f3d9a4');
        g.fillStyle = sky;
        g.fillRect(0, 0, 1600, 1200);
        g.fillStyle = '#2f6b3a';
        g.beginPath();
        g.moveTo(0, 900);
        g.quadraticCurveTo(800, 600, 1600, 950);
        g.lineTo(1600, 1200);
        g.lineTo(0, 1200);
        g.fill();
        const bytes = new Uint8Array(await (await c.convertToBlob({ type: 'image/jpeg', quality: 0.9 })).arrayBuffer());
        return Array.from(bytes);
      }));
      await page.getByLabel('Attach files', { exact: true }).setInputFiles([
        { name: 'hills.jpg', mimeType: 'image/jpeg', buffer: photo },
        { name: 'invoice-4471.pdf', mimeType: 'application/pdf', buffer: PDF },
        { name: 'orders.csv', mimeType: 'text/csv', buffer: Buffer.from('order,amount\nA-4471,99.50\n') },
        { name: 'setup.exe', mimeType: 'application/octet-stream', buffer: Buffer.from([77, 90, 0, 0, 3, 0, 255, 1]) },
      ]);
      await page.waitForFunction(() => {
        const chips = document.querySelectorAll('#attach-chips li');
        return chips.length === 4 && ![...chips].some((c) => c.dataset.pending);
      });
      await box.fill('What do these show?');
      await page.waitForTimeout(200);
      await page.screenshot({ path: `${out}/${scheme}-${label}-attach-chips.png` });
      await page.getByRole('button', { name: 'Remove setup.exe', exact: true }).click();
      fake.enqueue({ chunks: ['A photo of green hills under a clear sky, ', 'invoice 4471 and one order of 99.50.'] });
      await box.press('Enter');
      await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
      await page.waitForFunction(() => document.querySelectorAll('.attachments img.thumb').length === 1);
      await page.waitForTimeout(200);
      await page.screenshot({ path: `${out}/${scheme}-${label}-attach-sent.png` });
      await chatAction(page, 'Export chat');
      const exporting = page.getByRole('dialog', { name: 'Export chat', exact: true });
      await exporting.getByRole('button', { name: 'Download ZIP', exact: true }).waitFor();
      await page.waitForTimeout(200);
      await page.screenshot({ path: `${out}/${scheme}-${label}-attach-export.png` });
      const [zip] = await Promise.all([page.waitForEvent('download'), exporting.getByRole('button', { name: 'Download ZIP', exact: true }).click()]);
      const zipPath = `${out}/.${scheme}-${label}-export.zip`;
      await zip.saveAs(zipPath);
      if (label === 'phone') await page.getByRole('button', { name: 'Chats', exact: true }).click().catch(() => {});
      await page.getByRole('button', { name: 'Export all', exact: true }).click();
      const all = page.getByRole('dialog', { name: 'Export all', exact: true });
      await all.getByText('Saved as a .zip', { exact: false }).waitFor();
      await page.waitForTimeout(200);
      await page.screenshot({ path: `${out}/${scheme}-${label}-attach-export-all.png` });
      await all.getByRole('button', { name: 'Close', exact: true }).click();
      if (label === 'phone') await page.getByRole('button', { name: 'Chats', exact: true }).click().catch(() => {});
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      const importing = page.getByRole('dialog', { name: 'Import chats', exact: true });
      await importing.getByLabel('Import file').setInputFiles(zipPath);
      await importing.getByRole('button', { name: 'Restore files', exact: true }).waitFor();
      await page.waitForTimeout(200);
      await page.screenshot({ path: `${out}/${scheme}-${label}-attach-import.png` });
      fs.rmSync(zipPath);
      await ctx.close();
    }
  }
} finally {
  await close();
}
console.log(`screenshots in ${out}`);
