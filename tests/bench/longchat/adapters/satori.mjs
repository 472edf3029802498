// Adapter for Satori: its storage records (crates/core/src/persist.rs): each chat as a head record
// `satori.session.<id>` (version 2: every field but the messages, with how many parts and
// messages) and its messages in runs of 32 in `satori.part.<id>.<k>` (linked by `parent`, the
// branch on screen ending at `leaf`), the chat list `satori.index` naming the chat to open, and
// settings pointing at a local server so the composer is ready (nothing is sent during the
// measurement). `localStorageV1` writes each chat as one record, as Satori did before parts.
export const textbox = 'textarea';
// The conversation scrolls in its own element.
export const scroller = '.log';

/** Satori's records for `conv`, each chat in parts (as Satori stores chats now). */
export function localStorage(conv) {
  const entries = localStorageV1(conv);
  for (const [key, text] of Object.entries(entries)) {
    if (!key.startsWith('satori.session.')) continue;
    const { v, messages, ...chat } = JSON.parse(text);
    const parts = Math.ceil(messages.length / PART);
    entries[key] = JSON.stringify({ v: 2, parts, count: messages.length, ...chat });
    for (let k = 0; k < parts; k++) entries[`satori.part.${chat.id}.${k}`] = JSON.stringify(messages.slice(k * PART, (k + 1) * PART));
  }
  return entries;
}

/** Messages per part (`PART_SIZE` in crates/core/src/persist.rs). */
const PART = 32;

/** Satori's records for `conv`, each chat as one record (version 1, before chats were stored in parts). */
export function localStorageV1(conv) {
  const entries = {};
  const t0 = 1764000000000;
  const index = { v: 1, sessions: [], active: 'bench-1' };
  conv.chats.forEach((c, ci) => {
    const id = `bench-${ci + 1}`;
    const messages = [];
    let parent;
    c.messages.forEach((m, i) => {
      const msg = { id: `${id}-${i}`, role: m.role, content: m.content, status: 'complete', created_at: t0 + i * 1000 };
      if (parent) msg.parent = parent;
      if (m.role === 'assistant') Object.assign(msg, { finish_reason: 'stop', model: 'bench-model' });
      parent = msg.id;
      messages.push(msg);
    });
    const updated = t0 + c.messages.length * 1000 + (conv.chats.length - ci);
    entries[`satori.session.${id}`] = JSON.stringify({ v: 1, id, title: c.title, role: '', created_at: t0, updated_at: updated, messages, leaf: parent });
    index.sessions.push({ id, title: c.title, updated_at: updated });
  });
  index.active = `bench-${conv.current + 1}`;
  entries['satori.index'] = JSON.stringify(index);
  entries['satori.settings'] = JSON.stringify({ v: 1, provider: 'custom', base_url: 'http://127.0.0.1:9/v1', model: 'bench-model', stall_seconds: 30 });
  return entries;
}
