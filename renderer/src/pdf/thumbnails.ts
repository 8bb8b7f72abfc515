/**
 * First-page thumbnails, drawn one at a time (a batch of hundreds must not flood the worker)
 * and kept by the document's digest: the same PDF in two rows, or a row scrolled away and back,
 * is drawn once. The table renders only the rows in view, so only those are asked for, and
 * only once the scrolling stops: drawing one takes the main thread for several milliseconds
 * (its bytes, pdf.js's messages, the canvas), which a scrolling table needs for its frames.
 */
import { documentBytes } from './document-bytes';
import { openPdf, renderPage } from './pdfjs';
import { watchScrolling, type ScrollQuiet } from './scroll-quiet';

/** The thumbnail's width in CSS pixels. */
export const THUMBNAIL_WIDTH = 48;
const KEPT = 500;
/** Still this long after the last scroll event: a flick's events come a frame apart. */
const QUIET_MS = 150;

const thumbnails = new Map<string, Promise<ImageBitmap>>();
/**
 * Rows asking for each digest's thumbnail now. A row scrolled away before its turn in the queue
 * leaves it undrawn: a fast flick through thousands of rows queues a drawing for every row it
 * passes, and drawing them all would keep the page busy (and the scroll janky) long after.
 */
const wanted = new Map<string, number>();
let queue: Promise<unknown> = Promise.resolve();
let scrolling: ScrollQuiet | undefined;

/** Why a thumbnail was not drawn: every row asking for it was gone before its turn. */
class NoLongerShown extends Error {}

async function draw(batchId: string, documentId: string, sha256: string): Promise<ImageBitmap> {
  await scrolling?.still();
  // A row scrolled past while the table moved is no longer shown: nothing to draw for it.
  if (!wanted.get(sha256)) throw new NoLongerShown(sha256);
  const pdf = await openPdf(await documentBytes(batchId, documentId, sha256), { glyphPaths: true });
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

/**
 * The first page of the document, drawn once per digest, for a row that shows it until `shown`
 * is aborted (the row is gone: if no other row asks for it, it is not drawn at all).
 */
export function thumbnailOf(
  batchId: string,
  documentId: string,
  sha256: string,
  shown: AbortSignal,
): Promise<ImageBitmap> {
  scrolling ??= watchScrolling(document, QUIET_MS);
  wanted.set(sha256, (wanted.get(sha256) ?? 0) + 1);
  shown.addEventListener('abort', () => {
    const rows = (wanted.get(sha256) ?? 0) - 1;
    if (rows > 0) wanted.set(sha256, rows);
    else wanted.delete(sha256);
  });
  let thumbnail = thumbnails.get(sha256);
  if (!thumbnail) {
    thumbnail = queue.then(() => draw(batchId, documentId, sha256));
    queue = thumbnail.catch(() => undefined);
    thumbnails.set(sha256, thumbnail);
    // A failure (or a drawing skipped) is not kept: the next time the row shows, it is tried again.
    thumbnail.catch(() => thumbnails.delete(sha256));
    while (thumbnails.size > KEPT) thumbnails.delete(thumbnails.keys().next().value as string);
  }
  return thumbnail;
}
