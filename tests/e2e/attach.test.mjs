// Attachments: images attached by "Attach files", by paste and by drop reach the model as
// image_url parts at the size the providers take; text files and PDFs as fenced text under their
// names; a file Satori cannot read is refused with its name; an image for a model that does not
// see images is never sent; images of older rounds go as placeholders; a file over the budget is
// cut with the hard cap's marker. Asserted on the exact request bodies the fake server received.
// Kept bytes: an export carries them in a .zip and an import restores them byte for byte (only
// bytes that hash to their names); deleting the last chat that names a file frees it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useApp } from './support/app.mjs';
import { pack } from './support/packed.mjs';
import {
  configure,
  waitIdle,
  sendMessage,
  lastUser,
  poll,
  reload,
  byName,
  chatAction,
  chatEntry,
  storedChat,
} from './support/browser.mjs';

const e2e = useApp();

/** A PNG (or JPEG) of `w`×`h` drawn in the page, as bytes. */
async function picture(page, w, h, type = 'image/png') {
  const b64 = await page.evaluate(
    async ({ w, h, type }) => {
      const c = new OffscreenCanvas(w, h);
      const g = c.getContext('2d');
      g.fillStyle = '#3a7';
      g.fillRect(0, 0, w, h);
      g.fillStyle = '#fff';
      g.fillRect(w / 4, h / 4, w / 2, h / 2);
      const bytes = new Uint8Array(await (await c.convertToBlob({ type })).arrayBuffer());
      let s = '';
      for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return btoa(s);
    },
    { w, h, type },
  );
  return Buffer.from(b64, 'base64');
}

/** The width and height written in a PNG's or a JPEG's header. */
function dimensions(bytes) {
  if (bytes.subarray(1, 4).toString() === 'PNG') return [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
  for (let i = 2; i < bytes.length; ) {
    const marker = bytes[i + 1];
    const len = bytes.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xc2) return [bytes.readUInt16BE(i + 7), bytes.readUInt16BE(i + 5)];
    i += 2 + len;
  }
  throw new Error('not a PNG or JPEG');
}

