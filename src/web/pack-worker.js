// Satori's pack worker: compresses and unpacks chat records with the pack module
// (src/bin/satori-pack.rs: bzip2, written 63 bits to every 4 characters) off the page's thread.
// Started by src/adapters/compression.js; scripts/build.sh puts it next to the module as worker.js.
import init, { pack, unpack } from './satori-pack.js';

const ready = init();
ready.catch(() => {}); // answered per message below

self.onmessage = async ({ data: { id, op, args } }) => {
  try {
    await ready;
  } catch (e) {
    // The module did not load (offline before it was kept, say): the page starts a new worker
    // for the next call.
    self.postMessage({ id, error: `the pack module could not be loaded (${e?.message ?? e})`, fatal: true });
    return;
  }
  try {
    const value = op === 'pack' ? pack(args[0]) : unpack(args[0], args[1], args[2]);
    self.postMessage({ id, value });
  } catch (e) {
    // A trap (a panic, memory exhausted) or a stack overflow (a RangeError) leaves the module's
    // memory and stack as they were when it stopped: the page ends this worker and starts a new
    // one for the next call. An error the module answered (a damaged record) leaves it sound.
    const fatal = e instanceof WebAssembly.RuntimeError || e instanceof RangeError;
    self.postMessage({ id, error: String(e?.message ?? e), fatal });
  }
};
