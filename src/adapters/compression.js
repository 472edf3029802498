// Raw DEFLATE (RFC 1951) with the browser's own compression streams: packed chat records
// (src/core/packed.rs) are deflated and inflated here, at native speed and with no wasm code.
export async function deflateRaw(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export async function inflateRaw(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new TextDecoder('utf-8', { fatal: true }).decode(await new Response(stream).arrayBuffer());
}
