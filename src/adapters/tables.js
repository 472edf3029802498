// Fetches a static data file the build named in the page (<meta name="satori-table:NAME">),
// from the app's own origin. The files are stored gzip-compressed (so any static host serves
// them small); a server that already undid the compression (Content-Encoding) is handled too.
export async function fetchTable(name) {
  const meta = document.querySelector(`meta[name="satori-table:${name}"]`);
  if (!meta) throw new Error(`the page does not name the ${name} table`);
  const url = new URL(meta.getAttribute('content'), document.baseURI);
  const response = await fetch(url.href, { redirect: 'error', credentials: 'same-origin' });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
