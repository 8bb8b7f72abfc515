import { useEffect, useRef, useState } from 'react';
import type { ManifestPreview } from '../../../shared/ipc/views';
import { useT } from '../i18n';
import { useDesk } from '../state/store';

/**
 * A manifest's preview: every problem by the row and column the spreadsheet shows, all at
 * once, before anything is kept. The user fixes the file and checks it again here; it is
 * imported only when clean. It opens below the batch's settings: its heading takes the focus,
 * so the keyboard is where the preview is; once it closes (imported, or Close), the focus goes
 * back to "Import manifest…".
 */
export function ManifestPreviewPanel({
  batchId,
  preview,
  onPreview,
  onClose,
}: {
  batchId: string;
  preview: ManifestPreview;
  onPreview: (preview: ManifestPreview) => void;
  onClose: () => void;
}) {
  const t = useT();
  const { actions } = useDesk.getState();
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    const opener = document.activeElement;
    heading.current?.focus();
    return () => {
      const holder = document.activeElement;
      const lost = holder === null || holder === document.body || !holder.isConnected;
      if (lost && opener instanceof HTMLElement && opener.isConnected) opener.focus();
    };
  }, []);
  const valid = preview.issues.length === 0;
  const fileName = preview.path.split(/[/\\]/).pop();

  async function checkAgain() {
    setBusy(true);
    const next = await actions.manifest.preview(preview.path);
    setBusy(false);
    if (next) onPreview(next);
  }

  async function runImport() {
    setBusy(true);
    const answer = await actions.manifest.import(batchId, preview.path);
    setBusy(false);
    if (answer.imported) onClose();
    else if (answer.preview) onPreview(answer.preview);
  }

  return (
    <section className="card" aria-labelledby="manifest-title">
      <h3 id="manifest-title" ref={heading} tabIndex={-1}>
        {t('manifest.title', { name: fileName ?? preview.path })}
      </h3>
      {valid ? (
        <p role="status">
          {t('manifest.summary', { documents: preview.documentCount, recipients: preview.recipientCount })}
        </p>
      ) : (
        <>
          <p role="alert">{t('manifest.problems', { count: preview.problemCount })}</p>
          <ul className="issues" aria-label={t('manifest.problemsLabel')}>
            {preview.issues.map((issue, index) => (
              <li key={index}>{issue.text}</li>
            ))}
          </ul>
        </>
      )}
      {preview.documents.length > 0 && (
        <table className="table compact">
          <caption className="caption">
            {valid ? t('manifest.documentsToImport') : t('manifest.documentsCorrect')}
          </caption>
          <thead>
            <tr>
              <th scope="col">{t('manifest.columnReference')}</th>
              <th scope="col">{t('manifest.columnFile')}</th>
              <th scope="col">{t('manifest.columnRecipients')}</th>
              <th scope="col">{t('manifest.columnRows')}</th>
            </tr>
          </thead>
          <tbody>
            {preview.documents.map((document) => (
              <tr key={document.externalReference}>
                <th scope="row">{document.externalReference}</th>
                <td>{document.storedFilename}</td>
                <td>
                  {document.recipients
                    .map((recipient) =>
                      t('manifest.recipient', { name: recipient.name, type: recipient.participant_type }),
                    )
                    .join(', ')}
                </td>
                <td>{document.rows.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {preview.documentCount > preview.documents.length && (
        <p className="caption">
          {t('manifest.moreDocuments', { count: preview.documentCount - preview.documents.length })}
        </p>
      )}
      <div className="row">
        {valid ? (
          <button type="button" className="primary" disabled={busy} onClick={() => void runImport()}>
            {t('manifest.import', { count: preview.documentCount })}
          </button>
        ) : (
          <button type="button" className="primary" disabled={busy} onClick={() => void checkAgain()}>
            {t('manifest.checkAgain')}
          </button>
        )}
        <button type="button" onClick={onClose}>
          {t('common.close')}
        </button>
      </div>
    </section>
  );
}
