import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useRef } from 'react';
import type { MessageId } from '../../../shared/i18n/catalog';
import type { DocumentView, EngineStateView } from '../../../shared/ipc/views';
import { PeopleCell } from '../components/people-cell';
import { heldBackCheck } from './check-dialog';
import { PdfThumbnail } from '../components/pdf-thumbnail';
import { describeState, formatBytes, formatDateTime } from '../format';
import { useT, useTranslator } from '../i18n';
import { documentProgress, editRefusal, type DocumentSort, type SortKey } from '../state/document-status';
import { connectionUnavailable, needsConnection } from '../state/connection-status';
import { useDesk } from '../state/store';
import type { Progress } from '../state/transitions';

const COLUMNS = 6;
/** An upload's bytes in words, by where its attempt is (`Progress.upload`). */
const UPLOAD_WORDS = {
  sending: 'documents.uploaded',
  confirming: 'documents.uploadConfirming',
  sending_again: 'documents.uploadAgain',
} as const satisfies Record<NonNullable<Progress['upload']>, MessageId>;
/** A typical row (a document with one or two recipients): close to real, so measuring rows as they
 * appear hardly moves the scroll position. Each row is measured once shown. */
const ESTIMATED_ROW_PX = 72;
const estimatedRowSize = () => ESTIMATED_ROW_PX;

