import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useEffect, useRef } from 'react';
import type { DocumentView } from '../../../shared/ipc/views';
import { PeopleCell } from '../components/people-cell';
import { PdfThumbnail } from '../components/pdf-thumbnail';
import { describeState, formatBytes, formatDateTime } from '../format';
import { documentProgress } from '../state/document-status';
import { useDesk } from '../state/store';
import type { Progress } from '../state/transitions';

const COLUMNS = 6;
/** A typical row (a document with one or two recipients): close to real, so measuring rows as they
 * appear hardly moves the scroll position. Each row is measured once shown. */
const ESTIMATED_ROW_PX = 72;

export interface DocumentTableProps {
  readonly batchId: string;
  readonly batchName: string;
  readonly documents: readonly DocumentView[];
  readonly onEdit: (document: DocumentView) => void;
  /** Opens the check of a document that needs one (link the existing request, or send anew). */
  readonly onCheck: (document: DocumentView) => void;
  /** A document to scroll to and put the focus on (its state), e.g. once its check is resolved. */
  readonly focusDocumentId?: string | undefined;
  /** Called once the focus is on `focusDocumentId`. */
  readonly onFocused?: () => void;
}

/**
 * Every document of a batch with its state, progress, timeline and actions. Only the rows in
 * view are rendered (spacer rows stand for the others), so a batch of thousands scrolls
 * smoothly; `aria-rowcount`/`aria-rowindex` tell assistive technology the table's real size.
 */
export function DocumentTable({
  batchId,
  batchName,
  documents,
  onEdit,
  onCheck,
  focusDocumentId,
  onFocused,
}: DocumentTableProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const progress = useDesk((state) => state.progress);
  const virtualizer = useVirtualizer({
    count: documents.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ESTIMATED_ROW_PX,
    overscan: 8,
    getItemKey: (index) => documents[index]?.id ?? index,
  });
  const items = virtualizer.getVirtualItems();
  const paddingTop = items[0]?.start ?? 0;
  const paddingBottom = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  const focusIndex =
    focusDocumentId === undefined ? -1 : documents.findIndex((document) => document.id === focusDocumentId);

  // Brings the row to focus into view; once rendered, the row takes the focus itself.
  useEffect(() => {
    if (focusIndex >= 0) virtualizer.scrollToIndex(focusIndex, { align: 'auto' });
  }, [focusIndex, virtualizer]);

  return (
    <div
      ref={scroller}
      className="table-scroll"
      // Focusable, so the list scrolls with the keyboard.
      tabIndex={0}
      role="region"
      aria-label={`Documents of ${batchName}`}
    >
      <table className="table documents" aria-rowcount={documents.length + 1}>
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col">Reference</th>
            <th scope="col">File</th>
            <th scope="col">Recipients</th>
            <th scope="col">State</th>
            <th scope="col">Timeline</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {paddingTop > 0 && (
            <tr aria-hidden="true" className="spacer">
              <td colSpan={COLUMNS} style={{ height: paddingTop }} />
            </tr>
          )}
          {items.map((item) => {
            const document = documents[item.index];
            if (!document) return null;
            return (
              <DocumentRow
                key={item.key}
                measure={virtualizer.measureElement}
                index={item.index}
                batchId={batchId}
                document={document}
                live={progress[`${batchId}/${document.id}`]}
                onEdit={onEdit}
                onCheck={onCheck}
                takeFocus={item.index === focusIndex}
                onFocused={onFocused}
              />
            );
          })}
          {paddingBottom > 0 && (
            <tr aria-hidden="true" className="spacer">
              <td colSpan={COLUMNS} style={{ height: paddingBottom }} />
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}

const DocumentRow = memo(function DocumentRow({
  measure,
  index,
  batchId,
  document,
  live,
  onEdit,
  onCheck,
  takeFocus,
  onFocused,
}: {
  measure: (element: Element | null) => void;
  index: number;
  batchId: string;
  document: DocumentView;
  live: Progress | undefined;
  onEdit: (document: DocumentView) => void;
  onCheck: (document: DocumentView) => void;
  takeFocus: boolean;
  onFocused: (() => void) | undefined;
}) {
  const actions = useDesk.getState();
  const stateLabel = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    if (!takeFocus) return;
    stateLabel.current?.focus();
    onFocused?.();
  }, [takeFocus, onFocused]);
  const value = documentProgress(document, live);
  const bucket = document.class;
  const state = describeState(document, live?.phase);
  const reference = document.externalReference;
  const uploading = live?.phase === 'uploading' && live.sentBytes !== undefined && live.totalBytes;
  return (
    <tr ref={measure} data-index={index} aria-rowindex={index + 2} data-reference={reference}>
      <th scope="row">
        {reference}
        {document.requestId && <span className="muted mono">{document.requestId}</span>}
      </th>
      <td>
        <PdfThumbnail batchId={batchId} document={document} />
        <span className="filename">{document.storedFilename}</span>
        <span className="muted">
          {formatBytes(document.sizeBytes)} · SHA-256{' '}
          <button
            type="button"
            className="link mono"
            title="Copy the full SHA-256"
            onClick={() => void actions.copyText(document.sha256, `The SHA-256 of ${reference} is copied.`)}
          >
            {document.sha256.slice(0, 12)}…
            <span className="visually-hidden"> copy the full SHA-256 of {reference}</span>
          </button>
        </span>
      </td>
      <td>
        <PeopleCell people={document.people} reference={reference} />
        {document.problems.map((problem, position) => (
          <span key={`${position}-${problem}`} className="problem">
            {problem}
          </span>
        ))}
      </td>
      <td>
        {/* Focusable from script only: where the focus lands once the document's check is resolved. */}
        <span ref={stateLabel} tabIndex={-1} className={`state state-${bucket}`}>
          {state}
        </span>
        {value !== undefined && value < 1 && (
          <progress max={1} value={value} aria-label={`Progress of ${reference}`} />
        )}
        {uploading && (
          <span className="muted">
            {formatBytes(live.sentBytes ?? 0)} of {formatBytes(live.totalBytes ?? 0)}
          </span>
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
          {document.lastCheckedAt && (
            <>
              <dt>Last checked</dt>
              <dd>{formatDateTime(document.lastCheckedAt)}</dd>
            </>
          )}
        </dl>
      </td>
      <td>
        <div className="actions">
          {document.canOpenCeremony && (
            <button type="button" onClick={() => void actions.ceremony.open(batchId, document.id)}>
              Open ceremony<span className="visually-hidden"> for {reference}</span>
            </button>
          )}
          {document.check && (
            <button type="button" onClick={() => onCheck(document)}>
              Check and resolve…<span className="visually-hidden"> {reference}</span>
            </button>
          )}
          {document.gone && (
            <button type="button" onClick={() => void actions.tracking.checkAgain(batchId, document.id)}>
              Check again<span className="visually-hidden"> {reference} at its service</span>
            </button>
          )}
          {document.class === 'failed' && (
            <button type="button" onClick={() => void actions.sending.retry(batchId, document.id)}>
              Retry<span className="visually-hidden"> {reference}</span>
            </button>
          )}
          {!document.locked && (
            <>
              <button type="button" onClick={() => onEdit(document)}>
                Edit<span className="visually-hidden"> {reference}</span>
              </button>
              <button
                type="button"
                className="danger"
                onClick={() => {
                  if (window.confirm(`Remove ${reference} from the batch? Its PDF stays where it was.`))
                    void actions.removeDocument(batchId, document.id);
                }}
              >
                Remove<span className="visually-hidden"> {reference}</span>
              </button>
            </>
          )}
        </div>
      </td>
    </tr>
  );
});
