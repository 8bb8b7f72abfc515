import { useEffect, useRef, useState } from 'react';
import type { DocumentView } from '../../../shared/ipc/views';
import { useT } from '../i18n';
import { THUMBNAIL_WIDTH, thumbnailOf } from '../pdf/thumbnails';
import { PdfViewer } from '../screens/pdf-viewer';

/**
 * A document's first page, small, in its row of the table; a button that opens the whole
 * document in the viewer. Drawn when the row is shown (the table renders only the rows in view)
 * and kept by the PDF's digest.
 */
export function PdfThumbnail({
  batchId,
  document,
  small = false,
}: {
  batchId: string;
  document: DocumentView;
  /** As high as a line of text, for a compact row. */
  small?: boolean;
}) {
  const t = useT();
  const canvas = useRef<HTMLCanvasElement>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');
  const [viewing, setViewing] = useState(false);

  useEffect(() => {
    const shown = new AbortController();
    setState('loading');
    thumbnailOf(batchId, document.id, document.sha256, shown.signal).then(
      (bitmap) => {
        const target = canvas.current;
        if (shown.signal.aborted || !target) return;
        target.width = bitmap.width;
        target.height = bitmap.height;
        target.getContext('2d')?.drawImage(bitmap, 0, 0);
        setState('ready');
      },
      () => !shown.signal.aborted && setState('failed'),
    );
    return () => shown.abort();
  }, [batchId, document.id, document.sha256]);

  return (
    <>
      <button
        type="button"
        className={`pdf-thumbnail pdf-thumbnail-${state}${small ? ' pdf-thumbnail-small' : ''}`}
        // Named by a label, not text: the row's own text (its file name) stays the only mention of it.
        aria-label={t('preview.open', { name: document.storedFilename })}
        title={t('preview.open', { name: document.storedFilename })}
        onClick={() => setViewing(true)}
      >
        <canvas ref={canvas} aria-hidden="true" style={small ? undefined : { width: THUMBNAIL_WIDTH }} />
        {state === 'failed' && !small && (
          <span className="muted-inline" aria-hidden="true">
            {t('preview.unavailable')}
          </span>
        )}
      </button>
      {viewing && <PdfViewer batchId={batchId} document={document} onClose={() => setViewing(false)} />}
    </>
  );
}
