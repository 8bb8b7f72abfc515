import { useId, type Ref } from 'react';
import type { ClassCounts } from '../../../shared/domain/document-counts';
import { useT, useTranslator } from '../i18n';
import { STATUS_FILTERS, type StatusFilter } from '../state/document-status';

/**
 * How many documents are in each group, each a filter of the table: a group of radio buttons
 * (one is chosen; arrow keys move between them, as in any radio group), each named by its
 * group and count. Groups with no document are left out, except "All" and the one chosen, so
 * the row says at a glance what the batch holds: signed, waiting, stuck.
 */
export function CountFilters({
  counts,
  total,
  value,
  onChange,
  chosenRef,
}: {
  /** The batch's one count (`countDocuments`), and every document. */
  readonly counts: ClassCounts;
  readonly total: number;
  readonly value: StatusFilter;
  readonly onChange: (filter: StatusFilter) => void;
  /** The chosen filter's radio button, for the page to put the focus on. */
  readonly chosenRef?: Ref<HTMLInputElement>;
}) {
  const t = useT();
  const { locale } = useTranslator();
  const name = useId();
  const number = new Intl.NumberFormat(locale);
  const shown = STATUS_FILTERS.filter(
    (filter) => filter.value === 'all' || filter.value === value || counts[filter.value] > 0,
  );
  return (
    <fieldset className="count-filters">
      <legend>{t('batch.show')}</legend>
      {shown.map((filter) => {
        const count = filter.value === 'all' ? total : counts[filter.value];
        const chosen = filter.value === value;
        return (
          <label key={filter.value} className={`count-filter count-filter-${filter.value}`}>
            <input
              ref={chosen ? chosenRef : undefined}
              type="radio"
              name={name}
              value={filter.value}
              checked={chosen}
              onChange={() => onChange(filter.value)}
            />
            <span className="count-filter-label">{t(filter.label)}</span>{' '}
            <span className="count-filter-count">{number.format(count)}</span>
          </label>
        );
      })}
    </fieldset>
  );
}
