import type { Ref } from 'react';
import { sentCount, type ClassCounts } from '../../../shared/domain/document-counts';
import type { DocumentView } from '../../../shared/ipc/views';
import { CountFilters } from '../components/count-filters';
import { ProgressChart } from '../components/progress-chart';
import { useT } from '../i18n';
import type { BatchProgress, StatusFilter } from '../state/document-status';

/**
 * A batch at a glance, above its table: how far sending is, how many documents are in each
 * group (each a filter of the table), and how sending and signing moved over time. Every number
 * is the batch's one count (`countDocuments`), so none can disagree with another.
 */
export function BatchGlance({
  documents,
  counts,
  overall,
  filter,
  onFilter,
  filterRef,
}: {
  readonly documents: readonly DocumentView[];
  readonly counts: ClassCounts;
  readonly overall: BatchProgress;
  readonly filter: StatusFilter;
  readonly onFilter: (filter: StatusFilter) => void;
  /** The chosen filter, for the page to put the focus on. */
  readonly filterRef?: Ref<HTMLInputElement>;
}) {
  const t = useT();
  return (
    <section className="glance" aria-label={t('batch.glance')}>
      <div className="glance-main">
        <div className="batch-progress">
          <label htmlFor="batch-progress">
            {t('batch.progress', { sent: overall.sent, total: overall.total })}
          </label>
          <progress id="batch-progress" max={1} value={overall.fraction} />
        </div>
        <CountFilters
          counts={counts}
          total={overall.total}
          value={filter}
          onChange={onFilter}
          chosenRef={filterRef}
        />
      </div>
      <ProgressChart
        documents={documents}
        total={overall.total}
        sent={sentCount(counts)}
        signed={counts.completed}
      />
    </section>
  );
}