/** A PDF with one page per text in `pages` (an empty text: a page with a drawing and no text). */
function pdf(pages) {
  const objects = ['<< /Type /Catalog /Pages 2 0 R >>', null, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'];
  const kids = [];
  for (const text of pages) {
    const stream = text ? `BT /F1 18 Tf 72 700 Td (${text}) Tj ET` : '0.2 0.4 0.6 rg 72 72 400 600 re f';
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
    const content = objects.length;
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${content} 0 R /Resources << /Font << /F1 3 0 R >> >> >>`);
    kids.push(`${objects.length} 0 R`);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${pages.length} >>`;
  let out = '%PDF-1.4\n';
  const offsets = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const chips = (page) => page.getByRole('list', byName('Attachments')).first();

/** The composer's chips: what each will send (its line, `attachment.rs`, read) or why it was refused. */
async function chipStates(page) {
  return page.locator('#attach-chips li').evaluateAll((els) => {
    const parse = (line) => {
      const [hash, kind, mime, bytes, size, pages, text, ...name] = line.split(' ');
      const [width, height] = size.split('x').map(Number);
      return { hash, kind, mime, bytes: Number(bytes), width, height, pages: Number(pages), text: text === '-' ? undefined : text, name: name.join(' ') };
    };
    return els.map((el) => ({
      pending: el.dataset.pending === 'true',
      attachment: el.dataset.attachment ? parse(el.dataset.attachment) : null,
      failed: el.classList.contains('failed') ? el.textContent : null,
    }));
  });
}

async function settled(page, n) {
  await poll(async () => {
    const all = await chipStates(page);
    return all.length === n && all.every((c) => !c.pending);
  }, { message: `${n} attachments read`, timeout: 20_000 });
  return chipStates(page);
}

/** Puts `files` ({name, type, bytes}) on the page's clipboard event or drop, as a user would. */
async function pasteOrDrop(page, how, files) {
  await page.evaluate(
    ({ how, files }) => {
      const dt = new DataTransfer();
      for (const f of files) dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
      if (how === 'paste') {
        document.querySelector('#composer-input').dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
      } else {
        // Onto the conversation (an image is attached wherever it is dropped; a chat export only on the composer).
        const target = document.querySelector('[role="log"]') ?? document.querySelector('main');
        target.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
        target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      }
    },
    { how, files: files.map((f) => ({ name: f.name, type: f.type, b64: f.bytes.toString('base64') })) },
  );
}

const lastChat = () => e2e.fake.chatRequests().at(-1)?.body;

/** Until the page takes files: the markdown module, which starts the attachments' listeners, is
 * loaded right after the composer is usable. */
const takesFiles = (page) => page.waitForFunction(() => globalThis.__satoriModules?.ready.has('markdown'));

test('images attached by the file input, by paste and by drop go to a vision model as image_url parts at the size it takes; their thumbnails show after a reload', async (t) => {
  await e2e.open(t, async (app) => {
    const { page } = app;
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'gpt-4o', apiKey: 'sk-e2e-attach' });
    await takesFiles(page);
    const photo = await picture(page, 4000, 3000);
    const shot = await picture(page, 800, 600);
    const portrait = await picture(page, 3000, 4000, 'image/jpeg');

    await page.getByRole('button', byName('Attach')).waitFor();
    await page.getByLabel('Attach files', { exact: true }).setInputFiles([{ name: 'photo.png', mimeType: 'image/png', buffer: photo }]);
    await pasteOrDrop(page, 'paste', [{ name: 'image.png', type: 'image/png', bytes: shot }]);
    await pasteOrDrop(page, 'drop', [{ name: 'portrait.jpg', type: 'image/jpeg', bytes: portrait }]);
    const ready = await settled(page, 3);
    assert.deepEqual(
      ready.map((c) => [c.attachment.name, c.attachment.kind, c.attachment.mime, c.attachment.width, c.attachment.height]),
      [
        ['photo.png', 'image', 'image/png', 1024, 768],
        ['image.png', 'image', 'image/png', 800, 600],
        ['portrait.jpg', 'image', 'image/jpeg', 768, 1024],
      ],
    );
    assert.equal(await chips(page).locator('img.thumb').count(), 3, 'each chip has a thumbnail');

    await sendMessage(page, 'What is in these?');
    await waitIdle(page);
    const question = lastChat().messages.at(-1);
    assert.equal(question.role, 'user');
    assert.equal(question.content[0].type, 'text');
    assert.equal(question.content[0].text, 'What is in these?');
    const sent = question.content.slice(1).map((p) => {
      assert.equal(p.type, 'image_url');
      const [, mime, b64] = p.image_url.url.match(/^data:([^;]+);base64,(.+)$/);
      return [mime, ...dimensions(Buffer.from(b64, 'base64'))];
    });
    assert.deepEqual(sent, [['image/png', 1024, 768], ['image/png', 800, 600], ['image/jpeg', 768, 1024]]);
    assert.equal(await page.locator('#attach-chips li').count(), 0, 'the chips went with the message');

    const thumbs = () => lastUser(page).locator('.attachments img.thumb').count();
    await poll(async () => (await thumbs()) === 3, { message: 'the sent message shows its thumbnails' });
    await reload(page);
    await poll(async () => (await thumbs()) === 3, { message: 'thumbnails after a reload' });
    assert.deepEqual(
      await lastUser(page).locator('.attachments .name').allTextContents(),
      ['photo.png', 'image.png', 'portrait.jpg'],
    );
  });
});

test('a text file and a PDF go as fenced text under their names, a scanned PDF says it has no text, a binary file is refused with its name', async (t) => {
  await e2e.open(t, async (app) => {
    const { page } = app;
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-attach' });
    await takesFiles(page);
    await page.getByLabel('Attach files', { exact: true }).setInputFiles([
      { name: 'orders.csv', mimeType: 'text/csv', buffer: Buffer.from('order,amount\nA-4471,99.50\n') },
      { name: 'invoice.pdf', mimeType: 'application/pdf', buffer: pdf(['Invoice 4471 total 99.50', 'Paid on 2026-12-01']) },
      { name: 'scan.pdf', mimeType: 'application/pdf', buffer: pdf(['']) },
      { name: 'blob.bin', mimeType: 'application/octet-stream', buffer: Buffer.from([0, 159, 146, 150, 0, 1, 2, 255]) },
    ]);
    const ready = await settled(page, 4);
    assert.deepEqual(ready.map((c) => c.attachment?.kind ?? null), ['text', 'pdf', 'pdf', null]);
    assert.equal(ready[1].attachment.pages, 2);
    assert.equal(ready[2].attachment.text, undefined, 'no text layer');
    assert.match(ready[3].failed, /“blob\.bin” is not attached: Satori reads images/);
    await sendMessage(page, 'Check these.');
    await waitIdle(page);
    const content = lastChat().messages.at(-1).content;
    assert.equal(typeof content, 'string', 'files go as text');
    assert.ok(content.startsWith('Check these.\n\nFile: orders.csv\n```csv\norder,amount\nA-4471,99.50\n```\n\nFile: invoice.pdf (PDF, 2 pages)\n```\n'), content);
    assert.match(content, /--- Page 1 ---\nInvoice 4471 total 99\.50\n[\s\S]*--- Page 2 ---\nPaid on 2026-12-01/);
    assert.match(content, /File: scan\.pdf\n\(This PDF has no text layer — it is probably a scan — so its pages could not be read as text\.\)$/);
    assert.ok(!content.includes('blob.bin'), 'the refused file is not sent');
    assert.deepEqual(
      await lastUser(page).locator('.attachments .name').allTextContents(),
      ['orders.csv', 'invoice.pdf', 'scan.pdf'],
    );
  });
});

test('an image for a model that does not see images is not sent; images of older rounds go as placeholders; a file over the budget is cut with the marker', async (t) => {
  await e2e.open(t, async (app) => {
    const { page } = app;
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'fake-small', apiKey: 'sk-e2e-attach' });
    await takesFiles(page);
    const small = await picture(page, 640, 480);
    const input = page.getByLabel('Attach files', { exact: true });
    await input.setInputFiles([{ name: 'cat.png', mimeType: 'image/png', buffer: small }]);
    await settled(page, 1);
    await sendMessage(page, 'What is this?');
    await waitIdle(page);
    assert.equal(e2e.fake.chatRequests().length, 0, 'nothing reached the server');
    await page.getByRole('alert').filter({ hasText: 'Not sent: this message has an image, and “fake-small” does not see images.' }).waitFor();

    // A model that sees images, keeping them for the last round only.
    await configure(page, { model: 'gpt-4o', imageRounds: 1 });
    await input.setInputFiles([{ name: 'dog.png', mimeType: 'image/png', buffer: small }]);
    await settled(page, 1);
    await sendMessage(page, 'And this?');
    await waitIdle(page);
    const messages = lastChat().messages.filter((m) => m.role === 'user');
    assert.deepEqual(messages.map((m) => (typeof m.content === 'string' ? m.content : m.content.map((p) => p.type).join('+'))), [
      'What is this?\n[image omitted: cat.png]',
      'text+image_url',
    ]);

    // A file larger than the window: cut head-and-tail, visibly, its name and fences kept.
    await configure(page, { model: 'fake-small', contextWindow: 1024 });
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}: the quick brown fox`).join('\n');
    await input.setInputFiles([{ name: 'log.txt', mimeType: 'text/plain', buffer: Buffer.from(lines) }]);
    await settled(page, 1);
    await sendMessage(page, 'Summarize the log.');
    await waitIdle(page);
    const last = lastChat().messages.at(-1).content;
    assert.ok(last.startsWith('Summarize the log.\n\nFile: log.txt\n```\nline 0:'), last.slice(0, 80));
    assert.match(last, /\[… \d+ characters cut to fit the context …\]/);
    assert.ok(last.endsWith('line 1999: the quick brown fox\n```'), last.slice(-60));
  });
});

