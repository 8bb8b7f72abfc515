import { useState } from 'react';
import type { ManifestPreview } from '../../../shared/ipc/views';
import { formatCount } from '../format';
import { useDesk } from '../state/store';

function plural(count: number, one: string, many: string): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

/**
 * A manifest's preview: every problem by line and column, all at once, before anything is
 * kept. The user fixes the file and checks it again here; it is imported only when clean.
 */
export function ManifestImport({
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
  const { importManifest, previewManifest } = useDesk.getState();
  const [busy, setBusy] = useState(false);
  const valid = preview.issues.length === 0;
  const recipients = preview.documents.reduce((sum, document) => sum + document.recipients.length, 0);
  const fileName = preview.path.split(/[/\\]/).pop();

  async function checkAgain() {
    setBusy(true);
    const next = await previewManifest(preview.path);
    setBusy(false);
    if (next) onPreview(next);
  }

  async function runImport() {
    setBusy(true);
    const imported = await importManifest(batchId, preview.path);
    setBusy(false);
    if (imported) onClose();
  }

  return (
    <section className="card" aria-labelledby="manifest-title">
      <h3 id="manifest-title">Manifest {fileName}</h3>
      {valid ? (
        <p role="status">
          {plural(preview.documents.length, 'document', 'documents')},{' '}
          {plural(recipients, 'recipient', 'recipients')}. Nothing has been sent.
        </p>
      ) : (
        <>
          <p role="alert">
            {plural(preview.issues.length, 'problem', 'problems')} found; nothing was imported. Fix{' '}
            {preview.issues.length === 1 ? 'it' : 'them'} in the file, save it, then check again.
          </p>
          <ul className="issues" aria-label="Problems in the manifest">
            {preview.issues.map((issue, index) => (
              <li key={index}>{issue.text}</li>
            ))}
          </ul>
        </>
      )}
      {preview.documents.length > 0 && (
        <table className="table compact">
          <caption className="caption">
            {valid ? 'Documents to import' : 'Documents whose rows are already correct'}
          </caption>
          <thead>
            <tr>
              <th scope="col">Reference</th>
              <th scope="col">File (as the service stores it)</th>
              <th scope="col">Recipients</th>
              <th scope="col">Lines</th>
            </tr>
          </thead>
          <tbody>
            {preview.documents.map((document) => (
              <tr key={document.externalReference}>
                <th scope="row">{document.externalReference}</th>
                <td>{document.storedFilename}</td>
                <td>
                  {document.recipients
                    .map((recipient) => `${recipient.name} (${recipient.participant_type})`)
                    .join(', ')}
                </td>
                <td>{document.rows.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="row">
        {valid ? (
          <button type="button" className="primary" disabled={busy} onClick={() => void runImport()}>
            Import {plural(preview.documents.length, 'document', 'documents')}
          </button>
        ) : (
          <button type="button" className="primary" disabled={busy} onClick={() => void checkAgain()}>
            Check again
          </button>
        )}
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </section>
  );
}
