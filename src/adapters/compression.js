// zlib (RFC 1950: DEFLATE with an Adler-32 checksum) with the browser's own compression streams: packed chat records
// (src/core/packed.rs) are deflated and inflated here, at native speed and with no wasm code.
export async function deflate(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export async function inflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
  return new TextDecoder('utf-8', { fatal: true }).decode(await new Response(stream).arrayBuffer());
}
