import { useCallback, useEffect, useMemo, useRef, useState, type DragEvent } from 'react';
import type { DocumentView, ManifestPreview } from '../../../shared/ipc/views';
import { BatchBanners } from '../components/batch-banners';
import { RenameForm } from '../components/rename-form';
import { formatCount } from '../format';
import {
  batchProgress,
  countByBucket,
  filterDocuments,
  STATUS_FILTERS,
  type StatusFilter,
} from '../state/document-status';
import { useDesk } from '../state/store';
import { BatchSettings } from './batch-settings';
import { CheckDialog } from './check-dialog';
import { DocumentEditor } from './document-editor';
import { DocumentTable } from './document-table';
import { ManifestImport } from './manifest-import';
import { ReviewDialog, SentSummary } from './review-dialog';

function documentsLabel(count: number): string {
  return `${formatCount(count)} ${count === 1 ? 'document' : 'documents'}`;
}

/** One batch: prepare it (offline if need be), send it, follow it, open its ceremonies. */
export function BatchScreen({ batchId }: { batchId: string }) {
  const detail = useDesk((state) => state.details[batchId]);
  const progress = useDesk((state) => state.progress);
  const loadError = useDesk((state) => state.loadErrors[batchId]);
  const starting = useDesk((state) => state.starting[batchId] === true);
  const actions = useDesk.getState();
  const [preview, setPreview] = useState<ManifestPreview | undefined>();
  const [filter, setFilter] = useState<StatusFilter>('all');
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<DocumentView | undefined>();
  const [checking, setChecking] = useState<DocumentView | undefined>();
  /** The document whose check was just resolved: the focus goes to it once it is shown. */
  const [focusDocumentId, setFocusDocumentId] = useState<string | undefined>();
  const filterSelect = useRef<HTMLSelectElement>(null);
  const [renaming, setRenaming] = useState(false);
  const [dragging, setDragging] = useState(false);
  const [reviewing, setReviewing] = useState(false);

  const documents = useMemo(() => detail?.documents ?? [], [detail]);
  const shown = useMemo(() => filterDocuments(documents, filter, search), [documents, filter, search]);
  const buckets = useMemo(() => countByBucket(documents), [documents]);
  const overall = useMemo(() => batchProgress(documents, progress, batchId), [documents, progress, batchId]);
  const focusDone = useCallback(() => setFocusDocumentId(undefined), []);

  // A resolved document the filter now hides: the focus goes to the filter, not nowhere.
  useEffect(() => {
    if (focusDocumentId === undefined || shown.some((document) => document.id === focusDocumentId)) return;
    filterSelect.current?.focus();
    setFocusDocumentId(undefined);
  }, [focusDocumentId, shown]);

  if (!detail) {
    return loadError ? (
      <section className="screen">
        <p role="alert">{loadError}</p>
        <button type="button" onClick={() => actions.navigate({ name: 'batches' })}>
          Back to batches
        </button>
      </section>
    ) : (
      <p role="status">Loading the batch…</p>
    );
  }

  const engine = detail.engine;
  const running = engine.state === 'running' || engine.state === 'waiting';
  // Groups come from main's one classification (DocumentView.class); the page never derives them.
  const ready = documents.filter(
    (document) => document.class === 'not_sent' && document.problems.length === 0,
  );
  const withProblems = documents.filter(
    (document) => document.class === 'not_sent' && document.problems.length > 0,
  );
  const unfinished = documents.filter((document) => document.class === 'sending');
  const failed = documents.filter((document) => document.class === 'failed');
  const needsCheck = detail.counts.needsCheck;
  const canResume = !running && unfinished.length > 0;

  function drop(event: DragEvent) {
    event.preventDefault();
    setDragging(false);
    const files = [...event.dataTransfer.files];
    if (files.length > 0) void actions.addDroppedFiles(batchId, files);
  }

  return (
    <section
      aria-labelledby="batch-title"
      className={`screen drop-target${dragging ? ' dragging' : ''}`}
      onDragOver={(event) => {
        if (![...event.dataTransfer.types].includes('Files')) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
        setDragging(true);
      }}
      onDragLeave={(event) => {
        if (event.currentTarget === event.target) setDragging(false);
      }}
      onDrop={drop}
    >
      <div className="row spread">
        <div className="row">
          <h2 id="batch-title">{detail.name}</h2>
          {renaming ? (
            <RenameForm
              current={detail.name}
              onSave={(name) => {
                void actions.renameBatch(batchId, name);
                setRenaming(false);
              }}
              onCancel={() => setRenaming(false)}
            />
          ) : (
            <button type="button" className="link" onClick={() => setRenaming(true)}>
              Rename<span className="visually-hidden"> batch {detail.name}</span>
            </button>
          )}
        </div>
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
        {running ? (
          <button type="button" onClick={() => void actions.sending.pause(batchId)}>
            Pause sending
          </button>
        ) : canResume ? (
          <button
            type="button"
            className="primary"
            disabled={starting}
            onClick={() => void actions.sending.resume(batchId)}
          >
            {starting ? 'Starting…' : 'Resume sending'}
          </button>
        ) : (
          <button
            type="button"
            className="primary"
            disabled={ready.length === 0 || starting}
            onClick={() => setReviewing(true)}
          >
            {starting ? 'Starting…' : 'Send batch'}
          </button>
        )}
        {reviewing && (
          <ReviewDialog batchId={batchId} batchName={detail.name} onClose={() => setReviewing(false)} />
        )}
        {failed.length > 0 && (
          <button
            type="button"
            onClick={() =>
              void actions.sending.retryFailed(
                batchId,
                failed.map((document) => document.id),
              )
            }
          >
            Retry{' '}
            {failed.length === 1 ? 'the failed document' : `${formatCount(failed.length)} failed documents`}
          </button>
        )}
        <button type="button" onClick={() => void actions.tracking.refreshNow(batchId)}>
          Refresh statuses now
        </button>
        <button type="button" onClick={() => void actions.report.export(batchId)}>
          Export CSV…
        </button>
      </div>
      <p className="hint drop-hint">You can also drop PDF files anywhere on this batch.</p>

      <SentSummary batchId={batchId} documents={documents} engine={engine} />
      <BatchBanners detail={detail} />
      {needsCheck > 0 && (
        <div className="banner banner-error banner-with-action" role="alert">
          <p>
            {documentsLabel(needsCheck)} {needsCheck === 1 ? 'needs' : 'need'} your check: a signing request
            may already exist at the service, so the app will not send {needsCheck === 1 ? 'it' : 'them'}{' '}
            again by itself. Use “Check and resolve…” on {needsCheck === 1 ? 'it' : 'each'}.
          </p>
          {(filter !== 'needs_check' || search !== '') && (
            <button
              type="button"
              onClick={() => {
                setFilter('needs_check');
                setSearch('');
              }}
            >
              {needsCheck === 1 ? 'Show only this document' : 'Show only these documents'}
            </button>
          )}
        </div>
      )}
      {!running && withProblems.length > 0 && (
        <p className="hint">
          {documentsLabel(withProblems.length)} {withProblems.length === 1 ? 'needs' : 'need'} attention
          before sending (see Recipients); the others can be sent.
        </p>
      )}

      {overall.total > 0 && (
        <div className="batch-progress">
          <label htmlFor="batch-progress">
            {formatCount(overall.sent)} of {documentsLabel(overall.total)} sent
          </label>
          <progress id="batch-progress" max={1} value={overall.fraction} />
        </div>
      )}

      {/* Keyed on the saved defaults: the form starts afresh only when they change. */}
      <BatchSettings key={JSON.stringify(detail.defaults)} batchId={batchId} defaults={detail.defaults} />

      {preview && (
        <ManifestImport
          batchId={batchId}
          preview={preview}
          onPreview={setPreview}
          onClose={() => setPreview(undefined)}
        />
      )}

      {documents.length === 0 ? (
        <div className="empty">
          <p>
            This batch is empty. Add PDFs (or drop them here) and set their recipients, or import a manifest —
            you can do all of this offline.
          </p>
        </div>
      ) : (
        <>
          <div className="row">
            <label className="inline">
              Show
              <select
                ref={filterSelect}
                value={filter}
                onChange={(event) => setFilter(event.target.value as StatusFilter)}
              >
                {STATUS_FILTERS.map((option) => (
                  <option key={option.value} value={option.value}>
                    {option.label} ({formatCount(buckets[option.value])})
                  </option>
                ))}
              </select>
            </label>
            <label className="inline">
              Search reference, file or recipient
              <input type="search" value={search} onChange={(event) => setSearch(event.target.value)} />
            </label>
            <span className="muted-inline" role="status">
              {shown.length === documents.length
                ? documentsLabel(documents.length)
                : `${formatCount(shown.length)} of ${documentsLabel(documents.length)}`}
            </span>
          </div>
          {shown.length === 0 ? (
            <p className="empty">No document matches. Clear the search or show all.</p>
          ) : (
            <DocumentTable
              batchId={batchId}
              batchName={detail.name}
              documents={shown}
              onEdit={setEditing}
              onCheck={setChecking}
              focusDocumentId={focusDocumentId}
              onFocused={focusDone}
            />
          )}
        </>
      )}

      {checking && (
        <CheckDialog
          batchId={batchId}
          document={checking}
          onClose={() => setChecking(undefined)}
          onResolved={() => {
            setChecking(undefined);
            setFocusDocumentId(checking.id);
          }}
        />
      )}
      {editing && (
        <DocumentEditor
          batchId={batchId}
          document={editing}
          defaults={detail.defaults}
          onClose={() => setEditing(undefined)}
        />
      )}
    </section>
  );
}
