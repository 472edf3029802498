// Satori's import worker: reads what was picked with the import module (src/bin/satori-import.rs:
// a long export cut into conversations, each parsed, converted and checked as it arrives; an
// export's .zip unpacked as it is read; its parts picked together read one after another) off the
// page's thread, and posts the module's events (JSON: progress with the chats converted, "again",
// the end) to the page. Started by src/adapters/import_worker.rs with a File, or { zip: File }, or
// { parts: [File, …] }; ended by the page when it has the end, or when the Import dialog closes.
// scripts/build.sh puts it next to the module as worker.js.
import init, { Reader, Export } from './satori-import.js';

// One file is read in slices of this many bytes: one slice's progress at a time (an export in
// several files: the module says how many it wants).
const SLICE = 4 << 20;

const ready = init();
ready.catch(() => {}); // answered below

const bytes = async (blob) => new Uint8Array(await blob.arrayBuffer());

self.onmessage = async ({ data }) => {
  try {
    await ready;
  } catch (e) {
    self.postMessage({ error: `the import module could not be loaded (${e?.message ?? e})` });
    return;
  }
  try {
    if (data instanceof Blob) {
      const reader = new Reader(data.size);
      for (;;) {
        let event;
        while ((event = reader.event()) !== undefined) self.postMessage(event);
        const at = reader.want();
        if (at === -2) break;
        if (at === -1) reader.whole(await data.text());
        else reader.push(await bytes(data.slice(at, at + SLICE)));
      }
      return;
    }
    const files = data.zip ? [data.zip] : data.parts;
    const reader = data.zip
      ? Export.zip(data.zip.size)
      : Export.parts(files.map((f) => f.name), new Float64Array(files.map((f) => f.size)));
    for (;;) {
      let event;
      while ((event = reader.event()) !== undefined) self.postMessage(event);
      const file = reader.file();
      if (file < 0) break;
      const from = reader.from();
      reader.push(await bytes(files[file].slice(from, from + reader.length())));
    }
  } catch (e) {
    // A trap (a panic, memory exhausted), or a file could not be read (moved, deleted).
    self.postMessage({ error: String(e?.message ?? e) });
  }
};
