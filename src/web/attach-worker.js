// Attached images made the size a model reads, off the page's thread: scaled down (never up) to
// fit 2048×2048, then to a shortest side of 768 — OpenAI's high-detail size; the other providers
// read at least as much — and encoded again, which leaves the file's metadata behind (where a
// photo was taken, the camera). A JPEG stays a JPEG; anything else becomes a PNG (the caller says
// which). A GIF gives its first frame.
//
// A module worker started by the attachments module (src/web/attach.js): {id, file, type} in;
// {id, blob, width, height, sourceWidth, sourceHeight} out, or {id, error, unreadable} when the
// browser cannot decode the image, or {id, unsupported: true} where a worker cannot draw (no
// OffscreenCanvas with a 2D context): the page then runs `shrink` itself.

/** `w`×`h` scaled down to fit 2048×2048, then to a shortest side of at most 768. */
export function fit(w, h) {
  const s = Math.min(1, 2048 / Math.max(w, h));
  const t = s * Math.min(1, 768 / (Math.min(w, h) * s));
  return [Math.max(1, Math.round(w * t)), Math.max(1, Math.round(h * t))];
}

/** `file` decoded, scaled by `fit` and encoded as `type`; on the page or in a worker. */
export async function shrink(file, type) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch (e) {
    throw Object.assign(new Error(e && e.message), { unreadable: true });
  }
  try {
    const [width, height] = fit(bitmap.width, bitmap.height);
    const canvas = typeof OffscreenCanvas === 'function'
      ? new OffscreenCanvas(width, height)
      : Object.assign(document.createElement('canvas'), { width, height });
    const ctx = canvas.getContext('2d');
    if (!ctx) throw Object.assign(new Error('no 2D canvas'), { unsupported: true });
    ctx.imageSmoothingQuality = 'high';
    ctx.drawImage(bitmap, 0, 0, width, height);
    const blob = canvas.convertToBlob
      ? await canvas.convertToBlob({ type, quality: 0.9 })
      : await new Promise((done) => canvas.toBlob(done, type, 0.9));
    if (!blob) throw new Error('the image could not be encoded');
    return { blob, width, height, sourceWidth: bitmap.width, sourceHeight: bitmap.height };
  } finally {
    bitmap.close();
  }
}

// In a worker: one image at a time (each decoded image can take hundreds of MB).
if (typeof document === 'undefined' && typeof postMessage === 'function') {
  let queue = Promise.resolve();
  onmessage = ({ data: { id, file, type } }) => {
    queue = queue.then(async () => {
      if (typeof OffscreenCanvas !== 'function' || typeof createImageBitmap !== 'function') {
        postMessage({ id, unsupported: true });
        return;
      }
      try {
        postMessage({ id, ...(await shrink(file, type)) });
      } catch (e) {
        postMessage(e.unsupported ? { id, unsupported: true } : { id, error: String(e && e.message), unreadable: !!e.unreadable });
      }
    });
  };
}