test('a full storage refuses the file with a sentence and keeps nothing of it; with room again, it attaches', async (t) => {
  await e2e.open(t, async (app) => {
    const { page } = app;
    const stored = () =>
      page.evaluate(
        () =>
          new Promise((resolve, reject) => {
            const open = indexedDB.open('satori-attachments');
            open.onerror = () => reject(open.error);
            open.onsuccess = () => {
              const db = open.result;
              if (!db.objectStoreNames.contains('files')) return resolve([]);
              const all = db.transaction('files').objectStore('files').getAllKeys();
              all.onsuccess = () => resolve(all.result);
              all.onerror = () => reject(all.error);
            };
          }),
      );
    await takesFiles(page);
    const input = page.getByLabel('Attach files', { exact: true });
    const cdp = await page.context().newCDPSession(page);
    const origin = new URL(page.url()).origin;
    // Less room than the file needs (the app's own caches already take more).
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: 64 * 1024 });
    const file = { name: 'big.txt', mimeType: 'text/plain', buffer: Buffer.from('0123456789abcdef\n'.repeat(120_000)) };
    await input.setInputFiles([file]);
    const [chip] = await settled(page, 1);
    assert.equal(chip.attachment, null);
    assert.match(chip.failed, /“big\.txt” is not attached: the browser's storage is full/);
    assert.deepEqual(await stored(), [], 'nothing of it is kept');

    await cdp.send('Storage.overrideQuotaForOrigin', { origin });
    await page.getByRole('button', byName('Remove big.txt')).click();
    await input.setInputFiles([file]);
    const [again] = await settled(page, 1);
    assert.equal(again.attachment?.name, 'big.txt');
    assert.deepEqual(await stored(), [again.attachment.hash]);
  });
});

