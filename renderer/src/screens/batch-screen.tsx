import { useMemo, useState } from 'react';
import type { DocumentView } from '../../../shared/ipc/views';
import type { ManifestPreview } from '../../../shared/ipc/views';
import { describeState, formatBytes, formatDateTime } from '../format';
import { useDesk } from '../state/store';
import type { Progress } from '../state/transitions';
import { ManifestImport } from './manifest-import';

type Filter = 'all' | 'draft' | 'sending' | 'waiting' | 'completed' | 'failed';

const FILTERS: readonly { value: Filter; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'draft', label: 'Not sent' },
  { value: 'sending', label: 'Sending' },
  { value: 'waiting', label: 'Waiting for signatures' },
  { value: 'completed', label: 'Completed' },
  { value: 'failed', label: 'Failed' },
];

function bucketOf(document: DocumentView): Filter {
  if (document.tracking?.final) return 'completed';
  if (document.phase === 'prepared') return 'waiting';
  if (document.phase === 'failed') return 'failed';
  if (document.phase === 'draft') return 'draft';
  return 'sending';
}

const STEP_SHARE: Record<string, number> = {
  queued: 0,
  uploading: 0,
  creating: 0.6,
  adding_participants: 0.75,
  preparing: 0.9,
  prepared: 1,
};

/** How far one document is, 0…1: upload bytes count for the first 60 %, then the steps. */
function progressValue(document: DocumentView, live: Progress | undefined): number | undefined {
  const phase = live?.phase ?? document.phase;
  if (phase === 'draft' || phase === 'failed') return undefined;
  if (phase === 'uploading' && live?.sentBytes !== undefined && live.totalBytes)
    return (0.6 * live.sentBytes) / live.totalBytes;
  return STEP_SHARE[phase] ?? 0;
}

