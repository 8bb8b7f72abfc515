import { useEffect, useRef, useState } from 'react';
import type { ManifestPreview } from '../../../shared/ipc/views';
import { useT } from '../i18n';
import { useDesk } from '../state/store';
import { useModalDialog } from '../components/modal-dialog';

/**
 * A manifest's preview: every problem by the row and column the spreadsheet shows, all at
 * once, before anything is kept. The user fixes the file and checks it again here; it is
 * imported only when clean.
 *
 * A native modal dialog whose list scrolls between its title and its actions, so Import (or
 * Check again) and Close stay in view however long the preview is (200 documents and 100
 * problems make a list thousands of pixels high). The focus starts on its title, so what it says
 * is read before Import is one Tab away (a double Enter never imports unread), and goes back to
 * "Import manifest…" when it closes, as it does on Escape.
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
  const dialog = useModalDialog();
  const heading = useRef<HTMLHeadingElement>(null);
  const [busy, setBusy] = useState(false);
  const valid = preview.issues.length === 0;
  const fileName = preview.path.split(/[/\\]/).pop();

  // On the way in, and each time Check again turns the problems into Import.
  useEffect(() => heading.current?.focus(), [valid]);

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
    <dialog
      ref={dialog}
      className="editor manifest-preview"
      aria-labelledby="manifest-title"
      aria-busy={busy}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <h3 id="manifest-title" ref={heading} tabIndex={-1}>
        {t('manifest.title', { name: fileName ?? preview.path })}
      </h3>
      <div
        className="manifest-preview-body"
        role="region"
        aria-labelledby="manifest-title"
        // Focusable, so a long preview scrolls with the keyboard too.
        tabIndex={0}
      >
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
      </div>
      <div className="row dialog-actions">
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
    </dialog>
  );
}
