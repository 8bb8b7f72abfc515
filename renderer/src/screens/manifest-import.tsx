import type { ManifestPreview } from '../../../shared/ipc/views';
import { useDesk } from '../state/store';

/** A manifest's preview: every problem by line before anything is kept; import only when clean. */
export function ManifestImport({
  batchId,
  preview,
  onClose,
}: {
  batchId: string;
  preview: ManifestPreview;
  onClose: () => void;
}) {
  const { importManifest, previewManifest } = useDesk.getState();
  const valid = preview.issues.length === 0;
  return (
    <section className="card" aria-labelledby="manifest-title">
      <h3 id="manifest-title">Manifest {preview.path.split(/[/\\]/).pop()}</h3>
      {valid ? (
        <p>
          {preview.documents.length} document(s),{' '}
          {preview.documents.reduce((sum, document) => sum + document.recipients.length, 0)} recipient(s).
          Nothing has been sent.
        </p>
      ) : (
        <>
          <p role="alert">
            {preview.issues.length} problem(s) found. Nothing was imported: fix them in the file, then check
            again.
          </p>
          <ul className="issues" aria-label="Problems in the manifest">
            {preview.issues.map((issue, index) => (
              <li key={index}>{issue.text}</li>
            ))}
          </ul>
        </>
      )}
      {valid && (
        <table className="table compact">
          <caption className="visually-hidden">Documents in the manifest</caption>
          <thead>
            <tr>
              <th scope="col">Reference</th>
              <th scope="col">File (as the service stores it)</th>
              <th scope="col">Recipients</th>
            </tr>
          </thead>
          <tbody>
            {preview.documents.map((document) => (
              <tr key={document.externalReference}>
                <td>{document.externalReference}</td>
                <td>{document.storedFilename}</td>
                <td>
                  {document.recipients
                    .map((recipient) => `${recipient.name} (${recipient.participant_type})`)
                    .join(', ')}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="row">
        {valid ? (
          <button
            type="button"
            className="primary"
            onClick={() => {
              void importManifest(batchId, preview.path).then((imported) => imported && onClose());
            }}
          >
            Import {preview.documents.length} document(s)
          </button>
        ) : (
          <button
            type="button"
            onClick={() => void previewManifest(preview.path).then((next) => next && onClose())}
          >
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