/** One batch: add documents, import a manifest, send, follow progress and statuses, open ceremonies. */
export function BatchScreen({ batchId }: { batchId: string }) {
  const detail = useDesk((state) => state.details[batchId]);
  const progress = useDesk((state) => state.progress);
  const actions = useDesk.getState();
  const [preview, setPreview] = useState<ManifestPreview | undefined>();
  const [filter, setFilter] = useState<Filter>('all');
  const [search, setSearch] = useState('');

  const documents = useMemo(() => {
    const needle = search.trim().toLowerCase();
    return (detail?.documents ?? []).filter(
      (document) =>
        (filter === 'all' || bucketOf(document) === filter) &&
        (!needle ||
          document.externalReference.toLowerCase().includes(needle) ||
          document.recipients.some((recipient) =>
            `${recipient.name} ${recipient.email}`.toLowerCase().includes(needle),
          )),
    );
  }, [detail, filter, search]);

  if (!detail) return <p role="status">Loading the batch…</p>;
  const engine = detail.engine;
  const sending = engine.state === 'running' || engine.state === 'waiting';
  const total = detail.documentCount;
  const done =
    detail.counts.prepared + detail.counts.inProgress + detail.counts.completed + detail.counts.gone;

  return (
    <section aria-labelledby="batch-title" className="screen">
      <div className="row spread">
        <h2 id="batch-title">{detail.name}</h2>
        <button type="button" className="link" onClick={() => actions.navigate({ name: 'batches' })}>
          Back to batches
        </button>
      </div>

      <div className="toolbar" role="toolbar" aria-label="Batch actions">
        <button type="button" onClick={() => void actions.addPdfs(batchId, 'files')}>
          Add PDFs…
        </button>
        <button type="button" onClick={() => void actions.addPdfs(batchId, 'folder')}>
          Add a folder…
        </button>
        <button type="button" onClick={() => void actions.pickManifest().then(setPreview)}>
          Import manifest…
        </button>
        {sending ? (
          <button type="button" onClick={() => void actions.pause(batchId)}>
            Pause sending
          </button>
        ) : (
          <button
            type="button"
            className="primary"
            disabled={total === 0}
            onClick={() => void actions.send(batchId)}
          >
            Send batch
          </button>
        )}
        <button type="button" onClick={() => void actions.refreshNow(batchId)}>
          Refresh statuses now
        </button>
        <button type="button" onClick={() => void actions.exportReport(batchId)}>
          Export CSV…
        </button>
      </div>

      {engine.state === 'waiting' && (
        <p className="banner" role="status">
          {engine.reason ?? 'Waiting for the signing service.'}
        </p>
      )}

      <div className="batch-progress">
        <label htmlFor="batch-progress">
          {done} of {total} document(s) sent
        </label>
        <progress id="batch-progress" max={Math.max(1, total)} value={done} />
      </div>

      {preview && (
        <ManifestImport batchId={batchId} preview={preview} onClose={() => setPreview(undefined)} />
      )}

      <div className="row">
        <label className="inline">
          Show
          <select value={filter} onChange={(event) => setFilter(event.target.value as Filter)}>
            {FILTERS.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <label className="inline">
          Search reference or recipient
          <input type="search" value={search} onChange={(event) => setSearch(event.target.value)} />
        </label>
      </div>

      {total === 0 ? (
        <div className="empty">
          <p>This batch is empty. Add PDFs or import a manifest to prepare it — you can do this offline.</p>
        </div>
      ) : (
        <table className="table documents">
          <caption className="visually-hidden">Documents of {detail.name}</caption>
          <thead>
            <tr>
              <th scope="col">Reference</th>
              <th scope="col">File</th>
              <th scope="col">Recipients</th>
              <th scope="col">State</th>
              <th scope="col">Timeline</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {documents.map((document) => {
              const live = progress[`${batchId}/${document.id}`];
              const value = progressValue(document, live);
              const state = describeState(
                live?.phase ?? document.phase,
                document.tracking?.status,
                document.tracking?.final ?? false,
                document.gone,
              );
              return (
                <tr key={document.id} data-reference={document.externalReference}>
                  <th scope="row">{document.externalReference}</th>
                  <td>
                    <span className="filename">{document.storedFilename}</span>
                    <span className="muted">
                      {formatBytes(document.sizeBytes)} · SHA-256{' '}
                      <button
                        type="button"
                        className="link mono"
                        title="Copy the full SHA-256"
                        aria-label={`Copy SHA-256 of ${document.externalReference}`}
                        onClick={() => void navigator.clipboard?.writeText(document.sha256)}
                      >
                        {document.sha256.slice(0, 12)}…
                      </button>
                    </span>
                  </td>
                  <td>
                    {[...document.recipients, ...document.extraParticipants].map((recipient) => (
                      <span key={recipient.email} className="recipient">
                        {recipient.name} <span className="muted">({recipient.participant_type})</span>
                      </span>
                    ))}
                    {document.problems.map((problem) => (
                      <span key={problem} className="problem">
                        {problem}
                      </span>
                    ))}
                  </td>
                  <td>
                    <span className={`state state-${bucketOf(document)}`}>{state}</span>
                    {value !== undefined && value < 1 && (
                      <progress
                        max={1}
                        value={value}
                        aria-label={`Progress of ${document.externalReference}`}
                      />
                    )}
                    {document.error && <span className="problem">{document.error.message}</span>}
                    {document.tracking && (
                      <span className="muted">
                        Evidence {document.tracking.evidenceReady ? 'ready' : 'not ready yet'}
                      </span>
                    )}
                  </td>
                  <td>
                    <dl className="timeline">
                      <dt>Prepared</dt>
                      <dd>{formatDateTime(document.tracking?.preparedAt)}</dd>
                      <dt>Opened</dt>
                      <dd>{formatDateTime(document.tracking?.openedAt)}</dd>
                      <dt>Finalized</dt>
                      <dd>{formatDateTime(document.tracking?.finalizedAt)}</dd>
                    </dl>
                  </td>
                  <td>
                    <div className="actions">
                      {document.canOpenCeremony && (
                        <button type="button" onClick={() => void actions.openCeremony(batchId, document.id)}>
                          Open ceremony
                          <span className="visually-hidden"> for {document.externalReference}</span>
                        </button>
                      )}
                      {document.phase === 'failed' && (
                        <button type="button" onClick={() => void actions.retry(batchId, document.id)}>
                          Retry<span className="visually-hidden"> {document.externalReference}</span>
                        </button>
                      )}
                      {!document.locked && (
                        <button
                          type="button"
                          className="danger"
                          onClick={() => void actions.removeDocument(batchId, document.id)}
                        >
                          Remove<span className="visually-hidden"> {document.externalReference}</span>
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
