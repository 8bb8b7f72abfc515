/**
 * How the desk groups, measures and finds documents, as pure functions of what main reports
 * (and of live progress events, which main never stores).
 */
import type { DocumentClass } from '../../../shared/domain/document-class';
import {
  countByClass,
  DOCUMENT_CLASSES,
  SENT_CLASSES,
  sentCount,
  totalCount,
  type ClassCounts,
} from '../../../shared/domain/document-counts';
import type { MessageId } from '../../../shared/i18n/catalog';
import type { BatchDetail, DocumentView, EngineStateView } from '../../../shared/ipc/views';
import { searchForms } from './search-fold';
import type { Progress } from './transitions';

export type StatusFilter = 'all' | DocumentClass;

/** The filter's choices, in the order a batch moves through them; `label` is a catalog message. */
export const STATUS_FILTERS: readonly { readonly value: StatusFilter; readonly label: MessageId }[] = [
  { value: 'all', label: 'documents.filter.all' },
  { value: 'not_sent', label: 'documents.filter.notSent' },
  { value: 'sending', label: 'documents.filter.sending' },
  { value: 'waiting', label: 'documents.filter.waiting' },
  { value: 'unknown_status', label: 'documents.filter.unknownStatus' },
  { value: 'completed', label: 'documents.filter.completed' },
  { value: 'ended', label: 'documents.filter.ended' },
  { value: 'needs_check', label: 'documents.filter.needsCheck' },
  { value: 'failed', label: 'documents.filter.failed' },
  { value: 'gone', label: 'documents.filter.gone' },
];

/** Share of a document's sending done once each step is reached: the upload is the first 60 %. */
const STEP_SHARE: Readonly<Record<string, number>> = {
  queued: 0,
  uploading: 0,
  creating: 0.6,
  adding_participants: 0.75,
  preparing: 0.9,
  prepared: 1,
};

/**
 * How far one document's sending is, from 0 to 1: upload bytes for the first 60 %, then the
 * steps. Undefined for a document not being sent (not sent yet, or failed).
 */
export function documentProgress(document: DocumentView, live: Progress | undefined): number | undefined {
  const phase = live?.phase ?? document.phase;
  if (phase === 'draft' || phase === 'failed' || phase === 'needs_check') return undefined;
  if (phase === 'uploading' && live?.sentBytes !== undefined && live.totalBytes)
    return (0.6 * Math.min(live.sentBytes, live.totalBytes)) / live.totalBytes;
  return STEP_SHARE[phase] ?? 0;
}

export interface BatchProgress {
  /** Documents sent all the way (`sentCount` of the batch's one count). */
  readonly sent: number;
  /** Every document. */
  readonly total: number;
  /** 0…1 over the documents sent, being sent, or waiting to be sent, counting partial progress of those in flight. */
  readonly fraction: number;
}

/**
 * How many of `documents` are in each group: the batch screen's one count, from main's
 * classification (`DocumentView.class`) with the function main counts the batch list with. The
 * progress line, the filters, the banners and the glance all read this one.
 */
export function countDocuments(documents: readonly Pick<DocumentView, 'class'>[]): ClassCounts {
  return countByClass(documents, (document) => document.class);
}

/**
 * The batch's progress: how many documents are sent comes from the batch's one count (`counts`,
 * see `countDocuments`); the bar adds each document's live progress.
 */
export function batchProgress(
  detail: Pick<BatchDetail, 'id' | 'documents'>,
  counts: ClassCounts,
  progress: Readonly<Record<string, Progress>>,
): BatchProgress {
  let inScope = 0;
  let done = 0;
  for (const document of detail.documents) {
    if (document.class === 'gone') continue; // not at its service: neither sent nor in flight
    if (SENT_CLASSES.has(document.class)) {
      inScope += 1;
      done += 1;
      continue;
    }
    const value = documentProgress(document, progress[`${detail.id}/${document.id}`]);
    if (value === undefined) continue;
    inScope += 1;
    done += value;
  }
  return {
    sent: sentCount(counts),
    total: totalCount(counts),
    fraction: inScope === 0 ? 0 : done / inScope,
  };
}

