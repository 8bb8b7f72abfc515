/**
 * First-page thumbnails, drawn one at a time (a batch of hundreds must not flood the worker)
 * and kept by the document's digest: the same PDF in two rows, or a row scrolled away and back,
 * is drawn once. The table renders only the rows in view, so only those are asked for.
 */
import { documentBytes } from './document-bytes';
import { openPdf, renderPage } from './pdfjs';

/** The thumbnail's width in CSS pixels. */
export const THUMBNAIL_WIDTH = 48;
const KEPT = 500;

const thumbnails = new Map<string, Promise<ImageBitmap>>();
let queue: Promise<unknown> = Promise.resolve();

async function draw(batchId: string, documentId: string, sha256: string): Promise<ImageBitmap> {
  const pdf = await openPdf(await documentBytes(batchId, documentId, sha256));
  try {
    const canvas = document.createElement('canvas');
    await (
      await renderPage(pdf, 1, canvas, THUMBNAIL_WIDTH)
    ).promise;
    return await createImageBitmap(canvas);
  } finally {
    await pdf.destroy();
  }
}

/** The first page of the document, drawn once per digest. */
export function thumbnailOf(batchId: string, documentId: string, sha256: string): Promise<ImageBitmap> {
  let thumbnail = thumbnails.get(sha256);
  if (!thumbnail) {
    thumbnail = queue.then(() => draw(batchId, documentId, sha256));
    queue = thumbnail.catch(() => undefined);
    thumbnails.set(sha256, thumbnail);
    // A failure is not kept: the next time the row shows, it is tried again.
    thumbnail.catch(() => thumbnails.delete(sha256));
    while (thumbnails.size > KEPT) thumbnails.delete(thumbnails.keys().next().value as string);
  }
  return thumbnail;
}