export interface DocumentTableProps {
  readonly batchId: string;
  readonly batchName: string;
  /** The documents to show, in the order to show them (see `sortDocuments`). */
  readonly documents: readonly DocumentView[];
  /** The batch's engine: a document it is sending cannot be edited or removed. */
  readonly engine: Pick<EngineStateView, 'state'>;
  /** The column the documents are sorted by, if any, and the header that changes it. */
  readonly sort: DocumentSort | undefined;
  readonly onSort: (key: SortKey) => void;
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
  engine,
  sort,
  onSort,
  onEdit,
  onCheck,
  focusDocumentId,
  onFocused,
}: DocumentTableProps) {
  const t = useT();
  const scroller = useRef<HTMLDivElement>(null);
  const progress = useDesk((state) => state.progress);
  // The same function while the documents stay the same: a new one makes the virtualizer lay
  // out every row again (10,000 in a large batch) on each render, such as each scroll frame.
  const itemKey = useCallback((index: number) => documents[index]?.id ?? index, [documents]);
  const virtualizer = useVirtualizer({
    count: documents.length,
    getScrollElement: () => scroller.current,
    estimateSize: estimatedRowSize,
    overscan: 8,
    getItemKey: itemKey,
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
      aria-label={t('documents.region', { batch: batchName })}
    >
      <table className="table documents" aria-rowcount={documents.length + 1}>
        <thead>
          <tr aria-rowindex={1}>
            <SortableHeader
              sortKey="reference"
              label="documents.column.reference"
              sort={sort}
              onSort={onSort}
            />
            <SortableHeader sortKey="file" label="documents.column.file" sort={sort} onSort={onSort} />
            <th scope="col">{t('documents.column.recipients')}</th>
            <SortableHeader sortKey="state" label="documents.column.state" sort={sort} onSort={onSort} />
            <SortableHeader
              sortKey="updated"
              label="documents.column.timeline"
              hint="documents.column.timelineSort"
              sort={sort}
              onSort={onSort}
            />
            <th scope="col">{t('documents.column.actions')}</th>
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
                engineState={engine.state}
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

/**
 * A column header that sorts the table: a button inside the header, whose state `aria-sort`
 * tells assistive technology. `hint` says what the column sorts by when its name does not.
 */
function SortableHeader({
  sortKey,
  label,
  hint,
  sort,
  onSort,
}: {
  sortKey: SortKey;
  label: MessageId;
  hint?: MessageId;
  sort: DocumentSort | undefined;
  onSort: (key: SortKey) => void;
}) {
  const t = useT();
  const direction = sort?.key === sortKey ? sort.direction : undefined;
  return (
    <th scope="col" aria-sort={direction ?? 'none'}>
      <button type="button" className="sort-button" onClick={() => onSort(sortKey)}>
        {t(label)}
        {hint && <span className="visually-hidden"> {t(hint)}</span>}
        <span className="sort-indicator" aria-hidden="true">
          {direction === 'ascending' ? '▲' : direction === 'descending' ? '▼' : '↕'}
        </span>
      </button>
    </th>
  );
}

const DocumentRow = memo(function DocumentRow({
  measure,
  index,
  batchId,
  document,
  live,
  engineState,
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
  engineState: EngineStateView['state'];
  onEdit: (document: DocumentView) => void;
  onCheck: (document: DocumentView) => void;
  takeFocus: boolean;
  onFocused: (() => void) | undefined;
}) {
  const { actions } = useDesk.getState();
  const t = useT();
  const { locale } = useTranslator();
  const stateLabel = useRef<HTMLSpanElement>(null);
  // The batch's own connection is gone: its ceremonies cannot open, and the button says why.
  const noConnection = useDesk((state) => {
    const batch = state.details[batchId];
    return batch !== undefined && connectionUnavailable(batch);
  });
  useEffect(() => {
    if (!takeFocus) return;
    stateLabel.current?.focus();
    onFocused?.();
  }, [takeFocus, onFocused]);
  const value = documentProgress(document, live);
  const bucket = document.class;
  const state = describeState(document, t, live?.phase);
  const refusal = editRefusal(document, { state: engineState }, live);
  const reasonId = `reason-${batchId}-${document.id}`;
  const reference = document.externalReference;
  // Another batch holds its reference: sent only anew on purpose, through the check dialog's confirmation.
  const heldBack = heldBackCheck(document, t);
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
          {formatBytes(document.sizeBytes, locale)} · SHA-256{' '}
          <button
            type="button"
            className="link mono"
            title={t('documents.sha.title')}
            onClick={() =>
              void actions.page.copyText(document.sha256, t('documents.sha.copied', { reference }))
            }
          >
            {document.sha256.slice(0, 12)}…
            <span className="visually-hidden"> {t('documents.sha.copy', { reference })}</span>
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
          <progress max={1} value={value} aria-label={t('documents.progressOf', { reference })} />
        )}
        {uploading && (
          <span className="muted">
            {t(UPLOAD_WORDS[live.upload ?? 'sending'], {
              sent: formatBytes(live.sentBytes ?? 0, locale),
              total: formatBytes(live.totalBytes ?? 0, locale),
            })}
          </span>
        )}
        {document.error && <span className="problem">{document.error.message}</span>}
      </td>
      <td>
        {/* Only what happened: a step not reached yet has no line (no "Prepared —"). */}
        <dl className="timeline">
          {document.preparedAt && (
            <>
              <dt>{t('documents.timeline.prepared')}</dt>
              <dd>{formatDateTime(document.preparedAt, locale)}</dd>
            </>
          )}
          {document.tracking?.openedAt && (
            <>
              <dt>{t('documents.timeline.opened')}</dt>
              <dd>{formatDateTime(document.tracking.openedAt, locale)}</dd>
            </>
          )}
          {document.tracking?.finalizedAt && (
            <>
              <dt>{t('documents.timeline.finalized')}</dt>
              <dd>{formatDateTime(document.tracking.finalizedAt, locale)}</dd>
            </>
          )}
          {document.lastCheckedAt && (
            <>
              <dt>{t('documents.timeline.lastChecked')}</dt>
              <dd>{formatDateTime(document.lastCheckedAt, locale)}</dd>
            </>
          )}
          <dt>{t('documents.timeline.lastChange')}</dt>
          <dd>{formatDateTime(document.updatedAt, locale)}</dd>
        </dl>
      </td>
      <td>
        <div className="actions">
          {document.canOpenCeremony && (
            <button
              type="button"
              {...needsConnection(batchId, noConnection)}
              onClick={() => !noConnection && void actions.ceremony.open(batchId, document.id)}
            >
              {t('documents.action.openCeremony')}
              <span className="visually-hidden"> {t('documents.action.openCeremonyFor', { reference })}</span>
            </button>
          )}
          {document.heldBy && !document.heldBy.deleted && (
            <button
              type="button"
              className="link"
              onClick={() =>
                actions.page.navigate({ name: 'batch', batchId: document.heldBy?.batchId ?? batchId })
              }
            >
              {t('documents.action.openHolder', { batch: document.heldBy.batchName })}
            </button>
          )}
          {document.check && (
            <button type="button" onClick={() => onCheck(document)}>
              {t('documents.action.check')}
              <span className="visually-hidden"> {reference}</span>
            </button>
          )}
          {heldBack && (
            <button type="button" onClick={() => onCheck(heldBack)}>
              {t('documents.action.sendAnew')}
              <span className="visually-hidden"> {reference}</span>
            </button>
          )}
          {document.gone && (
            <button type="button" onClick={() => void actions.tracking.checkAgain(batchId, document.id)}>
              {t('documents.action.checkAgain')}
              <span className="visually-hidden"> {t('documents.action.checkAgainFor', { reference })}</span>
            </button>
          )}
          {document.class === 'failed' && (
            <button type="button" onClick={() => void actions.sending.retry(batchId, document.id)}>
              {t('documents.action.retry')}
              <span className="visually-hidden"> {reference}</span>
            </button>
          )}
          {/* A sent document offers neither; one in flight shows both disabled, with why. */}
          {!document.locked && (
            <>
              <button
                type="button"
                disabled={refusal !== undefined}
                aria-describedby={refusal ? reasonId : undefined}
                title={refusal ? t(refusal) : undefined}
                onClick={() => onEdit(document)}
                aria-label={t('editor.title', { reference })}
              >
                {t('documents.action.edit')}
              </button>
              <button
                type="button"
                className="danger"
                disabled={refusal !== undefined}
                aria-describedby={refusal ? reasonId : undefined}
                title={refusal ? t(refusal) : undefined}
                aria-label={t('documents.action.removeNamed', { reference })}
                onClick={() => {
                  if (window.confirm(t('documents.action.removeConfirm', { reference })))
                    void actions.documents.remove(batchId, document.id);
                }}
              >
                {t('documents.action.remove')}
              </button>
              {refusal && (
                <span id={reasonId} className="action-reason">
                  {t(refusal)}
                </span>
              )}
            </>
          )}
        </div>
      </td>
    </tr>
  );
});
