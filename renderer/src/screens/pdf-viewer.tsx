import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import type { PDFDocumentProxy, RenderTask } from 'pdfjs-dist';
import type { DocumentView } from '../../../shared/ipc/views';
import { useT } from '../i18n';
import { documentBytes, refusalOf } from '../pdf/document-bytes';
import { isCancelled, openPdf, renderPage } from '../pdf/pdfjs';
import { useModalDialog } from '../components/modal-dialog';

/** How wide a page is drawn, in CSS pixels, at most (the dialog narrows it on small windows). */
const PAGE_WIDTH = 760;

type Opened =
  | { readonly kind: 'loading' }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'ready'; readonly pdf: PDFDocumentProxy };

/**
 * The whole document, page by page, from the app's own copy (README "Using the app", Batches),
 * under the name the service will store it as. A native modal dialog: Escape or Close closes it
 * and the focus goes back to the thumbnail; Previous/Next, the arrow keys, Page Up/Page Down,
 * Home and End change the page, which a status line announces.
 */
export function PdfViewer({
  batchId,
  document,
  onClose,
}: {
  batchId: string;
  document: DocumentView;
  onClose: () => void;
}) {
  const t = useT();
  const id = useId();
  const dialog = useModalDialog();
  const canvas = useRef<HTMLCanvasElement>(null);
  const [opened, setOpened] = useState<Opened>({ kind: 'loading' });
  const [page, setPage] = useState(1);
  const name = document.storedFilename;

  useEffect(() => {
    let current = true;
    let pdf: PDFDocumentProxy | undefined;
    documentBytes(batchId, document.id, document.sha256)
      .then(openPdf)
      .then(
        (opening) => {
          pdf = opening;
          if (current) setOpened({ kind: 'ready', pdf: opening });
          else void opening.destroy();
        },
        (error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          if (current)
            setOpened({
              kind: 'failed',
              message: refusalOf(error) ?? t('preview.unreadable', { reason }),
            });
        },
      );
    return () => {
      current = false;
      void pdf?.destroy();
    };
  }, [batchId, document.id, document.sha256, t]);

  const pdf = opened.kind === 'ready' ? opened.pdf : undefined;
  const pages = pdf?.numPages ?? 0;

  useEffect(() => {
    const target = canvas.current;
    if (!pdf || !target) return;
    let task: RenderTask | undefined;
    let current = true;
    const width = Math.min(PAGE_WIDTH, (dialog.current?.clientWidth ?? PAGE_WIDTH) - 48);
    renderPage(pdf, page, target, width)
      .then((started) => {
        task = started;
        if (!current) started.cancel();
        return started.promise;
      })
      .catch((error: unknown) => {
        if (current && !isCancelled(error))
          setOpened({
            kind: 'failed',
            message: t('preview.unreadable', {
              reason: error instanceof Error ? error.message : String(error),
            }),
          });
      });
    return () => {
      current = false;
      task?.cancel();
    };
  }, [pdf, page, t]);

  function go(to: number) {
    if (pages > 0) setPage(Math.min(pages, Math.max(1, to)));
  }

  function onKeyDown(event: KeyboardEvent) {
    const moves: Readonly<Record<string, number>> = {
      ArrowRight: page + 1,
      ArrowDown: page + 1,
      PageDown: page + 1,
      ArrowLeft: page - 1,
      ArrowUp: page - 1,
      PageUp: page - 1,
      Home: 1,
      End: pages,
    };
    const to = moves[event.key];
    if (to === undefined || pages === 0) return;
    event.preventDefault();
    go(to);
  }

  return (
    <dialog
      ref={dialog}
      className="editor pdf-viewer"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-keys`}
      onKeyDown={onKeyDown}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <div className="row spread">
        <h3 id={`${id}-title`}>{t('preview.title', { name })}</h3>
        <button type="button" onClick={onClose}>
          {t('common.close')}
        </button>
      </div>
      <p id={`${id}-keys`} className="hint">
        {t('preview.keys')}
      </p>
      {opened.kind === 'loading' && <p role="status">{t('preview.loading')}</p>}
      {opened.kind === 'failed' && <p role="alert">{opened.message}</p>}
      {pdf && (
        <>
          <div className="row">
            {/* aria-disabled, not disabled: the focus stays on the button at the first or last page. */}
            <button type="button" aria-disabled={page <= 1} onClick={() => go(page - 1)}>
              {t('preview.previous')}
            </button>
            <span role="status">{t('preview.page', { page, pages })}</span>
            <button type="button" aria-disabled={page >= pages} onClick={() => go(page + 1)}>
              {t('preview.next')}
            </button>
          </div>
          <div className="pdf-page">
            <canvas ref={canvas} role="img" aria-label={t('preview.pageImage', { page, name })} />
          </div>
        </>
      )}
    </dialog>
  );
}