/** Every file the browser keeps: hash → its type, size and the SHA-256 of its bytes. */
function kept(page) {
  return page.evaluate(async () => {
    const db = await new Promise((resolve, reject) => {
      const open = indexedDB.open('satori-attachments');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    if (!db.objectStoreNames.contains('files')) return {};
    const all = await new Promise((resolve, reject) => {
      const req = db.transaction('files').objectStore('files').getAll();
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    db.close();
    const out = {};
    for (const r of all) {
      const bytes = new Uint8Array(r.data instanceof Blob ? await r.data.arrayBuffer() : r.data);
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
      out[r.hash] = { mime: r.mime, size: bytes.length, digest: Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('') };
    }
    return out;
  });
}

/** A .zip's entries as Python's zipfile reads them (a reader that is not Satori's): name → bytes. */
function unzip(file) {
  const out = execFileSync('python3', ['-c', `
import base64, json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
print(json.dumps({i.filename: base64.b64encode(z.read(i)).decode() for i in z.infolist()}))
`, file]);
  return Object.fromEntries(Object.entries(JSON.parse(out)).map(([k, v]) => [k, Buffer.from(v, 'base64')]));
}

/** A .zip written by Python of `entries` (name → bytes). */
function zipOf(entries) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'satori-zip-'));
  const file = path.join(dir, 'export.zip');
  execFileSync('python3', ['-c', `
import base64, json, sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
    for name, b64 in json.loads(sys.stdin.read()).items():
        z.writestr(name, base64.b64decode(b64))
`, file], { input: JSON.stringify(Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, v.toString('base64')]))) });
  const bytes = fs.readFileSync(file);
  fs.rmSync(dir, { recursive: true });
  return bytes;
}

async function deleteChat(page, title) {
  await chatEntry(page, title).click();
  await chatAction(page, 'Delete chat');
  const del = page.getByRole('dialog', byName('Delete chat'));
  await del.getByRole('button', byName('Delete')).click();
  await del.waitFor({ state: 'hidden' });
}

async function importZip(page, name, buffer) {
  await page.getByRole('button', byName('Import')).click();
  const dialog = page.getByRole('dialog', byName('Import chats'));
  await dialog.getByLabel('Import file').setInputFiles({ name, mimeType: 'application/zip', buffer });
  return dialog;
}

