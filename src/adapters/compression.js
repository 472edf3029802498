// Packed chat records (crates/core/src/packed.rs).
// - z1: zlib (RFC 1950: DEFLATE with an Adler-32 checksum) with the browser's own compression
//   streams, at native speed and with no wasm code. Read always; written only where the pack
//   worker cannot run.
// - z2: bzip2 in the pack worker (src/web/pack-worker.js running src/bin/satori-pack.rs, named in
//   <meta name="satori-module:pack">): off the page's thread, so a large chat never holds it. One
//   worker per page (every wasm module's copy of this file shares it), started when first asked
//   and ended after half a minute without work, which gives its memory back.
export async function deflate(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** `bytes` inflated into text, if that is at most `limit` bytes: inflating stops past it. */
export async function inflate(bytes, limit) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate')).pipeThrough(
    new TransformStream({
      transform(chunk, out) {
        if ((limit -= chunk.length) < 0) throw 0;
        out.enqueue(chunk);
      },
    }),
  );
  // Reading a body drops the stream's own error (Chromium says "Failed to fetch"): damaged
  // data, or more than the header says, is said as such.
  const body = await new Response(stream).arrayBuffer().catch(() => {
    throw new Error('its packed data is damaged');
  });
  return new TextDecoder('utf-8', { fatal: true }).decode(body);
}

const IDLE_MS = 30_000;
// A call not answered by then ends the worker (a module stuck in a loop, a worker the browser
// stopped): the call fails, and the next one starts a new worker. bzip2 packs megabytes a second.
const DEADLINE_MS = 60_000;
const pack = (globalThis.__satoriPack ??= { worker: null, calls: new Map(), next: 0, idle: 0 });

function started() {
  if (pack.worker) return pack.worker;
  const meta = document.querySelector('meta[name="satori-module:pack"]');
  if (!meta) throw new Error('this copy of Satori was built without the pack worker');
  const worker = new Worker(new URL(meta.getAttribute('content'), document.baseURI), { type: 'module' });
  worker.onmessage = ({ data }) => {
    if (data.fatal) {
      end(worker, new Error(data.error));
      return;
    }
    const call = pack.calls.get(data.id);
    if (!call) return;
    pack.calls.delete(data.id);
    if ('error' in data) call.reject(new Error(data.error));
    else call.resolve(data.value);
    rest();
  };
  // Not started (not found, no module workers) or out of memory: every call waiting fails, and
  // the next one starts a new worker.
  worker.onerror = (event) => {
    event.preventDefault();
    end(worker, new Error(event.message || 'the pack worker could not run'));
  };
  pack.worker = worker;
  return worker;
}

function end(worker, error) {
  if (pack.worker !== worker) return;
  worker.terminate();
  pack.worker = null;
  for (const call of pack.calls.values()) call.reject(error);
  pack.calls.clear();
}

function rest() {
  clearTimeout(pack.idle);
  if (pack.calls.size > 0) return;
  const worker = pack.worker;
  pack.idle = setTimeout(() => {
    if (pack.calls.size === 0) end(worker, new Error('ended'));
  }, IDLE_MS);
}

function call(op, args) {
  return new Promise((resolve, reject) => {
    let worker;
    try {
      worker = started();
    } catch (e) {
      reject(e);
      return;
    }
    clearTimeout(pack.idle);
    const id = ++pack.next;
    pack.calls.set(id, { resolve, reject });
    // (Answered by then, or the worker already ended: nothing to do.)
    setTimeout(() => pack.calls.has(id) && end(worker, new Error('the pack worker did not answer within a minute')), DEADLINE_MS);
    worker.postMessage({ id, op, args });
  });
}

/** The z2 body of the JSON record `text`, checked in the worker: `[body, compressed bytes]`. */
export function bzPack(text) {
  return call('pack', [text]);
}

/** The JSON record a z2 body holds. */
export function bzUnpack(body, compressed, json) {
  return call('unpack', [body, compressed, json]);
}
