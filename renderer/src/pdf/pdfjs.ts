/**
 * pdf.js for the previews, set up for the renderer's sandbox and CSP: loaded only when a preview
 * is first shown; no eval (`isEvalSupported: false`) and no WebAssembly (the CSP allows
 * neither); its worker is a file of the build (Vite emits it; `worker-src 'self'`); the standard
 * fonts (a PDF's unembedded Helvetica…) come from the build too (`pdfjs/standard_fonts/`, emitted
 * by vite.config.ts), so nothing is fetched from anywhere but the app itself. One worker serves
 * every document.
 */
import type * as PdfJsModule from 'pdfjs-dist';
import type { PDFDocumentProxy, PDFWorker, RenderTask } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

type PdfJs = typeof PdfJsModule;

let loading: Promise<{ readonly pdfjs: PdfJs; readonly worker: PDFWorker }> | undefined;

function pdfjsReady(): Promise<{ readonly pdfjs: PdfJs; readonly worker: PDFWorker }> {
  loading ??= import('pdfjs-dist').then((pdfjs) => {
    pdfjs.GlobalWorkerOptions.workerSrc = new URL(workerUrl, document.baseURI).href;
    return {
      pdfjs,
      worker: pdfjs.PDFWorker.create({ name: 'desk-preview', verbosity: pdfjs.VerbosityLevel.ERRORS }),
    };
  });
  return loading;
}

/**
 * Opens a PDF from its bytes (which pdf.js takes over: pass a copy if you keep them).
 * `glyphPaths` draws the text as paths rather than through the page's fonts: pdf.js otherwise
 * adds each PDF's fonts to `document.fonts` and removes them on `destroy()`, and every such
 * change makes Chromium restyle and reshape all the page's text (a full layout) — once per
 * thumbnail of a scrolling table, a frame missed each time.
 */
export async function openPdf(bytes: Uint8Array, { glyphPaths = false } = {}): Promise<PDFDocumentProxy> {
  const { pdfjs, worker } = await pdfjsReady();
  return pdfjs.getDocument({
    data: bytes,
    worker,
    disableFontFace: glyphPaths,
    isEvalSupported: false,
    useWasm: false,
    useSystemFonts: false,
    standardFontDataUrl: new URL('pdfjs/standard_fonts/', document.baseURI).href,
    enableXfa: false,
    stopAtErrors: false,
  }).promise;
}

/**
 * Draws page `pageNumber` into `canvas`, `cssWidth` CSS pixels wide (sharp on high-density
 * screens), on white. The task can be cancelled (its promise then rejects).
 */
export async function renderPage(
  pdf: PDFDocumentProxy,
  pageNumber: number,
  canvas: HTMLCanvasElement,
  cssWidth: number,
): Promise<RenderTask> {
  const page = await pdf.getPage(pageNumber);
  const unscaled = page.getViewport({ scale: 1 });
  const density = window.devicePixelRatio || 1;
  const viewport = page.getViewport({ scale: (cssWidth / unscaled.width) * density });
  canvas.width = Math.floor(viewport.width);
  canvas.height = Math.floor(viewport.height);
  canvas.style.width = `${cssWidth}px`;
  canvas.style.height = `${Math.floor(viewport.height / density)}px`;
  return page.render({ canvas, viewport, background: 'white' });
}

/** True for the rejection of a render that was cancelled on purpose (a page change, a closed viewer). */
export function isCancelled(error: unknown): boolean {
  return error instanceof Error && error.name === 'RenderingCancelledException';
}