test('an export carries the files in a .zip and an import restores them byte for byte, only bytes that match their names; deleting the last chat that names a file frees it', async (t) => {
  await e2e.open(t, async (app) => {
    const { page } = app;
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'gpt-4o', apiKey: 'sk-e2e-attach' });
    await takesFiles(page);
    const input = page.getByLabel('Attach files', { exact: true });
    const photo = await picture(page, 800, 600);
    await input.setInputFiles([
      { name: 'photo.png', mimeType: 'image/png', buffer: photo },
      { name: 'invoice.pdf', mimeType: 'application/pdf', buffer: pdf(['Invoice 4471 total 99.50']) },
    ]);
    const [image, invoice] = (await settled(page, 2)).map((c) => c.attachment);
    await sendMessage(page, 'Keep these.');
    await waitIdle(page);
    // A second chat with the same photo: one copy is kept.
    await page.getByRole('button', byName('New chat')).click();
    await input.setInputFiles([{ name: 'same.png', mimeType: 'image/png', buffer: photo }]);
    assert.equal((await settled(page, 1))[0].attachment.hash, image.hash);
    await sendMessage(page, 'The same photo.');
    await waitIdle(page);
    const before = await kept(page);
    assert.deepEqual(Object.keys(before).sort(), [image.hash, invoice.hash, invoice.text].sort());
    for (const [hash, f] of Object.entries(before)) assert.equal(f.digest, hash, 'each file is kept under its SHA-256');

    // "Export chat" of the first chat: a .zip of the export file and its three files.
    await chatEntry(page, 'Keep these.').click();
    await chatAction(page, 'Export chat');
    const dialog = page.getByRole('dialog', byName('Export chat'));
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', byName('Download ZIP')).click()]);
    assert.match(download.suggestedFilename(), /^satori-chat-.*\.zip$/);
    const zipPath = await download.path();
    const entries = unzip(zipPath);
    assert.deepEqual(Object.keys(entries).sort(), [
      'files/' + image.hash + '.png',
      'files/' + invoice.hash + '.pdf',
      'texts/' + invoice.text + '.txt',
      'satori-export.json',
    ].sort());
    const exported = JSON.parse(entries['satori-export.json']);
    assert.equal(exported.chats.length, 1);
    for (const [name, bytes] of Object.entries(entries)) {
      if (name === 'satori-export.json') continue;
      assert.equal(createHash('sha256').update(bytes).digest('hex'), name.slice(6, 70), `${name} holds the bytes its name says`);
    }
    const zip = fs.readFileSync(zipPath);

    // "Export all": a .zip too, with the one copy of the photo both chats name.
    const all = page.getByRole('dialog', byName('Export all'));
    const [everything] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', byName('Export all')).click()]);
    await poll(async () => (await all.getByRole('status').textContent()) === 'Saved as a .zip: the export file and 2 files.', { message: 'Export all says what it saved' });
    assert.equal(Object.keys(unzip(await everything.path())).length, 4);
    assert.equal(JSON.parse(unzip(await everything.path())['satori-export.json']).chats.length, 2);
    await all.getByRole('button', byName('Close')).click();

    // Deleting a chat frees only what no other chat names — the other chat packed meanwhile (as a
    // chat that rests is): its record must be unpacked to see the photo —; deleting the last one
    // frees the photo.
    await chatEntry(page, 'The same photo.').click();
    const { parts, count, ...one } = await storedChat(page, exported.chats[0].id);
    await page.evaluate(({ id, packed }) => {
      for (const k of Object.keys(localStorage)) if (k.startsWith(`satori.part.${id}.`)) localStorage.removeItem(k);
      localStorage.setItem(`satori.session.${id}`, packed);
    }, { id: one.id, packed: pack(JSON.stringify({ ...one, v: 1 })) });
    assert.ok((await page.evaluate((id) => localStorage.getItem(`satori.session.${id}`), one.id)).startsWith('z1:'));
    await deleteChat(page, 'The same photo.');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(Object.keys(await kept(page)).length, 3, 'the photo the packed chat names is kept');
    await deleteChat(page, 'Keep these.');
    await poll(async () => Object.keys(await kept(page)).length === 0, { message: 'every file freed with the last chat naming it' });

    // A hostile .zip: the photo's name holds other bytes. The chat and the PDF come in; the photo does not.
    const hostile = { ...entries, ['files/' + image.hash + '.png']: Buffer.from('not the photo') };
    let importing = await importZip(page, 'hostile.zip', zipOf(hostile));
    await importing.getByText('It carries 2 files for its chats', { exact: false }).waitFor();
    await importing.getByRole('button', byName('Import 1 chat')).click();
    await importing.getByText('1 file restored.', { exact: true }).waitFor();
    await importing.getByText('1 file was left out: it is damaged, or its bytes are not those its name says.', { exact: true }).waitFor();
    assert.deepEqual(Object.keys(await kept(page)).sort(), [invoice.hash, invoice.text].sort());
    await importing.getByRole('button', byName('Close')).click();

    // The real export: its chat is there already (identical, skipped), its missing photo is restored, byte for byte.
    importing = await importZip(page, 'satori-chat.zip', zip);
    await importing.getByRole('button', byName('Restore files')).click();
    await importing.getByText('1 file restored.', { exact: true }).waitFor();
    assert.deepEqual(await kept(page), before, 'every file back, byte for byte');
    await importing.getByRole('button', byName('Close')).click();
    await chatEntry(page, 'Keep these.').click();
    await poll(async () => (await lastUser(page).locator('.attachments img.thumb').count()) === 1, { message: 'the restored photo shows' });
  });
});