/**
 * Why a document cannot be edited or removed now, or undefined when it can. A sent one (locked)
 * never can (its row offers neither); one in flight — its batch is being sent and it is queued or
 * uploading — cannot until sending is paused, since its creation may start at any moment and
 * main then refuses the change.
 */
export function editRefusal(
  document: Pick<DocumentView, 'class' | 'locked'>,
  engine: Pick<EngineStateView, 'state'>,
  live: Progress | undefined,
): MessageId | undefined {
  if (document.locked) return 'documents.action.inFlight';
  const running = engine.state === 'running' || engine.state === 'waiting';
  if (document.class === 'sending' && (running || live !== undefined)) return 'documents.action.inFlight';
  return undefined;
}

/** The columns the table sorts by; "updated" is the timeline's last change. */
export type SortKey = 'reference' | 'file' | 'state' | 'updated';
export interface DocumentSort {
  readonly key: SortKey;
  readonly direction: 'ascending' | 'descending';
}

/** The next sort when a column's header is pressed: ascending first, then descending. */
export function nextSort(current: DocumentSort | undefined, key: SortKey): DocumentSort {
  return current?.key === key && current.direction === 'ascending'
    ? { key, direction: 'descending' }
    : { key, direction: 'ascending' };
}

/** The order of the groups, as the filter lists them. */
const CLASS_ORDER: readonly DocumentClass[] = DOCUMENT_CLASSES;

/**
 * `documents` in `sort`'s order (a copy; without a sort, as they are). Text compares as the
 * locale does, numbers inside it by value ("NDA-9" before "NDA-10"); states follow the filter's
 * order; ties keep the batch's order.
 */
export function sortDocuments(
  documents: readonly DocumentView[],
  sort: DocumentSort | undefined,
  locale: string,
): readonly DocumentView[] {
  if (!sort) return documents;
  const collator = new Intl.Collator(locale, { numeric: true, sensitivity: 'base' });
  const compare: (a: DocumentView, b: DocumentView) => number = {
    reference: (a: DocumentView, b: DocumentView) =>
      collator.compare(a.externalReference, b.externalReference),
    file: (a: DocumentView, b: DocumentView) => collator.compare(a.storedFilename, b.storedFilename),
    state: (a: DocumentView, b: DocumentView) => CLASS_ORDER.indexOf(a.class) - CLASS_ORDER.indexOf(b.class),
    updated: (a: DocumentView, b: DocumentView) => a.updatedAt.localeCompare(b.updatedAt),
  }[sort.key];
  const sign = sort.direction === 'ascending' ? 1 : -1;
  return documents
    .map((document, index) => ({ document, index }))
    .sort((a, b) => sign * compare(a.document, b.document) || a.index - b.index)
    .map(({ document }) => document);
}

/**
 * Documents in `filter` whose reference, file or recipients contain `search`, whatever its case,
 * accents or spelling of letters a keyboard may lack (search-fold.ts: "soren" finds "Søren").
 */
export function filterDocuments(
  documents: readonly DocumentView[],
  filter: StatusFilter,
  search: string,
): DocumentView[] {
  // A search box holds one line, so no needle spans two words of a key.
  const needles = searchForms(search.trim()).filter((needle) => !needle.includes(WORD_BREAK));
  const searching = search.trim() !== '';
  return documents.filter((document) => {
    if (filter !== 'all' && document.class !== filter) return false;
    if (!searching) return true;
    const key = searchKeyOf(document);
    return needles.some((needle) => key.includes(needle));
  });
}

/** Between two words of a search key. */
const WORD_BREAK = '\n';

/** Each document's words, folded once: typing in a batch of 10,000 folds the needle only. */
const searchKeys = new WeakMap<DocumentView, string>();

/**
 * The reference, file and people's names and addresses of `document`, one a line, in each of
 * the forms a search compares (search-fold.ts).
 */
function searchKeyOf(document: DocumentView): string {
  let key = searchKeys.get(document);
  if (key === undefined) {
    key = searchForms(
      [
        document.externalReference,
        document.storedFilename,
        ...document.people.flatMap((person) => [person.name, person.email]),
      ].join(WORD_BREAK),
    ).join(WORD_BREAK);
    searchKeys.set(document, key);
  }
  return key;
}
