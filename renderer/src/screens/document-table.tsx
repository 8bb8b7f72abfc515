import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useRef } from 'react';
import type { MessageId } from '../../../shared/i18n/catalog';
import type { DocumentView, EngineStateView } from '../../../shared/ipc/views';
import { useT } from '../i18n';
import type { DocumentSort, SortKey } from '../state/document-status';
import { useDesk } from '../state/store';
import { COMPACT_ROW_PX } from '../state/table-density';
import { DocumentRow } from './document-row';

const COLUMNS = 6;
/**
 * A detailed row's typical height (a document with one or two recipients): close to real, so
 * measuring rows as they appear hardly moves the scroll position. Each row is measured once
 * shown. A compact row is exactly `COMPACT_ROW_PX` tall, so measuring one changes nothing: no
 * second render of the table, no correction of the scroll position, frame after frame of a
 * scroll. Only a row taller than that (its actions wrapped) changes the table's layout.
 */
const compactRowSize = () => COMPACT_ROW_PX;
const detailedRowSize = () => 72;

export interface DocumentTableProps {
  readonly batchId: string;
  readonly batchName: string;
  /** The documents to show, in the order to show them (see `sortDocuments`). */
  readonly documents: readonly DocumentView[];
  /** The batch's engine: a document it is sending cannot be edited or removed. */
  readonly engine: Pick<EngineStateView, 'state'>;
  /** One line a document, or everything about each (`renderer/src/state/table-density.ts`). */
  readonly compact: boolean;
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
  compact,
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
    estimateSize: compact ? compactRowSize : detailedRowSize,
    overscan: 8,
    getItemKey: itemKey,
  });
  const items = virtualizer.getVirtualItems();
  const paddingTop = items[0]?.start ?? 0;
  const paddingBottom = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  const focusIndex =
    focusDocumentId === undefined ? -1 : documents.findIndex((document) => document.id === focusDocumentId);

  // Rows measured in the other density are forgotten: each is measured again as it changes or shows.
  const measuredCompact = useRef(compact);
  useEffect(() => {
    if (measuredCompact.current === compact) return;
    measuredCompact.current = compact;
    virtualizer.measure();
  }, [compact, virtualizer]);

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
      <table className={`table documents${compact ? ' compact' : ''}`} aria-rowcount={documents.length + 1}>
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
                compact={compact}
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