test("ChatGPT's export with a picture: the picture comes back as the question's attachment and is sent to a vision model", async (t) => {
  await e2e.open(t, async (app) => {
    const { page } = app;
    e2e.fake.reset();
    await configure(page, { baseUrl: e2e.fake.baseUrl, model: 'gpt-4o', apiKey: 'sk-e2e-attach' });
    const cat = await picture(page, 640, 480);
    const conversation = {
      title: 'A cat', create_time: 1_765_000_000, update_time: 1_765_000_100, conversation_id: 'conv-cat', current_node: 'a',
      mapping: {
        root: { id: 'root', parent: null, children: ['q'], message: null },
        q: { id: 'q', parent: 'root', children: ['a'], message: {
          id: 'q', author: { role: 'user' }, create_time: 1_765_000_001,
          content: { content_type: 'multimodal_text', parts: [
            { content_type: 'image_asset_pointer', asset_pointer: 'file-service://file-Cat123', width: 640, height: 480, size_bytes: cat.length },
            { content_type: 'image_asset_pointer', asset_pointer: 'sediment://file_Other99?shared_conversation_id=x', width: 10, height: 10 },
            'What animal is this?',
          ] },
          metadata: { attachments: [{ id: 'file-Cat123', name: 'cat.png', mime_type: 'image/png' }] },
        } },
        a: { id: 'a', parent: 'q', children: [], message: {
          id: 'a', author: { role: 'assistant' }, create_time: 1_765_000_002, recipient: 'all',
          content: { content_type: 'text', parts: ['A cat.'] }, status: 'finished_successfully',
        } },
      },
    };
    const exported = zipOf({
      'conversations.json': Buffer.from(JSON.stringify([conversation])),
      'user.json': Buffer.from('{}'),
      'file-Cat123-cat.png': cat,
      // Not an image, whatever its name: never kept.
      'user-x/file_Other99-notes.png': Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
    });
    const importing = await importZip(page, 'chatgpt-export.zip', exported);
    await importing.getByText('It carries 2 files for its chats', { exact: false }).waitFor();
    await importing.getByRole('button', byName('Import 1 chat')).click();
    await importing.getByText('1 file restored.', { exact: true }).waitFor();
    await importing.getByText('1 file was left out: it is damaged, or its bytes are not those its name says.', { exact: true }).waitFor();
    await importing.getByRole('button', byName('Close')).click();
    await chatEntry(page, 'A cat').click();
    const question = page.getByRole('log', byName('Conversation')).locator('article[data-role="user"]').first();
    await poll(async () => (await question.locator('.attachments img.thumb').count()) === 1, { message: 'the picture shows on the question' });
    assert.deepEqual(await question.locator('.attachments .name').allTextContents(), ['cat.png']);

    await sendMessage(page, 'And its colour?');
    await waitIdle(page);
    const sent = lastChat().messages.find((m) => m.role === 'user');
    const part = sent.content.find((p) => p.type === 'image_url');
    assert.equal(part.image_url.url, 'data:image/png;base64,' + cat.toString('base64'), 'the very bytes of the export');
  });
});
