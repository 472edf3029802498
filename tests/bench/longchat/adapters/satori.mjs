// Adapter for Satori: its storage records (src/core/persist.rs): one `satori.session.<id>` record
// per chat (schema version 1, messages linked by `parent`, the branch on screen ending at
// `leaf`), the chat list `satori.index` naming the chat to open, and settings pointing at a local
// server so the composer is ready (nothing is sent during the measurement).
export const textbox = 'textarea';
// The conversation scrolls in its own element.
export const scroller = '.log';

export function localStorage(conv) {
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
