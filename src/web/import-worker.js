// Satori's import worker: reads a picked file with the import module (src/bin/satori-import.rs:
// a long export cut into conversations, each parsed, converted and checked as it arrives) off the
// page's thread, and posts the module's events (JSON: progress with the chats converted, "again",
// the end) to the page. Started by src/adapters/import_worker.rs with the File; ended by the page
// when it has the end, or when the Import dialog closes. scripts/build.sh puts it next to the
// module as worker.js.
import init, { Reader } from './satori-import.js';

// The file is read in slices of this many bytes: one slice's progress at a time.
const SLICE = 4 << 20;

const ready = init();
ready.catch(() => {}); // answered below

self.onmessage = async ({ data: file }) => {
  try {
    await ready;
  } catch (e) {
    self.postMessage({ error: `the import module could not be loaded (${e?.message ?? e})` });
    return;
  }
  try {
    const reader = new Reader(file.size);
    for (;;) {
      let event;
      while ((event = reader.event()) !== undefined) self.postMessage(event);
      const at = reader.want();
      if (at === -2) break;
      if (at === -1) reader.whole(await file.text());
      else reader.push(new Uint8Array(await file.slice(at, at + SLICE).arrayBuffer()));
    }
  } catch (e) {
    // A trap (a panic, memory exhausted), or the file could not be read (moved, deleted).
    self.postMessage({ error: String(e?.message ?? e) });
  }
};
