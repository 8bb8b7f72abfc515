import { afterEach, describe, expect, it, vi } from 'vitest';

/**
 * A row's thumbnail is drawn once the table stops scrolling: drawing one takes the main thread
 * (its bytes over the bridge, pdf.js, the canvas) from the frames of the scroll. What is asked
 * for is seen through the document's bytes, the first step of a drawing.
 */
const asked = vi.hoisted(() => [] as string[]);
vi.mock('../../renderer/src/pdf/document-bytes', () => ({
  documentBytes: (_batchId: string, _documentId: string, sha256: string) => {
    asked.push(sha256);
    return Promise.resolve(new Uint8Array(8));
  },
}));
// The drawing itself is not what is looked at here: it stops after the bytes.
vi.mock('../../renderer/src/pdf/pdfjs', () => ({
  openPdf: () => Promise.reject(new Error('no pdf.js in this test')),
  renderPage: () => Promise.reject(new Error('no pdf.js in this test')),
}));

const { thumbnailOf } = await import('../../renderer/src/pdf/thumbnails');

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

/** A row showing the document whose digest is `sha256`, until `shown` is aborted (scrolled away). */
function row(sha256: string): { shown: AbortController; drawn: Promise<unknown> } {
  const shown = new AbortController();
  const drawn = thumbnailOf('batch-1', `document-${sha256}`, sha256, shown.signal).catch(() => undefined);
  return { shown, drawn };
}

describe('thumbnails of a scrolling table', () => {
  it('draws none while the table scrolls, then those of the rows still shown, never one scrolled past', async () => {
    vi.useFakeTimers();
    const page = new EventTarget();
    vi.stubGlobal('document', page);
    const scroll = () => page.dispatchEvent(new Event('scroll'));

    // The page is still: a row's thumbnail is drawn at once.
    await row('a').drawn;
    expect(asked).toEqual(['a']);

    scroll();
    const shownOn = row('b');
    const scrolledPast = row('c');
    await vi.advanceTimersByTimeAsync(100);
    scroll();
    scrolledPast.shown.abort();
    await vi.advanceTimersByTimeAsync(100);
    // Still scrolling a moment ago: nothing drawn yet.
    expect(asked).toEqual(['a']);

    await vi.advanceTimersByTimeAsync(100);
    await shownOn.drawn;
    await scrolledPast.drawn;
    expect(asked).toEqual(['a', 'b']);
  });
});
